/**
 * How a caller names the event an edit, forget, rollback, outcome or gate decision is about, and
 * the source events a promotion or a consolidation candidate cites. Three forms, all resolved to
 * the event's `{seq, hash}` with its full 64-hex hash, which is what gets recorded:
 *
 * - a citation `eventloom://<session>/events/<seq>#<hash prefix>` (the `target` argument), whose
 *   session must be the session the call acts on;
 * - a hash prefix of at least 12 lowercase hex (a citation's `#` part), with or without the seq:
 *   looked up in the session's verified log, it must match exactly one event (or, with the seq,
 *   the event at that seq);
 * - the full 64-hex hash with the seq, passed through unread so that the operation's own checks
 *   (and their messages) apply exactly as they always have.
 *
 * Every refusal is bad input (exit 2) naming the field, raised before anything is written.
 * Field names default to the MCP keys (`target_seq`, `target_hash`, `target`); the CLI passes
 * its flags.
 *
 * @example
 * await resolveEventTarget(".eventloom", "s", { citation: "eventloom://s/events/3#de8003d03709" });
 * // { seq: 3, hash: "de8003d03709…" (64 hex) }
 * await resolveEventTarget(".eventloom", "s", { hash: "de8003d03709" });
 * // the same event, found by its hash prefix
 */
import { inputError } from "../errors.ts";
import { citationHashChars, parseCitationUri, type SourceEventRef, sessionLogPath } from "./root.ts";
import type { EventRecord } from "./envelope.ts";
import { readVerifiedEvents } from "./replay.ts";

/**
 * Fewest hex characters a hash prefix may have: as many as a citation carries, which is what
 * callers copy; fewer could name several events of a long log.
 */
export const targetHashPrefixCharsMin = citationHashChars;
export const fullHashChars = 64;
const hexPattern = /^[0-9a-f]+$/;

/** What the caller passed, unchecked: any of them may be missing. */
export interface EventTargetInput {
  seq?: unknown;
  hash?: unknown;
  citation?: unknown;
}

/** How messages name the three inputs. */
export interface EventTargetFields {
  seq: string;
  hash: string;
  citation: string;
}

export const eventTargetMcpFields: EventTargetFields = { seq: "target_seq", hash: "target_hash", citation: "target" };

/** The checked input: a hash (prefix or full) and, when given or cited, the seq. */
interface EventTargetSpec {
  seq?: number;
  hash: string;
  /** The citation it came from, when it came from one. */
  citation?: string;
}

function missing(input: EventTargetInput): boolean {
  return input.seq === undefined && input.hash === undefined && input.citation === undefined;
}

/**
 * What a citation of another session is told: by default that the call acts on `sessionId`; a
 * source-event list says whose events it must cite (`the origin session`, `--origin-session`).
 */
export interface SessionRole {
  noun: string;
  field: string;
}

function sessionMismatch(uri: string, cited: string, sessionId: string, fields: EventTargetFields, role: SessionRole | undefined) {
  if (role === undefined) {
    return inputError("target_session_mismatch", `${fields.citation} ${JSON.stringify(uri)} cites session ${JSON.stringify(cited)}, but this call acts on session ${JSON.stringify(sessionId)}`, {
      field: fields.citation,
      expected: `a citation of session ${JSON.stringify(sessionId)}`,
      hint: `Select session ${JSON.stringify(cited)} to act on its event, or cite an event of session ${JSON.stringify(sessionId)}.`,
    });
  }
  return inputError("target_session_mismatch", `${fields.citation} ${JSON.stringify(uri)} cites session ${JSON.stringify(cited)}, but it must cite an event of ${role.noun} ${JSON.stringify(sessionId)} (${role.field})`, {
    field: fields.citation,
    expected: `a citation of session ${JSON.stringify(sessionId)}`,
    hint: `Cite an event of session ${JSON.stringify(sessionId)}, or pass ${role.field} ${cited}.`,
  });
}

function parseCitation(citation: unknown, sessionId: string, fields: EventTargetFields, role?: SessionRole): EventTargetSpec {
  const parsed = typeof citation === "string" ? parseCitationUri(citation.trim()) : undefined;
  if (parsed === undefined) {
    throw inputError("invalid_target", `${fields.citation} must be a citation eventloom://<session>/events/<seq>#<hash prefix>, got ${JSON.stringify(citation)}`, {
      field: fields.citation,
      expected: "eventloom://<session>/events/<seq>#<12 hex>",
    });
  }
  const uri = (citation as string).trim();
  if (parsed.seq < 1 || !Number.isSafeInteger(parsed.seq)) {
    throw inputError("invalid_target", `${fields.citation} ${JSON.stringify(uri)} names seq ${parsed.seq}; seqs start at 1`, { field: fields.citation });
  }
  if (parsed.hashPrefix.length < targetHashPrefixCharsMin || parsed.hashPrefix.length > fullHashChars) {
    throw inputError("invalid_target", `${fields.citation} ${JSON.stringify(uri)} carries ${parsed.hashPrefix.length} hex characters of the hash; ${targetHashPrefixCharsMin} to ${fullHashChars} are needed`, {
      field: fields.citation,
      expected: `${targetHashPrefixCharsMin} to ${fullHashChars} lowercase hex after #`,
    });
  }
  if (parsed.thread !== sessionId) throw sessionMismatch(uri, parsed.thread, sessionId, fields, role);
  return { seq: parsed.seq, hash: parsed.hashPrefix, citation: uri };
}

/** Checks the form of what was given (no I/O); undefined when nothing was. */
function parseEventTarget(input: EventTargetInput, sessionId: string, fields: EventTargetFields, role?: SessionRole): EventTargetSpec | undefined {
  if (missing(input)) return undefined;
  if (input.citation !== undefined) {
    if (input.seq !== undefined || input.hash !== undefined) {
      const extra = input.seq !== undefined ? fields.seq : fields.hash;
      throw inputError("invalid_target", `Give ${fields.citation} or ${fields.seq}/${fields.hash}, not both (${extra} was given too)`, { field: extra });
    }
    return parseCitation(input.citation, sessionId, fields, role);
  }
  const seq = input.seq;
  if (seq !== undefined && (typeof seq !== "number" || !Number.isSafeInteger(seq) || seq < 1)) {
    throw inputError("invalid_target", `${fields.seq} must be an integer >= 1, got ${JSON.stringify(seq)}`, { field: fields.seq, expected: "an integer >= 1" });
  }
  const hash = input.hash;
  if (hash === undefined) {
    throw inputError("missing_target", `${fields.hash} is required with ${fields.seq} (or ${fields.citation} CITATION)`, {
      field: fields.hash,
      expected: `the event's hash: ${targetHashPrefixCharsMin} to ${fullHashChars} lowercase hex`,
    });
  }
  if (typeof hash !== "string" || !hexPattern.test(hash) || hash.length > fullHashChars) {
    throw inputError("invalid_target", `${fields.hash} must be ${fullHashChars} lowercase hex, or a prefix of at least ${targetHashPrefixCharsMin} (as after a citation's #), got ${JSON.stringify(hash)}`, {
      field: fields.hash,
      expected: `${targetHashPrefixCharsMin} to ${fullHashChars} lowercase hex`,
    });
  }
  if (hash.length < targetHashPrefixCharsMin) {
    throw inputError("invalid_target", `${fields.hash} ${JSON.stringify(hash)} has ${hash.length} hex characters; at least ${targetHashPrefixCharsMin} are needed to name one event`, {
      field: fields.hash,
      expected: `${targetHashPrefixCharsMin} to ${fullHashChars} lowercase hex`,
    });
  }
  return { seq: seq as number | undefined, hash };
}

/**
 * The event `spec` names among the session's verified `events`. With a seq, the event at that
 * seq must be among those whose hash starts with the prefix; without one, exactly one event may.
 */
function pickEventTarget(events: readonly EventRecord[], sessionId: string, spec: EventTargetSpec, fields: EventTargetFields): SourceEventRef {
  const hashField = spec.citation === undefined ? fields.hash : fields.citation;
  const matches = events.filter((event) => event.hash.startsWith(spec.hash));
  if (matches.length === 0) {
    throw inputError("unknown_target", `No event in session ${JSON.stringify(sessionId)} has a hash starting with ${spec.hash}${spec.citation === undefined ? "" : ` (from ${spec.citation})`}`, {
      field: hashField,
      expected: `the hash of an event of session ${JSON.stringify(sessionId)} (it has ${events.length} events)`,
    });
  }
  if (spec.seq !== undefined) {
    const atSeq = matches.find((event) => event.seq === spec.seq);
    if (atSeq !== undefined) return { seq: atSeq.seq, hash: atSeq.hash };
    const seqs = matches.map((event) => event.seq).join(", ");
    const where = matches.length === 1 ? `is seq ${seqs}` : `are seqs ${seqs}`;
    const message = spec.citation === undefined
      ? `${fields.seq} ${spec.seq} and ${fields.hash} ${spec.hash} disagree: in session ${JSON.stringify(sessionId)} the event${matches.length === 1 ? "" : "s"} whose hash starts with ${spec.hash} ${where}`
      : `${fields.citation} ${JSON.stringify(spec.citation)} does not match session ${JSON.stringify(sessionId)}: the event${matches.length === 1 ? "" : "s"} whose hash starts with ${spec.hash} ${where}, not ${spec.seq}`;
    throw inputError("target_mismatch", message, { field: spec.citation === undefined ? fields.seq : fields.citation, expected: `seq ${seqs}` });
  }
  if (matches.length > 1) {
    const seqs = matches.map((event) => event.seq).join(", ");
    throw inputError("ambiguous_target", `${fields.hash} ${spec.hash} matches ${matches.length} events in session ${JSON.stringify(sessionId)} (seqs ${seqs}); give more hex characters or ${fields.seq}`, {
      field: fields.hash,
      expected: "a prefix of exactly one event's hash",
    });
  }
  return { seq: matches[0].seq, hash: matches[0].hash };
}

export interface ResolveEventTargetOptions {
  fields?: Partial<EventTargetFields>;
  /** Default true: naming no event is refused; false returns undefined for it. */
  required?: boolean;
}

/**
 * The `{seq, hash}` (full hash) of the event `input` names in `sessionId`, else bad input naming
 * the field. Reads the verified log only for a citation or a hash prefix.
 */
export async function resolveEventTarget(root: string, sessionId: string, input: EventTargetInput, options?: ResolveEventTargetOptions & { required?: true }): Promise<SourceEventRef>;
export async function resolveEventTarget(root: string, sessionId: string, input: EventTargetInput, options: ResolveEventTargetOptions): Promise<SourceEventRef | undefined>;
export async function resolveEventTarget(root: string, sessionId: string, input: EventTargetInput, options: ResolveEventTargetOptions = {}): Promise<SourceEventRef | undefined> {
  const fields = { ...eventTargetMcpFields, ...options.fields };
  const spec = parseEventTarget(input, sessionId, fields);
  if (spec === undefined) {
    if (options.required === false) return undefined;
    throw inputError("missing_target", `${fields.hash} is required, with or without ${fields.seq} (or ${fields.citation} CITATION)`, {
      field: fields.hash,
      expected: `the event's hash (${targetHashPrefixCharsMin} to ${fullHashChars} lowercase hex) or its citation`,
    });
  }
  if (isPassedThrough(spec)) return { seq: spec.seq!, hash: spec.hash };
  const events = await readSessionEvents(root, sessionId, spec.citation === undefined ? fields.hash : fields.citation, "session_id");
  return pickEventTarget(events, sessionId, spec, fields);
}

/** The seq with the full hash is checked by the operation itself, as it always was. */
function isPassedThrough(spec: EventTargetSpec): boolean {
  return spec.seq !== undefined && spec.hash.length === fullHashChars && spec.citation === undefined;
}

async function readSessionEvents(root: string, sessionId: string, resolving: string, sessionField: string): Promise<EventRecord[]> {
  const verified = await readVerifiedEvents(sessionLogPath(root, sessionId, "read"), {
    sessionId,
    missing: () =>
      inputError("unknown_session", `Cannot resolve ${resolving}: session ${JSON.stringify(sessionId)} has no log under ${root}`, {
        field: sessionField,
        expected: "an existing session",
      }),
  });
  return verified.events;
}

/** How a list of cited source events is named: `--source-event` (CLI) or `source_events` (MCP). */
export interface SourceEventsOptions {
  field: string;
  /** Whose events they must be, when not the session the call acts on. */
  role?: SessionRole;
}

/** A checked source event, waiting for the lookup. */
export interface SourceEventSpec {
  spec: EventTargetSpec;
  fields: EventTargetFields;
}

const sourceEventTextPattern = /^([1-9][0-9]*):([0-9a-f]{12,64})$/;

/**
 * One source event as given: the CLI's `SEQ:HASH` (full hash or a prefix of at least 12 hex) or
 * citation text, or MCP's `{seq, hash}` object or citation string.
 */
function sourceEventInput(item: unknown, fields: EventTargetFields): EventTargetInput {
  if (typeof item === "string" && item.trim().startsWith("eventloom://")) return { citation: item };
  if (typeof item === "string") {
    const match = sourceEventTextPattern.exec(item);
    if (match !== null) return { seq: Number(match[1]), hash: match[2] };
  } else if (typeof item === "object" && item !== null && !Array.isArray(item)) {
    const { seq, hash } = item as { seq?: unknown; hash?: unknown };
    return { seq, hash };
  }
  throw inputError(
    "invalid_source_event",
    `${fields.citation} ${JSON.stringify(item)} is not SEQ:HASH (seq >= 1, 64 lowercase hex or a prefix of at least ${targetHashPrefixCharsMin}) nor a citation eventloom://<session>/events/<seq>#<hash prefix>`,
    { field: fields.citation, expected: "SEQ:HASH, SEQ:PREFIX or a citation" },
  );
}

/** The CLI names every item by its flag; MCP by its index and key. */
function sourceEventFields(field: string, index: number): EventTargetFields {
  if (field.startsWith("--")) return { seq: field, hash: field, citation: field };
  return { seq: `${field}[${index}].seq`, hash: `${field}[${index}].hash`, citation: `${field}[${index}]` };
}

/** Checks the form of every source event (no I/O): bad input names the item. */
export function parseSourceEvents(items: readonly unknown[], sessionId: string, options: SourceEventsOptions): SourceEventSpec[] {
  return items.map((item, index) => {
    const fields = sourceEventFields(options.field, index);
    const spec = parseEventTarget(sourceEventInput(item, fields), sessionId, fields, options.role);
    if (spec === undefined) {
      throw inputError("missing_target", `${fields.hash} is required: the event's hash, ${targetHashPrefixCharsMin} to ${fullHashChars} lowercase hex`, { field: fields.hash });
    }
    return { spec, fields };
  });
}

/**
 * The `{seq, hash}` (full hash) of each checked source event, in order. The session's verified
 * log is read once, and only when a citation or a prefix needs it; a seq with the full hash is
 * passed through for the operation's own sealed-event check, as before.
 */
export async function lookUpSourceEvents(root: string, sessionId: string, specs: readonly SourceEventSpec[], options: SourceEventsOptions): Promise<SourceEventRef[]> {
  let events: EventRecord[] | undefined;
  const refs: SourceEventRef[] = [];
  for (const { spec, fields } of specs) {
    if (isPassedThrough(spec)) {
      refs.push({ seq: spec.seq!, hash: spec.hash });
      continue;
    }
    events ??= await readSessionEvents(root, sessionId, fields.citation, options.role?.field ?? "session_id");
    refs.push(pickEventTarget(events, sessionId, spec, fields));
  }
  return refs;
}

/** parseSourceEvents then lookUpSourceEvents. */
export async function resolveSourceEvents(root: string, sessionId: string, items: readonly unknown[], options: SourceEventsOptions): Promise<SourceEventRef[]> {
  return await lookUpSourceEvents(root, sessionId, parseSourceEvents(items, sessionId, options), options);
}

/** Exposed for tests: the pure lookup (ambiguity needs hashes no real log produces). */
export const eventTargetInternals = { parseEventTarget, pickEventTarget, sourceEventInput };
