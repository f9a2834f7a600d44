/**
 * Appending with zaxy's event rules: the one appender every writer of the library uses (CLI and
 * MCP append and ingest through recording, fleet, governance, compaction, forgetting, the demo
 * and the benchmarks), on file roots and store-bound roots alike. The log (src/eventloom/) knows
 * no event schema, so it takes its rules from here: a derived event zaxy produces itself must be
 * one its producer could have written (derivedEventRules.ts). A writer cannot get around a rule
 * by choosing a path: every path appends through this appender, and the log offers no append
 * without rules (tests/meta/event_rules_test.ts keeps it that way).
 *
 * @example
 * import { appendEvents } from "./append.ts";
 * await appendEvents(".eventloom", "default", [{ type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship" }) }]);
 */
import { eventAppender, type EventRule } from "../eventloom/append.ts";
import { derivedEventRule } from "./derivedEventRules.ts";

/** The rules every appended event keeps, in the order their issues are reported. */
export const zaxyEventRules: readonly EventRule[] = [derivedEventRule];

/** The appender with zaxy's event rules. */
export const zaxyAppender = eventAppender(zaxyEventRules);

export const { appendEvents, appendEvent, appendPlanned, checkItems, validateItems } = zaxyAppender;
