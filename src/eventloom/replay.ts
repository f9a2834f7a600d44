/**
 * Replay: the events of an inclusive `[fromSeq, toSeq]` window, the integrity report of the
 * whole log, and a handoff summary of the window (what a next agent needs first).
 */
import * as path from "node:path";
// `readEvents` names its parameter `path`.
const dirnameOf = path.dirname;
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { openVault } from "./forgetting.ts";
import { checkError, inputError } from "../errors.ts";
import { type EventRecord, recordFromLine } from "./envelope.ts";
import { regularFileProblem } from "../platform/mod.ts";
import { readLogLines } from "./lines.ts";
import { verifyWithCheckpoint } from "./verifiedCheckpoint.ts";
import { type IntegrityReport, verifyLog } from "./verify.ts";

export interface HandoffSummary {
  event_count: number;
  goals: string[];
  open_tasks: Array<{ type: string; actor: string; payload: EventRecord["payload"] }>;
  last_actor: string | null;
  last_timestamp: string | null;
}

export interface ReplayResult {
  events: EventRecord[];
  integrity: IntegrityReport;
  handoff: HandoffSummary;
  /** Events in the log (not just the window). */
  total_events: number;
}

export interface ReplayWindow {
  fromSeq?: number;
  toSeq?: number;
  /** Stop after this many events (MCP caps replays). */
  limit?: number;
}

function taskId(payload: EventRecord["payload"]): string | undefined {
  for (const key of ["taskId", "task_id"]) {
    const value = payload.get(key);
    if (typeof value === "string" || typeof value === "number") return String(value);
  }
  return undefined;
}

/** Python's `handoff_summary()` over a list of events. */
export function handoffSummary(events: EventRecord[]): HandoffSummary {
  const goals: string[] = [];
  const completed = new Set<string>();
  for (const event of events) {
    if (event.type.startsWith("goal.")) {
      const title = event.payload.get("title");
      goals.push(typeof title === "string" && title !== "" ? title : "untitled");
    }
    if (event.type.startsWith("task.completed")) {
      const id = taskId(event.payload);
      if (id !== undefined) completed.add(id);
    }
  }
  const openTasks = events
    .filter((event) => event.type.startsWith("task.") && !event.type.startsWith("task.completed"))
    .filter((event) => {
      const id = taskId(event.payload);
      return id === undefined || !completed.has(id);
    })
    .map((event) => ({ type: event.type, actor: event.actor, payload: event.payload }));
  const last = events.at(-1);
  return {
    event_count: events.length,
    goals,
    open_tasks: openTasks,
    last_actor: last?.actor ?? null,
    last_timestamp: last?.timestamp ?? null,
  };
}

export function validateWindow(window: ReplayWindow): void {
  const { fromSeq, toSeq } = window;
  if (fromSeq !== undefined && (!Number.isInteger(fromSeq) || fromSeq < 1)) {
    throw inputError("invalid_from_seq", `\`from_seq\` must be an integer >= 1, got ${fromSeq}`, { field: "from_seq" });
  }
  if (toSeq !== undefined && (!Number.isInteger(toSeq) || toSeq < 1)) {
    throw inputError("invalid_to_seq", `\`to_seq\` must be an integer >= 1, got ${toSeq}`, { field: "to_seq" });
  }
  if (fromSeq !== undefined && toSeq !== undefined && fromSeq > toSeq) {
    throw inputError("invalid_window", `\`from_seq\` ${fromSeq} is after \`to_seq\` ${toSeq}`, { field: "from_seq" });
  }
}

/** Reads the events of a window (no verification). Lines that do not parse are skipped. */
export function readEvents(path: string, window: ReplayWindow = {}): { events: EventRecord[]; total: number } {
  const events: EventRecord[] = [];
  const walk = windowEvents(path, window);
  for (let step = walk.next(); ; step = walk.next()) {
    if (step.done) return { events, total: step.value };
    events.push(step.value);
  }
}

/**
 * The window's events one at a time, in seq order, without holding them (`--ndjson`); returns
 * (as the generator's value) the number of events in the file. A line that does not parse is
 * skipped (the integrity report names it).
 */
export function* windowEvents(path: string, window: ReplayWindow): Generator<EventRecord, number> {
  validateWindow(window);
  openVault(dirnameOf(path));
  const from = window.fromSeq ?? 1;
  const to = window.toSeq ?? Number.POSITIVE_INFINITY;
  let shown = 0;
  let total = 0;
  for (const { bytes, position } of readLogLines(path)) {
    total = position;
    if (position < from || position > to) continue;
    if (window.limit !== undefined && shown >= window.limit) continue;
    try {
      const parsed = parseJsonBytes(bytes);
      if (isJsonObject(parsed)) {
        shown++;
        yield recordFromLine(parsed, position);
      }
    } catch {
      // The integrity report names the broken line.
    }
  }
  return total;
}

/**
 * Replays a log: integrity first, then the window.
 *
 * @example
 * const { events, integrity, handoff } = await replayLog(".eventloom/default.jsonl", { fromSeq: 2 });
 */
export async function replayLog(path: string, window: ReplayWindow = {}): Promise<ReplayResult> {
  validateWindow(window);
  const problem = regularFileProblem(path);
  if (problem !== undefined) throw inputError("unreadable_log", `Cannot replay ${path}: ${problem}`, { field: "LOG", expected: "a regular file" });
  const integrity = await verifyLog(path);
  const { events, total } = integrity.interrupted_append?.state === "partial" ? readCommittedEvents(path, window, integrity.total_events) : readEvents(path, window);
  return { events, integrity, handoff: handoffSummary(events), total_events: total };
}

/** The window's events among the first `committed` (the rest belong to an interrupted append). */
function readCommittedEvents(path: string, window: ReplayWindow, committed: number): { events: EventRecord[]; total: number } {
  const toSeq = Math.min(window.toSeq ?? committed, committed);
  if (toSeq === 0 || (window.fromSeq ?? 1) > toSeq) return { events: [], total: committed };
  return { events: readEvents(path, { ...window, toSeq }).events, total: committed };
}

export interface VerifiedReadOptions {
  /** The session the log belongs to, as messages name it. */
  sessionId: string;
  /**
   * Default true: verify under the shared lock, with workers. False when the caller already
   * holds the log's exclusive lock (appendPlanned): no lock (it would wait on the caller), one thread.
   */
  lock?: boolean;
  /** The error thrown when the log does not exist; without it a missing log reads as undefined. */
  missing?: () => Error;
  /**
   * The `integrity_failure` message, given `fails verification at seq N (reason)`; the default
   * is `The log of session "<id>" fails verification at seq N (reason)`.
   */
  failureMessage?: (failure: string) => string;
  /**
   * The log's verified checkpoint (`verifiedCheckpointPath`): when given, a prefix verified by an
   * earlier read is checked by one SHA-256 of its bytes and only the rest is verified, then the
   * checkpoint is refreshed (`verifiedCheckpoint.ts`). The verdict and the events are the same.
   */
  checkpointPath?: string;
  /**
   * Each verified event in seq order, handed over instead of returned (`events` is then empty),
   * once the log passed verification: a caller that folds a large log needs no event after it.
   */
  eachEvent?: (event: EventRecord) => void;
}

export interface VerifiedEvents {
  integrity: IntegrityReport;
  events: EventRecord[];
  /** Why the log's verified checkpoint was refused as not authenticated (forged), or undefined. */
  checkpointRefused?: string;
}

/**
 * The one verified read of a log: verify the chain, refuse a broken one (`integrity_failure`,
 * exit 1, never read), then read the events verification covered (appends landing after it are
 * left for the next read). With `checkpointPath`, the prefix an earlier read verified is checked
 * by its checkpoint digest instead of being verified again (same verdict, same events).
 *
 * @example
 * const read = await readVerifiedEvents(".eventloom/default.jsonl", { sessionId: "default" });
 * // undefined when there is no log; else { integrity, events }
 */
export async function readVerifiedEvents(logPath: string, options: VerifiedReadOptions & { missing: () => Error }): Promise<VerifiedEvents>;
export async function readVerifiedEvents(logPath: string, options: VerifiedReadOptions): Promise<VerifiedEvents | undefined>;
export async function readVerifiedEvents(logPath: string, options: VerifiedReadOptions): Promise<VerifiedEvents | undefined> {
  // Payloads sealed as erasable cells are opened with the root's vault (forgetting.ts).
  openVault(path.dirname(logPath));
  if (!fs.existsSync(logPath)) {
    if (options.missing !== undefined) throw options.missing();
    return undefined;
  }
  let integrity: IntegrityReport;
  let checkedEvents: EventRecord[] | undefined;
  let checkpointRefused: string | undefined;
  if (options.checkpointPath !== undefined) {
    const each = options.eachEvent;
    const checked = await verifyWithCheckpoint(logPath, options.checkpointPath, { lock: options.lock !== false, events: each === undefined ? "all" : { each } });
    integrity = checked.integrity;
    checkedEvents = checked.tailEvents;
    checkpointRefused = checked.checkpointRefused ?? undefined;
  } else {
    integrity = await verifyLog(logPath, options.lock === false ? { lock: false, threads: 1 } : {});
  }
  if (integrity.interrupted_append?.state === "conflict") {
    const message = options.failureMessage?.(`cannot be read: ${integrity.interrupted_append.message}`) ??
      `The log of session ${JSON.stringify(options.sessionId)} cannot be read: ${integrity.interrupted_append.message}`;
    throw checkError("interrupted_append_conflict", message, { hint: `run \`zaxy repair ${logPath} --truncate-torn-tail\` for the choices` });
  }
  if (!integrity.ok) {
    const failure = `fails verification at seq ${integrity.broken_at_seq} (${integrity.broken_reason})`;
    const message = options.failureMessage?.(failure) ?? `The log of session ${JSON.stringify(options.sessionId)} ${failure}`;
    throw checkError("integrity_failure", message, { line: integrity.line ?? undefined, hint: `run \`zaxy verify ${logPath}\` for the full report` });
  }
  if (options.eachEvent !== undefined) {
    if (checkedEvents === undefined && integrity.total_events > 0) {
      for (const event of windowEvents(logPath, { toSeq: integrity.total_events })) options.eachEvent(event);
    }
    return checkpointRefused === undefined ? { integrity, events: [] } : { integrity, events: [], checkpointRefused };
  }
  // An empty log has no window to read (`toSeq: 0` is refused as bad input).
  const events = checkedEvents ?? (integrity.total_events === 0 ? [] : readEvents(logPath, { toSeq: integrity.total_events }).events);
  return checkpointRefused === undefined ? { integrity, events } : { integrity, events, checkpointRefused };
}
