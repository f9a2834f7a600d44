/**
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
 * - else the log `<root>/<thread>.jsonl`, verified first (a broken chain resolves nothing), read
 *   once per change of the file and kept as its hashes only.
 * An empty `event_ref` claims no sealed event and is left to the uncited-context warning.
 *
 * What must never change: a record whose ref does not resolve is never served, and whenever it
 * matched the query the checkout says so in `# Context Warnings`, naming the artifact and the ref.
 *
 * @example
 * const check = await checkProjectionRefs(root, "default", events, loadRootProjectionFiles(root));
 * check.servable;                       // projections with only resolving records
 * unresolvedRefWarnings(check, "deploy"); // ["compaction artifact …: event_ref … does not resolve …"]
 */
import * as fs from "node:fs";
import type { CompactionProjection, ProjectionRecord } from "../compaction/projectionArtifact.ts";
import { searchProjections } from "../compaction/projectionSearch.ts";
import { citationHashChars, parseCitationUri } from "../eventloom/citation.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { sessionLogPath } from "../eventloom/session.ts";

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

/** The hashes of `<root>/<thread>.jsonl` by seq, verified; a problem when there is none to trust. */
async function threadLogHashes(root: string, thread: string): Promise<LogHashes> {
  let logPath: string;
  try {
    logPath = sessionLogPath(root, thread, "read");
  } catch {
    return { problem: `"${thread}" is not a session id, so no log under the root holds it` };
  }
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
    const read = await readVerifiedEvents(logPath, { sessionId: thread });
    hashes = read === undefined ? { problem: `no log of thread "${thread}" under the root` } : { hashes: read.events.map((event) => event.hash) };
  } catch (error) {
    hashes = { problem: `the log of thread "${thread}" cannot be trusted: ${error instanceof Error ? error.message : String(error)}` };
  }
  logHashCache.set(logPath, { stamp, hashes });
  return hashes;
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
  sessionEvents: readonly EventRecord[],
  loaded: readonly LoadedProjection[],
): Promise<ProjectionRefCheck> {
  const servable: CompactionProjection[] = [];
  const unresolved: ProjectionRefCheck["unresolved"] = [];
  for (const { file, projection } of loaded) {
    const kept: ProjectionRecord[] = [];
    const bad: UnresolvedRecord[] = [];
    for (const record of projection.records) {
      const reason = await refProblem(root, sessionId, sessionEvents, record);
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

async function refProblem(root: string, sessionId: string, sessionEvents: readonly EventRecord[], record: ProjectionRecord): Promise<string | null> {
  if (record.event_ref === "") return null;
  const ref = parseCitationUri(record.event_ref);
  if (ref === undefined) return "not an eventloom://<thread>/events/<seq>#<hash> ref";
  if (ref.hashPrefix.length < citationHashChars) return `its hash prefix has fewer than ${citationHashChars} hex characters`;
  if (ref.seq !== record.event_seq) return `the record's event_seq is ${record.event_seq}`;
  const own = sessionEvents[ref.seq - 1];
  if (own !== undefined && (own.thread === ref.thread || ref.thread === sessionId)) {
    return hashMismatch(ref.thread, ref.seq, ref.hashPrefix, own.hash, sessionEvents.length);
  }
  if (ref.thread === sessionId) return hashMismatch(ref.thread, ref.seq, ref.hashPrefix, undefined, sessionEvents.length);
  const other = await threadLogHashes(root, ref.thread);
  if ("problem" in other) return other.problem;
  return hashMismatch(ref.thread, ref.seq, ref.hashPrefix, other.hashes[ref.seq - 1], other.hashes.length);
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
