/**
 * Arguments that pass each tool's input schema, for the session pin tests (not a test file
 * itself): `pinSamples(pin, ref)` gives every tool a pinned connection's own call, with its
 * session arguments naming `pin` and its target refs pointing at `ref` (an event of `pin`). A
 * test sets one argument the pin table binds (src/mcp/sessionPin.ts) to another session and
 * expects the refusal. tests/meta/session_pin_coverage_test.ts checks every tool has a sample.
 */

export interface EventRef {
  seq: number;
  hash: string;
}

export const samplesFleetId = "crew";

export function pinSamples(pin: string, ref: EventRef): Record<string, Record<string, unknown>> {
  const target = { target_seq: ref.seq, target_hash: ref.hash };
  return {
    memory_checkout: { query: "the deploy plan", session_id: pin, fleet_ids: [samplesFleetId] },
    memory_append: { event_type: "note.added", actor: pin, payload: { note: "own" }, session_id: pin, thread: pin },
    memory_query: { query: "the deploy plan", session_id: pin },
    context_assemble: { query: "the deploy plan", session_id: pin },
    memory_feedback: { entity_name: "deploy", entity_type: "note", feedback: "used", session_id: pin, citation: `eventloom://${pin}/events/${ref.seq}#${ref.hash.slice(0, 12)}` },
    memory_invalidate: { entity_name: "deploy", entity_type: "note", invalid_at: "2026-01-01T00:00:00Z", session_id: pin },
    memory_capabilities: { session_id: pin },
    memory_feeling_of_knowing: { query: "the deploy plan", session_id: pin },
    memory_ingest: { events: [{ event_type: "note.added", actor: pin, payload: { note: "ingested" } }], session_id: pin },
    memory_sessions: {},
    memory_get: { citation: `eventloom://${pin}/events/${ref.seq}#${ref.hash.slice(0, 12)}` },
    memory_edit: { ...target, new_content: "corrected", reason: "wrong", session_id: pin },
    memory_forget: { ...target, reason: "private", session_id: pin },
    memory_graph_query: { query: "MATCH (e:Entity) RETURN e.name AS name", session_id: pin },
    memory_export: { session_id: pin },
    memory_verbatim: { query: "deploy", session_id: pin },
    memory_bootstrap: { session_id: pin },
    context_after_turn: { role: "user", content: "what is the plan?", session_id: pin },
    memory_replay: { session_id: pin },
    memory_verify: { session_id: pin },
    memory_causal_successors: { entity_name: "deploy", session_id: pin },
    memory_causal_predecessors: { entity_name: "deploy", session_id: pin },
    memory_explain_outcome: { outcome: "deploy", session_id: pin },
    memory_consolidation_candidate: {
      candidate_type: "claim",
      title: "t",
      summary: "s",
      source_events: [ref],
      confidence: 0.5,
      method: "manual",
      session_id: pin,
    },
    memory_consolidation_propose_from_log: { session_id: pin },
    memory_consolidation_review: { candidate_id: "consolidation:claim:0123456789abcdef", status: "accepted", rationale: "r", session_id: pin },
    memory_consolidation_status: { session_id: pin },
    memory_rollback: { ...target, reason: "undo", session_id: pin },
    memory_evolution_gate: { op: "update", confidence: 0.5, candidate_ref: { seq: ref.seq, hash: ref.hash }, session_id: pin },
    memory_outcome: { outcome: "success", summary: "it worked", ...target, session_id: pin },
    trigger_consolidation: { session_id: pin },
    merge_concepts: { session_id: pin, memories: [{ name: "a" }, { name: "b" }] },
    fleet_create: { fleet_id: samplesFleetId, summary: "the crew" },
    fleet_enroll: { fleet_id: samplesFleetId, agent_id: pin },
    fleet_assign_trust: { fleet_id: samplesFleetId, agent_id: pin, trust_tier: "member", actor: "coordinator" },
    fleet_promote: {
      fleet_id: samplesFleetId,
      kind: "rule",
      actor: pin,
      origin_session: pin,
      source_events: [ref],
      confidence: 0.5,
      rule: "check the plan",
      trigger: "before deploys",
      session_id: pin,
    },
    fleet_review: { fleet_id: samplesFleetId, promotion_id: "fleetpromo:0123456789abcdef01234567", decision: "accepted", actor: "coordinator" },
    fleet_rollback: { fleet_id: samplesFleetId, promotion_id: "fleetpromo:0123456789abcdef01234567", reason: "undo", actor: "coordinator" },
    fleet_status: { fleet_id: samplesFleetId },
    fleet_audit: { fleet_id: samplesFleetId },
  };
}
