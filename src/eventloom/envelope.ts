/**
 * The two Eventloom line envelopes (DESIGN §2.2). Both are read; both are written byte-exactly
 * as the Python implementation writes them. What must never change: which fields are hashed,
 * the canonical JSON of the preimage, and the line shapes below.
 *
 * Legacy line (pydantic `model_dump_json`, raw UTF-8, keys in this order):
 *   {"seq","timestamp","type","actor","thread","payload","security","prev_hash","hash"}
 *   hash = sha256(canonical {seq,timestamp,type,actor,thread,payload,prev_hash[,security]})
 * eventloom.v1 line (`json.dumps(envelope, separators=(",",":"))`, ASCII, keys in this order):
 *   {"id","type","actorId","threadId","parentEventId","causedBy","timestamp","payload","integrity"}
 *   integrity.hash = "sha256:" + sha256(canonical {"event": <envelope without integrity>,
 *                                                  "previousHash": "sha256:<prev>" | null})
 *   security metadata sits in payload["__zaxy_security"], appended last.
 */
import { canonicalJson, isJsonObject, JsonNumber, type JsonObject, type JsonValue, parseJsonBytes, writeJson } from "../canonical/mod.ts";
import { sha256Hex } from "../platform/mod.ts";
import { revealPayload } from "./forgetting.ts";
import type { SecurityBlock } from "./redact.ts";


export type Envelope = "legacy" | "v1";

/** An event as read from a log, normalised across envelopes. */
export interface EventRecord {
  seq: number;
  timestamp: string;
  type: string;
  actor: string;
  thread: string;
  payload: JsonObject;
  security: JsonValue;
  /** 64 hex, without `sha256:`; null for the first event. */
  prevHash: string | null;
  /** 64 hex, without `sha256:`. */
  hash: string;
  id: string | null;
  parentEventId: string | null;
  causedBy: string[];
  envelope: Envelope;
}

export const v1Keys = ["id", "type", "actorId", "threadId", "timestamp", "payload", "integrity"] as const;
const eventTypeV1Pattern = /^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+$/;
const securityKey = "__zaxy_security";
const shaPrefix = "sha256:";

/** Whether an event type can be written in the v1 envelope (lowercase dotted, >= 2 segments). */
export function isV1EventType(type: string): boolean {
  return eventTypeV1Pattern.test(type);
}

export function isV1Line(object: JsonObject): boolean {
  return v1Keys.every((key) => object.has(key));
}

function field(object: JsonObject, key: string): JsonValue {
  const value = object.get(key);
  return value === undefined ? null : value;
}

/** The legacy hash preimage: canonical JSON of the hashed fields (missing ones are null). */
export function legacyPreimage(object: JsonObject): string {
  const hashed: JsonObject = new Map();
  for (const key of ["seq", "timestamp", "type", "actor", "thread", "payload", "prev_hash"]) hashed.set(key, field(object, key));
  const security = field(object, "security");
  if (security !== null) hashed.set("security", security);
  return canonicalJson(hashed);
}

/** The v1 hash preimage; `previousHash` is the previous event's bare hex or null. */
export function v1Preimage(object: JsonObject, previousHash: string | null): string {
  const event: JsonObject = new Map();
  for (const key of ["id", "type", "actorId", "threadId", "parentEventId", "causedBy", "timestamp", "payload"]) {
    event.set(key, field(object, key));
  }
  return canonicalJson(new Map<string, JsonValue>([["event", event], ["previousHash", previousHash === null ? null : shaPrefix + previousHash]]));
}

function stripPrefix(value: JsonValue): string | null {
  if (typeof value !== "string") return null;
  return value.startsWith(shaPrefix) ? value.slice(shaPrefix.length) : value;
}

function asString(value: JsonValue | undefined, fallback: string): string {
  return typeof value === "string" ? value : fallback;
}

/** A legacy line's own seq: its `seq` when that is an integer. */
function legacySeq(object: JsonObject): number | undefined {
  const seq = object.get("seq");
  return seq instanceof JsonNumber && !seq.isFloat ? Number(seq.lexeme) : undefined;
}

/**
 * The seq a parsed line carries, or undefined when its seq is its position in the log (a v1
 * line, or a legacy line without an integer `seq`): what `recordFromLine` makes its seq.
 */
export function lineSeq(object: JsonObject): number | undefined {
  return isV1Line(object) ? undefined : legacySeq(object);
}

/**
 * Normalises a parsed line into an `EventRecord`. `position` is the 1-based event position,
 * which is the seq of a v1 event (v1 lines carry no seq) and of a legacy line without its own (`lineSeq`).
 */
export function recordFromLine(object: JsonObject, position: number): EventRecord {
  if (isV1Line(object)) {
    const integrity = object.get("integrity");
    const rawPayload = object.get("payload");
    const payload: JsonObject = isJsonObject(rawPayload) ? new Map(rawPayload) : new Map();
    const security = payload.get(securityKey) ?? null;
    payload.delete(securityKey);
    const causedBy = object.get("causedBy");
    return {
      seq: position,
      timestamp: asString(object.get("timestamp"), ""),
      type: asString(object.get("type"), ""),
      actor: asString(object.get("actorId"), ""),
      thread: asString(object.get("threadId"), ""),
      // A forgettable cell is shown opened, or as forgotten (forgetting.ts); the line is unchanged.
      // Cells (the payload, or content it quotes) are shown opened, or as forgotten (forgetting.ts).
      payload: revealPayload(payload),
      security,
      prevHash: isJsonObject(integrity) ? stripPrefix(field(integrity, "previousHash")) : null,
      hash: (isJsonObject(integrity) ? stripPrefix(field(integrity, "hash")) : null) ?? "",
      id: asString(object.get("id"), "") || null,
      parentEventId: typeof object.get("parentEventId") === "string" ? (object.get("parentEventId") as string) : null,
      causedBy: Array.isArray(causedBy) ? causedBy.filter((c): c is string => typeof c === "string") : [],
      envelope: "v1",
    };
  }
  const rawPayload = object.get("payload");
  const parent = object.get("parent_event_id");
  const causedBy = object.get("caused_by");
  return {
    seq: legacySeq(object) ?? position,
    timestamp: asString(object.get("timestamp"), ""),
    type: asString(object.get("type"), ""),
    actor: asString(object.get("actor"), ""),
    thread: asString(object.get("thread"), "default"),
    payload: !isJsonObject(rawPayload) ? new Map() : revealPayload(rawPayload),
    security: field(object, "security"),
    prevHash: typeof object.get("prev_hash") === "string" ? (object.get("prev_hash") as string) : null,
    hash: asString(object.get("hash"), ""),
    id: typeof object.get("id") === "string" ? (object.get("id") as string) : null,
    parentEventId: typeof parent === "string" ? parent : null,
    causedBy: Array.isArray(causedBy) ? causedBy.filter((c): c is string => typeof c === "string") : [],
    envelope: "legacy",
  };
}

/** Python's deterministic event id: `evt_zaxy_<seq:012>_<16 hex of sha256(canonical {actor,seq,timestamp,type})>`. */
export function generatedEventId(actor: string, seq: number, timestamp: string, type: string): string {
  const digest = sha256Hex(
    canonicalJson(new Map<string, JsonValue>([["actor", actor], ["seq", JsonNumber.int(seq)], ["timestamp", timestamp], ["type", type]])),
  );
  return `evt_zaxy_${String(seq).padStart(12, "0")}_${digest.slice(0, 16)}`;
}

const generatedIdPattern = /^evt_zaxy_(\d{12})_[a-f0-9]{16}$/;

/** The seq encoded in a generated v1 id, or undefined. */
export function seqFromEventId(id: string): number | undefined {
  const match = generatedIdPattern.exec(id);
  return match === null ? undefined : Number(match[1]);
}

export interface UnsealedEvent {
  seq: number;
  timestamp: string;
  type: string;
  actor: string;
  thread: string;
  /** Already redacted. */
  payload: JsonObject;
  security: SecurityBlock;
  prevHash: string | null;
  /** v1 only; generated when absent. */
  id?: string;
  parentEventId?: string | null;
  causedBy?: string[];
}

export interface SealedLine {
  line: string;
  hash: string;
  id: string;
  record: EventRecord;
}

function securityValue(security: SecurityBlock): JsonObject {
  return new Map<string, JsonValue>([
    ["sensitivity", security.sensitivity],
    ["redacted_paths", [...security.redacted_paths]],
  ]);
}

/** The record of an event just sealed (the payload without its security block). */
function sealedRecord(event: UnsealedEvent, hash: string, id: string, envelope: Envelope): EventRecord {
  return {
    seq: event.seq,
    timestamp: event.timestamp,
    type: event.type,
    actor: event.actor,
    thread: event.thread,
    payload: event.payload,
    security: securityValue(event.security),
    prevHash: event.prevHash,
    hash,
    id,
    parentEventId: event.parentEventId ?? null,
    causedBy: event.causedBy ?? [],
    envelope,
  };
}

/** Seals and serialises an event in the legacy envelope. */
export function sealLegacy(event: UnsealedEvent): SealedLine {
  const object: JsonObject = new Map<string, JsonValue>([
    ["seq", JsonNumber.int(event.seq)],
    ["timestamp", event.timestamp],
    ["type", event.type],
    ["actor", event.actor],
    ["thread", event.thread],
    ["payload", event.payload],
    ["security", securityValue(event.security)],
    ["prev_hash", event.prevHash],
  ]);
  const hash = sha256Hex(legacyPreimage(object));
  object.set("hash", hash);
  const id = event.id ?? generatedEventId(event.actor, event.seq, event.timestamp, event.type);
  return { line: writeJson(object, { sortKeys: false, asciiOnly: false }), hash, id, record: sealedRecord(event, hash, id, "legacy") };
}

/** Seals and serialises an event in the eventloom.v1 envelope. */
export function sealV1(event: UnsealedEvent): SealedLine {
  const id = event.id ?? generatedEventId(event.actor, event.seq, event.timestamp, event.type);
  // Python appends __zaxy_security last, after the payload's own keys in insertion order.
  const payload: JsonObject = new Map(event.payload);
  payload.delete(securityKey);
  payload.set(securityKey, securityValue(event.security));
  const object: JsonObject = new Map<string, JsonValue>([
    ["id", id],
    ["type", event.type],
    ["actorId", event.actor],
    ["threadId", event.thread],
    ["parentEventId", event.parentEventId ?? null],
    ["causedBy", [...(event.causedBy ?? [])]],
    ["timestamp", event.timestamp],
    ["payload", payload],
  ]);
  const hash = sha256Hex(v1Preimage(object, event.prevHash));
  object.set(
    "integrity",
    new Map<string, JsonValue>([
      ["hash", shaPrefix + hash],
      ["previousHash", event.prevHash === null ? null : shaPrefix + event.prevHash],
    ]),
  );
  return { line: writeJson(object, { sortKeys: false, asciiOnly: true }), hash, id, record: sealedRecord(event, hash, id, "v1") };
}

/** The stored hash of an event line (its `hash`, or v1 `integrity.hash`), or undefined when the line is not an event. */
export function storedEventHash(bytes: Uint8Array): string | undefined {
  try {
    const parsed = parseJsonBytes(bytes);
    return isJsonObject(parsed) ? recordFromLine(parsed, 0).hash : undefined;
  } catch {
    return undefined;
  }
}
