/**
 * The event vocabulary: every event type the engine reads specially, as data. A hand-written
 * entry says only what cannot be derived (its family, one line of description, a realistic
 * example payload); what the engine reads from the payload and what the event becomes in the
 * graph are found by running the real extractor (and the inference producers) on the example
 * with a payload that records every key looked up. So docs/events.md, generated from this
 * module, states what the code does, and a test fails when a registered extractor has no entry.
 *
 * An event type nobody registered is still appended and kept: it becomes one generic
 * `event:<type>:<seq>` entity (fallback.ts). `closestKnownType` turns a near miss
 * (`decision.recorded`) into the type the engine reads (`decision.made`) so front doors can say so.
 *
 * @example
 * ```ts
 * closestKnownType("decision.recorded"); // "decision.made"
 * closestKnownType("note.added"); // undefined: nothing known is close
 * describeEventType(eventVocabulary[0]).fieldsRead; // ["title", "description"]
 * ```
 */
import { fromJs, isJsonObject, type JsonObject, type JsonValue } from "../../canonical/mod.ts";
import { type EventRecord, isV1EventType } from "../../eventloom/envelope.ts";
import { editDistance } from "../../editDistance.ts";
import { generatedEvents } from "../inference.ts";
import type { PlainObject } from "../../events/generatedEvent.ts";
import type { EntityRef, ExtractedEdge, ExtractedEntity } from "../types.ts";
import { extractEvent, extractFallback, registeredEventTypes } from "./mod.ts";
import { retentionProperties } from "../../events/payload.ts";

/** Families, in the order docs/events.md lists them. */
export const eventFamilies = [
  { family: "workflow", title: "Workflow: goals, tasks, decisions, preferences" },
  { family: "lifecycle", title: "Session lifecycle: tool calls, commands, file edits, checkpoints" },
  { family: "indexing", title: "Ingested content: documents and transcripts" },
  { family: "memory", title: "Memory upkeep: feedback, corrections, rollbacks, activity" },
  { family: "learning", title: "Outcome learning and the evolution gate" },
  { family: "skills", title: "Procedural skills" },
  { family: "inference", title: "Inferred and causal edges" },
  { family: "consolidation", title: "Consolidation candidates" },
  { family: "coordination", title: "Multi-agent coordination" },
  { family: "fleet", title: "The fleet plane" },
] as const;

export type EventFamily = (typeof eventFamilies)[number]["family"];

/** One known event type, as written by hand: everything else is derived from the code. */
export interface EventTypeSpec {
  type: string;
  family: EventFamily;
  /** One line: what the event records and, when zaxy writes it itself, which command does. */
  description: string;
  /** A realistic payload (JSON-compatible) that the engine reads fully. */
  example: PlainObject;
}

/** Types zaxy writes itself as audit records; the graph keeps them as generic entities. */
export interface RecordTypeSpec {
  type: string;
  description: string;
}

// Example hashes: 64 lowercase hex, as citations need (the values are illustrative).
const hashA = "9c1185a5c5e9fc54612808977ee8f548b2258d31a8b3c7e9f1d0e6b3a4c5d6e7";
const hashB = "3f79bb7b435b05321651daefd374cdc681dc06faa65e374e38337b88ca046dea";
const hashC = "e3b98a4da31a127d4bde6e43033f66ba274cab0eb7eb1c70ec41402bf6273dd8";
const goalTitle = "Fix the failing auth test before the release";
const decisionText = "Refetch JWKS on unknown key id";
const mission = "mission-jwks";
const fleet = "platform";
const promotionId = "fleetpromo:5f68f0accd2f9972a87693b9";

/** Every type the engine projects or derives events from, by family. */
export const eventVocabulary: readonly EventTypeSpec[] = [
  // Workflow
  {
    type: "goal.created",
    family: "workflow",
    description: "A goal the agent works towards; the goal entity is named by its title.",
    example: { title: goalTitle, description: "test_login_refreshes_jwks fails since the signing keys were rotated" },
  },
  {
    type: "task.proposed",
    family: "workflow",
    description: "A task, named by its `taskId` (or `task_id`), optionally under a goal (`goalTitle`).",
    example: { taskId: "task-auth-1", title: "Reproduce test_login_refreshes_jwks", goalTitle },
  },
  {
    type: "task.claimed",
    family: "workflow",
    description: "The actor takes a task; without `taskId`, `task_id` or `task` the event is kept as a generic entity.",
    example: { taskId: "task-auth-1" },
  },
  {
    type: "task.completed",
    family: "workflow",
    description:
      "A task is done; citing the decision it implemented (`decision`, `decision_event_seq`, `decision_event_hash`) makes zaxy append a `likely_implemented_decision` inference.",
    example: { taskId: "task-auth-1", summary: "JWKS refetched on an unknown kid; 12 tests pass", decision: decisionText, decision_event_seq: 6, decision_event_hash: hashA },
  },
  {
    type: "decision.made",
    family: "workflow",
    description: "A decision, named by its text; rationale and alternatives are its summary.",
    example: { decision: decisionText, rationale: "Key rotation made cached keys stale; a 5 min TTL bounds the window.", alternatives_considered: ["Restart the service on every rotation"] },
  },
  {
    type: "context.policy",
    family: "workflow",
    description: "Instructions in force for a project, named `<project>:<source>`.",
    example: { project: "billing", source: "AGENTS.md", status: "active", instructions: "Run pytest before every commit" },
  },
  {
    type: "issue.diagnosed",
    family: "workflow",
    description: "A diagnosed problem with its root cause, evidence and fix.",
    example: { issue: "test_login_refreshes_jwks fails", root_cause: "JWKS cached for 24 h across a key rotation", evidence: "kid not found after rotation", fix: "Refetch JWKS on an unknown kid" },
  },
  {
    type: "verification.recorded",
    family: "workflow",
    description: "A check that was run, named by its command, with its outcome.",
    example: { command: "pytest tests/test_auth.py -q", outcome: "passed", summary: "12 passed" },
  },
  {
    type: "handoff.created",
    family: "workflow",
    description: "A handoff to the next agent or session: summary, next steps, risks.",
    example: { title: "Auth fix ready to ship", summary: "JWKS refetch merged; tests pass", next_steps: ["Tag release/1.5"], risks: ["Clients that pin the old key"] },
  },
  {
    type: "user.preference_changed",
    family: "workflow",
    description: "A user's preference, linked by an edge `has_<key>`; a new value is a new version of `<user>:<key>`, and the old value stays readable, closed.",
    example: { user: "maya", key: "release_branch", value: "release/1.5" },
  },
  // Session lifecycle
  {
    type: "session.genesis",
    family: "lifecycle",
    description: "The workspace a session starts in, as the session-start hook profiles it.",
    example: { root: "/work/billing", workspace_type: "python_project", instructions_profile: "python", confidence: 0.9, signals: ["pyproject.toml", "tests/"] },
  },
  {
    type: "tool.call.completed",
    family: "lifecycle",
    description: "One tool call, named `<session>:<tool>:<call_id or seq>`.",
    example: { tool_name: "read_file", call_id: "call-17", status: "ok", result_summary: "JWKS cache TTL is 24 h", task_id: "task-auth-1" },
  },
  {
    type: "command.completed",
    family: "lifecycle",
    description: "One shell command run, with its exit code and outcome.",
    example: { command: "pytest tests/test_auth.py -q", exit_code: 1, outcome: "failed" },
  },
  {
    type: "file.edit.applied",
    family: "lifecycle",
    description: "One edit to a file, with its operation and a summary.",
    example: { path: "src/auth/jwks.py", operation: "replace", line_count: 3, summary: "Refetch JWKS on unknown kid; TTL 5 min" },
  },
  {
    type: "hook.checkpoint",
    family: "lifecycle",
    description: "A checkpoint an agent hook records (before a context compaction, at a turn count).",
    example: { source: "claude-code", reason: "pre_compact", turn_count: 42, summary: "JWKS fix in review", workspace: "/work/billing" },
  },
  {
    type: "compaction.completed",
    family: "lifecycle",
    description: "A compaction run over a log (`zaxy compact` writes it after a rewrite).",
    example: { mode: "rewrite", status: "ok", log_path: ".eventloom/default.jsonl", event_count: 120, strategy: "exemplar" },
  },
  {
    type: "subagent.completed",
    family: "lifecycle",
    description: "A subagent's session finished, hanging off its parent session.",
    example: { parent_session_id: "default", subagent_session_id: "review-1", status: "ok", summary: "Reviewed the JWKS patch: no issues" },
  },
  {
    type: "session.ended",
    family: "lifecycle",
    description: "A session ended, with its reason and status.",
    example: { reason: "user_exit", status: "completed" },
  },
  // Ingested content
  {
    type: "document.indexed",
    family: "indexing",
    description: "A chunk of a document, named `<path>:<start>-<end>`; its text is what search and embeddings read.",
    example: {
      path: "docs/runbooks/payments.md",
      start_line: 1,
      end_line: 12,
      content: "Payments worker runbook: drain the queue, restart the worker, verify the JWKS cache.",
      sha256: hashB,
    },
  },
  {
    type: "transcript.turn",
    family: "indexing",
    description: "One turn of a conversation, named `<source>:turn-<n>` (`zaxy memory session-start` records them).",
    example: { source: "claude-code", turn_index: 3, role: "user", content: "Ship the fix on release/1.5" },
  },
  // Memory upkeep
  {
    type: "memory.reinforced",
    family: "memory",
    description: "A memory was used or helpful (`zaxy memory feedback`); it ranks higher. With a `summary` it also restates the memory.",
    example: { entity_name: decisionText, entity_type: "decision", summary: "Refetch JWKS on an unknown kid; a 5 min TTL bounds stale keys", reinforcement_count: 2 },
  },
  {
    type: "memory.feedback",
    family: "memory",
    description: "A memory was irrelevant (`zaxy memory feedback`): its own entity pointing at the memory, which is not rewritten.",
    example: { entity_name: "24 h JWKS cache TTL", entity_type: "cause", feedback: "irrelevant", reason: "The TTL is 5 min since the fix", citation: "eventloom://default/events/3#9c1185a5c5e9" },
  },
  {
    type: "memory.corrected",
    family: "memory",
    description: "A human correction (`zaxy memory edit`): cited, and the named fact gets the corrected content as its current version.",
    example: {
      correction_id: "correction:release-branch",
      entity_name: "maya:release_branch",
      entity_type: "preference",
      content: "release_branch=release/1.5",
      reason: "maya confirmed 1.5 in chat",
      target: { seq: 12, hash: hashA },
    },
  },
  {
    type: "memory.rolled_back",
    family: "memory",
    description: "Reverses an earlier evolution event (`zaxy memory rollback`), e.g. restores what a correction replaced.",
    example: {
      rollback_id: "rollback:release-branch",
      reason: "The correction named the wrong user",
      reverts: { event_type: "memory.corrected", entity_name: "maya:release_branch", entity_type: "preference", restore_content: "release_branch=release/1.4" },
      target: { seq: 14, hash: hashB },
    },
  },
  {
    type: "memory.invalidated",
    family: "memory",
    description: "A fact stops being true at `invalid_at` (`zaxy memory invalidate`); nothing is deleted.",
    example: { entity_name: "24 h JWKS cache TTL", entity_type: "cause", invalid_at: "2026-03-02T09:30:00Z", reason: "TTL is 5 min since the fix" },
  },
  {
    type: "memory.reinforcement",
    family: "memory",
    description: "Salience bookkeeping of Python's reinforcement ledger; deliberately projected as nothing, so it never ranks.",
    example: { entity_name: decisionText, entity_type: "decision" },
  },
  {
    type: "metacognition.fok.predicted",
    family: "memory",
    description: "A feeling-of-knowing prediction (`zaxy memory feeling-of-knowing`); projected as nothing, so it never answers its own query.",
    example: { query: "Which release branch does maya want?", prediction: "likely", confidence: 0.7 },
  },
  {
    type: "memory.bootstrap.shown",
    family: "memory",
    description: "Memory was shown to the model at session start (an activity marker).",
    example: { source: "claude-code", query: "JWKS rotation" },
  },
  {
    type: "memory.checkout.completed",
    family: "memory",
    description: "A Memory Checkout ran (an activity marker).",
    example: { source: "claude-code", query: "Which release branch does maya want?" },
  },
  {
    type: "memory.feedback.recorded",
    family: "memory",
    description: "Feedback on memory was recorded (an activity marker).",
    example: { source: "claude-code", activity: "feedback" },
  },
  {
    type: "memory.reminder.suggested",
    family: "memory",
    description: "A hook suggested the model check its memory, and with which tool.",
    example: { trigger: "user_prompt", recommended_tool: "memory_checkout", query: "JWKS rotation" },
  },
  // Outcome learning
  {
    type: "memory.outcome.recorded",
    family: "learning",
    description: "An outcome (`zaxy memory outcome`), optionally of a task and citing the event it is about.",
    example: { outcome: "failure", summary: "Deploy failed: stale JWKS after rotation", task_id: "task-auth-1", prior: 0.8, prediction_error: 0.8, target: { seq: 4, hash: hashA } },
  },
  {
    type: "memory.rule.generated",
    family: "learning",
    description: "A preventive rule the gate auto-applied; non-authoritative, citing its sources.",
    example: { rule_id: "rule:jwks-refetch", rule: "Refetch JWKS when the kid of a token is unknown", trigger: "kid not found", outcome: "failure", confidence: 0.9, source_events: [{ seq: 4, hash: hashA }] },
  },
  {
    type: "memory.rule.proposed",
    family: "learning",
    description: "A preventive rule held for review (`review_status` pending).",
    example: { rule_id: "rule:jwks-refetch", rule: "Refetch JWKS when the kid of a token is unknown", trigger: "kid not found", outcome: "failure", confidence: 0.6, source_events: [{ seq: 4, hash: hashA }] },
  },
  {
    type: "evolution.gate.evaluated",
    family: "learning",
    description: "One evolution-gate decision (`zaxy memory evolution-gate`), linked to what it gated.",
    example: {
      op: "rule_generate",
      tier: "auto_with_rollback",
      decision: "auto_apply",
      confidence: 0.9,
      threshold: 0.85,
      auto_apply: true,
      requires_review: false,
      rollback_window_seconds: 86400,
      reason: "rule_generate: auto-applied under auto_with_rollback",
      candidate_ref: { name: "rule:jwks-refetch", entity_type: "memory_rule" },
    },
  },
  // Skills
  {
    type: "skill.proposed",
    family: "skills",
    description: "A new skill and its first version (`skill:<id>`, `skill:<id>:v<version>`).",
    example: {
      skill_id: "jwks-rotation",
      name: "Handle JWKS key rotation",
      version: "1",
      summary: "Refetch keys on an unknown kid",
      procedure: ["Catch the unknown-kid error", "Refetch the JWKS", "Retry once"],
      applicability: ["services that verify JWTs"],
    },
  },
  {
    type: "skill.validated",
    family: "skills",
    description: "A skill version was validated; its status becomes `validated`.",
    example: { skill_id: "jwks-rotation", version: "1", evidence: ["eventloom://default/events/6#9c1185a5c5e9"] },
  },
  {
    type: "skill.revised",
    family: "skills",
    description: "A new version of a skill.",
    example: { skill_id: "jwks-rotation", version: "2", summary: "Refetch keys on an unknown kid, at most once a minute", rollback: "Use version 1" },
  },
  {
    type: "skill.deprecated",
    family: "skills",
    description: "A skill version should no longer be used.",
    example: { skill_id: "jwks-rotation", version: "1", summary: "Superseded by version 2" },
  },
  {
    type: "skill.contradicted",
    family: "skills",
    description: "Evidence contradicts a skill version.",
    example: { skill_id: "jwks-rotation", version: "2", contradiction_reason: "The gateway caches keys itself" },
  },
  {
    type: "skill.applied",
    family: "skills",
    description: "A skill version was applied to a task.",
    example: { skill_id: "jwks-rotation", version: "2", task: "Rotate the billing signing keys", task_id: "task-billing-3", context: "billing service" },
  },
  {
    type: "skill.outcome_recorded",
    family: "skills",
    description: "How applying a skill version went.",
    example: { skill_id: "jwks-rotation", version: "2", task: "Rotate the billing signing keys", success_score: 0.9, feedback: "No failed logins during rotation" },
  },
  // Inferred and causal edges
  {
    type: "outcome.explained",
    family: "inference",
    description:
      "An explicit causal explanation citing its evidence; zaxy appends the `causal.edge.generated` it states (docs/causal.md). Without a valid citation nothing is derived.",
    example: {
      cause: { name: "stale JWKS cache after key rotation", entity_type: "cause" },
      effect: { name: "test_login_refreshes_jwks failed", entity_type: "outcome" },
      relation_type: "caused",
      confidence: 0.9,
      evidence: { source_event_seq: 4, source_event_hash: hashA, reason: "pytest: key id not found after rotation" },
    },
  },
  {
    type: "inference.edge.contradicted",
    family: "inference",
    description: "Evidence against an inferred edge, citing the inference; zaxy appends the `inference.edge.retracted` that closes it.",
    example: {
      source: { name: "task-auth-1", entity_type: "task" },
      target: { name: decisionText, entity_type: "decision" },
      relation_type: "likely_implemented_decision",
      valid_from: "2026-03-01T10:00:00Z",
      original_event_seq: 9,
      original_event_hash: hashB,
      reason: "The task shipped a different fix",
    },
  },
  {
    type: "inference.edge.generated",
    family: "inference",
    description: "An inferred edge between two named entities (zaxy's inference producer writes them).",
    example: {
      source: { name: "task-auth-1", entity_type: "task" },
      target: { name: decisionText, entity_type: "decision" },
      relation_type: "likely_implemented_decision",
      confidence: 0.86,
      inference_method: "task_completed_decision_citation_v1",
      evidence: { source_event_seq: 8, source_event_hash: hashB, decision_event_seq: 6, decision_event_hash: hashA },
    },
  },
  {
    type: "inference.edge.retracted",
    family: "inference",
    description: "Closes an inferred edge over `valid_from`..`valid_to`.",
    example: {
      source: { name: "task-auth-1", entity_type: "task" },
      target: { name: decisionText, entity_type: "decision" },
      relation_type: "likely_implemented_decision",
      valid_from: "2026-03-01T10:00:00Z",
      valid_to: "2026-03-02T09:30:00Z",
      confidence: 0,
      inference_method: "contradicting_evidence_retraction_v1",
      evidence: { original_event_seq: 9, original_event_hash: hashB },
    },
  },
  {
    type: "causal.edge.generated",
    family: "inference",
    description: "A cited causal edge; zaxy's causal producer writes it, and a hand-written one that breaks its rule is refused (append `outcome.explained` instead).",
    example: {
      source: { name: "stale JWKS cache after key rotation", entity_type: "cause" },
      target: { name: "test_login_refreshes_jwks failed", entity_type: "outcome" },
      relation_type: "caused",
      confidence: 0.9,
      causal_method: "explicit_outcome_explanation_v1",
      evidence: { source_event_seq: 4, source_event_hash: hashA },
    },
  },
  // Consolidation
  {
    type: "consolidation.candidate.created",
    family: "consolidation",
    description: "A cited proposal to consolidate memories (`zaxy memory consolidation propose`); it must cite its source events.",
    example: {
      candidate_id: "consolidation:claim:4d2c6b0e8a1f3c5e",
      candidate_type: "claim",
      title: "Tests pass after the JWKS fix",
      summary: "Refetching JWKS on an unknown kid fixed test_login_refreshes_jwks",
      confidence: 0.62,
      method: "manual_review_v1",
      source_events: [{ seq: 4, hash: hashA }, { seq: 6, hash: hashB }],
    },
  },
  {
    type: "consolidation.candidate.reviewed",
    family: "consolidation",
    description: "A review of a candidate (`zaxy memory consolidation review`); the latest surviving review decides the candidate's review status, which nothing else sets.",
    example: { candidate_id: "consolidation:claim:4d2c6b0e8a1f3c5e", status: "accepted", rationale: "The fix and its passing run are worth remembering" },
  },
  // Coordination
  {
    type: "coordination.mission.created",
    family: "coordination",
    description: "A multi-agent mission and its objective.",
    example: { mission_id: mission, objective: "Find every service that caches JWKS too long", status: "active" },
  },
  {
    type: "coordination.worker.created",
    family: "coordination",
    description: "A worker joins a mission.",
    example: { mission_id: mission, worker_id: "worker-api" },
  },
  {
    type: "coordination.assignment.created",
    family: "coordination",
    description: "Work assigned to a worker.",
    example: { mission_id: mission, worker_id: "worker-api", assignment_id: "assign-1", assignment: "Audit JWKS caching in the API gateway" },
  },
  {
    type: "coordination.finding.reported",
    family: "coordination",
    description: "A worker's finding, with evidence and an optional claim.",
    example: {
      mission_id: mission,
      worker_id: "worker-api",
      finding_id: "finding-1",
      summary: "The gateway caches JWKS for 24 h",
      evidence: ["gateway/config.yaml: jwks_ttl: 24h"],
      confidence: 0.8,
      claim_key: "gateway.jwks_ttl",
      claim_value: "24h",
    },
  },
  {
    type: "coordination.finding.reviewed",
    family: "coordination",
    description: "The coordinator's review of a finding.",
    example: { mission_id: mission, worker_id: "worker-api", finding_id: "finding-1", status: "accepted", rationale: "Confirmed in the config" },
  },
  {
    type: "coordination.finding.promoted",
    family: "coordination",
    description: "A finding promoted to the parent mission, citing its event.",
    example: {
      mission_id: mission,
      worker_id: "worker-api",
      finding_id: "finding-1",
      summary: "The gateway caches JWKS for 24 h",
      source_event_seq: 5,
      source_event_hash: hashC,
      claim_key: "gateway.jwks_ttl",
      claim_value: "24h",
    },
  },
  {
    type: "coordination.conflict.detected",
    family: "coordination",
    description: "Findings that disagree about one claim.",
    example: { mission_id: mission, conflict_id: "conflict-1", summary: "Two TTLs reported for the gateway", claim_key: "gateway.jwks_ttl", finding_ids: ["finding-1", "finding-2"], reason: "24h vs 5m" },
  },
  {
    type: "coordination.decision.recorded",
    family: "coordination",
    description: "A mission-level decision (the single-agent decision is `decision.made`).",
    example: { mission_id: mission, decision_id: "decision-1", decision: "Lower every JWKS TTL to 5 min", rationale: "Rotation must take effect within minutes" },
  },
  {
    type: "coordination.handoff.created",
    family: "coordination",
    description: "The mission's handoff.",
    example: { mission_id: mission, handoff_id: "handoff-1", summary: "Gateway and billing fixed", next_steps: ["Watch login errors for a day"], risks: ["Third-party clients"] },
  },
  // Fleet
  {
    type: "fleet.created",
    family: "fleet",
    description: "A fleet of agents sharing what they learn (`zaxy fleet create`, thread `fleet.<id>`).",
    example: { fleet_id: fleet, summary: "Platform agents sharing what they learn" },
  },
  {
    type: "fleet.agent.enrolled",
    family: "fleet",
    description: "An agent joins a fleet with a trust tier (`zaxy fleet enroll`).",
    example: { fleet_id: fleet, agent_id: "agent-b", trust_tier: "member" },
  },
  {
    type: "fleet.trust.assigned",
    family: "fleet",
    description: "An agent's trust tier changes (`zaxy fleet assign-trust`).",
    example: { fleet_id: fleet, agent_id: "agent-b", trust_tier: "trusted" },
  },
  {
    type: "fleet.skill.promoted",
    family: "fleet",
    description: "A skill promoted into the fleet (`zaxy fleet promote-skill`), citing its sources.",
    example: {
      promotion_id: promotionId,
      fleet_id: fleet,
      skill_id: "jwks-rotation",
      skill_version: "2",
      review_status: "active",
      visibility_scope: "fleet",
      confidence: 0.92,
      origin_actor: "agent",
      origin_session: "default",
      source_events: [{ seq: 6, hash: hashA }],
    },
  },
  {
    type: "fleet.rule.propagated",
    family: "fleet",
    description: "A rule promoted into the fleet (`zaxy fleet promote-rule`).",
    example: {
      promotion_id: promotionId,
      fleet_id: fleet,
      rule_id: "rule:jwks-refetch",
      rule: "Refetch JWKS when the kid of a token is unknown",
      trigger: "kid not found",
      confidence: 0.9,
      source_events: [{ seq: 4, hash: hashA }],
    },
  },
  {
    type: "fleet.outcome.propagated",
    family: "fleet",
    description: "An outcome promoted into the fleet (`zaxy fleet promote-outcome`).",
    example: {
      promotion_id: promotionId,
      fleet_id: fleet,
      outcome: "success",
      summary: "Refetch JWKS on an unknown key id; a 5 min TTL bounds stale keys",
      claim_key: "auth.jwks.refresh",
      confidence: 0.92,
      source_events: [{ seq: 6, hash: hashA }, { seq: 7, hash: hashB }],
    },
  },
  {
    type: "fleet.promotion.reviewed",
    family: "fleet",
    description: "A steward's decision on a promotion (`zaxy fleet review`): accepted makes it active.",
    example: { promotion_id: promotionId, decision: "accepted" },
  },
  {
    type: "fleet.memory.superseded",
    family: "fleet",
    description: "A newer promotion supersedes an older one, whose review status becomes `superseded`.",
    example: { superseded_promotion_id: promotionId },
  },
  {
    type: "fleet.promotion.rolled_back",
    family: "fleet",
    description: "A promotion is withdrawn (`zaxy fleet rollback`); its review status becomes `rolled_back`.",
    example: { promotion_id: promotionId },
  },
];

/** Audit records zaxy appends itself: known types, kept as generic entities on purpose. */
export const engineRecordTypes: readonly RecordTypeSpec[] = [
  { type: "memory.forgotten", description: "The tombstone of a forgotten event (`zaxy memory forget`): which cell's key was destroyed, and why." },
  { type: "fleet.promotion.refused", description: "A promotion the trust check refused, recorded in the proposer's own session (never on the fleet thread)." },
];

/**
 * Natural guesses for types the engine knows under another name. Edit distance finds typos;
 * these are the synonyms it cannot (`task.created` is no typo of `task.completed`: it means
 * `task.proposed`). Types other producers use as their own (`task.started`, `command.result`,
 * `file.edit.completed`: consolidation counts them as actions) are deliberately not here.
 */
export const eventTypeAliases: ReadonlyMap<string, string> = new Map([
  ["goal.set", "goal.created"],
  ["goal.added", "goal.created"],
  ["task.created", "task.proposed"],
  ["task.added", "task.proposed"],
  ["task.assigned", "task.claimed"],
  ["task.done", "task.completed"],
  ["task.finished", "task.completed"],
  ["decision.recorded", "decision.made"],
  ["decision.created", "decision.made"],
  ["decision.taken", "decision.made"],
  ["preference.set", "user.preference_changed"],
  ["preference.changed", "user.preference_changed"],
  ["user.preference.set", "user.preference_changed"],
  ["user.preference.changed", "user.preference_changed"],
  ["tool.call", "tool.call.completed"],
  ["tool.called", "tool.call.completed"],
  ["tool.used", "tool.call.completed"],
  ["command.run", "command.completed"],
  ["command.executed", "command.completed"],
  ["command.finished", "command.completed"],
  ["file.edited", "file.edit.applied"],
  ["file.changed", "file.edit.applied"],
  ["file.modified", "file.edit.applied"],
  ["outcome.recorded", "memory.outcome.recorded"],
  ["handoff", "handoff.created"],
]);

/** The types the engine reads specially, sorted: the vocabulary, the audit records, and any extractor registered since. */
export function knownEventTypes(): string[] {
  const known = new Set([...eventVocabulary.map((spec) => spec.type), ...engineRecordTypes.map((spec) => spec.type), ...registeredEventTypes()]);
  return [...known].sort();
}

/** How many edits still read as a typo of a known type: 2, or one per 5 characters of longer types. */
function typoEditsMax(type: string): number {
  return Math.max(2, Math.floor(type.length / 5));
}

/**
 * The known type a type that is not known most likely meant: an alias (`decision.recorded` →
 * `decision.made`), else the nearest known type by edit distance, ignoring case, when it is close
 * enough to be a typo. Undefined for a known type and for one nothing known is close to.
 *
 * @example
 * closestKnownType("task.created"); // "task.proposed"
 * closestKnownType("goal.craeted"); // "goal.created"
 */
export function closestKnownType(type: string): string | undefined {
  const known = knownEventTypes();
  if (known.includes(type)) return undefined;
  return eventTypeAliases.get(type.toLowerCase()) ?? nearestKnownType(type, known);
}

/**
 * The known type that `type` is a misspelling of: it differs only in capitals, or by a typo's
 * edits (ignoring case). Undefined for a known type, for a natural guess under another name
 * (`task.created`: an alias, which is a choice of words rather than a slip of the keys) and for
 * a type nothing known is close to. The plain write paths refuse such a type unless told it is
 * new (src/memory/plainInput.ts).
 *
 * @example
 * mistypedKnownType("Decision.Made"); // "decision.made"
 * mistypedKnownType("goal.craeted"); // "goal.created"
 * mistypedKnownType("task.created"); // undefined (an alias of task.proposed, warned about instead)
 */
export function mistypedKnownType(type: string): string | undefined {
  const known = knownEventTypes();
  if (known.includes(type) || eventTypeAliases.has(type.toLowerCase())) return undefined;
  return nearestKnownType(type, known);
}

/** The known type nearest to `type` by edit distance, ignoring case, when within a typo's edits. */
function nearestKnownType(type: string, known: readonly string[]): string | undefined {
  const lowered = type.toLowerCase();
  let best: { type: string; distance: number } | undefined;
  const editsMax = typoEditsMax(type);
  for (const candidate of known) {
    // Lengths further apart than a typo's edits cannot be one (and the distance is O(n·m)).
    if (Math.abs(candidate.length - lowered.length) > editsMax) continue;
    const distance = editDistance(lowered, candidate);
    if (best === undefined || distance < best.distance) best = { type: candidate, distance };
  }
  return best !== undefined && best.distance <= editsMax ? best.type : undefined;
}

/**
 * What appending `type` as event `seq` says when the engine does not read that type but reads
 * `closest` (stderr and `warnings`; docs/events.md quotes it).
 *
 * @example
 * unknownTypeWarning("decision.recorded", 1, "decision.made")
 * // 'event type "decision.recorded" is not one the engine reads, so seq 1 is kept only as a generic "event:decision.recorded:1" entity; …'
 */
export function unknownTypeWarning(type: string, seq: number, closest: string): string {
  return `event type ${JSON.stringify(type)} is not one the engine reads, so seq ${seq} is kept only as a generic ` +
    `${JSON.stringify(`event:${type}:${seq}`)} entity; the closest known type is ${JSON.stringify(closest)} ` +
    `('zaxy help events' lists every type and the fields it reads)`;
}

/**
 * One item's part of the refusal of a misspelt known type: `type` and the known type `meant`.
 *
 * @example
 * mistypedTypeProblem("Decision.Made", "decision.made")
 * // 'unknown event type "Decision.Made" in event_type; did you mean "decision.made"? (it differs only in capitals)'
 */
export function mistypedTypeProblem(type: string, meant: string): string {
  const how = meant === type.toLowerCase() ? " (it differs only in capitals)" : "";
  return `unknown event type ${JSON.stringify(type)} in event_type; did you mean ${JSON.stringify(meant)}?${how}`;
}

/**
 * The refusal of a batch holding misspelt known types (`problems`, one per item, from
 * `mistypedTypeProblem`), naming `override`, how the caller's user appends them anyway
 * (src/memory/plainInput.ts throws it; docs/events.md quotes it).
 */
export function mistypedTypesRefusal(problems: readonly string[], override: string): string {
  return `Cannot append: ${problems.join("; ")}. Nothing was written. A type the engine does not read is kept only as a generic entity ` +
    `('zaxy help events' lists the known types); to record it as a new type of its own, pass ${override}.`;
}

// ---------------------------------------------------------------------------------------------
// Deriving what the engine reads and builds, by running it on the examples.

/** Where and when the examples happen: fixed, so the generated document is reproducible. */
export const exampleContext = {
  seq: 7,
  timestamp: "2026-03-01T10:00:00Z",
  actor: "agent",
  thread: "default",
  hash: hashC,
  prevHash: hashB,
} as const;

/**
 * A payload object that notes every key looked up (`get`, `has`) as a path: `title`,
 * `target.seq`, `source_events[].hash`. Nested objects, also inside lists, are noted the same way.
 */
class ReadRecorder extends Map<string, JsonValue> {
  private readonly prefix: string;
  private readonly reads: Set<string>;
  private readonly views = new Map<string, JsonValue>();

  constructor(source: JsonObject, prefix: string, reads: Set<string>) {
    super();
    this.prefix = prefix;
    this.reads = reads;
    for (const [key, value] of source) super.set(key, value);
  }

  override get(key: string): JsonValue | undefined {
    this.reads.add(this.prefix + key);
    const value = super.get(key);
    if (value === undefined) return undefined;
    const cached = this.views.get(key);
    if (cached !== undefined) return cached;
    const view = recordingView(value, `${this.prefix}${key}`, this.reads);
    this.views.set(key, view);
    return view;
  }

  override has(key: string): boolean {
    this.reads.add(this.prefix + key);
    return super.has(key);
  }
}

function recordingView(value: JsonValue, path: string, reads: Set<string>): JsonValue {
  if (isJsonObject(value)) return new ReadRecorder(value, `${path}.`, reads);
  if (Array.isArray(value)) return value.map((item) => (isJsonObject(item) ? new ReadRecorder(item, `${path}[].`, reads) : item));
  return value;
}

function exampleRecord(type: string, payload: JsonObject, seq: number = exampleContext.seq): EventRecord {
  return {
    seq,
    timestamp: exampleContext.timestamp,
    type,
    actor: exampleContext.actor,
    thread: exampleContext.thread,
    payload,
    security: null,
    prevHash: exampleContext.prevHash,
    hash: exampleContext.hash,
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: isV1EventType(type) ? "v1" : "legacy",
  };
}

/** What one run of the engine on a payload looked up and produced. */
interface Run {
  /** Key paths looked up by the extractor (unless it fell back) and the inference producers. */
  reads: Set<string>;
  /** The extraction (or "fallback") and the derived events, as comparable text. */
  outcome: string;
}

/** What the generic fallback looks up in a payload: its keys and the retention fields. */
function fallbackReads(type: string, payload: JsonObject): Set<string> {
  const reads = new Set<string>();
  extractFallback(exampleRecord(type, new ReadRecorder(payload, "", reads)));
  return reads;
}

/**
 * Runs the extractor and the inference producers on one payload. When the extraction fell back
 * to the generic entity, what the fallback itself looked up is not the type's (it reads whatever
 * is there), so only the extractor's other lookups before it gave up are kept.
 */
function runOn(type: string, payload: JsonObject): Run {
  const extractionReads = new Set<string>();
  const derivationReads = new Set<string>();
  const extraction = extractEvent(exampleRecord(type, new ReadRecorder(payload, "", extractionReads)));
  const derived = generatedEvents(exampleRecord(type, new ReadRecorder(payload, "", derivationReads)));
  const fellBack = isFallback(type, exampleContext.seq, extraction.entities);
  const ownReads = fellBack ? [...extractionReads].filter((read) => !fallbackReads(type, payload).has(read)) : [...extractionReads];
  const reads = new Set([...ownReads, ...derivationReads]);
  const outcome = JSON.stringify({ extraction: fellBack ? "fallback" : { entities: extraction.entities, edges: extraction.edges }, derived });
  return { reads, outcome };
}

/** Values tried for a key: text, a number, a flag, an entity ref, a list. */
const probeValues: readonly JsonValue[] = [fromJs("probe"), fromJs(2), true, fromJs({ name: "probe", entity_type: "probe" }), fromJs(["probe"])];

function withValue(payload: JsonObject, key: string, value: JsonValue): JsonObject {
  const out = new Map(payload);
  out.set(key, value);
  return out;
}

function without(payload: JsonObject, key: string): JsonObject {
  const out = new Map(payload);
  out.delete(key);
  return out;
}

/**
 * The payload fields that matter to a type: every key path the engine looks up, in order of
 * first lookup, keeping a top-level key only when it can change the result. A key of the example
 * matters when removing it or setting it to another value changes the result; a key the example
 * leaves out (an alternative such as `task_id` beside `taskId`) when setting it changes the
 * result of the example or of the example without one of its keys. So a key that is looked up
 * but never used (a session-ended event's `task_id`) is not listed.
 */
function fieldsThatMatter(type: string, payload: JsonObject): string[] {
  const base = runOn(type, payload);
  const variants = [{ payload, run: base }, ...[...payload.keys()].map((key) => ({ payload: without(payload, key), run: runOn(type, without(payload, key)) }))];
  const reads = new Set<string>();
  for (const variant of variants) for (const read of variant.run.reads) reads.add(read);
  const matters = (key: string): boolean => {
    const changes = (from: JsonObject, outcome: string) => probeValues.some((value) => runOn(type, withValue(from, key, value)).outcome !== outcome);
    if (payload.has(key)) return runOn(type, without(payload, key)).outcome !== base.outcome || changes(payload, base.outcome);
    return variants.some((variant) => changes(variant.payload, variant.run.outcome));
  };
  const topLevel = new Map<string, boolean>();
  const kept: string[] = [];
  for (const read of reads) {
    const key = read.split(/[.[]/, 1)[0];
    if (!topLevel.has(key)) topLevel.set(key, matters(key));
    if (topLevel.get(key)) kept.push(read);
  }
  return kept;
}

/**
 * The retention fields: metadata many extractors copy onto the entity (authority, status, expiry,
 * importance...). Found by running `retentionProperties` on a recording payload.
 */
export function retentionFields(): string[] {
  const reads = new Set<string>();
  retentionProperties(new ReadRecorder(new Map(), "", reads));
  return [...reads];
}

/** An entity of the example's graph, as the document shows it. */
export interface EntityDoc {
  entityType: string;
  name: string;
  summary: string | null;
}

/** An edge of the example's graph. */
export interface EdgeDoc {
  source: EntityRef;
  relationType: string;
  target: EntityRef;
  inferred: boolean;
}

/** An event zaxy appends after the example, and what that event becomes. */
export interface DerivedDoc {
  type: string;
  actor: string;
  entities: EntityDoc[];
  edges: EdgeDoc[];
}

/** A vocabulary entry with what running the engine on its example shows. */
export interface EventTypeDoc extends EventTypeSpec {
  /** Payload key paths the engine looks up, retention fields left out when all are read. */
  fieldsRead: string[];
  /** True when the extractor also copies every retention field. */
  readsRetentionFields: boolean;
  entities: EntityDoc[];
  edges: EdgeDoc[];
  /** True when the example became the generic `event:<type>:<seq>` entity (never, for a known type). */
  fallback: boolean;
  derived: DerivedDoc[];
  /** Whether the type can be written in the v1 envelope (else it makes its log legacy). */
  v1: boolean;
}

function entityDoc(entity: ExtractedEntity): EntityDoc {
  return { entityType: entity.entityType, name: entity.name, summary: entity.summary };
}

function edgeDoc(edge: ExtractedEdge): EdgeDoc {
  return { source: edge.source, relationType: edge.relationType, target: edge.target, inferred: edge.inferred };
}

function isFallback(type: string, seq: number, entities: ExtractedEntity[]): boolean {
  return entities.some((entity) => entity.entityType === "event" && entity.name === `event:${type}:${seq}`);
}

/**
 * Runs the extractor and the inference producers on a spec's example: the fields that matter
 * (`fieldsThatMatter`), the entities and edges it becomes, and the events zaxy derives from it.
 */
export function describeEventType(spec: EventTypeSpec): EventTypeDoc {
  const payload = fromJs(spec.example);
  if (!isJsonObject(payload)) throw new TypeError(`${spec.type}: the example payload must be an object`);
  const reads = fieldsThatMatter(spec.type, payload);
  const retention = retentionFields();
  const readsRetentionFields = retention.every((key) => reads.includes(key));
  const fieldsRead = reads.filter((key) => !(readsRetentionFields && retention.includes(key)));
  const record = exampleRecord(spec.type, payload);
  const extraction = extractEvent(record);
  const derived = generatedEvents(record).map((event, i): DerivedDoc => {
    const derivedPayload = fromJs(event.payload);
    if (!isJsonObject(derivedPayload)) throw new TypeError(`${spec.type}: a derived ${event.type} payload must be an object`);
    const result = extractEvent({ ...exampleRecord(event.type, derivedPayload, record.seq + 1 + i), actor: event.actor });
    return { type: event.type, actor: event.actor, entities: result.entities.map(entityDoc), edges: result.edges.map(edgeDoc) };
  });
  return {
    ...spec,
    fieldsRead,
    readsRetentionFields,
    entities: extraction.entities.map(entityDoc),
    edges: extraction.edges.map(edgeDoc),
    fallback: isFallback(spec.type, record.seq, extraction.entities),
    derived,
    v1: isV1EventType(spec.type),
  };
}

/** Every vocabulary entry, described, in vocabulary order. */
export function eventTypeDocs(): EventTypeDoc[] {
  return eventVocabulary.map(describeEventType);
}
