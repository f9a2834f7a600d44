/**
 * The audit's pass one over a log (audit.ts, stage 2), range by range: the log is cut into
 * line-aligned byte ranges; each range's events are parsed, their facts read and their contexts
 * embedded (`readRangeEvents`) on worker threads side by side (auditPassOneWorker.ts), or here on
 * one core or a small log; the parts are merged strictly in log order (`mergeEvents`, `AuditVectors.appendRows`), so the
 * facts (identity pool ids, first seen first) and rows are exactly a sequential pass's.
 *
 * A part carries its events' identity strings in event order and the main thread interns them
 * in that order; rows come as transferable blocks (`AuditVectors.takeRows`). A reader numbers a
 * range's events from 1, not knowing how many precede it; an event without a seq of its own
 * takes its position in the log as seq, so `mergeEvents` adds the events merged before the range
 * to those (the log is read once, by the readers, and never counted ahead of them).
 *
 * The chain was verified before pass one (`verifyLog`): pass one checks nothing a verified log
 * could fail, exactly as the sequential pass it replaces.
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { type InvalidDerivedEvent, invalidDerivedEvent } from "../events/derivedEventRules.ts";
import { lineSeq, readRangeLines, recordFromLine, verifyWorkersMax } from "../eventloom/mod.ts";
import { invariant } from "../invariant.ts";
import { auditOneThreadRangeBytes, auditParallelMinBytes, auditRangeBytes, auditUncitedEventsListedMax } from "../limits.ts";
import { collectGarbageNow, requestGarbageCollection } from "../platform/mod.ts";
import { WebWorker, workerSpecifier } from "../platform/process.ts";
import { type AuditFacts, detached } from "./auditFacts.ts";
import { type AuditRowsPart, AuditVectors } from "./auditVectors.ts";
import { auditContext } from "./eventContext.ts";
import { contentIdentities, hasSourceCitation, payloadIdentities, withoutEventRef } from "./identities.ts";

/** Width of the UTC windows temporal diversity is counted in. */
export const temporalWindowMs = 3_600_000;
/** Events parsed between garbage-collection requests. */
const gcEveryEvents = 4096;

/** An event that lacks a source citation, named so it can be re-ingested. */
export interface UncitedEvent {
  seq: number;
  /** Full 64-hex hash of the sealed event. */
  hash: string;
  event_type: string;
}

/** An uncited event of a range, by its index in the range (its seq is known once merged). */
export interface UncitedInRange {
  event: number;
  /** Full 64-hex hash of the sealed event. */
  hash: string;
  event_type: string;
}

/** An invalid derived event of a range, by its index in the range (its seq is known once merged). */
export interface InvalidDerivedInRange {
  event: number;
  invalid: InvalidDerivedEvent;
}

/**
 * What pass one reads from one range of the log besides the rows: every event's facts in order.
 * Positions count from the range's first event (1).
 */
export interface AuditRangeEvents {
  /** Each event's seq; for an event in `seqIsPosition`, its position in the range. */
  seqs: Float64Array;
  /** 1 for an event without a seq of its own (`lineSeq`): its seq is its position in the log. */
  seqIsPosition: Uint8Array;
  windows: Float64Array;
  cited: Uint8Array;
  /** Each event's thread, as an index into `threadNames`. */
  threadIndex: Uint32Array;
  threadNames: string[];
  /** Each event's hash (its first 12 characters are what the facts keep). */
  hashPrefixes: string[];
  /**
   * Event e's content identities are `content[contentStart[e] .. contentStart[e + 1])`; those of
   * an event in `seqIsPosition` may still hold its own event ref, which holds its seq.
   */
  contentStart: Uint32Array;
  content: string[];
  uncitedCount: number;
  /** The range's first `auditUncitedEventsListedMax` uncited events. */
  uncitedListed: UncitedInRange[];
  invalidDerived: InvalidDerivedInRange[];
  /** Non-blank lines in the range (what positions count). */
  lines: number;
}

/** A range's events and rows, as a worker sends them back. */
export interface AuditRangePart extends AuditRangeEvents {
  rows: AuditRowsPart;
}

/** What pass one keeps of the log besides the rows. */
export interface PassOneTotals {
  uncited: { count: number; listed: UncitedEvent[] };
  invalidDerived: InvalidDerivedEvent[];
}

/** A line-aligned byte range of the log: [start, end). */
export interface LogRange {
  start: number;
  end: number;
}

/**
 * Reads bytes [start, end) of the open log `fd` (line-aligned): its events' facts, their rows
 * added to `vectors` (after the rows it holds). `eventsBefore`, when the caller knows how many
 * events precede the range, only paces garbage collection (the part's positions count from the
 * range's first event).
 */
export function readRangeEvents(fd: number, range: LogRange, vectors: AuditVectors, eventsBefore = 0): AuditRangeEvents {
  const rowsBefore = vectors.count;
  const seqs: number[] = [];
  const seqIsPosition: number[] = [];
  const windows: number[] = [];
  const cited: number[] = [];
  const threadIndex: number[] = [];
  const threadNames: string[] = [];
  const threadIndexOf = new Map<string, number>();
  const hashPrefixes: string[] = [];
  const contentStart: number[] = [0];
  const content: string[] = [];
  let uncitedCount = 0;
  const uncitedListed: UncitedInRange[] = [];
  const invalidDerived: InvalidDerivedInRange[] = [];
  let lines = 0;
  for (const { bytes, position } of readRangeLines(fd, range.start, range.end)) {
    lines = position;
    const parsed = parseJsonBytes(bytes);
    // Integrity was verified first, so every line parses to an object.
    if (!isJsonObject(parsed)) continue;
    const record = recordFromLine(parsed, position);
    const event = seqs.length;
    const ownSeq = lineSeq(parsed) !== undefined;
    const invalid = invalidDerivedEvent(record);
    if (invalid !== undefined) invalidDerived.push({ event, invalid });
    // Without its own seq, the event's ref is known once merged (`mergeEvents` takes it out).
    for (const identity of ownSeq ? contentIdentities(record) : payloadIdentities(record.payload)) content.push(identity);
    contentStart.push(content.length);
    seqs.push(record.seq);
    seqIsPosition.push(ownSeq ? 0 : 1);
    windows.push(Math.floor(Date.parse(record.timestamp) / temporalWindowMs));
    const isCited = hasSourceCitation(record);
    cited.push(isCited ? 1 : 0);
    let thread = threadIndexOf.get(record.thread);
    if (thread === undefined) {
      thread = threadNames.length;
      threadNames.push(record.thread);
      threadIndexOf.set(record.thread, thread);
    }
    threadIndex.push(thread);
    hashPrefixes.push(record.hash.slice(0, 12));
    if (!isCited) {
      uncitedCount++;
      if (uncitedListed.length < auditUncitedEventsListedMax) uncitedListed.push({ event, hash: detached(record.hash), event_type: detached(record.type) });
    }
    const context = auditContext(record);
    vectors.addContext(context.text, context.repeated);
    // Parsing leaves ~10 KB of garbage per event; collecting now and then keeps the peak near
    // the live data instead of the collector's heuristics.
    // (Counted over the log on one thread, whose ranges are shorter than the interval; a
    // worker's ranges are longer, and it collects after each.)
    if ((eventsBefore + position) % gcEveryEvents === 0) requestGarbageCollection();
  }
  invariant(vectors.count - rowsBefore === seqs.length, `pass one embedded ${vectors.count - rowsBefore} rows for ${seqs.length} events`);
  return {
    seqs: Float64Array.from(seqs), seqIsPosition: Uint8Array.from(seqIsPosition), windows: Float64Array.from(windows), cited: Uint8Array.from(cited),
    threadIndex: Uint32Array.from(threadIndex), threadNames, hashPrefixes,
    contentStart: Uint32Array.from(contentStart), content, uncitedCount, uncitedListed, invalidDerived, lines,
  };
}

/**
 * Adds a range's events to `facts` and `totals`, after everything merged before (their rows are
 * added to the vectors by the caller); `eventsBefore` events of the log precede the range, so an
 * event without its own seq is at position `eventsBefore` + its position in the range.
 */
export function mergeEvents(part: AuditRangeEvents, eventsBefore: number, facts: AuditFacts, totals: PassOneTotals): void {
  const seqOf = (e: number) => (part.seqIsPosition[e] === 1 ? eventsBefore + part.seqs[e] : part.seqs[e]);
  for (let e = 0; e < part.seqs.length; e++) {
    const seq = seqOf(e);
    const thread = part.threadNames[part.threadIndex[e]];
    const hash = part.hashPrefixes[e];
    const content = part.content.slice(part.contentStart[e], part.contentStart[e + 1]);
    facts.add({
      seq, thread, hash,
      content: part.seqIsPosition[e] === 1 ? withoutEventRef(content, { thread, seq, hash }) : content,
      cited: part.cited[e] === 1, window: part.windows[e],
    });
  }
  totals.uncited.count += part.uncitedCount;
  for (const { event, hash, event_type } of part.uncitedListed) {
    if (totals.uncited.listed.length < auditUncitedEventsListedMax) totals.uncited.listed.push({ seq: seqOf(event), hash, event_type });
  }
  for (const { event, invalid } of part.invalidDerived) totals.invalidDerived.push({ seq: seqOf(event), hash: invalid.hash, type: invalid.type, reason: invalid.reason });
}

/**
 * The log's bytes cut into ranges of about `rangeBytes`, each ending just after a newline (or
 * at the end of the file): a line longer than a range stays whole in the range it starts in.
 */
export function splitLog(fd: number, size: number, rangeBytes: number): LogRange[] {
  const ranges: LogRange[] = [];
  const probe = new Uint8Array(64 * 1024);
  let start = 0;
  while (start < size) {
    let end = Math.min(start + rangeBytes, size);
    // Move `end` to just past the next newline at or after end − 1.
    let at = end - 1;
    while (end < size) {
      const read = fs.readSync(fd, probe, 0, probe.length, at);
      if (read === 0) {
        end = size;
        break;
      }
      const nl = probe.subarray(0, read).indexOf(0x0a);
      if (nl >= 0) {
        end = at + nl + 1;
        break;
      }
      at += read;
      if (at >= size) end = size;
    }
    ranges.push({ start, end });
    start = end;
  }
  return ranges;
}

/** How pass one is split: tests set both to exercise the workers on small logs. */
export interface PassOneSplit {
  /** Worker threads (1 reads every range on this thread). */
  workers: number;
  /** Bytes per range (line-aligned, so ranges are about this long). */
  rangeBytes: number;
}

/** The split a log of `size` bytes gets by default: one thread for a small log or one core. */
export function defaultPassOneSplit(size: number): PassOneSplit {
  const workers = size < auditParallelMinBytes ? 1 : verifyWorkersMax();
  return { workers, rangeBytes: workers === 1 ? auditOneThreadRangeBytes : auditRangeBytes };
}

/**
 * Pass one over the log at `path`: every event's facts into `facts` and its row into `vectors`,
 * in log order. `onEvents` is told the events merged so far.
 */
export async function readPassOne(path: string, facts: AuditFacts, vectors: AuditVectors, split: PassOneSplit, onEvents?: (events: number) => void): Promise<PassOneTotals> {
  const totals: PassOneTotals = { uncited: { count: 0, listed: [] }, invalidDerived: [] };
  const fd = fs.openSync(path, "r");
  try {
    const ranges = splitLog(fd, fs.fstatSync(fd).size, split.rangeBytes);
    if (split.workers <= 1 || ranges.length <= 1) {
      // Rows go straight into `vectors` (and its token cache): nothing is handed over.
      let eventsBefore = 0;
      for (const range of ranges) {
        const events = readRangeEvents(fd, range, vectors, eventsBefore);
        mergeEvents(events, eventsBefore, facts, totals);
        eventsBefore += events.lines;
        onEvents?.(facts.count);
      }
      return totals;
    }
    let eventsBefore = 0;
    await readOnWorkers(path, ranges, split.workers, vectors.dim, (part) => {
      mergeEvents(part, eventsBefore, facts, totals);
      eventsBefore += part.lines;
      vectors.appendRows(part.rows);
      // The part's strings are garbage now (what the facts keep of them is detached). Collected
      // before the next part arrives (~20 ms at 300,000 events): a requested collection lags
      // the parts, and the audit's peak grows by 10-20 % (the next part and the garbage).
      collectGarbageNow();
      onEvents?.(facts.count);
    });
    return totals;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Sends the ranges to `workerCount` workers (each range to whichever is free, at most one
 * range more than there are workers ahead of the merge: parts waiting to be merged hold their
 * rows and strings twice, here and in the facts) and hands the parts to `merge` in range order.
 */
async function readOnWorkers(path: string, ranges: readonly LogRange[], workerCount: number, dim: number, merge: (part: AuditRangePart) => void): Promise<void> {
  const workers: Worker[] = [];
  const parts = new Map<number, AuditRangePart>();
  let nextToSend = 0;
  let nextToMerge = 0;
  try {
    await new Promise<void>((resolve, reject) => {
      const idle: Worker[] = [];
      const send = () => {
        while (idle.length > 0 && nextToSend < ranges.length && nextToSend - nextToMerge <= workerCount) {
          const worker = idle.shift() as Worker;
          const index = nextToSend++;
          const range = ranges[index];
          worker.onmessage = (event: MessageEvent) => {
            const data = event.data as { kind: string; part?: AuditRangePart; message?: string };
            if (data.kind !== "done") {
              reject(new Error(`audit worker failed: ${data.message}`));
              return;
            }
            parts.set(index, data.part as AuditRangePart);
            idle.push(worker);
            try {
              while (parts.has(nextToMerge)) {
                const part = parts.get(nextToMerge) as AuditRangePart;
                parts.delete(nextToMerge++);
                merge(part);
              }
            } catch (error) {
              reject(error);
              return;
            }
            if (nextToMerge === ranges.length) resolve();
            else send();
          };
          worker.onerror = (event: Event) => reject(new Error(`audit worker failed: ${(event as ErrorEvent).message ?? "unknown error"}`));
          worker.postMessage({ kind: "read", path, start: range.start, end: range.end, dim });
        }
      };
      for (let w = 0; w < workerCount; w++) {
        const worker = new WebWorker(workerSpecifier(new URL("./auditPassOneWorker.ts", import.meta.url), "compaction/auditPassOneWorker.ts"), { type: "module" });
        workers.push(worker);
        idle.push(worker);
      }
      send();
    });
  } finally {
    for (const worker of workers) worker.terminate();
  }
}
