/**
 * What the plain write paths may not write. CLI `memory append` and `memory ingest`, MCP
 * `memory_append` and `memory_ingest` (and HTTP, which serves the same tools) append events an
 * agent or producer describes; they go through `recordInputEvents`. Two things only the
 * engine's own commands write, because readers give them authority:
 *
 * - the fleet threads (`fleet.<id>`, `fleet.global`): a fleet's trust, membership and
 *   promotions are a replay of its thread, so one forged `fleet.agent.enrolled` would make its
 *   author a steward. Only the `fleet` commands and tools write there;
 * - governance events, anywhere: `evolution.gate.evaluated`, `memory.rolled_back`,
 *   `memory.forgotten`, `memory.rule.generated`, `memory.rule.proposed` and every `fleet.*`
 *   type. Each records a decision a governance command made (a gate, a rollback, a forget, an
 *   outcome's rule, a fleet change) and readers act on it.
 *
 * The commands that write them (`memory forget`, `memory rollback`, `memory evolution-gate`,
 * `memory outcome`, `fleet …`) call the library (`appendPlanned`, `appendEvents`) directly, a
 * path the plain front doors cannot reach. Logs that already hold such events still verify:
 * these are input rules, not chain rules.
 */
import { inputError } from "../errors.ts";
import type { AppendItem, AppendOptions } from "../eventloom/append.ts";
import { fleetThreadPrefix } from "../fleet/ids.ts";
import { gateEventType } from "../governance/evolutionGate.ts";
import { ruleGeneratedEventType, ruleProposedEventType } from "../governance/outcomeLearning.ts";
import { rollbackEventType } from "../consolidation/status.ts";
import { forgottenEventType } from "./forget.ts";
import { recordEvents, type RecordResult } from "./record.ts";

/** Event types only a governance command writes (besides every `fleet.*` type). */
export const governanceEventTypes: readonly string[] = Object.freeze([
  gateEventType,
  rollbackEventType,
  forgottenEventType,
  ruleGeneratedEventType,
  ruleProposedEventType,
]);

/** The prefix of every fleet event type and fleet thread. */
const fleetPrefix = fleetThreadPrefix;

/**
 * Whether `type` records a governance decision (see the module comment).
 *
 * @example
 * isGovernanceEventType("fleet.agent.enrolled") // true
 * isGovernanceEventType("goal.created")         // false
 */
export function isGovernanceEventType(type: string): boolean {
  return type.startsWith(fleetPrefix) || governanceEventTypes.includes(type);
}

/** Whether `sessionId` is a fleet's own thread (`fleet.<id>`, `fleet.global`). */
export function isFleetThread(sessionId: string): boolean {
  return sessionId.startsWith(fleetPrefix);
}

/**
 * Refuses a plain batch for a fleet thread or carrying a governance event type
 * (`governance_write`, exit 2), naming the rule and every offending item; nothing is written.
 */
export function refusePlainGovernanceWrites(sessionId: string, items: readonly AppendItem[]): void {
  if (isFleetThread(sessionId)) {
    throw inputError(
      "governance_write",
      `Cannot append to session ${JSON.stringify(sessionId)}: it is a fleet thread, written only by the fleet commands ` +
        `(zaxy fleet create, enroll, assign-trust, promote-*, review, rollback) so that its trust and promotions cannot be forged. Nothing was written.`,
      { field: "session_id", expected: "a session id not starting with \"fleet.\"" },
    );
  }
  const problems: string[] = [];
  items.forEach((item, index) => {
    if (typeof item.type !== "string" || !isGovernanceEventType(item.type)) return;
    const name = items.length === 1 && item.origin === undefined ? "" : `${item.origin ?? `event ${index}`}: `;
    problems.push(`${name}event type ${JSON.stringify(item.type)} records a governance decision`);
  });
  if (problems.length === 0) return;
  throw inputError(
    "governance_write",
    `Cannot append: ${problems.join("; ")}; only the governance commands write it (memory forget, memory rollback, memory evolution-gate, ` +
      `memory outcome, the fleet commands), never a plain append or ingest. Nothing was written.`,
    { field: "event_type", expected: `a type other than ${governanceEventTypes.join(", ")} and fleet.*` },
  );
}

/**
 * `recordEvents` for the plain front doors: refuses fleet threads and governance types first.
 *
 * @example
 * await recordInputEvents(".eventloom", "default", [{ type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship" }) }]);
 */
export async function recordInputEvents(root: string, sessionId: string, items: AppendItem[], options: AppendOptions = {}): Promise<RecordResult> {
  refusePlainGovernanceWrites(sessionId, items);
  return await recordEvents(root, sessionId, items, options);
}
