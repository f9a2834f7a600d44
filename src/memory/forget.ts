/**
 * `memory_forget` / `zaxy memory forget` (reference core §1.13, features §2.9; docs/forgetting.md):
 * cryptographic erasure of one event's content. The event must have been sealed as an erasable
 * cell (appended while `forgetting_enabled` was on). In order:
 *
 * 1. the evolution gate decides op `forget` (an operator's explicit forget defaults to confidence
 *    1.0, so it is carried out under the default policy) and `evolution.gate.evaluated` is
 *    appended; a decision that needs review stops here, nothing destroyed;
 * 2. under the log's lock (and the vault's), the cell's wrapped key and the keys of the copies
 *    other events made of its content (`quotedContentPaths`) are destroyed in one fsynced vault
 *    write that also records who forgot it, why and which event: from now on no reader can open
 *    them, and every reader shows `[FORGOTTEN]`;
 * 3. under the same locks, `memory.forgotten {forget_id, target {seq, hash}, cell_id, reason,
 *    authority_status[, copy_cell_ids]}` is appended (`forget_id` is `forget:` + 24 hex of
 *    SHA-256 over canonical {target, cell_id, reason}, as in Python). A process stopped between
 *    2 and 3 leaves the record in the vault; the same forget run again writes it to the log;
 * 4. every derived copy under `<root>/projections` (read models, vector indexes, the
 *    graph store), which may hold the content, is deleted; the next read rebuilds it from the log,
 *    where the content no longer opens. The log and its hash chain are untouched.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { canonicalJson, fromJs, intField, isJsonObject, type JsonObject, type JsonValue, parseJsonBytes, stringField } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";
import { appendPlanned } from "../events/append.ts";
import { resolveEventTarget } from "../eventloom/eventTarget.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { cipherKey, type DestroyedCell, openVault, quoteCellIds, type Vault } from "../eventloom/forgetting.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { fileSystemReason, citationUri, readForgettingEnabled, projectionsDir, sessionLogPath } from "../eventloom/root.ts";
import { fleetThreadPrefix } from "../fleet/ids.ts";
import { causalEdgeGeneratedType } from "../events/derivedEventRules.ts";
import { causalActor } from "../events/outcomeExplained.ts";
import { inferenceActor } from "../projection/inference.ts";
import { evaluateEvolutionGate, gateEventPayload, gateEventType, parseUnitInterval } from "../governance/evolutionGate.ts";
import { resolveEvolutionPolicy } from "../governance/policySettings.ts";
import { runInterruptible } from "../platform/interrupt.ts";
import { sha256Hex } from "../platform/mod.ts";
import { crashTestPause } from "../projection/crashTestPause.ts";
import type { PlainJson } from "../projection/types.ts";
import { sharedMemoryService } from "./service.ts";

export const forgottenEventType = "memory.forgotten";
export const defaultForgetterActor = "zaxy-forgetter";
const hashPattern = /^[0-9a-f]{64}$/;

export interface ForgetRequest {
  /** With targetHash (full, or a prefix of at least 12 hex), or instead a citation in `target`. */
  targetSeq?: unknown;
  targetHash?: unknown;
  /** The event's citation `eventloom://<session>/events/<seq>#<hash prefix>`. */
  target?: unknown;
  reason: unknown;
  actor?: unknown;
  confidence?: unknown;
  env?: Record<string, string | undefined>;
  fieldNames?: { [field: string]: string };
}

export function forgetId(target: { seq: number; hash: string }, cellId: string, reason: string): string {
  return `forget:${sha256Hex(canonicalJson(fromJs({ target, cell_id: cellId, reason }))).slice(0, 24)}`;
}

/**
 * The erasable cells of the event at `seq` as its line holds it: its own cell (a memory event's
 * whole payload) and the quote cells of the text it copies or carries (`quotedContentPaths`). A
 * bookkeeping event (a rollback, a candidate) has only quote cells; forgetting it erases them.
 */
function cellsAt(vault: Vault, logPath: string, seq: number): { own?: string; quotes: string[] } {
  for (const { bytes, position } of readLogLines(logPath)) {
    if (position !== seq) continue;
    const parsed = parseJsonBytes(bytes);
    const payload = isJsonObject(parsed) ? parsed.get("payload") : undefined;
    if (!isJsonObject(payload)) return { quotes: [] };
    const cell = payload.get(cipherKey);
    const id = isJsonObject(cell) ? cell.get("cell_id") : undefined;
    return { own: typeof id === "string" ? id : undefined, quotes: quoteCellIds(vault, payload) };
  }
  return { quotes: [] };
}

/** The latest forget gate decision recorded for `target` (what an interrupted forget was carried out under). */
function recordedGate(existing: readonly EventRecord[], target: EventRecord): { [key: string]: PlainJson } {
  for (let i = existing.length - 1; i >= target.seq; i--) {
    const event = existing[i];
    if (event.type !== gateEventType || stringField(event.payload, "op") !== "forget") continue;
    const ref = event.payload.get("candidate_ref");
    if (!isJsonObject(ref) || intField(ref, "seq") !== target.seq || stringField(ref, "hash") !== target.hash) continue;
    return { seq: event.seq, hash: event.hash, decision: stringField(event.payload, "decision") ?? null, reason: stringField(event.payload, "reason") ?? null };
  }
  return {};
}

/** True when the log already holds the `memory.forgotten` record of `cellId`. */
function forgetRecorded(existing: readonly EventRecord[], cellId: string): boolean {
  return existing.some((event) => event.type === forgottenEventType && event.payload.get("cell_id") === cellId);
}

const refKey = (seq: number | undefined, hash: string | undefined) => `${seq}:${hash}`;

/**
 * The events a payload says its content came from: its `target` (a correction, a rollback), its
 * `candidate_ref` (a gate decision) and its `source_events` (a candidate, a fleet promotion).
 */
function citedEvents(payload: JsonObject): string[] {
  const keys: string[] = [];
  const cite = (ref: JsonValue | undefined) => {
    if (isJsonObject(ref)) keys.push(refKey(intField(ref, "seq"), stringField(ref, "hash")));
  };
  cite(payload.get("target"));
  cite(payload.get("candidate_ref"));
  const sources = payload.get("source_events");
  if (Array.isArray(sources)) for (const source of sources) cite(source);
  return keys;
}

/**
 * The event an edge zaxy derived was derived from: the append writes each derived edge right
 * after the event that produced it (an `outcome.explained`, a `task.completed`, an
 * `inference.edge.contradicted`), whose names it copies. Its `evidence` cites other events,
 * whose content it does not copy.
 */
function producerOf(event: EventRecord, existing: readonly EventRecord[]): string | undefined {
  if (event.actor !== causalActor && event.actor !== inferenceActor) return undefined;
  if (event.type !== causalEdgeGeneratedType && !event.type.startsWith("inference.edge.")) return undefined;
  const producer = existing[event.seq - 2];
  return producer === undefined ? undefined : refKey(producer.seq, producer.hash);
}

/** The still-open quote cells of the lines of `logPath` at `positions`. */
function openQuoteCells(vault: Vault, logPath: string, positions: ReadonlySet<number>): string[] {
  if (positions.size === 0) return [];
  const ids: string[] = [];
  for (const { bytes, position } of readLogLines(logPath)) {
    if (!positions.has(position)) continue;
    const parsed = parseJsonBytes(bytes);
    const payload = isJsonObject(parsed) ? parsed.get("payload") : undefined;
    if (isJsonObject(payload)) ids.push(...quoteCellIds(vault, payload).filter((id) => !vault.isDestroyed(id)));
  }
  return ids;
}

/**
 * The quote cells of every event that derives from the target: in its own session, events that
 * cite it (`citedEvents`) or, transitively, such an event (a correction of it, a rollback of that
 * correction, a candidate or an edge built from either); in the root's fleet threads, promotions
 * whose origin session and source events name one of them. Their copies of the content
 * (`quotedContentPaths`) are erased with it.
 */
function copyCellIds(vault: Vault, root: string, logPath: string, sessionId: string, existing: readonly EventRecord[], target: { seq: number; hash: string }): string[] {
  const derived = new Set([refKey(target.seq, target.hash)]);
  const positions = new Set<number>();
  for (const event of existing.slice(target.seq)) {
    const producer = producerOf(event, existing);
    if (!(producer !== undefined && derived.has(producer)) && !citedEvents(event.payload).some((key) => derived.has(key))) continue;
    derived.add(refKey(event.seq, event.hash));
    positions.add(event.seq);
  }
  const ids = openQuoteCells(vault, logPath, positions);
  for (const fleetLog of fleetThreadLogs(root)) {
    if (fleetLog === logPath) continue;
    const promotions = new Set<number>();
    for (const { bytes, position } of readLogLines(fleetLog)) {
      const parsed = parseJsonBytes(bytes);
      const payload = isJsonObject(parsed) ? parsed.get("payload") : undefined;
      if (!isJsonObject(payload) || payload.get("origin_session") !== sessionId) continue;
      if (!citedEvents(payload).some((key) => derived.has(key))) continue;
      promotions.add(position);
      // The gate decision about the promotion, earlier in the thread, names it too.
      const gate = payload.get("gate_event");
      const gateSeq = isJsonObject(gate) ? intField(gate, "seq") : undefined;
      if (gateSeq !== undefined) promotions.add(gateSeq);
    }
    ids.push(...openQuoteCells(vault, fleetLog, promotions));
  }
  return ids;
}

/** The log files of the root's fleet threads (`fleet.<id>.jsonl`). */
function fleetThreadLogs(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return [];
  }
  return names.filter((name) => name.startsWith(fleetThreadPrefix) && name.endsWith(".jsonl")).sort().map((name) => path.join(root, name));
}

/** Deletes `<root>/projections` (all derived) and this process's warm indexes. */
function dropDerivedCopies(root: string, what: string): void {
  sharedMemoryService(root).dropAll();
  try {
    fs.rmSync(projectionsDir(root), { recursive: true, force: true });
  } catch (error) {
    throw ioError("write_failed", `${what} under ${path.join(root, "projections")} could not be deleted (${fileSystemReason(error)}); delete them before any other read`);
  }
}

export async function forgetMemory(root: string, sessionId: string, request: ForgetRequest): Promise<{ [key: string]: PlainJson }> {
  const names = request.fieldNames ?? {};
  if (!readForgettingEnabled(root)) {
    throw inputError("forgetting_disabled", `Forgetting is off for ${root}: set "forgetting_enabled": true in config.json (zaxy init --forgetting); only events appended after that can be forgotten`, {
      field: "config.json forgetting_enabled",
    });
  }
  const seqField = names.target_seq ?? "target_seq";
  const hashField = names.target_hash ?? "target_hash";
  const named = await resolveEventTarget(root, sessionId, { seq: request.targetSeq, hash: request.targetHash, citation: request.target }, {
    fields: { seq: seqField, hash: hashField, citation: names.target ?? "target" },
  });
  const targetSeq = named.seq;
  const targetHash = named.hash;
  if (!Number.isSafeInteger(targetSeq) || targetSeq < 1) {
    throw inputError("invalid_request", `${seqField} must be an integer >= 1`, { field: seqField });
  }
  if (!hashPattern.test(targetHash)) {
    throw inputError("invalid_request", `${hashField} must be 64 lowercase hex characters`, { field: hashField });
  }
  if (typeof request.reason !== "string" || request.reason.trim() === "") throw inputError("invalid_request", `${names.reason ?? "reason"} must be a non-empty string`, { field: names.reason ?? "reason" });
  const reason = request.reason;
  const actor = request.actor === undefined ? defaultForgetterActor : String(request.actor);
  const confidence = request.confidence === undefined ? 1 : parseUnitInterval(request.confidence, names.confidence ?? "confidence");
  const policy = resolveEvolutionPolicy(root, { env: request.env });
  const vault = openVault(root, true);
  if (vault === undefined) throw ioError("unreadable_vault", `The erasure key of ${root} is missing`);
  const logPath = sessionLogPath(root, sessionId, "forget in");
  const target = { seq: targetSeq, hash: targetHash };
  let cellId = "";
  // A bookkeeping target's other quote cells, erased with its first (which the record names).
  let ownQuotes: string[] = [];
  let resuming = false;
  let earlierGate: { [key: string]: PlainJson } = {};
  let decision: ReturnType<typeof evaluateEvolutionGate> | undefined;
  const alreadyForgotten = `Event ${targetSeq} is already forgotten`;
  // The gate's decision is recorded under the log's lock, on exactly the events it is about.
  const gated = await appendPlanned<string>(root, sessionId, (existing) => {
    const event = existing[targetSeq - 1];
    if (event === undefined) return { rejected: `No event at seq ${targetSeq} in session ${JSON.stringify(sessionId)} (it has ${existing.length} events)` };
    if (event.hash !== targetHash) return { rejected: `${hashField} does not match the sealed event at seq ${targetSeq} (its hash is ${event.hash})` };
    const cells = cellsAt(vault, logPath, targetSeq);
    const cell = cells.own ?? cells.quotes[0];
    if (cell === undefined) {
      return { rejected: `Event ${targetSeq} (${event.type}) was not sealed as an erasable cell and quotes no sealed content: only events appended while forgetting_enabled is on can be forgotten (memory events, and the text a rollback, candidate, review, gate or derived edge quotes)` };
    }
    cellId = cell;
    ownQuotes = cells.own === undefined ? cells.quotes.slice(1) : [];
    if (vault.isDestroyed(cell)) {
      if (forgetRecorded(existing, cell)) return { rejected: alreadyForgotten };
      // The key was destroyed but the forget stopped before its record: finish it below.
      resuming = true;
      earlierGate = recordedGate(existing, event);
      return [];
    }
    decision = evaluateEvolutionGate("forget", confidence, policy);
    return [{ type: gateEventType, actor, payload: gateEventPayload(decision, { seq: event.seq, hash: event.hash }) }];
  });
  if (gated.rejection !== undefined) throw inputError("invalid_request", `Cannot forget: ${gated.rejection}. Nothing was written.`, { field: seqField });
  const gate = resuming ? earlierGate : { seq: gated.events[0].seq, hash: gated.events[0].hash, decision: decision!.decision, reason: decision!.reason };
  if (decision !== undefined && !decision.auto_apply) {
    return { session_id: sessionId, status: "held_for_review", target, cell_id: cellId, gate };
  }
  // Every derived copy may hold the content: deleted before the key, so a crash between the two
  // never leaves copies of content whose key is gone (only a forget to run again), and once more
  // after the tombstone for a reader that rebuilt them in between.
  dropDerivedCopies(root, "Nothing is forgotten yet: the derived copies");
  let recorded: DestroyedCell | undefined;
  // Destroying the keys and writing the record happen under the log's lock (and the vault's), in
  // that order: the vault records who forgot what and why with the destruction, so a process
  // killed between the two leaves a forget that a re-run finishes (it writes the record from the
  // vault). SIGINT/SIGTERM wait until the record is written.
  const tombstone = await runInterruptible(async () =>
    await appendPlanned<string>(root, sessionId, (existing) => {
      if (forgetRecorded(existing, cellId)) return { rejected: alreadyForgotten };
      recorded = vault.destroyedEntry(cellId);
      if (recorded === undefined) {
        const copies = [...ownQuotes.filter((id) => !vault.isDestroyed(id)), ...copyCellIds(vault, root, logPath, sessionId, existing, target)];
        const record = { reason, actor, session_id: sessionId, target, copies };
        vault.destroy([cellId, ...copies], record);
        recorded = { at: "", ...record };
        crashTestPause("forget-key-destroyed");
      }
      const copies = recorded.copies ?? [];
      const recordReason = recorded.reason;
      return [{
        type: forgottenEventType,
        actor: recorded.actor ?? actor,
        payload: fromJs({
          forget_id: forgetId(target, cellId, recordReason),
          target,
          cell_id: cellId,
          reason: recordReason,
          authority_status: "authoritative",
          ...(copies.length > 0 ? { copy_cell_ids: copies } : {}),
        }),
      }];
    })
  );
  if (tombstone.rejection !== undefined) throw inputError("invalid_request", `Cannot forget: ${tombstone.rejection}. Nothing was written.`, { field: seqField });
  dropDerivedCopies(root, "The content is forgotten, but the derived copies");
  const id = forgetId(target, cellId, recorded!.reason);
  const event = tombstone.events[0];
  return {
    session_id: sessionId,
    status: "forgotten",
    forget_id: id,
    target,
    target_citation: citationUri(sessionId, targetSeq, targetHash),
    cell_id: cellId,
    gate,
    ...(resuming ? { completed_earlier_forget: true } : {}),
    ...((recorded!.copies ?? []).length > 0 ? { copy_cell_ids: recorded!.copies! } : {}),
    event_type: forgottenEventType,
    seq: event.seq,
    hash: event.hash,
    citation: event.citation,
  };
}
