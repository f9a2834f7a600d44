/**
 * The order Memory Checkout presents contexts in (Python `_checkout_rank`), best first:
 * query-token overlap, then cited before uncited, then source-level lanes (verbatim, projection)
 * before projected entities, then working-memory entity types (task, decision, goal,
 * memory), then the later `valid_from`, then the higher score. Ties keep retrieval order.
 * Before all of these: a projection record that is not authoritative (its audit reported
 * `safe: false`) follows every other context — design 002, it only routes to its source.
 */
import { compareCodePoints } from "../canonical/mod.ts";
import { authoritativeScope } from "../retrieval/projectionArtifact.ts";
import type { RetrievedContext } from "../retrieval/types.ts";

const sourceLevelLanes = new Set(["verbatim", "projection"]);
const workingMemoryTypes = new Set(["task", "decision", "goal", "memory"]);

/** Python `_checkout_tokens`: `[a-z0-9]+` runs of the casefolded text, longer than 2. */
export function checkoutTokens(text: string): Set<string> {
  const tokens = new Set<string>();
  for (const match of text.toLowerCase().matchAll(/[a-z0-9]+/g)) {
    if (match[0].length > 2) tokens.add(match[0]);
  }
  return tokens;
}

interface RankKey {
  authoritative: number;
  overlap: number;
  cited: number;
  sourceLevel: number;
  workingMemory: number;
  validFrom: string;
  score: number;
}

function rankKey(context: RetrievedContext, queryTokens: Set<string>): RankKey {
  let shared = 0;
  for (const token of checkoutTokens(context.content)) if (queryTokens.has(token)) shared += 1;
  return {
    authoritative: context.source === "projection" && context.metadata.authority_scope !== authoritativeScope ? 0 : 1,
    overlap: shared / Math.max(1, queryTokens.size),
    cited: context.citation ? 1 : 0,
    sourceLevel: sourceLevelLanes.has(context.sourceLane) || sourceLevelLanes.has(context.source) ? 1 : 0,
    workingMemory: context.entityType !== undefined && workingMemoryTypes.has(context.entityType) ? 1 : 0,
    validFrom: context.validFrom ?? "",
    score: context.score,
  };
}

/** Negative when `a` ranks before `b`. */
function compareDescending(a: RankKey, b: RankKey): number {
  return (
    b.authoritative - a.authoritative ||
    b.overlap - a.overlap ||
    b.cited - a.cited ||
    b.sourceLevel - a.sourceLevel ||
    b.workingMemory - a.workingMemory ||
    compareCodePoints(b.validFrom, a.validFrom) ||
    b.score - a.score
  );
}

/**
 * @example
 * rankForCheckout(contexts, "release blockers") // contexts mentioning "release" first
 */
export function rankForCheckout(contexts: readonly RetrievedContext[], query: string): RetrievedContext[] {
  const queryTokens = checkoutTokens(query);
  const keyed = contexts.map((context, index) => ({ context, index, key: rankKey(context, queryTokens) }));
  keyed.sort((a, b) => compareDescending(a.key, b.key) || a.index - b.index);
  return keyed.map((item) => item.context);
}
