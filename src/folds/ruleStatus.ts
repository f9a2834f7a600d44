/**
 * The review status of every preventive rule of a session, by replay of its log: a
 * `memory.rule.generated` is `active`, a `memory.rule.proposed` is `pending`, and either one
 * targeted by a `memory.rolled_back` (same seq and hash) is `rolled_back`. Nothing else changes
 * a rule's status. Only `active` rules may reach a checkout; `withheldRuleEventSeqs` lists the
 * events retrieval must leave out (pending and rolled-back rules), in every lane.
 */
import { intField, isJsonObject, stringField } from "../canonical/mod.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { ruleGeneratedEventType, ruleProposedEventType } from "../events/ruleEvents.ts";
import { type SessionFold, wholeLogTail } from "./sessionFold.ts";

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

/** The `{seq, hash}` a `memory.rolled_back` targets; undefined for any other event or a malformed target. */
function rollbackTargetOf(event: EventRecord): { seq: number; hash: string } | undefined {
  if (event.type !== rolledBackEventType) return undefined;
  const target = event.payload.get("target");
  if (!isJsonObject(target)) return undefined;
  const seq = intField(target, "seq");
  const hash = stringField(target, "hash");
  return seq === undefined || hash === undefined ? undefined : { seq, hash };
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
    } else {
      const target = rollbackTargetOf(event);
      if (target !== undefined && !rolledBack.has(`${target.seq}:${target.hash}`)) rolledBack.set(`${target.seq}:${target.hash}`, event.seq);
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
 * rules, ascending. Their graph entities and raw events both cite these seqs.
 *
 * @example
 * withheldRuleEventSeqs(events).has(seq)
 */
export function withheldRuleEventSeqs(events: readonly EventRecord[]): ReadonlySet<number> {
  // The rule fold reads only events (and looks them up by seq): no session id or rows needed.
  return withheldRuleSeqsFold.apply(withheldRuleSeqsFold.empty(), wholeLogTail("", null, events));
}

/**
 * The withheld rule seqs, continued over a tail: a tail `memory.rule.proposed` is withheld; a
 * tail `memory.rolled_back` withholds the rule event it targets, which the event lookup finds
 * (base or tail) to check that it is a rule event with that hash. The state alone is enough: a
 * base rollback cannot target a tail event, since a tail event's hash covers, through
 * `prev_hash`, the base rollback itself. The set holds the seqs ascending.
 */
export const withheldRuleSeqsFold: SessionFold<ReadonlySet<number>> = {
  name: "withheld_rule_seqs",
  empty: () => new Set(),
  apply(base, tail) {
    const withheld = new Set(base);
    let added = false;
    for (const event of tail.events) {
      let seq: number | undefined;
      if (event.type === ruleProposedEventType) seq = event.seq;
      else {
        const target = rollbackTargetOf(event);
        const targeted = target === undefined ? undefined : tail.lookups.event(target.seq);
        if (targeted !== undefined && targeted.seq === target!.seq && targeted.hash === target!.hash && isRuleEventType(targeted.type)) seq = targeted.seq;
      }
      if (seq === undefined || withheld.has(seq)) continue;
      withheld.add(seq);
      added = true;
    }
    // Rules are withheld in seq order; a rolled-back earlier rule lands among the others.
    return added ? new Set([...withheld].sort((a, b) => a - b)) : withheld;
  },
  readsEvent: (event) => event.type === ruleProposedEventType || rollbackTargetOf(event) !== undefined,
};
