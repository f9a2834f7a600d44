/**
 * Agent workflow events: goals, tasks, decisions, policies, issues, verifications, handoffs and
 * user preferences. Names follow the Python projection so the same log yields the same graph:
 * a goal is its title, a task its `taskId`, a decision its text, a preference `<user>:<key>`.
 */
import type { JsonObject } from "../../canonical/mod.ts";
import type { EventRecord } from "../../eventloom/envelope.ts";
import { actorEntity, actorRef, edge, entity, type Extracted, extracted, type Extractor, MalformedPayload, ref } from "./build.ts";
import { firstText, joinSummary, plain, type Properties, retentionProperties, text } from "../../events/payload.ts";

/** The explicit task id (`task_id` or `taskId`) kept under the key the event used. */
function taskIdentityProperties(payload: JsonObject): Properties {
  const taskId = firstText(payload, "task_id", "taskId");
  if (taskId === undefined) return {};
  return payload.has("task_id") ? { task_id: taskId } : { taskId };
}

function taskProperties(payload: JsonObject): Properties {
  return { ...taskIdentityProperties(payload), ...retentionProperties(payload) };
}

function goalCreated(record: EventRecord): Extracted {
  const title = text(record.payload.get("title")) ?? "untitled";
  const goal = entity(record, title, "goal", text(record.payload.get("description")) ?? null, retentionProperties(record.payload));
  return extracted([goal, actorEntity(record)], [edge(record, actorRef(record), goal, "created_goal")]);
}

function taskProposed(record: EventRecord): Extracted {
  const p = record.payload;
  const taskId = firstText(p, "taskId", "task_id") ?? `task_${record.seq}`;
  const task = entity(record, taskId, "task", firstText(p, "summary", "title") ?? null, taskProperties(p));
  const edges = [edge(record, actorRef(record), task, "proposed_task")];
  // The goal is only named here; its description belongs to goal.created.
  const goalTitle = text(p.get("goalTitle"));
  if (goalTitle !== undefined) edges.push(edge(record, ref(goalTitle, "goal"), task, "has_task"));
  return extracted([task, actorEntity(record)], edges);
}

/** The task a claim or completion refers to; without one the event is kept as a generic entity. */
function referencedTaskId(payload: JsonObject): string {
  const taskId = firstText(payload, "taskId", "task_id", "task");
  if (taskId === undefined) throw new MalformedPayload("no taskId, task_id or task");
  return taskId;
}

function taskClaimed(record: EventRecord): Extracted {
  const task = ref(referencedTaskId(record.payload), "task");
  return extracted([actorEntity(record)], [edge(record, actorRef(record), task, "claimed_task")]);
}

function taskCompleted(record: EventRecord): Extracted {
  const p = record.payload;
  const taskId = referencedTaskId(p);
  const summary = text(p.get("summary"));
  const entities = [actorEntity(record)];
  // Without a summary the completion says nothing new about the task itself; emitting it
  // would open a version with a blank summary over the proposed one.
  if (summary !== undefined) entities.unshift(entity(record, taskId, "task", summary, taskProperties(p)));
  return extracted(entities, [edge(record, actorRef(record), ref(taskId, "task"), "completed_task")]);
}

function decisionMade(record: EventRecord): Extracted {
  const p = record.payload;
  const name = text(p.get("decision")) ?? `decision:${record.seq}`;
  const summary = joinSummary(p.get("summary"), p.get("rationale"), p.get("alternatives_considered"));
  const decision = entity(record, name, "decision", summary, retentionProperties(p));
  return extracted([decision, actorEntity(record)], [edge(record, actorRef(record), decision, "made_decision")]);
}

function contextPolicy(record: EventRecord): Extracted {
  const p = record.payload;
  const source = text(p.get("source")) ?? "context";
  const project = text(p.get("project"));
  const name = project === undefined ? source : `${project}:${source}`;
  const properties: Properties = { source, ...(project === undefined ? {} : { project }), ...retentionProperties(p) };
  const policy = entity(record, name, "context_policy", joinSummary(p.get("status"), p.get("instructions")), properties);
  return extracted([policy, actorEntity(record)], [edge(record, actorRef(record), policy, "set_context_policy")]);
}

function issueDiagnosed(record: EventRecord): Extracted {
  const p = record.payload;
  const name = text(p.get("issue")) ?? `issue:${record.seq}`;
  const issue = entity(record, name, "issue", joinSummary(p.get("root_cause"), p.get("evidence"), p.get("fix")), { status: "diagnosed" });
  return extracted([issue, actorEntity(record)], [edge(record, actorRef(record), issue, "diagnosed_issue")]);
}

function verificationRecorded(record: EventRecord): Extracted {
  const p = record.payload;
  const command = text(p.get("command")) ?? `verification:${record.seq}`;
  const outcome = text(p.get("outcome")) ?? "unknown";
  const verification = entity(record, command, "verification", joinSummary(outcome, p.get("summary"), p.get("evidence")), { outcome });
  return extracted([verification, actorEntity(record)], [edge(record, actorRef(record), verification, "recorded_verification")]);
}

function handoffCreated(record: EventRecord): Extracted {
  const p = record.payload;
  const name = text(p.get("title")) ?? `handoff:${record.seq}`;
  const handoff = entity(record, name, "handoff", joinSummary(p.get("summary"), p.get("next_steps"), p.get("risks")), { status: "created" });
  return extracted([handoff, actorEntity(record)], [edge(record, actorRef(record), handoff, "created_handoff")]);
}

/**
 * The preference entity holds the value, so a changed value is a new version of
 * `<user>:<key>` and the old value stays readable with its validity interval.
 */
function preferenceChanged(record: EventRecord): Extracted {
  const p = record.payload;
  const user = firstText(p, "userId", "user_id", "user") ?? (record.actor === "" ? "unknown" : record.actor);
  const key = firstText(p, "key", "preference") ?? "preference";
  const rawValue = p.get("value");
  const valueText = text(rawValue);
  const summary = valueText === undefined ? key : `${key}=${valueText}`;
  const properties: Properties = { user, key };
  if (rawValue !== undefined && rawValue !== null) properties.value = plain(rawValue);
  const userEntity = entity(record, user, "user");
  const preference = entity(record, `${user}:${key}`, "preference", summary, properties);
  return extracted([userEntity, preference], [edge(record, userEntity, preference, `has_${key}`)]);
}

export const workflowExtractors: Record<string, Extractor> = {
  "goal.created": goalCreated,
  "task.proposed": taskProposed,
  "task.claimed": taskClaimed,
  "task.completed": taskCompleted,
  "decision.made": decisionMade,
  "context.policy": contextPolicy,
  "issue.diagnosed": issueDiagnosed,
  "verification.recorded": verificationRecorded,
  "handoff.created": handoffCreated,
  "user.preference_changed": preferenceChanged,
};
