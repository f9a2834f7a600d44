/**
 * Appending to a log (DESIGN §2.3): validate the whole batch first (nothing is written unless
 * every item is valid), take an exclusive flock on the JSONL itself (shared with the Python
 * implementation), finish any append a crash interrupted (intent.ts), read and check only the
 * tail, seal every event, record an intent, write all lines, fsync, drop the intent, unlock.
 * A torn, corrupt or tampered tail is refused, never extended. A write that fails truncates the
 * log back to its pre-batch length before the lock is released, so a failed append leaves the
 * file byte for byte as it was; a crash leaves an intent the next locked open rolls back.
 */
import * as fs from "node:fs";
import { isJsonObject, type JsonObject, type JsonValue, nonFiniteNumbers, parseJsonBytes, writeJson } from "../canonical/mod.ts";
import { inputError, ioError, isZaxyError } from "../errors.ts";
import { batchEventsMax, eventTextCharsMax, lockWaitMs, payloadBytesMax, payloadDepthMax } from "../limits.ts";
import { lockFile, sha256Hex } from "../platform/mod.ts";
import { type Envelope, type EventRecord, generatedEventId, isV1EventType, recordFromLine, sealLegacy, sealV1, type SealedLine } from "./envelope.ts";
import { beginAppend, endAppend, eventHashPrefixChars, recoverInterruptedAppend, sha256BeforeBatch } from "./intent.ts";
import { countLogEvents, readLogLines } from "./lines.ts";
import { redactedPathsOf, refuseSecretSessionId, secretFormatIn, securePayload } from "./redact.ts";
import { readVerifiedEvents } from "./replay.ts";
import { fileSystemReason, citationUri, type EventloomConfig, readConfig, readForgettingEnabled, sessionLogPath, writableSessionLogPath } from "./root.ts";
import { type ChainTail, readChainTail } from "./tail.ts";
import { LogKeyIndex } from "./logKeyIndex.ts";
import { defineRootSlot, Root } from "./rootHandle.ts";
import type { CommittedBatch } from "./threadStore.ts";
import { openVault, sealPayload, type Vault } from "./forgetting.ts";
import { formatTimestamp, type MicrosClock, systemClock } from "./timestamp.ts";

/** One event to append. `payload` is validated to be an object. */
export interface AppendItem {
  type: unknown;
  actor: unknown;
  payload?: JsonValue;
  /** Ingest dedup key, stored as `payload.__zaxy_producer_ref`. */
  producerRef?: unknown;
  /** v1 envelope only (hashed there); ignored for legacy lines. */
  parentEventId?: unknown;
  causedBy?: unknown;
  /** Producer-supplied v1 event id. */
  id?: unknown;
  /** Where the item came from, e.g. `line 3` of an ingest file; names it in errors. */
  origin?: string;
}

export interface AppendedEvent {
  seq: number;
  hash: string;
  event_id: string;
  session_id: string;
  event_type: string;
  citation: string;
  envelope: Envelope;
}

/** Where an event landed, as front doors report it: `{event_type, seq, hash, citation}`. */
export interface AppendedEventJson {
  [key: string]: string | number;
  event_type: string;
  seq: number;
  hash: string;
  citation: string;
}

export function appendedEventJson(event: AppendedEvent): AppendedEventJson {
  return { event_type: event.event_type, seq: event.seq, hash: event.hash, citation: event.citation };
}

/** Where an ingested event landed, `{seq, hash, citation}`, with `redacted_paths` when secrets were redacted from its payload. */
export interface IngestedEventJson {
  [key: string]: string | number | string[];
  seq: number;
  hash: string;
  citation: string;
}

/**
 * An event of an ingest result as front doors report it; `record` is the event as sealed, whose
 * security block names the redacted paths (never the values).
 *
 * @example
 * ingestedEventJson(result.events[0], result.records[0]) // { seq: 1, hash: "…", citation: "…", redacted_paths: ["api_key"] }
 */
export function ingestedEventJson(event: AppendedEvent, record: EventRecord): IngestedEventJson {
  const redactedPaths = redactedPathsOf(record.security);
  return { seq: event.seq, hash: event.hash, citation: event.citation, ...(redactedPaths.length > 0 ? { redacted_paths: redactedPaths } : {}) };
}

export interface AppendOptions {
  clock?: MicrosClock;
  /** Skip items whose producer ref is already in the log or earlier in the batch. */
  dedupProducerRefs?: boolean;
  lockWaitMs?: number;
  /**
   * Refuse (`envelope_switch`, exit 2, nothing written) a batch that would switch a v1 session
   * to legacy lines for good; `override` is how the caller's user allows it
   * (`--allow-envelope-switch`). Without it the switch happens with a warning, as Python's does.
   */
  refuseEnvelopeSwitch?: { override: string };
}

export interface AppendResult {
  events: AppendedEvent[];
  records: EventRecord[];
  deduped: number;
  logPath: string;
  /**
   * What recovering an interrupted earlier append did, and the switch of a v1 log to legacy lines
   * this batch made (empty when neither); front doors print them.
   */
  warnings: string[];
}

export interface ValidationIssue {
  index: number;
  field: string;
  message: string;
  hint?: string;
}

/**
 * A rule every appended event must keep beyond the log's own checks, which a layer above the log
 * supplies (the derived-event rules, src/events/append.ts): the problems of one item whose type
 * and payload are otherwise valid. They are reported with the item's other problems, in item
 * order, and refuse the whole batch.
 */
export type EventRule = (type: string, payload: JsonObject) => readonly EventRuleIssue[];

/** One problem an `EventRule` finds: `field` and `message` as errors print them, `hint` how to do it right. */
export interface EventRuleIssue {
  field: string;
  message: string;
  hint?: string;
}

const producerRefKey = "__zaxy_producer_ref";
const controlChars = /[\u0000-\u001f\u007f-\u009f]/;
// A UTF-16 surrogate without its partner: `\ud800` in JSON parses to one, and no UTF-8 writer
// (nor jq, nor Python's strict codecs) can encode it.
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
// What a lenient UTF-8 decoder (argv, a lossy reader) leaves in place of invalid bytes.
const replacementChar = "\ufffd";
const whitespace = /\s/;
// Invisible formatting characters (Unicode category Cf): bidirectional overrides and isolates
// (U+202A-202E, U+2066-2069), zero-width spaces and joiners, marks (U+200B-200F), the BOM
// (U+FEFF). In a type, actor or id they make one name display as another ("note.\u202eadded"
// prints reversed), so a log could show a reader something other than what it holds.
const invisibleChar = /\p{Cf}/u;
/**
 * Payload keys the engine itself writes and reads (`__zaxy_cipher`, `__zaxy_forgotten`,
 * `__zaxy_producer_ref`, `__zaxy_security`): an input payload may not carry them at its top
 * level, where the engine reads them, or a plain append could pose as a forgotten event.
 */
export const reservedPayloadKeyPrefix = "__zaxy_";

/** `value` as JSON text with invisible formatting characters spelled out, so a message shows what is there. */
function visibleText(value: string): string {
  return JSON.stringify(value).replace(/\p{Cf}/gu, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * Event text (type, actor, ids, refs): a non-empty, non-blank string of valid Unicode without
 * control characters. An event type is an identifier and holds no whitespace at all; an actor
 * may hold inner spaces ("Jane Doe") but not leading or trailing ones, which would make
 * "alice" and "alice " two actors.
 */
function checkText(value: unknown, field: string, index: number, issues: ValidationIssue[]): value is string {
  if (typeof value !== "string" || value.length === 0) {
    issues.push({ index, field, message: `${field} must be a non-empty string` });
    return false;
  }
  const secret = secretFormatIn(value);
  if (secret !== undefined) {
    issues.push({ index, field, message: `${field} holds a secret (${secret}); secrets are redacted only inside the payload, so put it there` });
    return false;
  }
  if (value.length > eventTextCharsMax) {
    issues.push({ index, field, message: `${field} is ${value.length} characters; at most ${eventTextCharsMax} are allowed` });
    return false;
  }
  if (controlChars.test(value)) {
    issues.push({ index, field, message: `${field} ${JSON.stringify(value)} contains a control character` });
    return false;
  }
  if (invisibleChar.test(value)) {
    const found = value.match(invisibleChar)![0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0");
    issues.push({
      index,
      field,
      message: `${field} ${visibleText(value)} contains the invisible formatting character U+${found} (bidirectional override, zero-width or byte-order mark); ` +
        `${field} must be visible text, since such characters make one name display as another`,
    });
    return false;
  }
  if (loneSurrogate.test(value)) {
    issues.push({ index, field, message: `${field} ${JSON.stringify(value)} contains a lone UTF-16 surrogate, which is not valid Unicode` });
    return false;
  }
  if (value.includes(replacementChar)) {
    issues.push({ index, field, message: `${field} ${JSON.stringify(value)} contains U+FFFD, the mark of invalid UTF-8 replaced by a decoder` });
    return false;
  }
  if (value.trim() === "") {
    issues.push({ index, field, message: `${field} ${JSON.stringify(value)} is blank` });
    return false;
  }
  if (field === "event_type" && whitespace.test(value)) {
    issues.push({ index, field, message: `${field} ${JSON.stringify(value)} contains whitespace; event types are identifiers such as "goal.created"` });
    return false;
  }
  if (value.trim() !== value) {
    issues.push({ index, field, message: `${field} ${JSON.stringify(value)} starts or ends with whitespace` });
    return false;
  }
  return true;
}

const utf8 = new TextEncoder();

/** Compact UTF-8 size of a payload, as Python measures it. */
export function payloadBytes(payload: JsonObject): number {
  return utf8.encode(writeJson(payload, { sortKeys: false, asciiOnly: false })).length;
}

/** Nesting depth of a value (an empty object or array counts 1), iteratively: no recursion limit. */
export function nestingDepth(value: JsonValue): number {
  let deepest = 0;
  const stack: Array<[JsonValue, number]> = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [JsonValue, number];
    if (Array.isArray(current)) {
      deepest = Math.max(deepest, depth);
      for (const item of current) stack.push([item, depth + 1]);
    } else if (current instanceof Map) {
      deepest = Math.max(deepest, depth);
      for (const item of current.values()) stack.push([item, depth + 1]);
    }
  }
  return deepest;
}

export interface ValidItem {
  type: string;
  actor: string;
  payload: JsonObject;
  producerRef?: string;
  parentEventId: string | null;
  causedBy: string[];
  id?: string;
  origin?: string;
}

/** Validates every item against the log's checks and `rules`; returns them normalised or throws one error listing every problem. */
function validateItems(items: AppendItem[], rules: readonly EventRule[]): ValidItem[] {
  if (items.length === 0) throw inputError("empty_batch", "Nothing to append: the batch has no events", { field: "events" });
  if (items.length > batchEventsMax) {
    throw inputError("batch_too_large", `The batch has ${items.length} events; at most ${batchEventsMax} are allowed`, { field: "events" });
  }
  const { valid, issues } = checkItems(items, rules);
  if (issues.length > 0) {
    const lines = issues.map((issue) => (items.length === 1 && items[0].origin === undefined ? issue.message : describeItemIssue(items, issue)));
    throw inputError("invalid_event", `Cannot append: ${lines.join("; ")}. Nothing was written.`, {
      field: issues[0].field,
      hint: issues.find((issue) => issue.hint !== undefined)?.hint,
    });
  }
  return valid;
}

/** One issue as errors print it: `line 3: actor must be a non-empty string`. */
export function describeItemIssue(items: readonly AppendItem[], issue: ValidationIssue): string {
  return `${itemName(items, issue.index)}: ${issue.message}`;
}

/**
 * Every problem of every item, in item order, without throwing (the batch's size is not
 * checked here). `validateItems` throws them; ingest merges them with its own parse errors.
 */
function checkItems(items: readonly AppendItem[], rules: readonly EventRule[]): { valid: ValidItem[]; issues: ValidationIssue[] } {
  const issues: ValidationIssue[] = [];
  const valid: ValidItem[] = [];
  const firstIndexOfId = new Map<string, number>();
  items.forEach((item, index) => {
    const typeOk = checkText(item.type, "event_type", index, issues);
    const actorOk = checkText(item.actor, "actor", index, issues);
    const payload = item.payload === undefined ? new Map() : item.payload;
    let payloadOk = true;
    if (!isJsonObject(payload)) {
      issues.push({ index, field: "payload", message: `payload must be a JSON object, got ${describe(payload)}` });
      payloadOk = false;
    } else {
      const depth = nestingDepth(payload);
      const size = depth > payloadDepthMax ? 0 : payloadBytes(payload);
      if (depth > payloadDepthMax) {
        issues.push({ index, field: "payload", message: `payload nests ${depth} levels deep; at most ${payloadDepthMax} are allowed` });
        payloadOk = false;
      } else if (size > payloadBytesMax) {
        issues.push({ index, field: "payload", message: `payload is ${size} bytes as compact UTF-8 JSON; at most ${payloadBytesMax} (1 MiB) are allowed` });
        payloadOk = false;
      } else {
        const found = nonFiniteNumbers(payload, "payload", nonFiniteReportedMax);
        if (found.length > 0) {
          const where = found.map((number) => `${number.path} is ${number.lexeme}`).join(", ");
          issues.push({
            index,
            field: found[0].path,
            message: `${where}: JSON cannot carry NaN or infinity (jq and JavaScript cannot read them); use a finite number, null or a string`,
          });
          payloadOk = false;
        }
      }
      for (const key of payload.keys()) {
        if (!key.startsWith(reservedPayloadKeyPrefix)) continue;
        issues.push({
          index,
          field: `payload.${key}`,
          message: `payload key ${visibleText(key)} is reserved: keys starting with "${reservedPayloadKeyPrefix}" are written by zaxy itself (forgetting, redaction, producer refs); rename the key`,
        });
        payloadOk = false;
      }
    }
    if (typeOk && payloadOk) {
      for (const rule of rules) {
        for (const issue of rule(item.type as string, payload as JsonObject)) {
          issues.push({ index, ...issue });
          payloadOk = false;
        }
      }
    }
    let producerRef: string | undefined;
    if (item.producerRef !== undefined && item.producerRef !== null) {
      if (checkText(item.producerRef, "producer_ref", index, issues)) producerRef = item.producerRef as string;
    }
    let parentEventId: string | null = null;
    if (item.parentEventId !== undefined && item.parentEventId !== null) {
      if (checkText(item.parentEventId, "parent_event_id", index, issues)) parentEventId = item.parentEventId as string;
    }
    const causedBy: string[] = [];
    if (item.causedBy !== undefined && item.causedBy !== null) {
      if (!Array.isArray(item.causedBy)) issues.push({ index, field: "caused_by", message: "caused_by must be an array of event ids" });
      else item.causedBy.forEach((c, i) => checkText(c, `caused_by[${i}]`, index, issues) && causedBy.push(c));
    }
    let id: string | undefined;
    if (item.id !== undefined && item.id !== null) {
      if (checkText(item.id, "id", index, issues)) id = item.id as string;
    }
    if (id !== undefined) {
      const first = firstIndexOfId.get(id);
      if (first === undefined) firstIndexOfId.set(id, index);
      else issues.push({ index, field: "id", message: `id ${JSON.stringify(id)} is already used by ${itemName(items, first)} of this batch; event ids are unique` });
    }
    if (typeOk && actorOk && payloadOk) {
      valid.push({ type: item.type as string, actor: item.actor as string, payload: payload as JsonObject, producerRef, parentEventId, causedBy, id, origin: item.origin });
    }
  });
  return { valid, issues };
}

/** How errors name an item: its origin (`line 3`) when known, else its batch index (`event 2`). */
function itemName(items: readonly AppendItem[], index: number): string {
  return items[index].origin ?? `event ${index}`;
}

/** A payload full of NaNs is named by its first few: enough to find the producer's bug. */
const nonFiniteReportedMax = 5;

function describe(value: JsonValue): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object" && !(value instanceof Map)) return "a number";
  return `a ${typeof value}`;
}

/**
 * Refuses a batch carrying a producer-supplied event id that an event in the log already has
 * (`invalid_event`, exit 2, naming the id, the item and the event holding it). Call it under the
 * log's lock, after producer-ref dedup, so the items that are about to be written are checked
 * against exactly the log they join. `logKeys` (caught up under that lock) is consulted only
 * when some item carries an id.
 *
 * @example
 * refuseLoggedEventIds(() => index, [{ id: "evt_1", origin: "line 1" }]);
 * // throws: Cannot append: line 1: id "evt_1" is already event 4 of the log; ...
 */
export function refuseLoggedEventIds(logKeys: () => LogKeyIndex, batch: readonly { id?: string; origin?: string }[]): void {
  const indexOfId = new Map<string, number>();
  batch.forEach((item, index) => item.id !== undefined && indexOfId.set(item.id, index));
  if (indexOfId.size === 0) return;
  const index = logKeys();
  // In log order, as a read of the log from the start would name them.
  const found: { position: number; text: string }[] = [];
  for (const [id, itemIndex] of indexOfId) {
    const name = batch[itemIndex].origin ?? `event ${itemIndex}`;
    for (const position of index.positionsOfId(id)) {
      found.push({ position, text: `${batch.length === 1 && batch[itemIndex].origin === undefined ? "" : `${name}: `}id ${JSON.stringify(id)} is already event ${position} of the log; event ids are unique` });
    }
  }
  if (found.length > 0) {
    const problems = found.sort((a, b) => a.position - b.position).map((problem) => problem.text);
    throw inputError("invalid_event", `Cannot append: ${problems.join("; ")}. Nothing was written.`, { field: "id" });
  }
}

/**
 * Appends a batch to `<root>/<sessionId>.jsonl`, all or nothing; an item breaking one of
 * `rules` refuses the batch (through an `eventAppender`, which fixes the rules).
 *
 * @example
 * const { events } = await appendEvents(".eventloom", "default", [
 *   { type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship it" }) },
 * ]);
 * events[0].citation // "eventloom://default/events/1#…"
 */
async function appendEvents(rules: readonly EventRule[], rootOrPath: string | Root, sessionId: string, items: AppendItem[], options: AppendOptions = {}): Promise<AppendResult> {
  const root = Root.of(rootOrPath);
  // Paths and messages keep the caller's spelling; the handle holds only the root's state.
  const rootPath = typeof rootOrPath === "string" ? rootOrPath : rootOrPath.path;
  const logPath = sessionLogPath(rootPath, sessionId, "append to");
  const valid = validateItems(items, rules);
  if (options.refuseEnvelopeSwitch !== undefined) refuseNewLogEnvelopeSwitch(root, rootPath, sessionId, logPath, valid, options.refuseEnvelopeSwitch.override);
  const clock = options.clock ?? systemClock;
  return await withLockedLog(root, rootPath, sessionId, options, ({ fd, size, logPath, config, warnings, write, vault, committed, logKeys }) => {
    if (committed !== undefined) return { ...replayedBatch(committed, sessionId), deduped: 0, logPath, warnings };
    // Producer-supplied v1 ids carry no seq: the tail's seq is then the index's event count.
    const tail = readChainTail(fd, size, `session "${sessionId}"`, () => logKeys().eventCount);
    let batch = valid;
    let deduped = 0;
    if (options.dedupProducerRefs && batch.some((item) => item.producerRef !== undefined)) {
      const seen = new Set<string>();
      const logged = logKeys();
      batch = batch.filter((item) => {
        if (item.producerRef === undefined) return true;
        if (logged.hasProducerRef(item.producerRef) || seen.has(item.producerRef)) {
          deduped++;
          return false;
        }
        seen.add(item.producerRef);
        return true;
      });
    }
    refuseLoggedEventIds(logKeys, batch);
    if (batch.length === 0) return { events: [], records: [], deduped, logPath, warnings };
    const v1Allowed = batch.every((item) => isV1EventType(item.type));
    const v1Log = isV1Log(tail, config.envelope);
    const envelope: Envelope = v1Allowed && v1Log ? "v1" : "legacy";
    if (options.refuseEnvelopeSwitch !== undefined && v1Log && envelope === "legacy") {
      throw envelopeSwitchRefusal(sessionId, batch, tail.seq + 1, options.refuseEnvelopeSwitch.override);
    }
    const sealed: SealedLine[] = [];
    let prevHash = tail.hash;
    let seq = tail.seq;
    for (const item of batch) {
      const line = sealItem(item, ++seq, prevHash, envelope, clock, sessionId, vault);
      sealed.push(line);
      prevHash = line.hash;
    }
    write(tail, sealed);
    return {
      events: sealed.map((line) => appendedEventOf(line, sessionId, envelope)),
      records: sealed.map((s) => s.record),
      deduped,
      logPath,
      warnings: [...warnings, ...envelopeSwitchWarnings(sessionId, v1Log, envelope, sealed)],
    };
  });
}

interface LockedLog {
  fd: number;
  /** Bytes in the log under the lock, after any interrupted append was recovered. */
  size: number;
  logPath: string;
  config: EventloomConfig;
  /** What that recovery did. */
  warnings: string[];
  /** Writes the sealed batch after `tail`: to the file, or committed to the store the root is bound to. */
  write(tail: ChainTail, sealed: readonly SealedLine[]): void;
  /** The root's erasure vault when forgetting is on: payloads are sealed as cells (forgetting.ts). */
  vault?: Vault;
  /** A retried append the store already committed: report these events, write nothing (threadStore.ts). */
  committed?: CommittedBatch;
  /** The session's duplicate-key index, caught up with the locked log on first call (logKeyIndex.ts). */
  logKeys: () => LogKeyIndex;
}

/** The events of a batch an earlier attempt committed, as the append that wrote them reported them. */
function replayedBatch(committed: CommittedBatch, sessionId: string): { events: AppendedEvent[]; records: EventRecord[] } {
  const records = committed.lines.map((bytes, index) => {
    const parsed = parseJsonBytes(bytes);
    if (!isJsonObject(parsed)) throw ioError("unreadable_log", `Cannot append to session ${JSON.stringify(sessionId)}: event ${committed.firstSeq + index} is not a JSON object`);
    return recordFromLine(parsed, committed.firstSeq + index);
  });
  const events = records.map((record): AppendedEvent => ({
    seq: record.seq,
    hash: record.hash,
    event_id: record.id ?? generatedEventId(record.actor, record.seq, record.timestamp, record.type),
    session_id: sessionId,
    event_type: record.type,
    citation: citationUri(sessionId, record.seq, record.hash),
    envelope: record.envelope,
  }));
  return { events, records };
}

/** Per session of a root: the keys its appends check for duplicates, kept between appends. */
const logKeysSlot = defineRootSlot("log keys", () => new Map<string, LogKeyIndex>());

/** The root's duplicate-key index of a session's log; the caller catches it up under the log's lock. */
export function logKeyIndexOf(root: Root, sessionId: string): LogKeyIndex {
  const indexes = root.slot(logKeysSlot);
  let index = indexes.get(sessionId);
  if (index === undefined) {
    index = new LogKeyIndex();
    indexes.set(sessionId, index);
  }
  return index;
}

/**
 * Creates the root, takes the log's exclusive flock, opens it for appending and runs `body`;
 * closes and unlocks whatever happens. Errors that are not zaxy's own become `write_failed`.
 * A root bound to a shared store takes the thread's lock in the store instead and commits there
 * first (docs/store.md); the local copy is written after the commit.
 */
async function withLockedLog<T>(handle: Root, root: string, sessionId: string, options: AppendOptions, body: (log: LockedLog) => T | Promise<T>): Promise<T> {
  refuseSecretSessionId(sessionId);
  const logPath = writableSessionLogPath(root, sessionId, "append to");
  try {
    fs.mkdirSync(root, { recursive: true });
  } catch (error) {
    throw ioError("unwritable_root", `Cannot create the Eventloom root ${root}: ${fileSystemReason(error)}`);
  }
  const config = readConfig(root);
  const store = handle.threadStore;
  const index = logKeyIndexOf(handle, sessionId);
  /** Catches the index up with the locked log once per append, and only when asked. */
  const caughtUpKeys = (fd: number, size: number) => {
    let caughtUp = false;
    return {
      get: () => {
        if (!caughtUp) index.catchUp(fd, size);
        caughtUp = true;
        return index;
      },
      wasCaughtUp: () => caughtUp,
    };
  };
  const forgetting = readForgettingEnabled(root);
  if (forgetting && store !== undefined) {
    throw inputError("forgetting_not_on_store", "Verified forgetting keeps its keys beside the log, so it works on file roots only, not on a shared store", {
      field: "config.json forgetting_enabled",
    });
  }
  const vault = forgetting ? openVault(root, true) : undefined;
  if (store !== undefined) {
    return await store.appendLocked(sessionId, options.lockWaitMs ?? lockWaitMs, async (mirror, stage) =>
      await body({
        ...mirror,
        config,
        // The mirror's lines are written after the store commits: the next append reads them in.
        logKeys: caughtUpKeys(mirror.fd, mirror.size).get,
        write: (tail, sealed) =>
          stage({
            lines: sealed.map((s) => s.line),
            hashAfter: sealed[sealed.length - 1].hash,
            writeMirror: () => writeSealed(mirror.fd, mirror.size, mirror.logPath, tail, sealed, sessionId),
          }),
      }));
  }
  let lock: { release(): void };
  try {
    lock = await lockFile(logPath, "exclusive", options.lockWaitMs ?? lockWaitMs, true);
  } catch (error) {
    if ((error as { code?: string }).code === "lock_timeout") throw ioError("lock_timeout", `Cannot append to session "${sessionId}": ${(error as Error).message}`);
    throw ioError("unwritable_log", `Cannot append to session "${sessionId}": ${fileSystemReason(error)} (${logPath})`);
  }
  let vaultLock: { release(): void } | undefined;
  try {
    // The vault is shared by every session of the root: its read-change-write happens under its
    // own lock, taken only when forgetting is on (a plain append never touches it).
    vaultLock = vault === undefined ? undefined : await lockVault(vault, sessionId, options);
    // "a+" that never follows a link planted since the check above.
    const fd = fs.openSync(logPath, fs.constants.O_RDWR | fs.constants.O_APPEND | fs.constants.O_CREAT | (fs.constants.O_NOFOLLOW ?? 0), 0o644);
    try {
      const recovered = recoverInterruptedAppend(fd, logPath, fs.fstatSync(fd).size, `Cannot append to session ${JSON.stringify(sessionId)}`);
      const size = recovered.size;
      const logKeys = caughtUpKeys(fd, size);
      const write = (tail: ChainTail, sealed: readonly SealedLine[]) => {
        // The cells' keys are durable before the lines that need them; a failed write leaves only unused keys.
        vault?.commit();
        writeSealed(fd, size, logPath, tail, sealed, sessionId);
        // Still under the lock: the index takes in the batch it just saw written.
        if (logKeys.wasCaughtUp()) index.catchUp(fd, fs.fstatSync(fd).size);
      };
      try {
        return await body({ fd, size, logPath, config, warnings: recovered.warnings, write, vault, logKeys: logKeys.get });
      } finally {
        vault?.discard();
      }
    } finally {
      fs.closeSync(fd);
    }
  } catch (error) {
    if (isZaxyError(error)) throw error;
    throw ioError("write_failed", `Cannot append to session "${sessionId}": ${fileSystemReason(error)} (${logPath})`);
  } finally {
    vaultLock?.release();
    lock.release();
  }
}

async function lockVault(vault: Vault, sessionId: string, options: AppendOptions): Promise<{ release(): void }> {
  try {
    return await vault.lock(options.lockWaitMs ?? lockWaitMs);
  } catch (error) {
    if ((error as { code?: string }).code === "lock_timeout") throw ioError("lock_timeout", `Cannot append to session "${sessionId}": ${(error as Error).message}`);
    throw ioError("unwritable_root", `Cannot append to session "${sessionId}": cannot lock the erasure vault: ${fileSystemReason(error)}`);
  }
}

/** Seals one validated item as event `seq` after `prevHash`, with its secrets redacted. */
function sealItem(item: ValidItem, seq: number, prevHash: string | null, envelope: Envelope, clock: MicrosClock, sessionId: string, vault?: Vault): SealedLine {
  const { payload, security } = securePayload(item.payload);
  if (item.producerRef !== undefined) payload.set(producerRefKey, item.producerRef);
  const sealed = (envelope === "v1" ? sealV1 : sealLegacy)({
    seq,
    timestamp: formatTimestamp(clock()),
    type: item.type,
    actor: item.actor,
    thread: sessionId,
    // With forgetting on, the line holds an erasable cell; the record keeps the payload readers see.
    payload: sealPayload(vault, item.type, payload),
    security,
    prevHash,
    id: envelope === "v1" ? item.id : undefined,
    parentEventId: item.parentEventId,
    causedBy: item.causedBy,
  });
  sealed.record.payload = payload;
  return sealed;
}

function appendedEventOf(line: SealedLine, sessionId: string, envelope: Envelope): AppendedEvent {
  return {
    seq: line.record.seq,
    hash: line.hash,
    event_id: line.id,
    session_id: sessionId,
    event_type: line.record.type,
    citation: citationUri(sessionId, line.record.seq, line.hash),
    envelope,
  };
}

/**
 * Writes the batch after the log's `size` bytes (after a newline the torn-free tail may lack)
 * between an intent and its removal, then fsyncs. Any failure after the intent (a full disk, an
 * I/O error) truncates the log back to `size` and fsyncs before the lock is released; if even
 * that fails the intent stays, so the next locked open rolls the batch back.
 */
function writeSealed(fd: number, size: number, logPath: string, tail: ChainTail, sealed: readonly SealedLine[], sessionId: string): void {
  const bytes = utf8.encode((tail.needsNewline ? "\n" : "") + sealed.map((s) => s.line).join("\n") + "\n");
  const action = `Cannot append to session ${JSON.stringify(sessionId)}`;
  try {
    beginAppend(logPath, {
      logBytesBefore: size,
      logBytesAfter: size + bytes.length,
      bytesBeforeSha256: sha256BeforeBatch(fd, size),
      batchSha256: sha256Hex(bytes),
      eventHashPrefixes: sealed.map((s) => s.hash.slice(0, eventHashPrefixChars)),
    });
  } catch (error) {
    throw ioError("write_failed", `${action}: could not record the append intent (${(error as Error).message}); nothing was written`);
  }
  try {
    writeAll(fd, bytes);
    fs.fsyncSync(fd);
  } catch (error) {
    const reason = (error as Error).message;
    try {
      fs.ftruncateSync(fd, size);
      fs.fsyncSync(fd);
    } catch (restoreError) {
      throw ioError("write_failed", `${action}: writing the batch failed (${reason}) and truncating the log back to its ${size} bytes failed too (${(restoreError as Error).message}); the log may end with part of the batch, which the next append or 'zaxy repair' rolls back`);
    }
    endAppend(logPath);
    throw ioError("write_failed", `${action}: writing the batch failed (${reason}); the log was truncated back to its ${size} bytes, nothing was appended`);
  }
  endAppend(logPath);
}

function writeAll(fd: number, bytes: Uint8Array): void {
  let written = 0;
  while (written < bytes.length) written += fs.writeSync(fd, bytes, written, bytes.length - written);
}

/** Appends one event. */
async function appendEvent(rules: readonly EventRule[], root: string | Root, sessionId: string, item: AppendItem, options: AppendOptions = {}): Promise<AppendedEvent> {
  const result = await appendEvents(rules, root, sessionId, [item], options);
  return result.events[0];
}


/** One planned event: a plain item, or a function of the events sealed before it in the batch. */
export type PlannedItem = AppendItem | ((sealedBefore: readonly AppendedEvent[]) => AppendItem);

/** A plan that declines to append; `reason` is handed back to the caller untouched. */
export interface PlanRejection<R> {
  rejected: R;
}

export interface PlannedAppendResult<R> extends AppendResult {
  /** Set when the plan declined; then nothing was written. */
  rejection?: R;
  /** Events in the log when the plan ran (the state it decided on). */
  existingEventCount: number;
}

function isRejection<R>(plan: PlannedItem[] | PlanRejection<R>): plan is PlanRejection<R> {
  return !Array.isArray(plan);
}

/**
 * Decide-then-append under one exclusive lock: takes the log's flock, verifies and reads every
 * existing event, calls `plan` with them, and appends what it returns in the same locked
 * section. Decisions (trust, idempotency, conflicts) are therefore made on exactly the state
 * they append to, even with other processes appending to the same log. A planned item may be a
 * function of the events sealed before it in the batch, so a later event can cite an earlier
 * one's seq and hash. The envelope follows appendEvents' rule over the plain items' types
 * (any type v1 cannot carry makes the batch legacy), else the first item's. `plan` may throw (nothing is written), return `[]` (nothing to do) or a
 * `PlanRejection` (nothing written, the reason is returned). A log that fails verification is
 * never appended to (`integrity_failure`, exit 1).
 *
 * @example
 * const result = await appendPlanned(".eventloom", "fleet.alpha", (existing) =>
 *   existing.some((e) => e.type === "fleet.created") ? { rejected: "exists" } :
 *     [{ type: "fleet.created", actor: "coordinator", payload: fromJs({ fleet_id: "alpha" }) }]);
 */
async function appendPlanned<R = never>(
  rules: readonly EventRule[],
  root: string | Root,
  sessionId: string,
  plan: (existing: readonly EventRecord[]) => PlannedItem[] | PlanRejection<R>,
  options: AppendOptions = {},
): Promise<PlannedAppendResult<R>> {
  const clock = options.clock ?? systemClock;
  return await withLockedLog(Root.of(root), typeof root === "string" ? root : root.path, sessionId, options, async ({ fd, size, logPath, config, warnings, write, vault, committed }) => {
    if (committed !== undefined) return { ...replayedBatch(committed, sessionId), deduped: 0, logPath, warnings, existingEventCount: committed.firstSeq - 1 };
    let existing: EventRecord[] = [];
    if (size > 0) {
      // We hold the exclusive lock, so the verifier must not take a shared one (it would wait on us).
      existing = (await readVerifiedEvents(logPath, {
        sessionId,
        lock: false,
        missing: () => ioError("unreadable_log", `Cannot append to session "${sessionId}": its log vanished under the lock`),
        failureMessage: (failure) => `Cannot append to session "${sessionId}": its log ${failure}`,
      })).events;
    }
    const planned = plan(existing);
    if (isRejection(planned)) return { events: [], records: [], deduped: 0, logPath, warnings, rejection: planned.rejected, existingEventCount: existing.length };
    if (planned.length === 0) return { events: [], records: [], deduped: 0, logPath, warnings, existingEventCount: existing.length };
    const tail = readChainTail(fd, size, `session "${sessionId}"`, () => countLogEvents(logPath));
    const sealed: SealedLine[] = [];
    const appended: AppendedEvent[] = [];
    // As in appendEvents, a type the v1 envelope cannot carry (e.g. `memory.rolled_back`) makes
    // the whole batch legacy lines; the types of items built from earlier ones are known only
    // when built, so those must fit the envelope fixed by then.
    const legacyOnly = planned.some((entry) => typeof entry !== "function" && typeof entry.type === "string" && !isV1EventType(entry.type));
    let envelope: Envelope | undefined = legacyOnly ? "legacy" : undefined;
    let prevHash = tail.hash;
    let seq = tail.seq;
    for (const entry of planned) {
      const [item] = validateItems([typeof entry === "function" ? entry(appended) : entry], rules);
      // The envelope is fixed by the first item, as appendEvents fixes it for a whole batch;
      // a later item whose type cannot be v1 then refuses the whole batch rather than mixing.
      if (envelope === undefined) envelope = plannedEnvelope(tail, config.envelope, item.type);
      if (envelope === "v1" && !isV1EventType(item.type)) {
        throw inputError("invalid_event", `Cannot append: event type ${JSON.stringify(item.type)} cannot join a v1 batch. Nothing was written.`, { field: "event_type" });
      }
      const line = sealItem(item, ++seq, prevHash, envelope, clock, sessionId, vault);
      sealed.push(line);
      appended.push(appendedEventOf(line, sessionId, envelope));
      prevHash = line.hash;
    }
    write(tail, sealed);
    const switched = envelopeSwitchWarnings(sessionId, isV1Log(tail, config.envelope), envelope ?? "legacy", sealed);
    return { events: appended, records: sealed.map((s) => s.record), deduped: 0, logPath, warnings: [...warnings, ...switched], existingEventCount: existing.length };
  });
}

/** The envelope rule of appendEvents (DESIGN §2.2), decided on the batch's first event type. */
function plannedEnvelope(tail: ChainTail, configured: Envelope, firstType: string): Envelope {
  if (!isV1EventType(firstType)) return "legacy";
  return isV1Log(tail, configured) ? "v1" : "legacy";
}

/** Whether the log takes v1 lines: an empty one as config.json says, else as its last line is. */
function isV1Log(tail: ChainTail, configured: Envelope): boolean {
  return tail.hash === null ? configured === "v1" : tail.isV1;
}

/**
 * The notice for a batch that turns a v1 log legacy (DESIGN §2.2, Python's rule, kept because
 * Python writers and readers share these logs): a type outside `^[a-z][a-z0-9]*(\.[a-z][a-z0-9]*)+$`
 * makes the whole batch legacy, and a legacy tail keeps every later batch legacy. So the notice
 * comes once per log, with the batch that switched it: after it the tail is legacy and no later
 * batch can switch it again.
 */
function envelopeSwitchWarnings(sessionId: string, v1Log: boolean, envelope: Envelope, sealed: readonly SealedLine[]): string[] {
  if (!v1Log || envelope !== "legacy") return [];
  const culprit = sealed.find((line) => !isV1EventType(line.record.type));
  return culprit === undefined ? [] : [envelopeSwitchWarning(sessionId, culprit.record.type, sealed[0].record.seq)];
}

/**
 * Refuses, before the log is created, a batch that would make a new session of a v1 file root
 * legacy from its first line, so a refused first append leaves no empty log behind. Under the
 * lock appendEvents decides again on the tail it appends to; a store-bound root is left to that
 * check, since its thread may hold events the local copy does not have yet.
 */
function refuseNewLogEnvelopeSwitch(root: Root, rootPath: string, sessionId: string, logPath: string, batch: readonly ValidItem[], override: string): void {
  if (batch.every((item) => isV1EventType(item.type)) || root.threadStore !== undefined || fs.existsSync(logPath)) return;
  if (readConfig(rootPath).envelope === "v1") throw envelopeSwitchRefusal(sessionId, batch, 1, override);
}

/**
 * The refusal of a batch that would switch v1 session `sessionId` to legacy lines at `firstSeq`
 * (`envelope_switch`, exit 2), naming the first type v1 cannot carry and `override`, the way to
 * allow it.
 */
function envelopeSwitchRefusal(sessionId: string, batch: readonly ValidItem[], firstSeq: number, override: string) {
  const culprit = batch.find((item) => !isV1EventType(item.type))!;
  const where = culprit.origin === undefined ? "" : `${culprit.origin}: `;
  return inputError(
    "envelope_switch",
    `Cannot append: ${where}event_type ${JSON.stringify(culprit.type)} cannot be written in the eventloom.v1 envelope (v1 types are lowercase words ` +
      `joined by dots: no underscores, dashes or capitals, at least two words), so this append would switch session ${JSON.stringify(sessionId)} ` +
      `to legacy lines from seq ${firstSeq} on, for this and every later append ('zaxy help events', "Envelopes"). Nothing was written. ` +
      `To switch the session for good, pass ${override}; to stay on v1 lines, use a v1 type.`,
    { field: "event_type", expected: "an event type matching ^[a-z][a-z0-9]*(\\.[a-z][a-z0-9]*)+$, or " + override },
  );
}

/**
 * What the append that switches session `sessionId` from v1 to legacy lines at `firstSeq`, because
 * of `eventType`, says (stderr and `warnings`; docs/events.md quotes it).
 *
 * @example
 * envelopeSwitchWarning("default", "user.preference_changed", 2)
 * // 'event type "user.preference_changed" cannot be written in the eventloom.v1 envelope (…'
 */
export function envelopeSwitchWarning(sessionId: string, eventType: string, firstSeq: number): string {
  return `event type ${JSON.stringify(eventType)} cannot be written in the eventloom.v1 envelope (v1 types are lowercase words joined by dots: ` +
    `no underscores, dashes or capitals, at least two words), so session ${JSON.stringify(sessionId)} is written in legacy lines from seq ` +
    `${firstSeq} on, this and every later append, as the Python implementation does ('zaxy help events', "Envelopes")`;
}

/**
 * The ways to append to a log, every one bound to the same event rules. There is no other way to
 * append: the rules are fixed when the appender is made, so no write path can leave them out.
 * The library's writers all use the one appender with zaxy's rules (src/events/append.ts).
 */
export interface EventAppender {
  /** The rules every event appended through this appender must keep. */
  readonly rules: readonly EventRule[];
  appendEvents(root: string | Root, sessionId: string, items: AppendItem[], options?: AppendOptions): Promise<AppendResult>;
  appendEvent(root: string | Root, sessionId: string, item: AppendItem, options?: AppendOptions): Promise<AppendedEvent>;
  appendPlanned<R = never>(
    root: string | Root,
    sessionId: string,
    plan: (existing: readonly EventRecord[]) => PlannedItem[] | PlanRejection<R>,
    options?: AppendOptions,
  ): Promise<PlannedAppendResult<R>>;
  /** Every problem of every item, as appendEvents would refuse them, without appending (the batch's size is not checked). */
  checkItems(items: readonly AppendItem[]): { valid: ValidItem[]; issues: ValidationIssue[] };
  /** The items normalised, or one error listing every problem, as appendEvents would refuse them. */
  validateItems(items: AppendItem[]): ValidItem[];
}

/**
 * An appender whose every append refuses items breaking any of `rules`.
 *
 * @example
 * const { appendEvents } = eventAppender([derivedEventRule]);
 * await appendEvents(".eventloom", "default", [{ type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship" }) }]);
 */
export function eventAppender(rules: readonly EventRule[]): EventAppender {
  const fixed = Object.freeze([...rules]);
  return Object.freeze({
    rules: fixed,
    appendEvents: (root: string | Root, sessionId: string, items: AppendItem[], options?: AppendOptions) => appendEvents(fixed, root, sessionId, items, options),
    appendEvent: (root: string | Root, sessionId: string, item: AppendItem, options?: AppendOptions) => appendEvent(fixed, root, sessionId, item, options),
    appendPlanned: <R = never>(root: string | Root, sessionId: string, plan: (existing: readonly EventRecord[]) => PlannedItem[] | PlanRejection<R>, options?: AppendOptions) =>
      appendPlanned<R>(fixed, root, sessionId, plan, options),
    checkItems: (items: readonly AppendItem[]) => checkItems(items, fixed),
    validateItems: (items: AppendItem[]) => validateItems(items, fixed),
  });
}
