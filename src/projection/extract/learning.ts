/**
 * The outcome-learning loop and its governance: reported outcomes, the preventive rules they
 * produce (generated when auto-applied, proposed when held for review), and the evolution gate
 * decisions that route them. All of it is non-authoritative and cites the events behind it.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import { actorEntity, actorRef, edge, entity, type Extracted, extracted, type Extractor, nonAuthoritative, ref } from "./build.ts";
import type { ExtractedEdge } from "../types.ts";
import { citationProperties, compact, integer, joinSummary, object, plainObject, positiveInt, text, unitNumber } from "../../events/payload.ts";

function nonNegative(n: number | undefined): number | undefined {
  return n !== undefined && n >= 0 ? n : undefined;
}

function outcomeRecorded(record: EventRecord): Extracted {
  const p = record.payload;
  const outcome = text(p.get("outcome")) ?? "unknown";
  const target = object(p.get("target")) ?? new Map();
  const targetSeq = positiveInt(target.get("seq"), 0);
  const targetHash = text(target.get("hash"));
  const taskId = text(p.get("task_id")) ?? text(p.get("taskId"));
  const note = entity(
    record,
    `outcome:${record.seq}`,
    "memory_outcome",
    joinSummary(outcome, p.get("summary")),
    compact({
      outcome,
      task_id: taskId,
      prior: unitNumber(p.get("prior")),
      prediction_error: unitNumber(p.get("prediction_error")),
      target_seq: targetSeq > 0 ? targetSeq : undefined,
      target_hash: targetHash,
      target_ref: targetHash === undefined ? undefined : `${targetSeq}:${targetHash}`,
      authority_status: nonAuthoritative,
    }),
  );
  const edges = [edge(record, actorRef(record), note, "recorded_memory_outcome")];
  if (taskId !== undefined) edges.push(edge(record, ref(taskId, "task"), note, "has_outcome"));
  return extracted([note, actorEntity(record)], edges);
}

function ruleEvent(defaultReviewStatus: "active" | "pending", relationType: string): Extractor {
  return (record) => {
    const p = record.payload;
    const rule = text(p.get("rule"));
    const trigger = text(p.get("trigger"));
    const name = text(p.get("rule_id")) ?? `rule:${record.seq}`;
    const memoryRule = entity(
      record,
      name,
      "memory_rule",
      joinSummary(rule, trigger === undefined ? undefined : `(trigger: ${trigger})`),
      compact({
        rule_id: name,
        rule,
        trigger,
        outcome: text(p.get("outcome")),
        confidence: unitNumber(p.get("confidence")),
        review_status: text(p.get("review_status")) ?? defaultReviewStatus,
        authority_status: nonAuthoritative,
        ...citationProperties(p.get("source_events")),
      }),
    );
    return extracted([memoryRule, actorEntity(record)], [edge(record, actorRef(record), memoryRule, relationType)]);
  };
}

/** One gate decision per event; it names what it gated when the payload cites a candidate. */
function gateEvaluated(record: EventRecord): Extracted {
  const p = record.payload;
  const op = text(p.get("op")) ?? "unknown";
  const decision = text(p.get("decision")) ?? "unknown";
  const candidate = object(p.get("candidate_ref"));
  const gate = entity(
    record,
    `evolution_gate:${op}:${record.seq}`,
    "evolution_gate_decision",
    text(p.get("reason")) ?? `${op}: ${decision}`,
    compact({
      op,
      tier: text(p.get("tier")),
      decision,
      confidence: unitNumber(p.get("confidence")),
      threshold: unitNumber(p.get("threshold")),
      auto_apply: typeof p.get("auto_apply") === "boolean" ? (p.get("auto_apply") as boolean) : undefined,
      requires_review: typeof p.get("requires_review") === "boolean" ? (p.get("requires_review") as boolean) : undefined,
      rollback_window_seconds: nonNegative(integer(p.get("rollback_window_seconds"))),
      candidate_ref: candidate === undefined ? undefined : plainObject(candidate),
      authority_status: nonAuthoritative,
    }),
  );
  const edges: ExtractedEdge[] = [edge(record, actorRef(record), gate, "evaluated_evolution_gate")];
  if (candidate !== undefined) {
    const candidateId = text(candidate.get("candidate_id"));
    const name = text(candidate.get("name"));
    const entityType = text(candidate.get("entity_type"));
    if (name !== undefined && entityType !== undefined) edges.push(edge(record, gate, ref(name, entityType), "gated_evolution_of"));
    else if (candidateId !== undefined) edges.push(edge(record, gate, ref(candidateId, "consolidation_candidate"), "gated_evolution_of"));
  }
  return extracted([gate, actorEntity(record)], edges);
}

export const learningExtractors: Record<string, Extractor> = {
  "memory.outcome.recorded": outcomeRecorded,
  "memory.rule.generated": ruleEvent("active", "generated_memory_rule"),
  "memory.rule.proposed": ruleEvent("pending", "proposed_memory_rule"),
  "evolution.gate.evaluated": gateEvaluated,
};
