/**
 * Citations point back at sealed events: `eventloom://<thread>/events/<seq>#<first 12 hex>`.
 * A cited source event is `{seq, hash}` (seq >= 1, 64 lowercase hex); on the CLI `SEQ:HASH`.
 */
import { JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";

export interface SourceEventRef {
  seq: number;
  hash: string;
}

/** A cited event as JSON, `{seq, hash}` in that key order (as Python writes it). */
export function sourceEventRefJson(ref: SourceEventRef): JsonObject {
  return new Map<string, JsonValue>([["seq", JsonNumber.int(ref.seq)], ["hash", ref.hash]]);
}

/** A list of cited events as JSON (order kept: it matters to ids). */
export function sourceEventsJson(sourceEvents: readonly SourceEventRef[]): JsonValue[] {
  return sourceEvents.map(sourceEventRefJson);
}

/** Hex characters of the hash kept in a citation URI. */
export const citationHashChars = 12;

/**
 * @example
 * citationUri("default", 3, "ab12...") // "eventloom://default/events/3#ab12cd34ef56"
 */
export function citationUri(thread: string, seq: number, hash: string): string {
  return `eventloom://${thread}/events/${seq}#${hash.slice(0, citationHashChars)}`;
}

const citationPattern = /^eventloom:\/\/([^/]+)\/events\/(\d+)#([a-f0-9]+)$/;

export function parseCitationUri(uri: string): { thread: string; seq: number; hashPrefix: string } | undefined {
  const match = citationPattern.exec(uri);
  if (match === null) return undefined;
  return { thread: match[1], seq: Number(match[2]), hashPrefix: match[3] };
}

/** Parses the CLI form `SEQ:HASH`. */
export function parseSourceEventRef(text: string, field = "--source-event"): SourceEventRef {
  const match = /^([1-9][0-9]*):([0-9a-f]{64})$/.exec(text);
  if (match === null) {
    throw inputError("invalid_source_event", `${field} ${JSON.stringify(text)} is not SEQ:HASH (seq >= 1, 64 lowercase hex)`, {
      field,
      expected: "SEQ:HASH",
    });
  }
  return { seq: Number(match[1]), hash: match[2] };
}
