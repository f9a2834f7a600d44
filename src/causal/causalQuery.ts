/**
 * Causal reads over a session (DESIGN §7; reference §3.4): validated successor and predecessor
 * queries through a session reader (retrieval/readSession.ts; the memory service is one), which
 * verifies and projects the session. Everything a caller passes is checked before the session
 * is touched, so bad input reads nothing and writes nothing. A degraded read (graph store
 * unavailable) folds the verified log in memory instead: causal answers never depend on Kuzu
 * being openable.
 */
import { inputError } from "../errors.ts";
import { validateSessionId } from "../eventloom/root.ts";
import { depthMax, queryCharsMax } from "../limits.ts";
import type { SessionReader } from "../retrieval/readSession.ts";
import type { CausalEdge } from "../folds/causalEdges.ts";
import { type CausalRelationType, causalRelationTypes, isCausalRelationType, sortedChoices } from "../events/causalTaxonomy.ts";
import { type CausalDirection, type CausalQueryResult, traverseCausal } from "./traversal.ts";

export const defaultCausalDepth = 2;

export interface CausalQuery {
  sessionId: string;
  direction: CausalDirection;
  entityName: string;
  entityType?: string;
  relationType?: CausalRelationType;
  depth: number;
}

export interface CausalQueryInput {
  sessionId: string;
  direction: CausalDirection;
  entityName: unknown;
  entityType?: unknown;
  relationType?: unknown;
  /** An integer or its decimal text (a CLI value); default 2. */
  depth?: unknown;
}

/** Field names as the caller's front door spells them (CLI `--depth`, MCP `depth`, ...). */
export type FieldNames = Partial<Record<"entity_name" | "entity_type" | "relation_type" | "depth", string>>;

function nonEmptyText(value: unknown, field: string, code: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw inputError(code, `${field} must be a non-empty string`, { field, expected: "non-empty text" });
  }
  const chars = [...value].length;
  if (chars > queryCharsMax) {
    throw inputError(code, `${field} is ${chars} characters; at most ${queryCharsMax} are allowed`, { field, expected: `at most ${queryCharsMax} characters` });
  }
  return value.trim();
}

/** A traversal depth 1..5 from an integer or its decimal text. */
export function validateCausalDepth(value: unknown, field = "depth"): number {
  if (value === undefined) return defaultCausalDepth;
  const depth = typeof value === "string" && /^\s*-?[0-9]+\s*$/.test(value) ? Number(value) : value;
  if (typeof depth !== "number" || !Number.isInteger(depth) || depth < 1 || depth > depthMax) {
    throw inputError("invalid_depth", `${field} must be between 1 and ${depthMax}, got ${JSON.stringify(value)}`, {
      field,
      expected: `integer 1..${depthMax}`,
      actual: String(value),
    });
  }
  return depth;
}

/** A bare causal relation type; `causal_caused`, `CAUSES` and the like are refused with the valid list. */
export function validateCausalRelationFilter(value: unknown, field = "relation_type"): CausalRelationType | undefined {
  if (value === undefined) return undefined;
  if (!isCausalRelationType(value)) {
    throw inputError("invalid_causal_relation", `${field} must be one of: ${sortedChoices(causalRelationTypes)}; got ${JSON.stringify(value)}`, {
      field,
      expected: `one of ${sortedChoices(causalRelationTypes)}`,
      actual: String(value),
    });
  }
  return value;
}

/**
 * @example
 * ```ts
 * validateCausalQuery({ sessionId: "default", direction: "predecessors", entityName: "timeout", depth: "3" });
 * // { sessionId: "default", direction: "predecessors", entityName: "timeout", depth: 3 }
 * ```
 */
export function validateCausalQuery(input: CausalQueryInput, names: FieldNames = {}): CausalQuery {
  validateSessionId(input.sessionId, "read");
  const query: CausalQuery = {
    sessionId: input.sessionId,
    direction: input.direction,
    entityName: nonEmptyText(input.entityName, names.entity_name ?? "entity_name", "invalid_entity_name"),
    depth: validateCausalDepth(input.depth, names.depth ?? "depth"),
  };
  if (input.entityType !== undefined) query.entityType = nonEmptyText(input.entityType, names.entity_type ?? "entity_type", "invalid_entity_type");
  const relationType = validateCausalRelationFilter(input.relationType, names.relation_type ?? "relation_type");
  if (relationType !== undefined) query.relationType = relationType;
  return query;
}

/**
 * The session's causal edges at its log head (verified first): the index's fold, which the read
 * model stores and a tail continues, so a fresh `memory causal` reads no rows. Degraded
 * sessions carry the log folded in memory (memory/service.ts).
 */
export async function sessionCausalEdges(reader: SessionReader, sessionId: string): Promise<CausalEdge[]> {
  return await reader.withReadSession(sessionId, (session) => [...session.index.folds.causalEdges()]);
}

/** Successors or predecessors of an entity; an unknown entity has none (not an error). */
export async function queryCausal(reader: SessionReader, query: CausalQuery): Promise<CausalQueryResult[]> {
  const edges = await sessionCausalEdges(reader, query.sessionId);
  return traverseCausal(edges, query);
}
