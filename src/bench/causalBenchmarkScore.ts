/**
 * The causal benchmark's case contract and exact scorer (reference §3.6, Python
 * `causal_benchmark.py`). A case names one expected edge: `{case_id, query, query_type
 * (successor | predecessor), source: {name, entity_type}, target: {...}, relation_type (bare),
 * citation}`. The endpoint under test follows the direction: the target for a successor query,
 * the source for a predecessor query, matched by name and entity type.
 *
 * A row scores four booleans, each requiring the endpoint hit:
 *   hit, relation_match (relation == case), citation (the case citation is the result's
 *   `citation` or among its `citations`), authority_boundary (non_authoritative and not stale:
 *   `stale: true`, a non-blank `valid_to` or `superseded_by`)
 * and `score` = their fraction, rounded to 4 decimals. The best result row wins (by score, then
 * hit; the first on ties); no results scores zeros with `matched_result: null`.
 */
import { inputError } from "../errors.ts";
import type { PlainJson } from "../projection/types.ts";
import { causalRelationTypes, isCausalRelationType, nonAuthoritative, sortedChoices } from "../events/causalTaxonomy.ts";

export const causalQueryTypes = ["successor", "predecessor"] as const;
export type CausalQueryType = (typeof causalQueryTypes)[number];

export interface CausalBenchmarkCase {
  case_id: string;
  query: string;
  query_type: CausalQueryType;
  source: { name: string; entity_type: string };
  target: { name: string; entity_type: string };
  relation_type: string;
  citation: string;
}

export interface CausalBenchmarkRow {
  case_id: string;
  query_type: CausalQueryType;
  hit: boolean;
  relation_match: boolean;
  citation: boolean;
  authority_boundary: boolean;
  score: number;
  matched_result: PlainJson;
}

export interface CausalBenchmarkSummary {
  case_count: number;
  mean: number;
  hit_rate: number;
  citation_coverage: number;
  authority_boundary: number;
}

/** A case's citation: session not `unknown`, seq without a leading zero, exactly 12 hex. */
const caseCitationPattern = /^eventloom:\/\/(?!unknown\/)[^/\s]+\/events\/[1-9][0-9]*#[0-9a-f]{12}$/;

type Mapping = { [key: string]: unknown };

function isMapping(value: unknown): value is Mapping {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function invalidCase(field: string, message: string): never {
  throw inputError("invalid_benchmark_case", message, { field });
}

function requireText(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") invalidCase(field, `${field} must be a non-empty string`);
  return value;
}

function requireEndpoint(value: unknown, field: string): { name: string; entity_type: string } {
  if (!isMapping(value)) invalidCase(field, `${field} must be a mapping`);
  return { name: requireText(value.name, `${field}.name`), entity_type: requireText(value.entity_type, `${field}.entity_type`) };
}

/** Validates one case (Python `CausalBenchmarkCase.__post_init__`, newest citation contract). */
export function validateCausalBenchmarkCase(value: unknown, field = "case"): CausalBenchmarkCase {
  if (!isMapping(value)) invalidCase(field, `${field} must be a mapping`);
  const queryType = value.query_type;
  if (queryType !== "successor" && queryType !== "predecessor") invalidCase(`${field}.query_type`, `${field}.query_type must be 'successor' or 'predecessor'`);
  const relationType = requireText(value.relation_type, `${field}.relation_type`);
  if (!isCausalRelationType(relationType)) {
    invalidCase(`${field}.relation_type`, `${field}.relation_type must be one of: ${sortedChoices(causalRelationTypes)}`);
  }
  const citation = requireText(value.citation, `${field}.citation`);
  if (!caseCitationPattern.test(citation)) invalidCase(`${field}.citation`, `${field}.citation must be an Eventloom citation (eventloom://<session>/events/<seq>#<12 hex>)`);
  return {
    case_id: requireText(value.case_id, `${field}.case_id`),
    query: requireText(value.query, `${field}.query`),
    query_type: queryType,
    source: requireEndpoint(value.source, `${field}.source`),
    target: requireEndpoint(value.target, `${field}.target`),
    relation_type: relationType,
    citation,
  };
}

/** A field of a result, or of its `properties` (Python `_value`). */
function field(result: unknown, key: string): unknown {
  if (!isMapping(result)) return undefined;
  const raw = result[key];
  if (raw !== undefined && raw !== null) return raw;
  const properties = result.properties;
  return isMapping(properties) ? properties[key] : undefined;
}

function textField(result: unknown, key: string): string | undefined {
  const value = field(result, key);
  return typeof value === "string" ? value : undefined;
}

/** The endpoint under test as `{name, entity_type}`, from nested or flattened result shapes. */
function endpointOf(result: unknown, queryType: CausalQueryType): { name?: string; entityType?: string } {
  const role = queryType === "successor" ? "target" : "source";
  const nested = field(result, role);
  if (isMapping(nested)) {
    return {
      name: typeof nested.name === "string" ? nested.name : undefined,
      entityType: typeof nested.entity_type === "string" ? nested.entity_type : undefined,
    };
  }
  return {
    name: textField(result, `${role}_name`) ?? textField(result, `causal_${role}_name`),
    entityType: textField(result, `${role}_type`) ?? textField(result, `${role}_entity_type`) ?? textField(result, `causal_${role}_type`),
  };
}

function citationsOf(result: unknown): Set<string> {
  const citations = new Set<string>();
  const citation = textField(result, "citation");
  if (citation !== undefined && caseCitationPattern.test(citation)) citations.add(citation);
  const many = field(result, "citations");
  if (Array.isArray(many)) for (const item of many) if (typeof item === "string" && caseCitationPattern.test(item)) citations.add(item);
  return citations;
}

function isStale(result: unknown): boolean {
  if (field(result, "stale") === true) return true;
  const validTo = field(result, "valid_to");
  if (typeof validTo === "string" && validTo.trim() !== "") return true;
  const supersededBy = field(result, "superseded_by");
  return typeof supersededBy === "string" && supersededBy.trim() !== "";
}

function fraction(...values: boolean[]): number {
  return Math.round((values.filter(Boolean).length / values.length) * 10_000) / 10_000;
}

function scoreResult(testCase: CausalBenchmarkCase, result: unknown): CausalBenchmarkRow {
  const expected = testCase.query_type === "successor" ? testCase.target : testCase.source;
  const endpoint = endpointOf(result, testCase.query_type);
  const hit = endpoint.name === expected.name && endpoint.entityType === expected.entity_type;
  const relationMatch = hit && textField(result, "relation_type") === testCase.relation_type;
  const citation = hit && citationsOf(result).has(testCase.citation);
  const authorityBoundary = hit && textField(result, "authority_status") === nonAuthoritative && !isStale(result);
  return {
    case_id: testCase.case_id,
    query_type: testCase.query_type,
    hit,
    relation_match: relationMatch,
    citation,
    authority_boundary: authorityBoundary,
    score: fraction(hit, relationMatch, citation, authorityBoundary),
    matched_result: hit ? (result as PlainJson) : null,
  };
}

/**
 * The best-scoring row over a query's results.
 *
 * @example
 * ```ts
 * evaluateCausalResults(testCase, results).score; // 1 when the expected edge came back cited and non-authoritative
 * ```
 */
export function evaluateCausalResults(testCase: CausalBenchmarkCase, results: readonly unknown[]): CausalBenchmarkRow {
  let best: CausalBenchmarkRow | undefined;
  for (const result of results) {
    const row = scoreResult(testCase, result);
    if (best === undefined || row.score > best.score || (row.score === best.score && row.hit && !best.hit)) best = row;
  }
  return best ?? {
    case_id: testCase.case_id,
    query_type: testCase.query_type,
    hit: false,
    relation_match: false,
    citation: false,
    authority_boundary: false,
    score: 0,
    matched_result: null,
  };
}

function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : Math.round((values.reduce((a, b) => a + b, 0) / values.length) * 10_000) / 10_000;
}

/** `{case_count, mean, hit_rate, citation_coverage, authority_boundary}`, 4 decimals; zeros when empty. */
export function summarizeCausalBenchmark(rows: readonly CausalBenchmarkRow[]): CausalBenchmarkSummary {
  return {
    case_count: rows.length,
    mean: mean(rows.map((row) => row.score)),
    hit_rate: mean(rows.map((row) => (row.hit ? 1 : 0))),
    citation_coverage: mean(rows.map((row) => (row.citation ? 1 : 0))),
    authority_boundary: mean(rows.map((row) => (row.authority_boundary ? 1 : 0))),
  };
}
