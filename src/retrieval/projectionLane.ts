/**
 * The projection lane (DESIGN §6, §9; Python `_merge_projection_contexts`): compaction
 * projection artifacts (`*.compaction.json` anywhere under the Eventloom root) are searched with
 * the query and their records merged into the retrieved contexts as `source: "projection"`
 * items that carry `projection_id`, `event_ref` and the record's citations.
 *
 * A projection record is a real source event, so an item cites that event (`citation` is the
 * record's event ref). This module finds and loads the artifacts and turns matching records
 * into contexts; checkout/projectionLane.ts merges them into retrieval's result (by overlap
 * score, existing contexts keep their relative order, cut back to the limit). Unreadable or
 * malformed artifacts are skipped with a warning; they never fail a query.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { compareCodePoints } from "../canonical/mod.ts";
import { type CompactionProjection, loadProjectionArtifact, projectionArtifactSuffix } from "./projectionArtifact.ts";
import { searchProjections } from "./projectionSearch.ts";
import { parseCitationUri } from "../eventloom/citation.ts";
import type { LoadedProjection } from "./projectionRefs.ts";
import type { RetrievedContext } from "./types.ts";

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
 * most `limit`; checkout/projectionLane.ts merges them into retrieval's result.
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
