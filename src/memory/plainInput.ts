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
 * Two more are refused unless the caller says they are meant (`InputPermissions`): an event type
 * that is a misspelling of a known one (`Decision.Made`, `goal.craeted`), which would be kept as a
 * generic entity the engine never reads, and a batch that would switch a v1 session to legacy
 * lines for good (Python's envelope rule, src/eventloom/append.ts), which a documented type such
 * as `user.preference_changed` does.
 *
 * The commands that write them (`memory forget`, `memory rollback`, `memory evolution-gate`,
 * `memory outcome`, `fleet …`) call the library (`appendPlanned`, `appendEvents`) directly, a
 * path the plain front doors cannot reach. Logs that already hold such events still verify:
 * these are input rules, not chain rules.
 */
import { inputError } from "../errors.ts";
import { mistypedKnownType, mistypedTypeProblem, mistypedTypesRefusal } from "../projection/extract/vocabulary.ts";
import type { AppendItem, AppendOptions } from "../eventloom/append.ts";
import { fleetThreadPrefix } from "../fleet/ids.ts";
import { gateEventType } from "../governance/evolutionGate.ts";
import { ruleGeneratedEventType, ruleProposedEventType } from "../events/ruleEvents.ts";
import { rollbackEventType } from "../folds/consolidationStatus.ts";
import { forgottenEventType } from "./forget.ts";
import { recordEvents, type RecordResult } from "../recording/record.ts";

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

/** What a plain front door lets through when its user says so, and how that user says it. */
export interface InputPermissions {
  /** A type that looks like a misspelt known type is meant as a new type of its own. */
  allowNewType?: boolean;
  /** The batch may switch a v1 session to legacy lines for good. */
  allowEnvelopeSwitch?: boolean;
  /** How the front door's user gives each permission, for the refusals: `--allow-new-type`, `allow_new_type: true`. */
  spelling: { newType: string; envelopeSwitch: string };
}

/**
 * Refuses a batch holding an event type that differs from a known type only in capitals or by a
 * typo's edits (`unknown_event_type`, exit 2), naming every such item, the type it most likely
 * meant and `override`, how to append it as a new type anyway; nothing is written.
 *
 * @example
 * refuseMistypedEventTypes([{ type: "Decision.Made", actor: "a" }], "--allow-new-type");
 * // throws: Cannot append: unknown event type "Decision.Made" in event_type; did you mean "decision.made"? ...
 */
export function refuseMistypedEventTypes(items: readonly AppendItem[], override: string): void {
  const problems: string[] = [];
  // A batch of 10,000 events holds few distinct types: each is compared with the known ones once.
  const meantByType = new Map<string, string | undefined>();
  items.forEach((item, index) => {
    if (typeof item.type !== "string") return;
    if (!meantByType.has(item.type)) meantByType.set(item.type, mistypedKnownType(item.type));
    const meant = meantByType.get(item.type);
    if (meant === undefined) return;
    const name = items.length === 1 && item.origin === undefined ? "" : `${item.origin ?? `event ${index}`}: `;
    problems.push(`${name}${mistypedTypeProblem(item.type, meant)}`);
  });
  if (problems.length === 0) return;
  throw inputError("unknown_event_type", mistypedTypesRefusal(problems, override), {
    field: "event_type",
    expected: `a known event type ('zaxy help events'), or ${override}`,
  });
}

/**
 * `recordEvents` for the plain front doors: refuses fleet threads, governance types, misspelt
 * known types and a switch to legacy lines (unless `permissions` allow the last two) first.
 *
 * @example
 * await recordInputEvents(".eventloom", "default", [{ type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship" }) }], {}, {
 *   spelling: { newType: "--allow-new-type", envelopeSwitch: "--allow-envelope-switch" },
 * });
 */
export async function recordInputEvents(
  root: string,
  sessionId: string,
  items: AppendItem[],
  options: AppendOptions,
  permissions: InputPermissions,
): Promise<RecordResult> {
  refusePlainGovernanceWrites(sessionId, items);
  if (!permissions.allowNewType) refuseMistypedEventTypes(items, permissions.spelling.newType);
  const refuseEnvelopeSwitch = permissions.allowEnvelopeSwitch ? undefined : { override: permissions.spelling.envelopeSwitch };
  return await recordEvents(root, sessionId, items, { ...options, refuseEnvelopeSwitch });
}
