/**
 * Extraction (DESIGN §4): names, types and summaries per event family, edges and their audit
 * fields, stability of repeated events (no spurious versions), the fallback entity, and that no
 * payload makes extraction throw.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { extractEvent, extractorFor, MalformedPayload, registeredEventTypes } from "../../src/projection/extract/mod.ts";
import { fakeEventRecord, fakeHash as hash } from "../testkit/eventRecord.ts";
import type { ExtractedEntity, ExtractionResult } from "../../src/projection/types.ts";

function record(type: string, payload: Record<string, unknown>, options: { seq?: number; actor?: string; thread?: string; timestamp?: string } = {}): EventRecord {
  const seq = options.seq ?? 7;
  const timestamp = options.timestamp ?? `2026-01-01T00:00:${String(seq % 60).padStart(2, "0")}+00:00`;
  return fakeEventRecord(seq, type, payload, { actor: options.actor, thread: options.thread ?? "sess-1", timestamp });
}

const extract = (type: string, payload: Record<string, unknown>, options?: Parameters<typeof record>[2]) => extractEvent(record(type, payload, options));

function only(result: ExtractionResult, entityType: string): ExtractedEntity {
  const found = result.entities.filter((e) => e.entityType === entityType);
  assert.equal(found.length, 1, `expected one ${entityType} in ${JSON.stringify(result.entities)}`);
  return found[0];
}

const edgeTriples = (result: ExtractionResult) =>
  result.edges.map((e) => `${e.source.entityType}:${e.source.name} -${e.relationType}-> ${e.target.entityType}:${e.target.name}`);

/** What the fold compares: everything but the observation time. */
const content = (e: ExtractedEntity) => ({ name: e.name, entityType: e.entityType, summary: e.summary, properties: e.properties });

const actor = { name: "agent-a", entityType: "actor", observedAt: "2026-01-01T00:00:07+00:00", summary: null, properties: {} };

describe("extractEvent provenance", () => {
  test("carries the source event's seq, hash, prev hash, type and thread", () => {
    const result = extract("goal.created", { title: "Ship v1" }, { seq: 3, thread: "s-9" });
    assert.equal(result.sourceEventSeq, 3);
    assert.equal(result.sourceEventHash, hash(3));
    assert.equal(result.sourceEventPrevHash, hash(2));
    assert.equal(result.sourceEventType, "goal.created");
    assert.equal(result.sourceThread, "s-9");
  });

  test("every entity is observed at the event's timestamp", () => {
    const result = extract("decision.made", { decision: "Use Kuzu" }, { timestamp: "2026-02-03T04:05:06+00:00" });
    for (const e of result.entities) assert.equal(e.observedAt, "2026-02-03T04:05:06+00:00");
    for (const e of result.edges) assert.equal(e.validFrom, "2026-02-03T04:05:06+00:00");
  });
});

describe("workflow events", () => {
  test("goal.created → goal named by title with the description as summary, and a content-free actor", () => {
    const result = extract("goal.created", { title: "Ship v1", description: "Release the binary", importance: 0.9 });
    assert.deepEqual(result.entities, [
      { name: "Ship v1", entityType: "goal", observedAt: actor.observedAt, summary: "Release the binary", properties: { importance: 0.9 } },
      actor,
    ]);
    assert.deepEqual(edgeTriples(result), ["actor:agent-a -created_goal-> goal:Ship v1"]);
    assert.deepEqual(result.edges[0], {
      source: { name: "agent-a", entityType: "actor" },
      target: { name: "Ship v1", entityType: "goal" },
      relationType: "created_goal",
      validFrom: actor.observedAt,
      validTo: null,
      inferred: false,
      confidence: 1,
      inferenceMethod: null,
      evidence: {},
    });
  });

  test("goal.created without a title is the goal 'untitled'", () => {
    assert.equal(only(extract("goal.created", {}), "goal").name, "untitled");
  });

  test("task.proposed → task named by taskId; the goal is referenced, not emitted", () => {
    const result = extract("task.proposed", { taskId: "T-1", title: "Write tests", goalTitle: "Ship v1" });
    const task = only(result, "task");
    assert.deepEqual(content(task), { name: "T-1", entityType: "task", summary: "Write tests", properties: { taskId: "T-1" } });
    assert.equal(result.entities.some((e) => e.entityType === "goal"), false);
    assert.deepEqual(edgeTriples(result), ["actor:agent-a -proposed_task-> task:T-1", "goal:Ship v1 -has_task-> task:T-1"]);
  });

  test("task.proposed without an id is task_<seq>", () => {
    assert.equal(only(extract("task.proposed", { summary: "x" }, { seq: 12 }), "task").name, "task_12");
  });

  test("task.claimed emits only the actor and a claimed_task edge to the referenced task", () => {
    const result = extract("task.claimed", { taskId: "T-1" });
    assert.deepEqual(result.entities, [actor]);
    assert.deepEqual(edgeTriples(result), ["actor:agent-a -claimed_task-> task:T-1"]);
  });

  test("task.completed restates the task only when it carries a summary", () => {
    const bare = extract("task.completed", { task_id: "T-1" });
    assert.deepEqual(bare.entities, [actor]);
    assert.deepEqual(edgeTriples(bare), ["actor:agent-a -completed_task-> task:T-1"]);
    const withSummary = extract("task.completed", { taskId: "T-1", summary: "Tests pass" });
    assert.deepEqual(content(only(withSummary, "task")), { name: "T-1", entityType: "task", summary: "Tests pass", properties: { taskId: "T-1" } });
  });

  test("task.claimed and task.completed without any task id fall back to the event entity", () => {
    for (const type of ["task.claimed", "task.completed"]) {
      const result = extract(type, { note: "no id" }, { seq: 4 });
      assert.deepEqual(result.entities.map((e) => e.name), [`event:${type}:4`]);
    }
  });

  test("decision.made → decision named by its text, summary joins summary, rationale and alternatives", () => {
    const result = extract("decision.made", { decision: "Use Kuzu", rationale: "embedded", alternatives_considered: ["Neo4j", "SQLite"] });
    assert.deepEqual(content(only(result, "decision")), { name: "Use Kuzu", entityType: "decision", summary: "embedded Neo4j SQLite", properties: {} });
    assert.deepEqual(edgeTriples(result), ["actor:agent-a -made_decision-> decision:Use Kuzu"]);
    assert.equal(only(extract("decision.made", { rationale: "r" }, { seq: 9 }), "decision").name, "decision:9");
  });

  test("context.policy, issue.diagnosed, verification.recorded and handoff.created", () => {
    assert.deepEqual(content(only(extract("context.policy", { project: "zaxy", source: "AGENTS.md", instructions: "be terse" }), "context_policy")), {
      name: "zaxy:AGENTS.md",
      entityType: "context_policy",
      summary: "be terse",
      properties: { source: "AGENTS.md", project: "zaxy" },
    });
    assert.deepEqual(content(only(extract("issue.diagnosed", { issue: "flaky test", root_cause: "race" }), "issue")), {
      name: "flaky test",
      entityType: "issue",
      summary: "race",
      properties: { status: "diagnosed" },
    });
    assert.deepEqual(content(only(extract("verification.recorded", { command: "bun test", outcome: "passed", summary: "42 tests" }), "verification")), {
      name: "bun test",
      entityType: "verification",
      summary: "passed 42 tests",
      properties: { outcome: "passed" },
    });
    const handoff = extract("handoff.created", { summary: "done", next_steps: ["ship"] }, { seq: 5 });
    assert.deepEqual(content(only(handoff, "handoff")), { name: "handoff:5", entityType: "handoff", summary: "done ship", properties: { status: "created" } });
    assert.deepEqual(edgeTriples(handoff), ["actor:agent-a -created_handoff-> handoff:handoff:5"]);
  });
});

describe("user.preference_changed", () => {
  test("user and <user>:<key> preference holding the value, linked by has_<key>", () => {
    const result = extract("user.preference_changed", { userId: "alice", key: "theme", value: "dark" });
    assert.deepEqual(result.entities.map(content), [
      { name: "alice", entityType: "user", summary: null, properties: {} },
      { name: "alice:theme", entityType: "preference", summary: "theme=dark", properties: { user: "alice", key: "theme", value: "dark" } },
    ]);
    assert.deepEqual(edgeTriples(result), ["user:alice -has_theme-> preference:alice:theme"]);
  });

  test("a changed value changes the preference's summary and properties; the user stays identical", () => {
    const before = extract("user.preference_changed", { userId: "alice", key: "theme", value: "dark" }, { seq: 1 });
    const after = extract("user.preference_changed", { userId: "alice", key: "theme", value: "light" }, { seq: 2 });
    assert.notEqual(only(before, "preference").summary, only(after, "preference").summary);
    assert.equal(only(after, "preference").summary, "theme=light");
    assert.equal(only(before, "preference").name, only(after, "preference").name);
    assert.deepEqual(content(only(before, "user")), content(only(after, "user")));
  });

  test("falls back to user_id / user / the actor, and preference as the key", () => {
    assert.equal(only(extract("user.preference_changed", { user_id: "bob", key: "k", value: 1 }), "preference").name, "bob:k");
    assert.equal(only(extract("user.preference_changed", { user: "carol", preference: "lang", value: "ts" }), "preference").name, "carol:lang");
    const implicit = extract("user.preference_changed", { value: true });
    assert.deepEqual(content(only(implicit, "preference")), {
      name: "agent-a:preference",
      entityType: "preference",
      summary: "preference=True",
      properties: { user: "agent-a", key: "preference", value: true },
    });
  });
});

describe("repeated identical events", () => {
  const samples: Array<[string, Record<string, unknown>]> = [
    ["goal.created", { title: "Ship v1", description: "d" }],
    ["task.proposed", { taskId: "T-1", title: "t", goalTitle: "Ship v1" }],
    ["task.claimed", { taskId: "T-1" }],
    ["decision.made", { decision: "Use Kuzu", rationale: "r" }],
    ["user.preference_changed", { userId: "alice", key: "theme", value: "dark" }],
    ["document.indexed", { path: "README.md", start_line: 1, end_line: 3, content: "hello", sha256: "ab" }],
    ["transcript.turn", { source: "chat", turn_index: 2, role: "user", content: "hi" }],
    ["context.policy", { source: "AGENTS.md", instructions: "i" }],
    ["fleet.agent.enrolled", { fleet_id: "f", agent_id: "a", trust_tier: "member" }],
  ];
  for (const [type, payload] of samples) {
    test(`${type} at a later seq and time yields the same entity content`, () => {
      const first = extract(type, payload, { seq: 3, timestamp: "2026-01-01T00:00:00+00:00" });
      const again = extract(type, payload, { seq: 40, timestamp: "2026-03-01T00:00:00+00:00" });
      assert.deepEqual(again.entities.map(content), first.entities.map(content));
    });
  }
});

describe("indexed content", () => {
  test("document.indexed → <path>:<start>-<end> whose summary is the text", () => {
    const result = extract("document.indexed", { path: "docs/a.md", start_line: 10, end_line: 20, content: "Kuzu is embedded", sha256: "f00d" });
    assert.deepEqual(result.entities.map(content), [
      {
        name: "docs/a.md:10-20",
        entityType: "document",
        summary: "Kuzu is embedded",
        properties: { source_path: "docs/a.md", source_start_line: 10, source_end_line: 20, source_sha256: "f00d" },
      },
    ]);
    assert.deepEqual(result.edges, []);
  });

  test("document.indexed reads source_path and text, and defaults lines to 1", () => {
    const doc = only(extract("document.indexed", { source_path: "b.txt", text: "body" }), "document");
    assert.equal(doc.name, "b.txt:1-1");
    assert.equal(doc.summary, "body");
  });

  test("transcript.turn → <source>:turn-<n> with '<role>: <content>' as summary", () => {
    const turn = only(extract("transcript.turn", { source: "claude", turn_index: 4, role: "assistant", content: "Done." }), "transcript_turn");
    assert.deepEqual(content(turn), {
      name: "claude:turn-4",
      entityType: "transcript_turn",
      summary: "assistant: Done.",
      properties: { transcript_source: "claude", transcript_role: "assistant", transcript_turn_index: 4, redacted_paths: [] },
    });
    assert.equal(only(extract("transcript.turn", { content: "x" }, { seq: 8 }), "transcript_turn").name, "transcript:turn-8");
  });
});

describe("session lifecycle events", () => {
  test("run entities are named after the session and seq or call id, under a content-free session", () => {
    const cases: Array<[string, Record<string, unknown>, string, string, string]> = [
      ["tool.call.completed", { tool_name: "Bash", call_id: "c1", status: "ok" }, "tool_call", "sess-1:Bash:c1", "completed_tool_call"],
      ["command.completed", { command: "bun test", outcome: "passed", exit_code: 0 }, "command_run", "sess-1:bun test:7", "completed_command"],
      ["file.edit.applied", { path: "a.ts", operation: "modified" }, "file_edit", "sess-1:a.ts:7", "applied_file_edit"],
      ["hook.checkpoint", { summary: "midway" }, "hook_checkpoint", "sess-1:checkpoint:7", "recorded_checkpoint"],
      ["compaction.completed", { mode: "snapshot", status: "ok" }, "compaction_run", "sess-1:compaction:7", "completed_compaction"],
      ["session.ended", { reason: "exit", status: "ok" }, "session_end", "sess-1:session-ended:7", "ended_session"],
      ["session.genesis", { root: "/repo" }, "workspace", "/repo", "initialized_workspace"],
    ];
    for (const [type, payload, entityType, name, relation] of cases) {
      const result = extract(type, payload);
      assert.equal(only(result, entityType).name, name, type);
      assert.deepEqual(content(only(result, "session")), { name: "sess-1", entityType: "session", summary: null, properties: {} });
      assert.deepEqual(edgeTriples(result)[0], `session:sess-1 -${relation}-> ${entityType}:${name}`);
    }
  });

  test("an explicit task id links the task to the run", () => {
    const result = extract("tool.call.completed", { tool_name: "Read", task_id: "T-1" });
    assert.deepEqual(edgeTriples(result), ["session:sess-1 -completed_tool_call-> tool_call:sess-1:Read:7", "task:T-1 -observed_tool_call-> tool_call:sess-1:Read:7"]);
    assert.equal(result.entities.some((e) => e.entityType === "task"), false);
  });

  test("subagent.completed hangs off the parent session", () => {
    const result = extract("subagent.completed", { parent_session_id: "p", subagent_session_id: "s", status: "ok", summary: "done" });
    assert.deepEqual(edgeTriples(result), ["session:p -completed_subagent-> subagent_run:p:s:7"]);
    assert.equal(only(result, "subagent_run").summary, "ok done");
  });
});

describe("memory events", () => {
  test("memory.feedback records a feedback entity about the memory without rewriting the memory", () => {
    const result = extract("memory.feedback", { entity_name: "Use Kuzu", entity_type: "decision", feedback: "stale", reason: "superseded" });
    assert.deepEqual(result.entities.map((e) => `${e.entityType}:${e.name}`), ["memory_feedback:decision:Use Kuzu:feedback:7", "actor:agent-a"]);
    assert.equal(only(result, "memory_feedback").summary, "superseded");
    assert.deepEqual(edgeTriples(result), [
      "actor:agent-a -recorded_memory_feedback-> memory_feedback:decision:Use Kuzu:feedback:7",
      "memory_feedback:decision:Use Kuzu:feedback:7 -feedback_about_memory-> decision:Use Kuzu",
    ]);
  });

  test("memory.reinforced restates the memory only when it carries a summary", () => {
    const bare = extract("memory.reinforced", { entity_name: "Use Kuzu", entity_type: "decision" });
    assert.deepEqual(bare.entities, [actor]);
    assert.deepEqual(edgeTriples(bare), ["actor:agent-a -reinforced_memory-> decision:Use Kuzu"]);
    const restated = extract("memory.reinforced", { entity_name: "Use Kuzu", entity_type: "decision", summary: "still true", reinforcement_count: 3 });
    assert.deepEqual(only(restated, "decision").properties, { last_reinforced_at: actor.observedAt, reinforcement_count: 3 });
  });

  test("memory.corrected and memory.rolled_back are cited, non-authoritative records", () => {
    const corrected = only(extract("memory.corrected", { correction_id: "c-1", content: "new text", reason: "typo", target: { seq: 3, hash: hash(3) } }), "memory_correction");
    assert.deepEqual(content(corrected), {
      name: "c-1",
      entityType: "memory_correction",
      summary: "new text",
      properties: { correction_id: "c-1", reason: "typo", authority_status: "non_authoritative", target_seq: 3, target_hash: hash(3), target_ref: `3:${hash(3)}` },
    });
    const rolledBack = extract("memory.rolled_back", {
      reason: "bad merge",
      target: { seq: 5, hash: hash(5) },
      reverts: { event_type: "consolidation.candidate.reviewed", candidate_id: "consolidation:dup:1", to_status: "pending" },
    });
    // The candidate is not restated: the replay returns it to its earlier status.
    assert.deepEqual(rolledBack.entities.map((e) => `${e.entityType}:${e.name}`), ["memory_rollback:rollback:7"]);
    assert.equal(only(rolledBack, "memory_rollback").properties.authority_status, "non_authoritative");
  });

  test("memory.reinforcement projects nothing", () => {
    assert.deepEqual(extract("memory.reinforcement", { entity_name: "x" }).entities, []);
  });
});

describe("outcome learning and governance", () => {
  test("memory.outcome.recorded, memory.rule.generated/proposed and evolution.gate.evaluated", () => {
    const outcome = extract("memory.outcome.recorded", { outcome: "failure", summary: "token expired", task_id: "T-1" });
    assert.deepEqual(content(only(outcome, "memory_outcome")), {
      name: "outcome:7",
      entityType: "memory_outcome",
      summary: "failure token expired",
      properties: { outcome: "failure", task_id: "T-1", authority_status: "non_authoritative" },
    });
    assert.deepEqual(edgeTriples(outcome), ["actor:agent-a -recorded_memory_outcome-> memory_outcome:outcome:7", "task:T-1 -has_outcome-> memory_outcome:outcome:7"]);

    const source = { seq: 2, hash: hash(2) };
    const generated = only(extract("memory.rule.generated", { rule_id: "rule:abc", rule: "refresh the token", trigger: "401", confidence: 0.9, source_events: [source] }), "memory_rule");
    assert.equal(generated.name, "rule:abc");
    assert.equal(generated.summary, "refresh the token (trigger: 401)");
    assert.equal(generated.properties.review_status, "active");
    assert.equal(generated.properties.authority_status, "non_authoritative");
    assert.deepEqual(generated.properties.source_event_refs, [`2:${hash(2)}`]);
    assert.equal(only(extract("memory.rule.proposed", { rule: "r" }), "memory_rule").properties.review_status, "pending");

    const gate = extract("evolution.gate.evaluated", { op: "consolidate", decision: "auto_apply", confidence: 0.9, reason: "ok", candidate_ref: { candidate_id: "consolidation:dup:1" } });
    assert.equal(only(gate, "evolution_gate_decision").name, "evolution_gate:consolidate:7");
    assert.deepEqual(edgeTriples(gate), [
      "actor:agent-a -evaluated_evolution_gate-> evolution_gate_decision:evolution_gate:consolidate:7",
      "evolution_gate_decision:evolution_gate:consolidate:7 -gated_evolution_of-> consolidation_candidate:consolidation:dup:1",
    ]);
  });
});

describe("skills", () => {
  test("skill lifecycle: skill:<id> and skill:<id>:v<version> with its status", () => {
    const proposed = extract("skill.proposed", { skill_id: "deploy", name: "Deploy", version: "2", summary: "how to deploy", procedure: ["build", "ship"] });
    assert.deepEqual(proposed.entities.map((e) => `${e.entityType}:${e.name}`), ["skill:skill:deploy", "skill_version:skill:deploy:v2", "actor:agent-a"]);
    assert.deepEqual(only(proposed, "skill_version").properties, { skill_id: "deploy", version: "2", procedure: ["build", "ship"], status: "proposed" });
    assert.deepEqual(edgeTriples(proposed), ["skill:skill:deploy -has_version-> skill_version:skill:deploy:v2", "actor:agent-a -proposed_skill-> skill_version:skill:deploy:v2"]);
    const validated = extract("skill.validated", { skill_id: "deploy", version: "2" });
    assert.equal(only(validated, "skill_version").properties.status, "validated");
    assert.equal(validated.entities.some((e) => e.entityType === "skill"), false);
  });

  test("skill.applied and skill.outcome_recorded point at the version without restating it", () => {
    const applied = extract("skill.applied", { skill_id: "deploy", task: "release" });
    assert.deepEqual(applied.entities.map((e) => `${e.entityType}:${e.name}`), ["skill_application:skill:deploy:v1:application:7"]);
    assert.deepEqual(edgeTriples(applied), ["skill_version:skill:deploy:v1 -applied_to_task-> skill_application:skill:deploy:v1:application:7"]);
    const outcome = extract("skill.outcome_recorded", { skill_id: "deploy", success_score: 1.5 });
    assert.equal(only(outcome, "skill_outcome").properties.success_score, 1);
  });

  test("a skill event without skill_id falls back to the event entity", () => {
    assert.deepEqual(extract("skill.applied", {}).entities.map((e) => e.name), ["event:skill.applied:7"]);
  });
});

describe("inferred and causal edges", () => {
  const inference = {
    source: { name: "T-1", entity_type: "task" },
    target: { name: "Use Kuzu", entity_type: "decision" },
    relation_type: "likely_implemented_decision",
    confidence: 0.86,
    inference_method: "task_completed_decision_citation_v1",
    evidence: { source_event_seq: 4, reason: "cited" },
  };

  test("inference.edge.generated → one inferred edge and no entities", () => {
    const result = extract("inference.edge.generated", inference);
    assert.deepEqual(result.entities, []);
    assert.deepEqual(result.edges, [
      {
        source: { name: "T-1", entityType: "task" },
        target: { name: "Use Kuzu", entityType: "decision" },
        relationType: "likely_implemented_decision",
        validFrom: actor.observedAt,
        validTo: null,
        inferred: true,
        confidence: 0.86,
        inferenceMethod: "task_completed_decision_citation_v1",
        evidence: { source_event_seq: 4, reason: "cited" },
      },
    ]);
  });

  test("inference.edge.retracted → the edge with its original validFrom and validTo set", () => {
    const result = extract("inference.edge.retracted", {
      ...inference,
      confidence: 0,
      inference_method: "contradicting_evidence_retraction_v1",
      valid_from: "2026-01-01T00:00:04+00:00",
      valid_to: "2026-01-02T00:00:00+00:00",
    });
    assert.equal(result.edges.length, 1);
    assert.equal(result.edges[0].validFrom, "2026-01-01T00:00:04+00:00");
    assert.equal(result.edges[0].validTo, "2026-01-02T00:00:00+00:00");
    assert.equal(result.edges[0].confidence, 0);
    assert.equal(result.edges[0].inferred, true);
  });

  test("causal.edge.generated → inferred causal_<relation> edge citing its evidence", () => {
    const result = extract("causal.edge.generated", {
      source: { name: "bump dep", entity_type: "decision" },
      target: { name: "build broke", entity_type: "issue" },
      relation_type: "caused",
      graph_relation_type: "causal_caused",
      confidence: 0.7,
      causal_method: "explicit_outcome_explanation_v1",
      evidence: { source_event_seq: 3, source_event_hash: hash(3) },
    });
    assert.deepEqual(result.entities, []);
    assert.equal(result.edges[0].relationType, "causal_caused");
    assert.equal(result.edges[0].inferenceMethod, "explicit_outcome_explanation_v1");
    assert.deepEqual(result.edges[0].evidence, {
      source_event_seq: 3,
      source_event_hash: hash(3),
      causal_relation_type: "caused",
      review_status: "proposed",
      authority_status: "non_authoritative",
    });
  });

  test("malformed inferred edges fall back to the event entity", () => {
    const bad: Array<[string, Record<string, unknown>]> = [
      ["inference.edge.generated", { ...inference, confidence: 1.5 }],
      ["inference.edge.generated", { ...inference, inference_method: "" }],
      ["inference.edge.generated", { ...inference, source: "T-1" }],
      ["inference.edge.retracted", { ...inference, valid_to: "2026" }],
      ["causal.edge.generated", { ...inference, relation_type: "correlated", causal_method: "m", evidence: { source_event_seq: 1, source_event_hash: hash(1) } }],
      ["causal.edge.generated", { ...inference, relation_type: "caused", causal_method: "m", evidence: { source_event_seq: 1 } }],
    ];
    for (const [type, payload] of bad) {
      const result = extract(type, payload, { seq: 11 });
      assert.deepEqual(result.edges, [], type);
      assert.deepEqual(result.entities.map((e) => e.name), [`event:${type}:11`]);
    }
  });
});

describe("consolidation candidates", () => {
  test("created → candidate with non-authoritative pending status, whatever the payload declares; reviewed → review entity linked to the candidate, which is not restated", () => {
    const created = extract("consolidation.candidate.created", {
      candidate_id: "consolidation:duplicate:1",
      candidate_type: "duplicate",
      title: "Same decision",
      summary: "Two decisions say the same",
      confidence: 0.8,
      method: "exact",
      review_status: "pending",
      authority_status: "non_authoritative",
      source_events: [{ seq: 1, hash: hash(1) }, { seq: 2, hash: hash(2) }],
    });
    const candidate = only(created, "consolidation_candidate");
    assert.equal(candidate.name, "consolidation:duplicate:1");
    assert.equal(candidate.summary, "Two decisions say the same");
    assert.equal(candidate.properties.review_status, "pending");
    assert.equal(candidate.properties.authority_status, "non_authoritative");
    assert.equal(candidate.properties.source_event_count, 2);

    const declared = extract("consolidation.candidate.created", {
      candidate_id: "consolidation:duplicate:2",
      candidate_type: "duplicate",
      title: "Self approved",
      summary: "Declares its own acceptance",
      review_status: "accepted",
      authority_status: "authoritative",
      source_events: [{ seq: 1, hash: hash(1) }],
    });
    assert.equal(only(declared, "consolidation_candidate").properties.review_status, "pending");
    assert.equal(only(declared, "consolidation_candidate").properties.authority_status, "non_authoritative");

    const reviewed = extract("consolidation.candidate.reviewed", { candidate_id: "consolidation:duplicate:1", status: "accepted", rationale: "yes", authority_status: "non_authoritative" });
    assert.deepEqual(reviewed.entities.map((e) => `${e.entityType}:${e.name}`), ["consolidation_review:consolidation_review:consolidation:duplicate:1:7"]);
    assert.deepEqual(edgeTriples(reviewed), [
      "consolidation_review:consolidation_review:consolidation:duplicate:1:7 -reviewed_consolidation_candidate-> consolidation_candidate:consolidation:duplicate:1",
    ]);
  });
});

describe("coordination", () => {
  test("each event emits what it creates and references its mission, worker or finding", () => {
    const mission = extract("coordination.mission.created", { mission_id: "m1", objective: "audit" });
    assert.deepEqual(content(only(mission, "mission")), { name: "m1", entityType: "mission", summary: "audit", properties: { status: "active" } });
    assert.deepEqual(edgeTriples(mission), ["actor:agent-a -started_mission-> mission:m1"]);

    const worker = extract("coordination.worker.created", { mission_id: "m1", worker_id: "w1" });
    assert.deepEqual(worker.entities.map((e) => `${e.entityType}:${e.name}`), ["worker:w1"]);
    assert.deepEqual(edgeTriples(worker), ["mission:m1 -mission_has_worker-> worker:w1"]);

    const assignment = extract("coordination.assignment.created", { mission_id: "m1", worker_id: "w1", assignment: "read logs" });
    assert.deepEqual(edgeTriples(assignment), ["worker:w1 -worker_has_assignment-> assignment:m1:w1:assignment:7"]);

    const finding = extract("coordination.finding.reported", { mission_id: "m1", worker_id: "w1", finding_id: "f1", summary: "leak", evidence: ["a", "b"] });
    assert.deepEqual(only(finding, "finding").properties, { status: "pending", mission_id: "m1", worker_id: "w1", evidence_count: 2 });

    const reviewed = extract("coordination.finding.reviewed", { mission_id: "m1", finding_id: "f1", status: "accepted" });
    assert.equal(reviewed.entities.some((e) => e.entityType === "finding"), false);
    assert.deepEqual(edgeTriples(reviewed), ["actor:agent-a -coordinator_reviewed_finding-> finding:f1", "finding_review:m1:f1:review:7 -reviews_finding-> finding:f1"]);

    const promoted = extract("coordination.finding.promoted", { mission_id: "m1", finding_id: "f1" });
    assert.equal(only(promoted, "promotion").name, "m1:f1:promotion:7");

    const conflict = extract("coordination.conflict.detected", { mission_id: "m1", finding_ids: ["f1", "f2"] });
    assert.deepEqual(edgeTriples(conflict), [
      "mission:m1 -mission_has_conflict-> conflict:m1:conflict:7",
      "finding:f1 -finding_conflicts_with-> conflict:m1:conflict:7",
      "finding:f2 -finding_conflicts_with-> conflict:m1:conflict:7",
    ]);

    assert.deepEqual(edgeTriples(extract("coordination.decision.recorded", { mission_id: "m1", decision: "ship" })), ["mission:m1 -mission_has_decision-> decision:m1:decision:7"]);
    assert.deepEqual(edgeTriples(extract("coordination.handoff.created", { mission_id: "m1", summary: "s" })), ["mission:m1 -mission_has_handoff-> handoff:m1:handoff:7"]);
  });

  test("the mission defaults to the thread", () => {
    assert.equal(only(extract("coordination.mission.created", {}, { thread: "t-5" }), "mission").name, "t-5");
  });
});

describe("fleet", () => {
  const promotion = {
    promotion_id: "fleetpromo:abc",
    fleet_id: "core",
    rule_id: "rule:1",
    rule: "rotate keys",
    trigger: "401",
    confidence: 0.92,
    review_status: "active",
    source_events: [{ seq: 2, hash: hash(2) }],
    gate_event: { seq: 3, hash: hash(3) },
    authority_status: "non_authoritative",
  };

  test("fleet.rule.propagated → fleet_promotion named by promotion_id under fleet:<id>", () => {
    const result = extract("fleet.rule.propagated", promotion);
    const promoted = only(result, "fleet_promotion");
    assert.equal(promoted.name, "fleetpromo:abc");
    assert.equal(promoted.summary, "rotate keys");
    assert.equal(promoted.properties.kind, "rule");
    assert.equal(promoted.properties.review_status, "active");
    assert.equal(promoted.properties.non_authoritative, true);
    assert.deepEqual(promoted.properties.source_event_refs, [`2:${hash(2)}`]);
    assert.deepEqual(edgeTriples(result), ["fleet:fleet:core -fleet_promoted_rule-> fleet_promotion:fleetpromo:abc"]);
  });

  test("review, supersession and rollback give the promotion a new review_status", () => {
    const statusOf = (type: string, payload: Record<string, unknown>) => only(extract(type, payload), "fleet_promotion");
    assert.deepEqual(content(statusOf("fleet.promotion.rolled_back", { fleet_id: "core", promotion_id: "fleetpromo:abc", reason: "bad" })), {
      name: "fleetpromo:abc",
      entityType: "fleet_promotion",
      summary: null,
      properties: { review_status: "rolled_back", authority_status: "non_authoritative" },
    });
    assert.equal(statusOf("fleet.promotion.reviewed", { promotion_id: "fleetpromo:abc", decision: "accepted" }).properties.review_status, "active");
    assert.equal(statusOf("fleet.promotion.reviewed", { promotion_id: "fleetpromo:abc", decision: "constructor" }).properties.review_status, "pending");
    assert.equal(statusOf("fleet.memory.superseded", { superseded_promotion_id: "fleetpromo:abc" }).properties.review_status, "superseded");
  });

  test("fleet.created, fleet.agent.enrolled and fleet.trust.assigned", () => {
    assert.deepEqual(content(only(extract("fleet.created", { fleet_id: "core", summary: "core fleet" }), "fleet")), {
      name: "fleet:core",
      entityType: "fleet",
      summary: "core fleet",
      properties: { fleet_id: "core", authority_status: "non_authoritative" },
    });
    const enrolled = only(extract("fleet.agent.enrolled", { fleet_id: "core", agent_id: "a1", trust_tier: "member" }), "fleet_agent");
    const trusted = only(extract("fleet.trust.assigned", { fleet_id: "core", agent_id: "a1", trust_tier: "trusted", prior_tier: "member" }), "fleet_agent");
    assert.equal(enrolled.name, trusted.name);
    assert.notEqual(enrolled.summary, trusted.summary);
    assert.equal(trusted.properties.trust_tier, "trusted");
  });

  test("a promotion without promotion_id falls back to the event entity", () => {
    assert.deepEqual(extract("fleet.skill.promoted", { fleet_id: "core" }).entities.map((e) => e.name), ["event:fleet.skill.promoted:7"]);
  });
});

describe("fallback", () => {
  test("unknown types become event:<type>:<seq> with '<actor> emitted <type>' and safe payload text", () => {
    const result = extract(
      "custom.thing.happened",
      { zeta: "last", alpha: 1.5, tags: ["x", "y"], nested: { a: 1 }, Token: "hunter2", password: "p", __zaxy_security: "s", status: "open" },
      { seq: 21, actor: "bot" },
    );
    assert.deepEqual(result.entities.map(content), [
      { name: "event:custom.thing.happened:21", entityType: "event", summary: "bot emitted custom.thing.happened alpha=1.5 status=open x y zeta=last", properties: { status: "open" } },
    ]);
    assert.deepEqual(result.edges, []);
  });

  test("an empty payload gives just the emitted line", () => {
    assert.equal(extract("x.y", {}, { seq: 2 }).entities[0].summary, "agent-a emitted x.y");
  });
});

describe("robustness", () => {
  const garbage: Array<Record<string, unknown>> = [
    {},
    { title: 5, taskId: ["a"], decision: { x: 1 }, user: null, key: true, value: { deep: [1, 2] } },
    { source: "not-an-object", target: 7, confidence: "high", evidence: [1], relation_type: 3, inference_method: false },
    { path: { p: 1 }, start_line: -5, end_line: "abc", content: 12, turn_index: 1.5, role: [] },
    { skill_id: "", promotion_id: "  ", fleet_id: null, candidate_id: 1, source_events: "x", reverts: [], target: "x", purpose: 3 },
    { constructor: "x", __proto__: "y", toString: 1, session_id: 4, mission_id: [], finding_ids: [null, 1, "f"] },
  ];

  test("extractors reject malformed payloads only with MalformedPayload (never a TypeError)", () => {
    for (const type of registeredEventTypes()) {
      for (const payload of garbage) {
        try {
          extractorFor(type)!(record(type, payload));
        } catch (error) {
          assert.ok(error instanceof MalformedPayload, `${type} threw ${error}`);
        }
      }
    }
  });

  test("extractEvent never throws on malformed payloads, and every result keeps the edge invariants", () => {
    for (const type of [...registeredEventTypes(), "unregistered.type"]) {
      for (const payload of garbage) {
        const result = extract(type, payload);
        assert.ok(result.entities.length + result.edges.length >= 0);
        for (const e of result.entities) {
          assert.equal(typeof e.name, "string");
          assert.notEqual(e.name, "", `${type}: empty entity name`);
          assert.equal(e.observedAt, "2026-01-01T00:00:07+00:00");
        }
        for (const e of result.edges) {
          assert.ok(e.confidence >= 0 && e.confidence <= 1, type);
          if (e.inferred) assert.ok(typeof e.inferenceMethod === "string" && e.inferenceMethod !== "", type);
          else {
            assert.equal(e.inferenceMethod, null, type);
            assert.equal(e.confidence, 1, type);
          }
        }
      }
    }
  });

  test("the types this design names all have a dedicated extractor", () => {
    const expected = [
      "goal.created", "task.proposed", "task.claimed", "task.completed", "decision.made", "context.policy", "issue.diagnosed",
      "verification.recorded", "handoff.created", "user.preference_changed", "memory.reinforced", "memory.feedback", "memory.corrected",
      "memory.rolled_back", "memory.outcome.recorded", "memory.rule.generated", "memory.rule.proposed", "tool.call.completed",
      "command.completed", "file.edit.applied", "document.indexed", "transcript.turn", "hook.checkpoint", "compaction.completed",
      "session.genesis", "session.ended", "subagent.completed", "inference.edge.generated", "inference.edge.retracted",
      "causal.edge.generated", "consolidation.candidate.created", "consolidation.candidate.reviewed", "evolution.gate.evaluated",
      "skill.proposed", "skill.validated", "skill.revised", "skill.deprecated", "skill.contradicted", "skill.applied", "skill.outcome_recorded",
      "coordination.mission.created", "coordination.worker.created", "coordination.assignment.created", "coordination.finding.reported",
      "coordination.finding.reviewed", "coordination.finding.promoted", "coordination.conflict.detected", "coordination.decision.recorded",
      "coordination.handoff.created", "fleet.created", "fleet.agent.enrolled", "fleet.trust.assigned", "fleet.skill.promoted",
      "fleet.rule.propagated", "fleet.outcome.propagated", "fleet.promotion.reviewed", "fleet.memory.superseded", "fleet.promotion.rolled_back",
    ];
    const registered = new Set(registeredEventTypes());
    assert.deepEqual(expected.filter((t) => !registered.has(t)), []);
  });
});
