/**
 * Governance records in an ordinary session that no governance command would have written.
 *
 * The plain write paths refuse governance event types (memory/plainInput.ts), but a log written
 * before that rule, by Python's unvalidated `append_event`, or edited and re-hashed, can hold
 * them. Each command writes its record together with the gate decision that allowed it, so a
 * record without that decision came in through a side door. `memory status` lists them (it never
 * changes the log: such logs still verify); the fleet threads have their own, stricter replay
 * (fleet/replay.ts).
 *
 * - `memory.rolled_back`: `memory rollback` appends the gate about the rolled-back event and the
 *   record in one batch, so the event just before it is a gate whose `candidate_ref` is the
 *   record's `target`.
 * - `memory.forgotten`: `memory forget` appends its gate (op `forget`, `candidate_ref` the
 *   target) before it destroys the key; a record with no such earlier gate was not decided.
 * - `memory.rule.generated` / `memory.rule.proposed`: `memory outcome` appends the outcome, its
 *   `rule_generate` gate and the rule in one batch, so the event just before is that gate.
 * - `fleet.*`: fleet events are written only to a fleet thread, never to a session.
 */
import { intField, isJsonObject, type JsonValue, parseJsonBytes, stringField } from "../canonical/mod.ts";
import { type EventRecord, recordFromLine } from "../eventloom/envelope.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { gateEventType } from "./evolutionGate.ts";
import { ruleGeneratedEventType, ruleProposedEventType } from "../events/ruleEvents.ts";

export interface UnauthorisedGovernanceEvent {
  seq: number;
  hash: string;
  event_type: string;
  actor: string;
  reason: string;
}

function refOf(ref: JsonValue | undefined): string | undefined {
  if (!isJsonObject(ref)) return undefined;
  const seq = intField(ref, "seq");
  const hash = stringField(ref, "hash");
  return seq === undefined || hash === undefined ? undefined : `${seq}:${hash}`;
}

function isGateAbout(event: EventRecord | undefined, target: string | undefined, op?: string): boolean {
  if (event === undefined || event.type !== gateEventType) return false;
  if (op !== undefined && stringField(event.payload, "op") !== op) return false;
  return target === undefined || refOf(event.payload.get("candidate_ref")) === target;
}

/**
 * The governance records of an ordinary session's verified events that lack the gate decision
 * their command writes with them, in seq order.
 *
 * @example
 * unauthorisedSessionGovernance(events) // [{ seq: 3, …, event_type: "memory.forgotten", reason: "no forget gate …" }]
 */
export function unauthorisedSessionGovernance(events: Iterable<EventRecord>): UnauthorisedGovernanceEvent[] {
  const found: UnauthorisedGovernanceEvent[] = [];
  const forgetGates = new Set<string>();
  const flag = (event: EventRecord, reason: string) => found.push({ seq: event.seq, hash: event.hash, event_type: event.type, actor: event.actor, reason });
  let previous: EventRecord | undefined;
  for (const event of events) {
    if (event.type === gateEventType && stringField(event.payload, "op") === "forget" && event.payload.get("auto_apply") === true) {
      const target = refOf(event.payload.get("candidate_ref"));
      if (target !== undefined) forgetGates.add(target);
    } else if (event.type.startsWith("fleet.")) {
      flag(event, "fleet events are written only to a fleet thread (fleet.<id>), by the fleet commands");
    } else if (event.type === "memory.rolled_back") {
      const target = refOf(event.payload.get("target"));
      if (target === undefined || !isGateAbout(previous, target)) flag(event, "no gate decision about its target was appended with it, as memory rollback does");
    } else if (event.type === "memory.forgotten") {
      const target = refOf(event.payload.get("target"));
      if (target === undefined || !forgetGates.has(target)) flag(event, "no earlier forget gate decided to forget its target, as memory forget appends first");
    } else if (event.type === ruleGeneratedEventType || event.type === ruleProposedEventType) {
      if (!isGateAbout(previous, undefined, "rule_generate")) flag(event, "no rule_generate gate decision was appended with it, as memory outcome does");
    }
    previous = event;
  }
  return found;
}

/** The same over a log the caller verified, streamed line by line (a long log is never held whole). */
export function unauthorisedSessionGovernanceInLog(logPath: string): UnauthorisedGovernanceEvent[] {
  return unauthorisedSessionGovernance((function* () {
    for (const { bytes, position } of readLogLines(logPath)) {
      const parsed = parseJsonBytes(bytes);
      if (isJsonObject(parsed)) yield recordFromLine(parsed, position);
    }
  })());
}
