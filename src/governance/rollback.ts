/**
 * Rollback through the evolution gate (Python `MemoryFabric.rollback_memory`): a rollback is an
 * `update` evolution, so it records an `evolution.gate.evaluated` decision (op update,
 * candidate_ref = the target, confidence default 1.0) with the `memory.rolled_back`, in one
 * batch (all or nothing), gate first as in Python. The batch is decided under the log's lock on
 * the verified log it is appended to (`appendPlanned`), so two simultaneous rollbacks of one
 * target cannot both pass `planRollback`. `memory.rolled_back` cannot be written in the v1
 * envelope (its type has an underscore), so the batch is legacy lines. As in Python the decision
 * is an audit record: a rollback is an explicit request to reverse, so it is appended whatever
 * the tier says (holding a reversal for review would keep the reversed evolution in force).
 * What may be rolled back is decided by `planRollback` (rollbackPlan.ts).
 */
import * as fs from "node:fs";
import { type JsonObject, toJs } from "../canonical/mod.ts";
import { type RollbackPlan, type RollbackRequest, planRollback, rollbackActorDefault, rollbackItem } from "./rollbackPlan.ts";
import { inputError } from "../errors.ts";
import { appendPlanned } from "../events/append.ts";
import { resolveEventTarget } from "../eventloom/eventTarget.ts";
import { sessionLogPath } from "../eventloom/root.ts";
import type { PlainJson } from "../projection/types.ts";
import { evaluateEvolutionGate, gateEventPayload, gateEventType, parseUnitInterval } from "./evolutionGate.ts";
import { requireNonEmpty } from "./outcomeLearning.ts";
import { resolveEvolutionPolicy } from "./policySettings.ts";

export const rollbackConfidenceDefault = 1.0;

export interface GatedRollbackOptions {
  actor?: unknown;
  /** Confidence of the rollback for the update gate, 0..1 (default 1.0). */
  confidence?: unknown;
  env?: Record<string, string | undefined>;
  /** How errors name the inputs; default the MCP keys. */
  fieldNames?: { confidence?: string; actor?: string; targetSeq?: string; targetHash?: string; target?: string };
}

/** A rollback request that may name its target by citation or hash prefix (eventloom/eventTarget.ts). */
export interface GatedRollbackRequest extends Omit<RollbackRequest, "targetSeq" | "targetHash"> {
  targetSeq?: unknown;
  targetHash?: unknown;
  /** The target's citation `eventloom://<session>/events/<seq>#<hash prefix>`, instead of seq and hash. */
  target?: unknown;
}

/**
 * Output: `{session_id, rollback_id, rollback_event{seq, hash}, citation, target{seq, hash},
 * reverts, gate{…evolution.gate.evaluated payload}, gate_event{seq, hash}, rule?}`.
 */
export async function rollbackEvolution(root: string, sessionId: string, request: GatedRollbackRequest, options: GatedRollbackOptions = {}): Promise<{ [key: string]: PlainJson }> {
  const actor = requireNonEmpty(options.actor ?? rollbackActorDefault, options.fieldNames?.actor ?? "actor");
  const confidence = options.confidence === undefined ? rollbackConfidenceDefault : parseUnitInterval(options.confidence, options.fieldNames?.confidence ?? "confidence");
  const policy = resolveEvolutionPolicy(root, { env: options.env });
  const logPath = sessionLogPath(root, sessionId, "read");
  if (!fs.existsSync(logPath)) {
    throw inputError("unknown_session", `Cannot roll back: session ${JSON.stringify(sessionId)} has no log under ${root}`, {
      field: "session_id",
      expected: "an existing session",
    });
  }
  const names = options.fieldNames ?? {};
  const named = await resolveEventTarget(root, sessionId, { seq: request.targetSeq, hash: request.targetHash, citation: request.target }, {
    fields: { seq: names.targetSeq ?? "target_seq", hash: names.targetHash ?? "target_hash", citation: names.target ?? "target" },
  });
  const planned: RollbackRequest = { targetSeq: named.seq, targetHash: named.hash, reason: request.reason, nowMs: request.nowMs };
  const decided: { plan?: RollbackPlan; gatePayload?: JsonObject } = {};
  const result = await appendPlanned(root, sessionId, (existing) => {
    const plan = planRollback(sessionId, existing, planned);
    const gatePayload = gateEventPayload(evaluateEvolutionGate("update", confidence, policy), plan.target);
    decided.plan = plan;
    decided.gatePayload = gatePayload;
    return [{ type: gateEventType, actor, payload: gatePayload }, rollbackItem(actor, plan)];
  });
  const { plan, gatePayload } = decided;
  if (plan === undefined || gatePayload === undefined) throw new Error("rollback: the plan did not run");
  const [gateEvent, rollbackEvent] = result.events;
  const out: { [key: string]: PlainJson } = {
    session_id: sessionId,
    rollback_id: plan.payload.rollback_id,
    rollback_event: { seq: rollbackEvent.seq, hash: rollbackEvent.hash },
    citation: rollbackEvent.citation,
    target: plan.payload.target,
    reverts: plan.reverts,
    gate: toJs(gatePayload) as PlainJson,
    gate_event: { seq: gateEvent.seq, hash: gateEvent.hash },
  };
  if (plan.rule !== undefined) out.rule = { ...plan.rule };
  return out;
}
