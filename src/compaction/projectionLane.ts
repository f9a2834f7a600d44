/**
 * The projection lane: what `zaxy compact` leaves for reads. Compaction projection artifacts
 * under the root are found and loaded, their records checked against the sealed events they name,
 * searched with the query, and the matches made a checkout lane that joins retrieval's result,
 * as the fleet (fleet/checkoutLane.ts) and long-horizon (consolidation/longHorizonLane.ts) lanes
 * do. It runs for `memory query` and checkout alike.
 *
 * @example
 * mergeProjectionContexts(retrieve(index, "cache identity-code-0001", { limit: 10 }), "cache identity-code-0001", 10, loadRootProjections(root))
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { compareCodePoints, isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import {
  type CompactionProjection,
  loadProjectionArtifact,
  projectionArtifactSuffix,
  type ProjectionRecord,
  authoritativeScope,
} from "../retrieval/projectionArtifact.ts";
import { searchProjections } from "../retrieval/projectionSearch.ts";
import { citationHashChars, parseCitationUri, sessionIdOfPath, sessionLogPath, sessionLogsUnderRoot } from "../eventloom/root.ts";
import { type EventRecord, recordFromLine } from "../eventloom/envelope.ts";
import type { RetrievedContext, RetrievalResult } from "../retrieval/types.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import type { CheckoutLane } from "../checkout/lane.ts";
import { mergeLane } from "../checkout/mergeLanes.ts";

// ---------------------------------------------------------------------------
// Finding the records
/*
 * The projection lane (DESIGN §6, §9; Python `_merge_projection_contexts`): compaction
 * projection artifacts (`*.compaction.json` anywhere under the Eventloom root) are found and
 * loaded, their records checked against the sealed events they name (below: a record whose
 * `event_ref` does not resolve is never served), searched with the query, and the matching
 * records turned into contexts as `source: "projection"` items that carry `projection_id`,
 * `event_ref` and the record's citations.
 *
 * A projection record is a real source event, so an item cites that event (`citation` is the
 * record's event ref). The lane (below) merges the contexts into retrieval's result
 * (by overlap score, existing contexts keep their relative order, cut back to the limit).
 * Unreadable or malformed artifacts are skipped with a warning; they never fail a query.
 */
/** Directory levels searched below the root (the root's own layout is two levels deep). */
export const projectionSearchDepthMax = 16;

/** Longest record text put into a context, as for the other lanes. */
const contentCharsMax = 600;

function compareSegments(a: string, b: string): number {
  const left = a.split(path.sep);
  const right = b.split(path.sep);
  for (let i = 0; i < Math.min(left.length, right.length); i++) {
    const order = compareCodePoints(left[i], right[i]);
    if (order !== 0) return order;
  }
  return left.length - right.length;
}

/**
 * Every `*.compaction.json` file under `root`, sorted by path segments, de-duplicated by resolved
 * path (first wins). Symlinked directories are not followed (no cycles); symlinked files are.
 *
 * @example
 * discoverProjectionArtifacts(".eventloom") // [".eventloom/projections/default.compaction.json"]
 */
export function discoverProjectionArtifacts(root: string): string[] {
  const found: string[] = [];
  const walk = (dir: string, depth: number): void => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        if (depth < projectionSearchDepthMax) walk(full, depth + 1);
      } else if (entry.name.endsWith(projectionArtifactSuffix)) {
        if (entry.isFile() || (entry.isSymbolicLink() && fs.statSync(full, { throwIfNoEntry: false })?.isFile())) found.push(full);
      }
    }
  };
  walk(root, 0);
  found.sort(compareSegments);
  const seen = new Set<string>();
  return found.filter((file) => {
    let real: string;
    try {
      real = fs.realpathSync(file);
    } catch {
      return false;
    }
    if (seen.has(real)) return false;
    seen.add(real);
    return true;
  });
}

interface CachedArtifact {
  stamp: string;
  projection: CompactionProjection;
}

const artifactCache = new Map<string, CachedArtifact>();

/**
 * The projections under `root`. Artifacts are re-read only when their size or mtime changed,
 * so a long-running server pays a directory walk per query, not a parse.
 */
export function loadRootProjections(root: string, warn?: (message: string) => void): CompactionProjection[] {
  return loadRootProjectionFiles(root, warn).map((loaded) => loaded.projection);
}

/** The projections under `root` with the path each was found at (for warnings that name it). */
export function loadRootProjectionFiles(root: string, warn?: (message: string) => void): LoadedProjection[] {
  const projections: LoadedProjection[] = [];
  for (const file of discoverProjectionArtifacts(root)) {
    try {
      const stat = fs.statSync(file);
      const stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
      const key = path.resolve(file);
      let cached = artifactCache.get(key);
      if (cached === undefined || cached.stamp !== stamp) {
        cached = { stamp, projection: loadProjectionArtifact(file) };
        artifactCache.set(key, cached);
      }
      projections.push({ file, projection: cached.projection });
    } catch (error) {
      warn?.(`compaction projection skipped: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return projections;
}

function eventloomCitation(candidates: readonly string[]): string | null {
  for (const candidate of candidates) if (parseCitationUri(candidate) !== undefined) return candidate;
  return null;
}

/**
 * The projection records matching `query` as contexts (`source: "projection"`), best first, at
 * most `limit`; the lane (below) merges them into retrieval's result.
 */
export function projectionContexts(projections: readonly CompactionProjection[], query: string, limit: number): RetrievedContext[] {
  return searchProjections(projections, query, limit).map((hit) => {
    const { record } = hit;
    const text = record.text.length > contentCharsMax ? `${record.text.slice(0, contentCharsMax - 1)}…` : record.text;
    const firstCitation = hit.citations[0] ?? (record.event_ref === "" ? null : record.event_ref);
    return {
      content: text,
      source: "projection",
      sourceLane: "projection",
      score: hit.score,
      validFrom: null,
      validTo: null,
      citation: eventloomCitation([record.event_ref, ...hit.citations]),
      eventSeq: record.event_seq,
      eventHash: null,
      scoreExplanation: { lanes: { projection: hit.score }, fused_score: hit.score },
      metadata: {
        projection_id: hit.projection_id,
        projection_strategy: hit.strategy,
        record_kind: record.kind,
        event_ref: record.event_ref,
        citation: firstCitation,
        citations: [...hit.citations],
        authority_scope: hit.authority_scope,
        purpose_reasons: [...record.purpose_reasons],
      },
    };
  });
}

// ---------------------------------------------------------------------------
/*
 * Projection records are served as cited facts only when their `event_ref` resolves to the
 * sealed event it names (design 002: "vectors discover neighbourhoods; the log, identities and
 * citations establish truth"). A `*.compaction.json` is a file anyone can write or leave behind:
 * its record text is only as good as the event it claims to copy.
 *
 * A ref `eventloom://<thread>/events/<seq>#<hash prefix>` resolves when the record's
 * `event_seq` is that seq and the log names an event there whose hash starts with the prefix
 * (at least `citationHashChars` hex):
 * - the checkout's own session first (its events are already verified and in memory), when the
 *   event at that seq belongs to `<thread>` or `<thread>` is the session id;
 * - else the log `<root>/<thread>.jsonl`, or, when there is none, the logs under the root whose
 *   first event carries `<thread>` (real Python logs name their thread apart from the file):
 *   verified first (a broken chain resolves nothing), read once per change of the file and kept
 *   as its hashes only.
 * An empty `event_ref` claims no sealed event and is left to the uncited-context warning.
 *
 * What must never change: a record whose ref does not resolve is never served, and whenever it
 * matched the query the checkout says so in `# Context Warnings`, naming the artifact and the ref.
 *
 * @example
 * const check = await checkProjectionRefs(root, "default", sessionIndex, loadRootProjectionFiles(root));
 * check.servable;                       // projections with only resolving records
 * unresolvedRefWarnings(check, "deploy"); // ["compaction artifact …: event_ref … does not resolve …"]
 */
/** The checkout session's verified events, read by position (seq - 1); a session index is one. */
export interface SessionEvents {
  readonly eventCount: number;
  event(position: number): EventRecord;
}

/** An artifact as discovered under the root: its path and its parsed projection. */
export interface LoadedProjection {
  file: string;
  projection: CompactionProjection;
}

export interface UnresolvedRecord {
  record: ProjectionRecord;
  /** Why the ref does not resolve, e.g. `seq 2 of "default" is #4121409e9043`. */
  reason: string;
}

export interface ProjectionRefCheck {
  /** The projections with only their resolving (or ref-less) records; empty ones dropped. */
  servable: CompactionProjection[];
  /** Per artifact with at least one bad record: the artifact and its bad records. */
  unresolved: Array<{ file: string; projection: CompactionProjection; records: UnresolvedRecord[] }>;
}

type LogHashes = { hashes: string[] } | { problem: string };

interface CachedHashes {
  stamp: string;
  hashes: LogHashes;
}

const logHashCache = new Map<string, CachedHashes>();

/** The hashes of a log by seq, verified; a problem when there is none to trust. */
async function logHashes(logPath: string, thread: string): Promise<LogHashes> {
  let stamp: string;
  try {
    const stat = fs.statSync(logPath);
    stamp = `${stat.size}:${stat.mtimeMs}:${stat.ino}`;
  } catch {
    return { problem: `no log of thread "${thread}" under the root` };
  }
  const cached = logHashCache.get(logPath);
  if (cached !== undefined && cached.stamp === stamp) return cached.hashes;
  let hashes: LogHashes;
  try {
    const read = await readVerifiedEvents(logPath, { sessionId: sessionIdOfPath(logPath) });
    hashes = read === undefined ? { problem: `no log of thread "${thread}" under the root` } : { hashes: read.events.map((event) => event.hash) };
  } catch (error) {
    hashes = { problem: `the log of thread "${thread}" cannot be trusted: ${error instanceof Error ? error.message : String(error)}` };
  }
  logHashCache.set(logPath, { stamp, hashes });
  return hashes;
}

/** The thread of a log's first event, or undefined when it has none that parses. */
function firstEventThread(logPath: string): string | undefined {
  try {
    for (const { bytes } of readLogLines(logPath)) {
      const parsed = parseJsonBytes(bytes);
      return isJsonObject(parsed) ? recordFromLine(parsed, 1).thread : undefined;
    }
  } catch {
    // An unreadable log names no thread; verification reports it when it is read as a session.
  }
  return undefined;
}

/**
 * The logs that hold `thread`: `<root>/<thread>.jsonl`, else every log under the root whose
 * first event carries that thread (real Python logs name their thread apart from the file).
 */
export class ThreadLogs {
  private byThread: Map<string, string[]> | undefined;

  constructor(private readonly root: string) {}

  find(thread: string): string[] {
    try {
      const named = sessionLogPath(this.root, thread, "read");
      if (fs.existsSync(named)) return [named];
    } catch {
      // Not a session id: only a log whose events carry it can hold it.
    }
    if (this.byThread === undefined) {
      this.byThread = new Map();
      let logs: string[] = [];
      try {
        logs = sessionLogsUnderRoot(this.root);
      } catch {
        logs = [];
      }
      for (const log of logs) {
        const first = firstEventThread(log);
        if (first !== undefined) this.byThread.set(first, [...(this.byThread.get(first) ?? []), log]);
      }
    }
    return this.byThread.get(thread) ?? [];
  }
}

function hashMismatch(thread: string, seq: number, prefix: string, hash: string | undefined, eventCount: number): string | null {
  if (hash === undefined) return `"${thread}" has ${eventCount} events, none at seq ${seq}`;
  return hash.startsWith(prefix) ? null : `seq ${seq} of "${thread}" is #${hash.slice(0, citationHashChars)}`;
}

/**
 * Splits every artifact's records into those served (the ref resolves, or there is no ref) and
 * those that are not, with the reason.
 */
export async function checkProjectionRefs(
  root: string,
  sessionId: string,
  sessionEvents: SessionEvents,
  loaded: readonly LoadedProjection[],
): Promise<ProjectionRefCheck> {
  const servable: CompactionProjection[] = [];
  const unresolved: ProjectionRefCheck["unresolved"] = [];
  const threadLogs = new ThreadLogs(root);
  for (const { file, projection } of loaded) {
    const kept: ProjectionRecord[] = [];
    const bad: UnresolvedRecord[] = [];
    for (const record of projection.records) {
      const reason = await refProblem(sessionId, sessionEvents, threadLogs, record);
      if (reason === null) kept.push(record);
      else bad.push({ record, reason });
    }
    if (bad.length === 0) servable.push(projection);
    else {
      if (kept.length > 0) servable.push({ ...projection, records: kept });
      unresolved.push({ file, projection: { ...projection, records: bad.map((entry) => entry.record) }, records: bad });
    }
  }
  return { servable, unresolved };
}

async function refProblem(sessionId: string, sessionEvents: SessionEvents, threadLogs: ThreadLogs, record: ProjectionRecord): Promise<string | null> {
  if (record.event_ref === "") return null;
  const ref = parseCitationUri(record.event_ref);
  if (ref === undefined) return "not an eventloom://<thread>/events/<seq>#<hash> ref";
  if (ref.hashPrefix.length < citationHashChars) return `its hash prefix has fewer than ${citationHashChars} hex characters`;
  if (ref.seq !== record.event_seq) return `the record's event_seq is ${record.event_seq}`;
  const own = ref.seq <= sessionEvents.eventCount ? sessionEvents.event(ref.seq - 1) : undefined;
  if (own !== undefined && (own.thread === ref.thread || ref.thread === sessionId)) {
    return hashMismatch(ref.thread, ref.seq, ref.hashPrefix, own.hash, sessionEvents.eventCount);
  }
  if (ref.thread === sessionId) return hashMismatch(ref.thread, ref.seq, ref.hashPrefix, undefined, sessionEvents.eventCount);
  const logs = threadLogs.find(ref.thread);
  if (logs.length === 0) return `no log of thread "${ref.thread}" under the root`;
  let first: string | null = null;
  for (const log of logs) {
    const other = await logHashes(log, ref.thread);
    const problem = "problem" in other ? other.problem : hashMismatch(ref.thread, ref.seq, ref.hashPrefix, other.hashes[ref.seq - 1], other.hashes.length);
    if (problem === null) return null;
    first ??= problem;
  }
  return first;
}

/**
 * One `# Context Warnings` line per artifact whose unresolved records match the query (those
 * that would otherwise have been served), naming the artifact, each bad ref and why.
 */
export function unresolvedRefWarnings(check: ProjectionRefCheck, query: string, limit: number): string[] {
  const warnings: string[] = [];
  for (const { file, projection, records } of check.unresolved) {
    const hits = searchProjections([projection], query, Math.max(1, limit));
    if (hits.length === 0) continue;
    const matched = new Set(hits.map((hit) => hit.record));
    const refs = records.filter((entry) => matched.has(entry.record)).map((entry) => `${entry.record.event_ref} (${entry.reason})`);
    const outcome = refs.length === 1
      ? "does not resolve to a sealed event; record not served as a cited fact"
      : "do not resolve to sealed events; records not served as cited facts";
    warnings.push(`compaction artifact ${file}: ${refs.length === 1 ? "event_ref" : "event_refs"} ${refs.join(", ")} ${outcome}`);
  }
  return warnings;
}

// ---------------------------------------------------------------------------
// The lane
/*
 * The projection lane as a checkout lane (DESIGN §6, §9; Python `_merge_projection_contexts`):
 * records of the compaction projection artifacts under the root that match the query
 * (above) join retrieval's result by their overlap score, existing
 * contexts keep their relative order, and the list is cut back to the query's limit. It runs for
 * `memory query` and checkout alike. With no artifacts under the root nothing changes, not even
 * the lane counts, so output is byte-identical to a build without this lane; with artifacts,
 * `source_lanes.projection` counts the matching records, 0 included.
 *
 * @example
 * mergeProjectionContexts(retrieve(index, "cache identity-code-0001", { limit: 10 }), "cache identity-code-0001", 10, loadRootProjections(root))
 */
/** The lane's name: its contexts' source and its key in `source_lanes`. */
export const projectionLaneName = "projection";

/** The projection lane of a query, or null when there is nothing to search (no artifacts, no room). */
export function projectionLane(projections: readonly CompactionProjection[], query: string, limit: number): CheckoutLane | null {
  if (projections.length === 0 || limit <= 0) return null;
  return {
    name: projectionLaneName,
    // Design 002: a record that is not authoritative (its audit reported unsafe) only routes to its source.
    contexts: projectionContexts(projections, query, limit).map((context) =>
      context.metadata.authority_scope === authoritativeScope ? context : { ...context, ranksAfterRetrieved: true }
    ),
    merge: { contextsMax: limit, sameEntityFirst: false },
    countedWhenEmpty: true,
    raisesContextLimit: false,
    report: null,
  };
}

/**
 * `result` with the projection lane merged in: each hit goes before the first context with a
 * lower score, the others keep their order, and the list is cut to `limit`. Adds the lane count
 * `projection` only when there are projections to search.
 */
export function mergeProjectionContexts(result: RetrievalResult, query: string, limit: number, projections: readonly CompactionProjection[]): RetrievalResult {
  const lane = projectionLane(projections, query, limit);
  return lane === null ? result : mergeLane(result, lane);
}
