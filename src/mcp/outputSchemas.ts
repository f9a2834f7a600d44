/**
 * Every tool's `outputSchema` (MCP 2025-06-18): the top level of the document its result carries
 * as `structuredContent` beside the JSON text. Keys every result has are required; keys some
 * results have are optional; nested shapes are left open (`looseObject`) and described in
 * docs/mcp.md. The router checks each result against its schema before answering, so a
 * document that drifts from what is declared is a bug the tests catch, never a client's error.
 */
import * as z from "zod";

const str = z.string();
const num = z.number();
const int = z.number().int();
const bool = z.boolean();
const list = z.array(z.unknown());
const obj = z.looseObject({});
const hash = z.string().regex(/^[0-9a-f]{64}$/);
// A pattern, not `startsWith`: zod advertises `startsWith` as the non-standard `format: "starts_with"`,
// which JSON Schema validators (MCP Inspector among them) warn about on every call.
const citation = z.string().regex(/^eventloom:\/\//);
const nullable = <T extends z.ZodType>(schema: T) => schema.nullable();

/** `{event_type, seq, hash, citation}`: where an appended event landed. */
const appended = { event_type: str, seq: int, hash, citation };
const appendedEvent = z.looseObject(appended);
const integrity = z.looseObject({ ok: bool, total_events: int, broken_at_seq: nullable(int), broken_reason: nullable(str), errors: list });
const consolidationEvent = { session_id: str, ...appended, candidate_id: str, candidate_type: str, authority_status: str, payload: obj };

export const outputSchemas: Record<string, z.ZodObject> = {
  memory_checkout: z.looseObject({ session_id: str, query: str, prompt: str, current_facts: list, evidence: list, retention: obj, warnings: list, guidance: obj, quality: obj, diagnostics: obj }),
  memory_append: z.looseObject({ seq: int, hash, event_id: str, session_id: str, event_type: str, citation, redacted_paths: z.array(str).optional(), generated_events: list.optional(), warnings: list.optional() }),
  memory_query: z.looseObject({ session_id: str, query: str, results: list, diagnostics: obj }),
  context_assemble: z.looseObject({ session_id: str, prompt: str, contexts: list, warnings: list }),
  memory_feedback: z.looseObject({ session_id: str, status: z.literal("recorded"), entity_name: str, entity_type: str, feedback: str, ...appended }),
  memory_invalidate: z.looseObject({ session_id: str, status: z.literal("invalidated"), entity_name: str, entity_type: str, invalid_at: str, ...appended, closed_citation: citation }),
  memory_capabilities: z.looseObject({ schema: z.literal("zaxy.capabilities.v1"), server: obj, session_id: str, current_task: nullable(str), profile: obj, tools: list, python_core_profile: obj, features: obj, session: obj }),
  memory_feeling_of_knowing: z.looseObject({ session_id: str, query: str, prediction: z.enum(["likely", "possible", "unlikely"]), confidence: num, signals: obj, event: appendedEvent }),
  memory_ingest: z.looseObject({ imported: int, deduped: int, session_id: str, events: list }),
  memory_sessions: z.looseObject({ root: str, session_count: int, sessions: list }),
  memory_get: z.looseObject({ citation, session_id: str, verified: z.literal(true), event: obj }),
  memory_edit: z.looseObject({ session_id: str, status: z.literal("corrected"), correction_id: str, entity_name: str, entity_type: str, content: str, previous_content: nullable(str), corrected_citation: citation, ...appended }),
  memory_forget: z.looseObject({ session_id: str, status: z.enum(["forgotten", "held_for_review"]), target: obj, cell_id: str, gate: obj, forget_id: str.optional(), seq: int.optional(), citation: citation.optional() }),
  memory_graph_query: z.looseObject({ session_id: str, query: str, columns: z.array(str), rows: list, row_count: int, truncated: bool, graph: obj, elapsed_ms: num }),
  memory_export: z.looseObject({ schema: z.literal("zaxy.export.v1"), exported_at: str, zaxy_version: str, session_id: str, source: obj, filters: obj, event_count: int, excluded: obj, events: list, signature: obj.optional() }),
  memory_verbatim: z.looseObject({ session_id: str, query: str, result_count: int, results: list }),
  memory_bootstrap: z.looseObject({ session_id: str, current_task: nullable(str), session_exists: bool, total_events: int, handoff: obj, recent_events: list, checkout: nullable(obj), guidance: z.array(str), event: appendedEvent }),
  context_after_turn: z.looseObject({ session_id: str, turn: appendedEvent, context: obj }),
  memory_replay: z.looseObject({ integrity, events: list, truncated: bool, total_events: int, handoff: obj }),
  memory_verify: integrity,
  memory_causal_successors: z.looseObject({ results: list }),
  memory_causal_predecessors: z.looseObject({ results: list }),
  memory_explain_outcome: z.looseObject({ primitive: z.literal("explain_outcome"), phase: str, session_id: str, outcome: str, depth: int, fallback_used: bool, result_count: int, results: list, evidence: list }),
  memory_consolidation_candidate: z.looseObject({ ...consolidationEvent, review_status: str }),
  memory_consolidation_propose_from_log: z.looseObject({ session_id: str, segment_count: int, candidate_count: int, skipped_existing_count: int, events: list }),
  memory_consolidation_review: z.looseObject({ ...consolidationEvent, status: str }),
  memory_consolidation_status: z.looseObject({ session_id: str }),
  memory_rollback: z.looseObject({ session_id: str, rollback_id: str, rollback_event: obj, citation, target: obj, reverts: obj, gate: obj, gate_event: obj }),
  memory_evolution_gate: z.looseObject({ decision: str }),
  memory_outcome: obj,
  trigger_consolidation: z.looseObject({
    consolidation_result: obj,
    // Design 004's pairs_evaluated is n(n-1)/2; pairs_compared is what passed the pre-filter.
    statistics: z.looseObject({ pairs_evaluated: int, pairs_consolidated: int, strategy: str, similarity_threshold: num, max_memories_limit: int, fingerprints_analyzed: int, pairs_compared: int }),
    candidates_sample: list,
  }),
  merge_concepts: z.looseObject({ session_id: str, status: z.enum(["created", "already_exists"]), candidate_id: str, target_id: str, source_ids: z.array(str) }),
  fleet_create: z.looseObject({ fleet_id: str }),
  fleet_enroll: z.looseObject({ fleet_id: str }),
  fleet_assign_trust: z.looseObject({ fleet_id: str }),
  fleet_promote: z.looseObject({ fleet_id: str }),
  fleet_review: z.looseObject({ fleet_id: str }),
  fleet_rollback: z.looseObject({ fleet_id: str }),
  fleet_status: z.looseObject({ fleet_id: str }),
  fleet_audit: z.looseObject({ fleet_id: str, ok: bool }),
};
