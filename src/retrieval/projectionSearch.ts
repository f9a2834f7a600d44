/**
 * Search over compaction projection records (Python `search_compaction_projections`): a routing
 * lane, not a ranker. Tokens are runs of `[A-Za-z0-9][A-Za-z0-9_.:/#-]*` in the casefolded text,
 * longer than one character, so identities such as `identity-code-0001`, `docs/cache.md:2-6`
 * and `eventloom://default/events/1#…` stay whole. A record's searchable text is its text plus
 * its identities; score = |query tokens ∩ record tokens| / |query tokens|, rounded to 4 places;
 * records without overlap are not returned; ties keep artifact and record order.
 */
import { pythonRound } from "../canonical/pythonRound.ts";
import { inputError } from "../errors.ts";
import { pythonCaseFold } from "../vector/mod.ts";
import { type CompactionProjection, type ProjectionRecord, servedAuthorityScope } from "./projectionArtifact.ts";

export interface ProjectionSearchHit {
  projection_id: string;
  strategy: string;
  record: ProjectionRecord;
  score: number;
  citations: string[];
  /** The authority the record is served with (`servedAuthorityScope`: never authoritative from an unsafe audit). */
  authority_scope: string;
}

const tokenPattern = /[A-Za-z0-9][A-Za-z0-9_.:/#-]*/g;

/** Python `_tokens`: the distinct search tokens of a text. */
export function projectionTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of pythonCaseFold(text).matchAll(tokenPattern)) {
    if (match[0].length > 1) tokens.add(match[0]);
  }
  return tokens;
}

/**
 * @example
 * searchProjections([projection], "cache identity-code-0001", 1)[0].citations // ["eventloom://…", "docs/cache.md:2-6"]
 */
export function searchProjections(projections: readonly CompactionProjection[], query: string, limit = 10): ProjectionSearchHit[] {
  if (!Number.isInteger(limit) || limit <= 0) {
    throw inputError("invalid_limit", `Cannot search projections with limit ${limit}: it must be an integer >= 1`, { field: "limit" });
  }
  const queryTokens = projectionTokens(query);
  if (queryTokens.size === 0) return [];
  const hits: ProjectionSearchHit[] = [];
  for (const projection of projections) {
    for (const record of projection.records) {
      const recordTokens = projectionTokens([record.text, ...record.identities].join(" "));
      let overlap = 0;
      for (const token of queryTokens) if (recordTokens.has(token)) overlap++;
      if (overlap === 0) continue;
      hits.push({
        projection_id: projection.projection_id,
        strategy: projection.strategy,
        record,
        score: pythonRound(overlap / queryTokens.size, 4),
        citations: [...record.citations],
        authority_scope: servedAuthorityScope(projection, record),
      });
    }
  }
  // Array.prototype.sort is stable, as Python's sorted is.
  return hits.sort((a, b) => b.score - a.score).slice(0, limit);
}
