/**
 * The review status of every preventive rule of a session, by replay of its log: a
 * `memory.rule.generated` is `active`, a `memory.rule.proposed` is `pending`, and either one
 * targeted by a `memory.rolled_back` (same seq and hash) is `rolled_back`. Nothing else changes
 * a rule's status. Only `active` rules may reach a checkout; `withheldRuleEventSeqs` lists the
 * events retrieval must leave out (pending and rolled-back rules), in every lane.
 */
import { intField, isJsonObject, stringField } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { ruleGeneratedEventType, ruleProposedEventType } from "./outcomeLearning.ts";

const rolledBackEventType = "memory.rolled_back";

export type RuleReviewStatus = "active" | "pending" | "rolled_back";

export interface RuleState {
  ruleId: string;
  eventType: string;
  seq: number;
  hash: string;
  timestamp: string;
  /** Status the rule was written with (active for generated, pending for proposed). */
  writtenStatus: "active" | "pending";
  reviewStatus: RuleReviewStatus;
  /** Seq of the rollback that reversed it, when rolled back. */
  rolledBackBySeq: number | null;
}

export function isRuleEventType(type: string): boolean {
  return type === ruleGeneratedEventType || type === ruleProposedEventType;
}

/** Every rule event of the session in seq order, with its replayed status. */
export function replayRules(events: readonly EventRecord[]): RuleState[] {
  const rules: RuleState[] = [];
  const rolledBack = new Map<string, number>();
  for (const event of events) {
    if (isRuleEventType(event.type)) {
      const writtenStatus = event.type === ruleGeneratedEventType ? "active" : "pending";
      rules.push({
        ruleId: stringField(event.payload, "rule_id") ?? `rule:${event.seq}`,
        eventType: event.type,
        seq: event.seq,
        hash: event.hash,
        timestamp: event.timestamp,
        writtenStatus,
        reviewStatus: writtenStatus,
        rolledBackBySeq: null,
      });
    } else if (event.type === rolledBackEventType) {
      const target = event.payload.get("target");
      if (!isJsonObject(target)) continue;
      const seq = intField(target, "seq");
      const hash = stringField(target, "hash");
      if (seq !== undefined && hash !== undefined && !rolledBack.has(`${seq}:${hash}`)) rolledBack.set(`${seq}:${hash}`, event.seq);
    }
  }
  for (const rule of rules) {
    const by = rolledBack.get(`${rule.seq}:${rule.hash}`);
    if (by !== undefined) {
      rule.reviewStatus = "rolled_back";
      rule.rolledBackBySeq = by;
    }
  }
  return rules;
}

/**
 * Seqs of rule events that must not reach a checkout: pending (gate-withheld) and rolled-back
 * rules. Their graph entities and raw events both cite these seqs.
 */
export function withheldRuleEventSeqs(events: readonly EventRecord[]): Set<number> {
  const out = new Set<number>();
  for (const rule of replayRules(events)) if (rule.reviewStatus !== "active") out.add(rule.seq);
  return out;
}

