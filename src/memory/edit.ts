/**
 * `memory_edit` (reference §6 row 12): a cited correction of what an event stated. The event is
 * never changed; one `memory.corrected` is appended:
 *
 *   {correction_id, target {seq, hash}, content, reason, entity_name, entity_type,
 *    previous_content, authority_status[, confidence]}
 *
 * `entity_name` / `entity_type` name the fact the target event stated (its first entity other
 * than the acting agent, as the projection extracts it), `previous_content` what that fact said
 * when it was corrected. The projection folds the correction into a new version of the fact
 * whose summary is `content` (extract/memory.ts), so checkout serves the correction as the
 * current fact, citing the correction event; the corrected event stays in the log and the graph.
 * Rolling the correction back (memory_rollback) restores `previous_content` while the correction
 * is still the fact's latest statement.
 *
 * @example
 * await editMemory(".eventloom", "default", { targetSeq: 3, targetHash: "ab…", newContent: "Use Postgres 16", reason: "typo" });
 * // { status: "corrected", correction_id: "correction:…", entity_name: "Use Postgres 15", seq: 9, … }
 */
import { fromJs } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { appendedEventJson } from "../eventloom/append.ts";
import { citationUri, sessionLogPath } from "../eventloom/root.ts";
import { resolveEventTarget } from "../eventloom/eventTarget.ts";
import { readVerifiedEvents } from "../eventloom/replay.ts";
import { sha256Hex } from "../platform/mod.ts";
import { extractEvent } from "../projection/extract/mod.ts";
import type { PlainJson } from "../projection/types.ts";
import { recordEvents } from "../recording/record.ts";
import { sharedMemoryService } from "./service.ts";

export const correctedEventType = "memory.corrected";
/** Python's default actor for edits. */
export const defaultEditorActor = "zaxy-editor";
const hashPattern = /^[0-9a-f]{64}$/;
/** Entity types that describe who acted or where, not what was stated. */
const nonFactTypes = new Set(["actor", "session", "user"]);

export interface EditRequest {
  /** With targetHash (full, or a prefix of at least 12 hex), or instead a citation in `target`. */
  targetSeq?: unknown;
  targetHash?: unknown;
  /** The event's citation `eventloom://<session>/events/<seq>#<hash prefix>`. */
  target?: unknown;
  newContent: unknown;
  reason: unknown;
  actor?: unknown;
  confidence?: unknown;
  fieldNames?: { [field: string]: string };
}

export interface EditResult {
  [key: string]: PlainJson | undefined;
  session_id: string;
  status: "corrected";
  correction_id: string;
  entity_name: string;
  entity_type: string;
  content: string;
  previous_content: string | null;
  corrected_citation: string;
  event_type: string;
  seq: number;
  hash: string;
  citation: string;
  warnings?: string[];
}

function text(value: unknown, field: string): string {
  if (typeof value !== "string" || value.trim() === "") throw inputError("invalid_request", `${field} must be a non-empty string`, { field, expected: "a non-empty string" });
  return value;
}

/** `correction:` + 24 hex of SHA-256 over the target and the new content (a re-send is recognisable). */
export function correctionId(target: { seq: number; hash: string }, content: string): string {
  return `correction:${sha256Hex(`${target.seq}:${target.hash}\u001f${content}`).slice(0, 24)}`;
}

export async function editMemory(root: string, sessionId: string, request: EditRequest): Promise<EditResult> {
  const names = request.fieldNames ?? {};
  const seqField = names.target_seq ?? "target_seq";
  const hashField = names.target_hash ?? "target_hash";
  const named = await resolveEventTarget(root, sessionId, { seq: request.targetSeq, hash: request.targetHash, citation: request.target }, {
    fields: { seq: seqField, hash: hashField, citation: names.target ?? "target" },
  });
  const targetSeq = named.seq;
  if (!Number.isSafeInteger(targetSeq) || targetSeq < 1) {
    throw inputError("invalid_request", `${seqField} must be an integer >= 1, got ${JSON.stringify(targetSeq) ?? "nothing"}`, { field: seqField });
  }
  if (!hashPattern.test(named.hash)) {
    throw inputError("invalid_request", `${hashField} must be 64 lowercase hex characters`, { field: hashField, expected: "64 lowercase hex" });
  }
  const content = text(request.newContent, names.new_content ?? "new_content");
  const reason = text(request.reason, names.reason ?? "reason");
  const actor = request.actor === undefined ? defaultEditorActor : text(request.actor, names.actor ?? "actor");
  const confidence = request.confidence;
  if (confidence !== undefined && (typeof confidence !== "number" || !(confidence >= 0 && confidence <= 1))) {
    throw inputError("invalid_request", `${names.confidence ?? "confidence"} must be a number 0..1`, { field: names.confidence ?? "confidence" });
  }
  const verified = await readVerifiedEvents(sessionLogPath(root, sessionId, "read"), {
    sessionId,
    missing: () => inputError("unknown_session", `Session ${JSON.stringify(sessionId)} has no log to correct`, { field: "session_id" }),
  });
  const target = verified.events[targetSeq - 1];
  if (target === undefined) {
    throw inputError("invalid_request", `No event at seq ${targetSeq} in session ${JSON.stringify(sessionId)} (it has ${verified.events.length} events)`, { field: seqField });
  }
  if (target.hash !== named.hash) {
    throw inputError("invalid_request", `${hashField} does not match the sealed event at seq ${targetSeq} (its hash is ${target.hash})`, { field: hashField });
  }
  const fact = extractEvent(target).entities.find((entity) => !nonFactTypes.has(entity.entityType));
  if (fact === undefined) {
    throw inputError("invalid_request", `Event ${targetSeq} (${target.type}) states no memory to correct: it names only who acted`, { field: seqField });
  }
  // What the fact says now (the version checkout serves), to restore if the correction is rolled back.
  const previous = await sharedMemoryService(root).withReadSession(sessionId, (session) => {
    for (const position of session.index.namePositions(fact.name)) {
      const row = session.index.entity(position);
      if (row.entityType === fact.entityType && row.validTo === null) return row.summary;
    }
    return null;
  });
  const ref = { seq: target.seq, hash: target.hash };
  const id = correctionId(ref, content);
  const payload: { [key: string]: PlainJson } = {
    correction_id: id,
    target: ref,
    content,
    reason,
    entity_name: fact.name,
    entity_type: fact.entityType,
    previous_content: previous,
    authority_status: "authoritative",
  };
  if (typeof confidence === "number") payload.confidence = confidence;
  const recorded = await recordEvents(root, sessionId, [{ type: correctedEventType, actor, payload: fromJs(payload) }]);
  return {
    session_id: sessionId,
    status: "corrected",
    correction_id: id,
    entity_name: fact.name,
    entity_type: fact.entityType,
    content,
    previous_content: previous,
    corrected_citation: citationUri(target.thread, target.seq, target.hash),
    ...appendedEventJson(recorded.events[0]),
    ...(recorded.warnings.length > 0 ? { warnings: recorded.warnings } : {}),
  };
}
