/**
 * Validation shared by the CLI and MCP front doors of query, checkout and context assembly, so
 * both reject bad input with the same code and message (exit 2 / `invalid_request`).
 */
import { inputError } from "../errors.ts";
import { validateSessionId } from "../eventloom/root.ts";
import { validateFleetId } from "../fleet/ids.ts";
import { requireAgentId } from "../fleet/validate.ts";
import { depthMax, queryCharsMax } from "../limits.ts";

// The bounds a causal query shares live in limits.ts; the front doors read them from here too.
export { depthMax, queryCharsMax };

export const limitMax = 100;
export const defaultLimit = 10;
export const defaultDepth = 2;
export const defaultMaxRecentEvents = 20;
export const maxRecentEventsMax = 1000;
/** Fleets one checkout may read: each is a full replay of its thread, so the fan-out is bounded. */
export const checkoutFleetIdsMax = 16;

export interface MemoryRequest {
  sessionId: string;
  query: string;
  limit: number;
  depth: number;
  replayFromSeq: number;
  maxRecentEvents: number;
  /**
   * True when the caller set `max_recent_events` (absent when `maxRecentEvents` is the default):
   * a long-horizon checkout then shows at most that many recent events, else its recent window
   * sets how many (docs/long-horizon.md).
   */
  maxRecentEventsGiven?: true;
  maxTokens?: number;
  /** Per-call long-horizon switch (checkout only); undefined means the root's setting. */
  longHorizon?: boolean;
  /** Per-call long-horizon recent window (events, >= 1); undefined means the setting. */
  longHorizonRecentWindow?: number;
  /** Fleets whose active promotions the checkout fleet lane may add (checkout only; needs fleet_enabled). */
  fleetIds?: string[];
  /** Who asks the fleet lane (must be enrolled and not untrusted); undefined means the session id. */
  agentId?: string;
  /**
   * The semantic lane (retrieval/semanticLane.ts): true always runs it, false never; undefined runs
   * it when the query's words leave the question open (memory/service.ts `wantsSemantic`).
   */
  semantic?: boolean;
}

export interface MemoryRequestInput {
  sessionId: string;
  query: unknown;
  limit?: number;
  depth?: number;
  replayFromSeq?: number;
  maxRecentEvents?: number;
  maxTokens?: number;
  longHorizon?: boolean;
  longHorizonRecentWindow?: number;
  fleetIds?: readonly string[];
  agentId?: string;
  semantic?: boolean;
}

function checkInt(value: number | undefined, field: string, min: number, max: number, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}`;
    throw inputError("invalid_option", `${field} must be an integer ${range}, got ${value}`, {
      field,
      expected: `integer ${range}`,
      actual: String(value),
    });
  }
  return value;
}

export function validateMemoryRequest(input: MemoryRequestInput, names: { [field: string]: string } = {}): MemoryRequest {
  const name = (field: string) => names[field] ?? field;
  validateSessionId(input.sessionId, "read");
  if (typeof input.query !== "string" || input.query.trim() === "") {
    throw inputError("invalid_query", `${name("query")} must be a non-empty string`, { field: name("query"), expected: "non-empty text" });
  }
  const chars = [...input.query].length;
  if (chars > queryCharsMax) {
    throw inputError("invalid_query", `${name("query")} is ${chars} characters; at most ${queryCharsMax} are allowed`, {
      field: name("query"),
      expected: `at most ${queryCharsMax} characters`,
    });
  }
  const request: MemoryRequest = {
    sessionId: input.sessionId,
    query: input.query,
    limit: checkInt(input.limit, name("limit"), 1, limitMax, defaultLimit),
    depth: checkInt(input.depth, name("depth"), 1, depthMax, defaultDepth),
    replayFromSeq: checkInt(input.replayFromSeq, name("replay_from_seq"), 1, Number.MAX_SAFE_INTEGER, 1),
    maxRecentEvents: checkInt(input.maxRecentEvents, name("max_recent_events"), 0, maxRecentEventsMax, defaultMaxRecentEvents),
  };
  if (input.maxRecentEvents !== undefined) request.maxRecentEventsGiven = true;
  if (input.maxTokens !== undefined) request.maxTokens = checkInt(input.maxTokens, name("max_tokens"), 0, Number.MAX_SAFE_INTEGER, 0);
  if (input.longHorizon !== undefined) request.longHorizon = input.longHorizon;
  if (input.longHorizonRecentWindow !== undefined) {
    request.longHorizonRecentWindow = checkInt(
      input.longHorizonRecentWindow,
      name("long_horizon_recent_window"),
      1,
      Number.MAX_SAFE_INTEGER,
      0,
    );
  }
  if (input.semantic !== undefined) request.semantic = input.semantic;
  if (input.fleetIds !== undefined && input.fleetIds.length > 0) request.fleetIds = checkFleetIds(input.fleetIds, name("fleet_ids"));
  if (input.agentId !== undefined) {
    if (request.fleetIds === undefined) {
      throw inputError("invalid_option", `${name("agent_id")} applies only to the fleet lane: name a fleet with ${name("fleet_ids")}`, {
        field: name("agent_id"),
        expected: `${name("fleet_ids")} given`,
      });
    }
    request.agentId = requireAgentId(input.agentId, name("agent_id"));
  }
  return request;
}

/** Fleet ids in first-seen order without repeats; each must make a valid thread `fleet.<id>`. */
function checkFleetIds(fleetIds: readonly string[], field: string): string[] {
  const unique = [...new Set(fleetIds)];
  if (unique.length > checkoutFleetIdsMax) {
    throw inputError("invalid_option", `${field} names ${unique.length} fleets; at most ${checkoutFleetIdsMax} are allowed`, {
      field,
      expected: `at most ${checkoutFleetIdsMax} fleet ids`,
    });
  }
  for (const fleetId of unique) validateFleetId(fleetId, field);
  return unique;
}

