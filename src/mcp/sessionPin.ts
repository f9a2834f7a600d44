/**
 * Session pins (docs/mcp.md, "Session pins"). A connection pinned to one Eventloom session (over
 * HTTP, the `x-zaxy-session-id` header at initialize) may list, read and write that session
 * only. `sessionPinRules` is the one place that says how: for every registered tool, each
 * argument that names a session, thread, citation, origin, fleet or agent, and what the pin does
 * with it. The tool router consults it on every call of a pinned connection, so no tool checks
 * the pin itself; tests/meta/session_pin_coverage_test.ts fails when a tool takes such an
 * argument the table does not cover, or when a registered tool has no entry.
 *
 * What must never change: under a pin, no argument may make a tool read or write another
 * session's log, and no result may carry another session's events or listing row. A refusal is
 * bad input (`invalid_request`, code `session_scope`) raised before the tool runs: nothing is read
 * or written.
 *
 * @example
 * refuseOutsidePin("fleet_promote", { origin_session: "alice", ... }, "bob");
 * // throws: This connection is scoped to session "bob"; origin_session may not name session "alice"
 */
import * as fs from "node:fs";
import { inputError } from "../errors.ts";
import { parseCitationUri, sessionLogPath } from "../eventloom/root.ts";

/**
 * How the pin binds one argument:
 * - `session`: names a session (or is read as one, like checkout's fleet `agent_id`): it must be
 *   the pinned session; where it is optional, leaving it out means the pinned session.
 * - `citation`: an `eventloom://<session>/...` citation the tool resolves: it must name the
 *   pinned session, and is resolved in that session's own log only.
 * - `in_session`: a ref into the session the call targets (seq and hash, candidate or memory
 *   ids, source events); the call's session argument is pinned, so the ref is too.
 * - `fleet`: a fleet (thread `fleet.<id>`) or a promotion in it. Fleets are shared by their
 *   members by design; membership and trust tiers govern them, not the pin.
 * - `actor`: who acts or is enrolled: a name recorded in the log, not a session.
 * - `recorded`: text stored as given in the pinned session's own log and never resolved.
 */
export type PinnedArgumentKind = "session" | "citation" | "in_session" | "fleet" | "actor" | "recorded";

export interface ToolPinRule {
  /**
   * Arguments by path (`name`, `name.key`, `name[].key`; a path covers everything nested under
   * it) and how the pin binds each.
   */
  arguments?: Readonly<Record<string, PinnedArgumentKind>>;
  /** Set when a pinned connection may not call the tool at all: why. */
  refused?: string;
  /**
   * What the result keeps: `listing`, only the pinned session's row of a `sessions` listing;
   * `own_session`, only a document whose `session_id` is the pinned session.
   */
  result?: "listing" | "own_session";
}

const sessionOnly = { session_id: "session" } as const;
const targetedEdit = { session_id: "session", target_seq: "in_session", target_hash: "in_session", target: "citation" } as const;

/** Every registered tool, in registry order. */
export const sessionPinRules: Readonly<Record<string, ToolPinRule>> = {
  memory_checkout: { arguments: { session_id: "session", fleet_ids: "fleet", agent_id: "session" } },
  memory_append: { arguments: { session_id: "session", thread: "session" } },
  memory_query: { arguments: sessionOnly },
  context_assemble: { arguments: sessionOnly },
  memory_feedback: { arguments: { session_id: "session", citation: "recorded" } },
  memory_invalidate: { arguments: sessionOnly },
  memory_capabilities: { arguments: sessionOnly },
  memory_feeling_of_knowing: { arguments: sessionOnly },
  memory_ingest: {
    arguments: { session_id: "session", "events[].producer_ref": "in_session", "events[].parent_event_id": "recorded", "events[].caused_by": "recorded" },
  },
  memory_sessions: { result: "listing" },
  memory_get: { arguments: { citation: "citation" }, result: "own_session" },
  memory_edit: { arguments: targetedEdit },
  memory_forget: { arguments: targetedEdit },
  memory_graph_query: { refused: "a Cypher statement can match every session the graph store holds" },
  memory_export: { arguments: sessionOnly },
  memory_verbatim: { arguments: sessionOnly },
  memory_bootstrap: { arguments: sessionOnly },
  context_after_turn: { arguments: sessionOnly },
  memory_replay: { arguments: sessionOnly },
  memory_verify: { arguments: sessionOnly },
  memory_causal_successors: { arguments: sessionOnly },
  memory_causal_predecessors: { arguments: sessionOnly },
  memory_explain_outcome: { arguments: sessionOnly },
  memory_consolidation_candidate: { arguments: { session_id: "session", source_events: "in_session" } },
  memory_consolidation_propose_from_log: { arguments: sessionOnly },
  memory_consolidation_review: { arguments: { session_id: "session", candidate_id: "in_session" } },
  memory_consolidation_status: { arguments: sessionOnly },
  memory_rollback: { arguments: targetedEdit },
  memory_evolution_gate: { arguments: { session_id: "session", candidate_ref: "in_session", candidate: "citation" } },
  memory_outcome: { arguments: targetedEdit },
  trigger_consolidation: { arguments: sessionOnly },
  merge_concepts: {
    arguments: { session_id: "session", source_ids: "in_session", source_node_ids: "in_session", memories: "in_session", target_name: "recorded" },
  },
  fleet_create: { arguments: { fleet_id: "fleet", actor: "actor" } },
  fleet_enroll: { arguments: { fleet_id: "fleet", agent_id: "actor", actor: "actor" } },
  fleet_assign_trust: { arguments: { fleet_id: "fleet", agent_id: "actor", actor: "actor" } },
  fleet_promote: {
    arguments: {
      fleet_id: "fleet",
      origin_session: "session",
      session_id: "session",
      source_events: "in_session",
      actor: "actor",
      origin_actor: "actor",
    },
  },
  fleet_review: { arguments: { fleet_id: "fleet", promotion_id: "fleet", actor: "actor" } },
  fleet_rollback: { arguments: { fleet_id: "fleet", promotion_id: "fleet", actor: "actor" } },
  fleet_status: { arguments: { fleet_id: "fleet" } },
  fleet_audit: { refused: "it reads the origin session of every promotion of the fleet" },
};

function scopeError(pin: string, field: string, message: string, hint: string) {
  return inputError("session_scope", `This connection is scoped to session ${JSON.stringify(pin)}; ${message}`, { field, hint });
}

function ruleOf(tool: string): ToolPinRule {
  const rule = sessionPinRules[tool];
  // A tool without an entry is a build error the meta test catches; refuse rather than guess.
  if (rule === undefined) return { refused: "it has no session pin rule" };
  return rule;
}

/**
 * Refuses (throws `session_scope`) a pinned call whose arguments name anything outside the pinned
 * session, or a tool a pinned connection may not call. Runs after the schema check and before
 * anything else, so a refused call reads and writes nothing.
 */
export function refuseOutsidePin(tool: string, args: Record<string, unknown>, pin: string): void {
  const rule = ruleOf(tool);
  if (rule.refused !== undefined) {
    throw scopeError(pin, tool, `${tool} is not served to a scoped connection: ${rule.refused}`, "Call it over a connection without x-zaxy-session-id.");
  }
  for (const [field, kind] of Object.entries(rule.arguments ?? {})) {
    const value = Object.hasOwn(args, field) ? args[field] : undefined;
    if (typeof value !== "string") continue;
    if (kind === "session" && value !== pin) {
      throw scopeError(pin, field, `${field} may not name session ${JSON.stringify(value)}`, `Leave ${field} out where it is optional, or pass ${JSON.stringify(pin)}; session ${JSON.stringify(value)} needs a connection scoped to it.`);
    }
    if (kind === "citation") {
      // A malformed citation is the tool's to refuse (it reads nothing).
      const cited = parseCitationUri(value.trim())?.thread;
      if (cited !== undefined && cited !== pin) {
        throw scopeError(pin, field, `${field} ${JSON.stringify(value)} names session ${JSON.stringify(cited)}`, `Cite events of session ${JSON.stringify(pin)} only.`);
      }
    }
  }
}

/**
 * Just before a pinned call runs (after a store's server caught up): a citation is resolved in the
 * pinned session's own log, never in another log whose events carry the same thread name.
 */
export function requirePinnedLog(tool: string, args: Record<string, unknown>, pin: string, root: string): void {
  for (const [field, kind] of Object.entries(ruleOf(tool).arguments ?? {})) {
    const value = args[field];
    if (kind !== "citation" || typeof value !== "string" || parseCitationUri(value.trim())?.thread !== pin) continue;
    if (!fs.existsSync(sessionLogPath(root, pin, "read"))) {
      throw inputError("unknown_session", `Cannot resolve ${field}: session ${JSON.stringify(pin)} has no log yet`, {
        field,
        hint: "A scoped connection resolves citations of its own session only; a session's log is created by its first append.",
      });
    }
  }
}

/** The result a pinned connection receives: another session's listing row or event never leaves. */
export function pinnedResult(tool: string, document: unknown, pin: string): unknown {
  const rule = ruleOf(tool);
  if (rule.result === undefined || document === null || typeof document !== "object") return document;
  const fields = document as Record<string, unknown>;
  if (rule.result === "listing" && Array.isArray(fields.sessions)) {
    const sessions = fields.sessions.filter((row) => (row as { session_id?: unknown }).session_id === pin);
    return { ...fields, session_count: sessions.length, sessions };
  }
  if (rule.result === "own_session" && fields.session_id !== pin) {
    throw scopeError(pin, "session_id", `${tool} resolved to session ${JSON.stringify(fields.session_id)}`, `Cite events of session ${JSON.stringify(pin)} only.`);
  }
  return document;
}
