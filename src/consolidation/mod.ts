/**
 * Review-gated consolidation (DESIGN §8): cited, non-authoritative candidates (`episode`,
 * `claim`, `procedure`) proposed by hand or from a session's actionable events, reviews that
 * record a disposition (never a promotion), status by replay, and `memory.rolled_back` to
 * reverse the latest review of a candidate.
 *
 * @example
 * import { proposeFromLog, readConsolidationStatus, reviewCandidate } from "./mod.ts";
 * const proposed = await proposeFromLog(".eventloom", "default", { windowSize: 5 });
 * const first = (proposed.events as { candidate_id: string }[])[0];
 * await reviewCandidate(".eventloom", "default", { candidateId: first.candidate_id, status: "accepted", rationale: "checked" });
 * (await readConsolidationStatus(".eventloom", "default")).accepted_count; // 1
 */
export * from "./candidate.ts";
export * from "./segments.ts";
export * from "./proposals.ts";
export * from "../folds/consolidationStatus.ts";
export * from "./operations.ts";
export * from "../events/consolidationEvents.ts";
export * from "../events/candidateStanding.ts";
