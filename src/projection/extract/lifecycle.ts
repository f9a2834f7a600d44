/**
 * Session lifecycle telemetry from agent hooks: workspace genesis, tool calls, commands, file
 * edits, checkpoints, compactions, subagents and session ends. Each run is its own entity, named
 * after its session and the event's seq (or the call id), hanging off a content-free session.
 */
import type { EventRecord } from "../../eventloom/envelope.ts";
import type { ExtractedEdge, ExtractedEntity } from "../types.ts";
import { edge, entity, type Extracted, extracted, type Extractor, ref, sessionEntity, sessionIdOf } from "./build.ts";
import { compact, firstText, joinSummary, plain, positiveInt, text } from "../../events/payload.ts";
import type { JsonValue } from "../../canonical/mod.ts";

function plainOrUndefined(value: JsonValue | undefined) {
  return value === undefined || value === null ? undefined : plain(value);
}

/**
 * The session→run edge, plus a task→run edge when the payload names its task explicitly. The
 * task is only referenced: its content belongs to the task events.
 */
function sessionRun(record: EventRecord, sessionId: string, run: ExtractedEntity, relationType: string, taskRelation?: string): Extracted {
  const session = sessionEntity(record, sessionId);
  const edges: ExtractedEdge[] = [edge(record, session, run, relationType)];
  const taskId = firstText(record.payload, "task_id", "taskId");
  if (taskRelation !== undefined && taskId !== undefined) edges.push(edge(record, ref(taskId, "task"), run, taskRelation));
  return extracted([session, run], edges);
}

function sessionGenesis(record: EventRecord): Extracted {
  const p = record.payload;
  const root = text(p.get("root")) ?? "workspace";
  const workspaceType = text(p.get("workspace_type")) ?? "generic_workspace";
  const profile = text(p.get("instructions_profile")) ?? "generic";
  const sessionId = sessionIdOf(record);
  const signals = p.get("signals");
  const workspace = entity(record, root, "workspace", `${workspaceType} workspace profile ${profile}`, {
    root,
    workspace_type: workspaceType,
    confidence: plainOrUndefined(p.get("confidence")) ?? 0,
    signals: Array.isArray(signals) ? plain(signals) : [],
    instructions_profile: profile,
    session_id: sessionId,
  });
  return sessionRun(record, sessionId, workspace, "initialized_workspace");
}

function toolCallCompleted(record: EventRecord): Extracted {
  const p = record.payload;
  const sessionId = sessionIdOf(record);
  const tool = text(p.get("tool_name")) ?? "tool";
  const status = text(p.get("status")) ?? "unknown";
  const callId = text(p.get("call_id"));
  const call = entity(
    record,
    `${sessionId}:${tool}:${callId ?? record.seq}`,
    "tool_call",
    joinSummary(status, p.get("result_summary")),
    compact({ tool_name: tool, status, session_id: sessionId, call_id: callId }),
  );
  return sessionRun(record, sessionId, call, "completed_tool_call", "observed_tool_call");
}

function commandCompleted(record: EventRecord): Extracted {
  const p = record.payload;
  const sessionId = sessionIdOf(record);
  const command = text(p.get("command")) ?? "command";
  const outcome = text(p.get("outcome")) ?? "unknown";
  const run = entity(
    record,
    `${sessionId}:${command}:${record.seq}`,
    "command_run",
    joinSummary(outcome, command),
    compact({ command, exit_code: plainOrUndefined(p.get("exit_code")), outcome, session_id: sessionId }),
  );
  return sessionRun(record, sessionId, run, "completed_command", "observed_command");
}

function fileEditApplied(record: EventRecord): Extracted {
  const p = record.payload;
  const sessionId = sessionIdOf(record);
  const path = text(p.get("path")) ?? "file";
  const operation = text(p.get("operation")) ?? "modified";
  const edit = entity(
    record,
    `${sessionId}:${path}:${record.seq}`,
    "file_edit",
    joinSummary(operation, p.get("summary")),
    compact({ path, operation, session_id: sessionId, line_count: plainOrUndefined(p.get("line_count")) }),
  );
  return sessionRun(record, sessionId, edit, "applied_file_edit", "observed_file_edit");
}

function hookCheckpoint(record: EventRecord): Extracted {
  const p = record.payload;
  // The thread wins here: a checkpoint belongs to the session whose log records it.
  const sessionId = sessionIdOf(record, false);
  const checkpoint = entity(
    record,
    `${sessionId}:checkpoint:${record.seq}`,
    "hook_checkpoint",
    text(p.get("summary")) ?? null,
    compact({
      session_id: sessionId,
      source: text(p.get("source")) ?? "hook",
      reason: text(p.get("reason")) ?? "checkpoint",
      turn_count: positiveInt(p.get("turn_count"), 0),
      workspace: text(p.get("workspace")),
    }),
  );
  return sessionRun(record, sessionId, checkpoint, "recorded_checkpoint", "has_checkpoint");
}

function compactionCompleted(record: EventRecord): Extracted {
  const p = record.payload;
  const sessionId = sessionIdOf(record);
  const mode = text(p.get("mode")) ?? "unknown";
  const status = text(p.get("status")) ?? "unknown";
  const logPath = text(p.get("log_path")) ?? "eventloom";
  const run = entity(
    record,
    `${sessionId}:compaction:${record.seq}`,
    "compaction_run",
    joinSummary(status, mode, logPath),
    compact({
      session_id: sessionId,
      mode,
      status,
      log_path: logPath,
      event_count: plainOrUndefined(p.get("event_count")),
      output_path: plainOrUndefined(p.get("output_path")),
      projection_path: plainOrUndefined(p.get("projection_path")),
      snapshot_path: plainOrUndefined(p.get("snapshot_path")),
      strategy: plainOrUndefined(p.get("strategy")),
    }),
  );
  return sessionRun(record, sessionId, run, "completed_compaction");
}

function subagentCompleted(record: EventRecord): Extracted {
  const p = record.payload;
  const parent = text(p.get("parent_session_id")) ?? "default";
  const subagent = text(p.get("subagent_session_id")) ?? (record.thread.trim() || "subagent");
  const status = text(p.get("status")) ?? "unknown";
  const run = entity(record, `${parent}:${subagent}:${record.seq}`, "subagent_run", joinSummary(status, p.get("summary")), {
    parent_session_id: parent,
    subagent_session_id: subagent,
    status,
  });
  return sessionRun(record, parent, run, "completed_subagent");
}

function sessionEnded(record: EventRecord): Extracted {
  const p = record.payload;
  const sessionId = sessionIdOf(record);
  const reason = text(p.get("reason")) ?? "ended";
  const status = text(p.get("status")) ?? "unknown";
  const ended = entity(record, `${sessionId}:session-ended:${record.seq}`, "session_end", joinSummary(status, reason), {
    session_id: sessionId,
    reason,
    status,
  });
  return sessionRun(record, sessionId, ended, "ended_session");
}

export const lifecycleExtractors: Record<string, Extractor> = {
  "session.genesis": sessionGenesis,
  "tool.call.completed": toolCallCompleted,
  "command.completed": commandCompleted,
  "file.edit.applied": fileEditApplied,
  "hook.checkpoint": hookCheckpoint,
  "compaction.completed": compactionCompleted,
  "subagent.completed": subagentCompleted,
  "session.ended": sessionEnded,
};
