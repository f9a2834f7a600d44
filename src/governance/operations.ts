/**
 * The governance operations the CLI and MCP share. Each validates everything first, then
 * decides and appends under one exclusive lock (`appendPlanned`): the log is verified, targets
 * are resolved against exactly the events being appended to, and every event of the operation
 * lands in one batch (all or nothing). A refused request writes nothing.
 *
 * - `evaluateGate`: one `evolution.gate.evaluated` event (Python
 *   `MemoryFabric.evaluate_evolution_gate`).
 * - `recordOutcome`: `memory.outcome.recorded`, then for a failure/partial with a lesson the
 *   `rule_generate` gate event (citing the outcome as candidate_ref) and the rule event
 *   (citing the outcome as its source) — outcome, gate, rule, in that order.
 */
import * as fs from "node:fs";
import { toJs } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { type AppendedEvent, type AppendItem } from "../eventloom/append.ts";
import { appendPlanned } from "../events/append.ts";
import { citationUri, sessionLogPath } from "../eventloom/root.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { resolveEventTarget } from "../eventloom/eventTarget.ts";
import type { PlainJson } from "../projection/types.ts";
import {
  type CandidateRef,
  type EvolutionOp,
  evaluateEvolutionGate,
  gateEventPayload,
  gateEventType,
  type GateDecision,
  parseEvolutionOp,
  parseUnitInterval,
} from "./evolutionGate.ts";
import {
  type EventRef,
  type Outcome,
  outcomeActorDefault,
  outcomeEventType,
  outcomePayload,
  parseOutcome,
  predictionError,
  preventiveRuleConfidence,
  requireNonEmpty,
  ruleEvent,
} from "./outcomeLearning.ts";
import { type EvolutionPolicyOverrides, resolveEvolutionPolicy } from "./policySettings.ts";

export const gateActorDefault = "zaxy-evolution";

function ref(event: AppendedEvent): { seq: number; hash: string } {
  return { seq: event.seq, hash: event.hash };
}

/** The decision as JSON (key order of Python's `EvolutionGateDecision`). */
export function decisionJson(decision: GateDecision): { [key: string]: PlainJson } {
  return { ...decision };
}

/** The sealed event at `target` in `events`, else bad input naming the field. */
export function requireSealedEvent(sessionId: string, events: readonly EventRecord[], target: EventRef, fields: { seq: string; hash: string }): EventRecord {
  const event = events[target.seq - 1];
  if (event === undefined || event.seq !== target.seq) {
    throw inputError("unknown_target", `No event at seq ${target.seq} in session ${JSON.stringify(sessionId)} (it has ${events.length} events)`, {
      field: fields.seq,
      expected: events.length === 0 ? "an event of this session (it has none)" : `a seq in 1..${events.length}`,
    });
  }
  if (event.hash !== target.hash) {
    throw inputError("target_hash_mismatch", `${fields.hash} does not match the sealed event at seq ${target.seq} (its hash is ${event.hash})`, {
      field: fields.hash,
      expected: event.hash,
    });
  }
  return event;
}

export interface GateRequest {
  op: unknown;
  confidence: unknown;
  /** Tier for this op only (highest precedence). */
  tier?: string;
  /** Threshold for this op only (highest precedence). */
  threshold?: string | number;
  candidateRef?: CandidateRef;
  actor?: string;
  /** How errors name the inputs (CLI flags or MCP keys). */
  fieldNames?: { op?: string; confidence?: string; tier?: string; threshold?: string };
  env?: Record<string, string | undefined>;
}

/**
 * Evaluates the gate and appends the `evolution.gate.evaluated` event. Output:
 * `{session_id, op, tier, confidence, threshold, decision, auto_apply, requires_review,
 * rollback_window_seconds, reason, candidate_ref?, gate_event{seq, hash}, citation}`.
 */
export async function evaluateGate(root: string, sessionId: string, request: GateRequest): Promise<{ [key: string]: PlainJson }> {
  const names = { op: "op", confidence: "confidence", tier: "tier", threshold: "threshold", ...request.fieldNames };
  const op = parseEvolutionOp(request.op, names.op);
  const confidence = parseUnitInterval(request.confidence, names.confidence);
  const actor = requireNonEmpty(request.actor ?? gateActorDefault, "actor");
  const policy = resolveEvolutionPolicy(root, policyOverrides(op, request.tier, request.threshold, names, request.env));
  const decision = evaluateEvolutionGate(op, confidence, policy);
  const payload = gateEventPayload(decision, request.candidateRef);
  sessionLogPath(root, sessionId, "append to");
  const result = await appendPlanned(root, sessionId, () => [{ type: gateEventType, actor, payload }]);
  const event = result.events[0];
  const out: { [key: string]: PlainJson } = { session_id: sessionId, ...decisionJson(decision) };
  const candidate = payload.get("candidate_ref");
  if (candidate !== undefined) out.candidate_ref = toJs(candidate) as PlainJson;
  out.gate_event = ref(event);
  out.citation = event.citation;
  return out;
}

function policyOverrides(
  op: EvolutionOp,
  tier: string | undefined,
  threshold: string | number | undefined,
  names: { tier: string; threshold: string },
  env: Record<string, string | undefined> | undefined,
): EvolutionPolicyOverrides {
  return {
    opTiers: tier === undefined ? {} : { [op]: tier },
    opThresholds: threshold === undefined ? {} : { [op]: threshold },
    fieldNames: { opTiers: names.tier, opThresholds: names.threshold },
    env,
  };
}

export interface OutcomeRequest {
  outcome: unknown;
  summary: unknown;
  targetSeq?: unknown;
  targetHash?: unknown;
  /** The recalled event's citation, instead of targetSeq/targetHash. */
  target?: unknown;
  lesson?: unknown;
  trigger?: unknown;
  confidence?: unknown;
  taskId?: unknown;
  prior?: unknown;
  actor?: unknown;
  /** How errors name the inputs; default the MCP keys (target_seq, …). */
  fieldNames?: Partial<Record<"outcome" | "summary" | "targetSeq" | "targetHash" | "target" | "lesson" | "trigger" | "confidence" | "taskId" | "prior" | "actor", string>>;
  env?: Record<string, string | undefined>;
}

/**
 * Records an outcome and runs the learning loop. Output (Python's keys first):
 * `{outcome, outcome_event{seq, hash}, rule?{event_type, seq, auto_applied, review_status,
 * hash, rule_id, citation}, session_id, citation, prediction_error?, gate?{…decision,
 * gate_event{seq, hash}}}`.
 */
export async function recordOutcome(root: string, sessionId: string, request: OutcomeRequest): Promise<{ [key: string]: PlainJson }> {
  const f = {
    outcome: "outcome",
    summary: "summary",
    targetSeq: "target_seq",
    targetHash: "target_hash",
    target: "target",
    lesson: "lesson",
    trigger: "trigger",
    confidence: "confidence",
    taskId: "task_id",
    prior: "prior",
    actor: "actor",
    ...request.fieldNames,
  };
  const outcome: Outcome = parseOutcome(request.outcome, f.outcome);
  const summary = requireNonEmpty(request.summary, f.summary);
  const target = await resolveEventTarget(root, sessionId, { seq: request.targetSeq, hash: request.targetHash, citation: request.target }, {
    fields: { seq: f.targetSeq, hash: f.targetHash, citation: f.target },
    required: false,
  });
  const lesson = request.lesson === undefined ? undefined : requireNonEmpty(request.lesson, f.lesson);
  const trigger = request.trigger === undefined ? undefined : requireNonEmpty(request.trigger, f.trigger);
  const explicitConfidence = request.confidence === undefined ? undefined : parseUnitInterval(request.confidence, f.confidence);
  const taskId = request.taskId === undefined ? undefined : requireNonEmpty(request.taskId, f.taskId);
  const prior = request.prior === undefined ? undefined : parseUnitInterval(request.prior, f.prior);
  const actor = requireNonEmpty(request.actor ?? outcomeActorDefault, f.actor);
  const pe = prior === undefined ? undefined : predictionError(outcome, prior);

  const learns = (outcome === "failure" || outcome === "partial") && lesson !== undefined;
  const ruleConfidence = learns ? preventiveRuleConfidence(outcome, explicitConfidence) : undefined;
  // The policy is resolved before taking the lock: it reads config.json and the environment.
  const decision = learns ? evaluateEvolutionGate("rule_generate", ruleConfidence!, resolveEvolutionPolicy(root, { env: request.env })) : undefined;
  const logPath = sessionLogPath(root, sessionId, "append to");
  if (target !== undefined && !fs.existsSync(logPath)) {
    // Checked before appendPlanned, which would create the (empty) log file.
    throw inputError("unknown_target", `No event at seq ${target.seq}: session ${JSON.stringify(sessionId)} has no log under ${root}`, {
      field: f.targetSeq,
      expected: "an event of an existing session",
    });
  }

  let rule: ReturnType<typeof ruleEvent> | undefined;
  const result = await appendPlanned(root, sessionId, (existing) => {
    if (target !== undefined) requireSealedEvent(sessionId, existing, target, { seq: f.targetSeq, hash: f.targetHash });
    const items: Array<AppendItem | ((before: readonly AppendedEvent[]) => AppendItem)> = [
      { type: outcomeEventType, actor, payload: outcomePayload({ outcome, summary, target, taskId, prior, predictionError: pe }) },
    ];
    if (decision !== undefined) {
      items.push((before) => ({ type: gateEventType, actor, payload: gateEventPayload(decision, ref(before[0])) }));
      items.push((before) => {
        rule = ruleEvent({
          autoApplied: decision.auto_apply,
          rule: lesson!,
          trigger: trigger ?? summary,
          confidence: ruleConfidence!,
          outcome,
          sourceEvents: [ref(before[0])],
        });
        return { type: rule.type, actor, payload: rule.payload };
      });
    }
    return items;
  });
  const [outcomeEvent, gateEvent, ruleAppended] = result.events;
  const out: { [key: string]: PlainJson } = { outcome, outcome_event: ref(outcomeEvent) };
  if (rule !== undefined && ruleAppended !== undefined && decision !== undefined) {
    out.rule = {
      event_type: rule.type,
      seq: ruleAppended.seq,
      auto_applied: decision.auto_apply,
      review_status: rule.reviewStatus,
      hash: ruleAppended.hash,
      rule_id: rule.ruleId,
      citation: ruleAppended.citation,
    };
  }
  out.session_id = sessionId;
  out.citation = citationUri(sessionId, outcomeEvent.seq, outcomeEvent.hash);
  if (target !== undefined) out.target = { seq: target.seq, hash: target.hash };
  if (pe !== undefined) out.prediction_error = pe;
  if (decision !== undefined && gateEvent !== undefined) out.gate = { ...decisionJson(decision), gate_event: ref(gateEvent) };
  return out;
}
