/**
 * `memory_invalidate` (reference §6 row 6, §2.3): closes a current fact's validity window at
 * `invalid_at`. Nothing is deleted: one `memory.invalidated` event `{entity_name, entity_type,
 * invalid_at[, reason]}` is appended, and the projection folds it into a closing version of the
 * fact (`valid_to = invalid_at`, marked stale, see extract/memory.ts), so checkout stops serving
 * it as current and counts it among superseded contexts, while the fact and its history stay in
 * the graph and the log. A later event that states the fact again makes it current again.
 *
 * `invalid_at` is ISO-8601 with an offset (`2026-11-27T10:00:00Z`), stored in the log's own
 * timestamp form (UTC, microseconds); a time in the future is refused (the window closes when the
 * fact stops holding, not ahead of it). The fact must be current in the session, else
 * `unknown_memory` (exit 2) with nothing written.
 *
 * @example
 * await invalidateMemory(".eventloom", "default", { entityName: "editor", entityType: "preference", invalidAt: "2026-11-27T10:00:00Z" });
 * // { status: "invalidated", invalid_at: "2026-11-27T10:00:00Z", seq: 12, ... }
 */
import { fromJs } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { appendedEventJson } from "../eventloom/append.ts";
import { citationUri } from "../eventloom/root.ts";
import { formatTimestamp, systemClock, timestampMicros } from "../eventloom/timestamp.ts";
import type { PlainJson } from "../projection/types.ts";
import { recordEvents } from "../recording/record.ts";
import { sharedMemoryService } from "./service.ts";

export const invalidatedEventType = "memory.invalidated";
/** Python's default actor for MCP memory writes. */
export const defaultInvalidateActor = "zaxy";
/** Clock skew tolerated between a caller's "now" and this host's. */
const futureSlackMicros = 60_000_000;

export interface InvalidateRequest {
  entityName: unknown;
  entityType: unknown;
  invalidAt: unknown;
  reason?: unknown;
  actor?: unknown;
  /** Field names for messages (the CLI passes its flags). */
  fieldNames?: { [field: string]: string };
}

export interface InvalidateResult {
  [key: string]: PlainJson | undefined;
  session_id: string;
  status: "invalidated";
  entity_name: string;
  entity_type: string;
  invalid_at: string;
  event_type: string;
  seq: number;
  hash: string;
  citation: string;
  /** The fact's version that was current until now: where it came from. */
  closed_citation: string;
  warnings?: string[];
}

function nonEmpty(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") {
    throw inputError("invalid_request", `${field} must be a non-empty string`, { field, expected: "a non-empty string" });
  }
  return value;
}

/** `invalid_at` in the log's timestamp form; refuses what is not ISO-8601 with an offset, or is ahead of now. */
export function normalizeInvalidAt(value: unknown, field: string, nowMicros: number): string {
  const raw = nonEmpty(value, field);
  const micros = timestampMicros(raw);
  if (micros === null) {
    throw inputError("invalid_request", `${field} must be an ISO-8601 time with an offset, like 2026-11-27T10:00:00Z, got ${JSON.stringify(raw)}`, {
      field,
      expected: "YYYY-MM-DDTHH:MM:SS[.ffffff](Z|±HH:MM)",
    });
  }
  if (micros > nowMicros + futureSlackMicros) {
    throw inputError("invalid_request", `${field} ${raw} is in the future; a fact's validity closes when it stops holding (invalidate it then)`, { field });
  }
  return formatTimestamp(micros);
}

export async function invalidateMemory(root: string, sessionId: string, request: InvalidateRequest, clock = systemClock): Promise<InvalidateResult> {
  const names = request.fieldNames ?? {};
  const entityName = nonEmpty(request.entityName, names.entity_name ?? "entity_name");
  const entityType = nonEmpty(request.entityType, names.entity_type ?? "entity_type");
  const invalidAt = normalizeInvalidAt(request.invalidAt, names.invalid_at ?? "invalid_at", clock());
  const reason = request.reason === undefined ? undefined : nonEmpty(request.reason, names.reason ?? "reason");
  const actor = request.actor === undefined ? defaultInvalidateActor : nonEmpty(request.actor, names.actor ?? "actor");
  const current = await sharedMemoryService(root).withReadSession(sessionId, (session) => {
    for (const position of session.index.namePositions(entityName)) {
      const row = session.index.entity(position);
      if (row.entityType === entityType && row.validTo === null) return row;
    }
    return undefined;
  });
  if (current === undefined) {
    throw inputError("unknown_memory", `Session ${JSON.stringify(sessionId)} has no current fact ${JSON.stringify(entityName)} of type ${JSON.stringify(entityType)}; nothing was written`, {
      field: names.entity_name ?? "entity_name",
      hint: "memory_query or memory_checkout show current facts with their entity_name and entity_type",
    });
  }
  const from = timestampMicros(current.validFrom);
  if (from !== null && (timestampMicros(invalidAt) as number) < from) {
    throw inputError("invalid_request", `${names.invalid_at ?? "invalid_at"} ${invalidAt} is before the fact became current (${current.validFrom}); nothing was written`, {
      field: names.invalid_at ?? "invalid_at",
    });
  }
  const payload: { [key: string]: PlainJson } = { entity_name: entityName, entity_type: entityType, invalid_at: invalidAt };
  if (reason !== undefined) payload.reason = reason;
  const recorded = await recordEvents(root, sessionId, [{ type: invalidatedEventType, actor, payload: fromJs(payload) }]);
  const event = appendedEventJson(recorded.events[0]);
  return {
    session_id: sessionId,
    status: "invalidated",
    entity_name: entityName,
    entity_type: entityType,
    invalid_at: invalidAt,
    ...event,
    closed_citation: citationUri(sessionId, current.sourceEventSeq, current.sourceEventHash),
    ...(recorded.warnings.length > 0 ? { warnings: recorded.warnings } : {}),
  };
}
