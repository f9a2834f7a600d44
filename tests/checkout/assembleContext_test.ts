/**
 * Context assembly: exact prompt line shapes, selection (de-duplication, limit, the reserved
 * verbatim slot), warnings, the JSON payload and token budgets.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { JsonNumber } from "../../src/canonical/mod.ts";
import { type AssembleInput, assembleContext, eventText } from "../../src/checkout/mod.ts";
import { estimateTokens } from "../../src/retrieval/tokenBudget.ts";
import { citationFor, context, event, retrieval } from "./fixtures.ts";

function input(overrides: Partial<AssembleInput> = {}): AssembleInput {
  return {
    sessionId: "default",
    query: "release plan",
    retrieval: retrieval([context(1, "Release plan (decision): ship on Friday")]),
    recentEvents: [event(1, "decision.made", "user", [["decision", "ship on Friday"]])],
    withheldRuleSeqs: new Set(),
    replayEventCount: 1,
    compacted: false,
    limit: 10,
    ...overrides,
  };
}

describe("assembleContext prompt", () => {
  test("assembleContext renders recent events and retrieved context in the exact line shapes", () => {
    const assembly = assembleContext(input({
      retrieval: retrieval([
        context(1, "Release plan (decision): ship on Friday"),
        context(2, "an uncited note", { citation: null }),
      ]),
      recentEvents: [
        event(1, "decision.made", "user", [["title", "Release"], ["decision", "ship on Friday"]]),
        event(2, "tool.called", "agent", [["args", "ignored"]]),
      ],
      replayEventCount: 2,
    }));
    assert.equal(
      assembly.prompt,
      [
        "# Recent Events",
        "[1] decision.made by user",
        "Release ship on Friday",
        "[2] tool.called by agent",
        "tool.called by agent",
        "",
        "# Retrieved Context",
        `- Release plan (decision): ship on Friday (${citationFor(1)})`,
        "- an uncited note",
      ].join("\n"),
    );
    assert.deepEqual(assembly.warnings, []);
  });

  test("eventText joins truthy title/summary/content/text/decision/task as Python's str() would", () => {
    assert.equal(
      eventText(event(1, "t.x", "a", [
        ["task", "T"],
        ["title", ""],
        ["summary", JsonNumber.int(0)],
        ["content", JsonNumber.float(1.5)],
        ["text", true],
        ["decision", JsonNumber.int(7)],
      ])),
      "1.5 True 7 T",
    );
    assert.equal(eventText(event(1, "t.x", "a", [["title", null], ["summary", false]])), "t.x by a");
  });

  test("assembleContext leaves the session's withheld rule events out of Recent Events but counts them as replayed", () => {
    const assembly = assembleContext(input({
      recentEvents: [
        event(1, "decision.made", "user", [["decision", "ship on Friday"]]),
        event(2, "memory.rule.proposed", "agent", [["rule", "verify the canary first"]]),
        event(3, "note.added", "agent", [["text", "canary is green"]]),
      ],
      withheldRuleSeqs: new Set([2]),
      replayEventCount: 3,
    }));
    assert.ok(assembly.prompt.startsWith("# Recent Events\n[1] decision.made by user\nship on Friday\n[3] note.added by agent\ncanary is green\n\n"));
    assert.ok(!assembly.prompt.includes("verify the canary first"));
    assert.equal(assembly.replay_event_count, 3);
  });

  test("assembleContext with no events and no contexts keeps both headers", () => {
    const assembly = assembleContext(input({ retrieval: retrieval([]), recentEvents: [], replayEventCount: 0 }));
    assert.equal(assembly.prompt, "# Recent Events\n\n# Retrieved Context");
    assert.deepEqual(assembly.contexts, []);
  });
});

describe("assembleContext warnings", () => {
  test("a projection context without a citation is named, with its label cut to 80 code points", () => {
    const long = "Compacted   summary " + "é".repeat(100);
    const assembly = assembleContext(input({
      retrieval: retrieval([context(3, long, { citation: null, metadata: { projection_id: "p1" } })]),
    }));
    const label = ("Compacted summary " + "é".repeat(100)).slice(0, 77) + "...";
    assert.deepEqual(assembly.warnings, [`graph context '${label}' lacks source-level citation`]);
    assert.ok(assembly.prompt.endsWith(`# Context Warnings\n- graph context '${label}' lacks source-level citation`));
  });

  test("a compacted context with a citation does not warn", () => {
    const assembly = assembleContext(input({ retrieval: retrieval([context(3, "summary", { metadata: { compacted: true } })]) }));
    assert.deepEqual(assembly.warnings, []);
    assert.ok(!assembly.prompt.includes("# Context Warnings"));
  });

  test("a truncated replay without any cited context warns", () => {
    const assembly = assembleContext(input({
      retrieval: retrieval([context(2, "uncited", { citation: null })]),
      compacted: true,
    }));
    assert.deepEqual(assembly.warnings, ["recent replay was truncated and no retrieved source context was available"]);
    assert.equal(assembly.compacted, true);
  });

  test("degraded retrieval adds a warning naming the reason", () => {
    const assembly = assembleContext(input({
      retrieval: retrieval([context(1, "fallback hit", { source: "verbatim", sourceLane: "verbatim" })], {
        degraded: true,
        degradedReason: "graph unavailable",
      }),
    }));
    assert.deepEqual(assembly.warnings, ["retrieval was degraded (graph unavailable); retrieved context may be incomplete"]);
    assert.ok(
      assembly.prompt.endsWith("# Context Warnings\n- retrieval was degraded (graph unavailable); retrieved context may be incomplete"),
    );
  });
});

describe("assembleContext selection and payload", () => {
  test("contexts are de-duplicated by citation, else by normalised content, and cut to the limit", () => {
    const assembly = assembleContext(input({
      retrieval: retrieval([
        context(1, "A"),
        context(1, "A again, same citation"),
        context(2, "Same  Text", { citation: null }),
        context(3, "same text", { citation: null }),
        context(4, "B"),
        context(5, "C"),
      ]),
      limit: 3,
    }));
    assert.deepEqual(assembly.contexts.map((c) => c.content), ["A", "Same  Text", "B"]);
  });

  test("the verbatim lane keeps one slot when graph contexts would fill the limit", () => {
    const assembly = assembleContext(input({
      retrieval: retrieval([
        context(1, "g1"),
        context(2, "g2"),
        context(3, "g3"),
        context(4, "raw event text", { source: "verbatim", sourceLane: "verbatim" }),
      ]),
      limit: 3,
    }));
    assert.deepEqual(assembly.contexts.map((c) => c.content), ["g1", "g2", "raw event text"]);
    assert.deepEqual(assembly.context_counts, { graph: 2, verbatim: 1, replay: 1 });
  });

  test("limit 0 selects nothing", () => {
    assert.deepEqual(assembleContext(input({ limit: 0 })).contexts, []);
  });

  test("the payload has exactly the MCP keys and context fields", () => {
    const assembly = assembleContext(input({
      retrieval: retrieval([
        context(1, "Release plan (decision): ship on Friday", {
          score: 0.9,
          scoreExplanation: { keyword: 0.8 },
          metadata: { entity_type: "decision" },
          validTo: "2026-02-01T00:00:00Z",
        }),
      ]),
    }));
    assert.deepEqual(Object.keys(assembly), [
      "session_id",
      "prompt",
      "contexts",
      "replay_event_count",
      "compacted",
      "warnings",
      "assembly_policy",
      "context_counts",
    ]);
    assert.deepEqual(assembly.contexts, [{
      content: "Release plan (decision): ship on Friday",
      source: "graph",
      score: 0.9,
      valid_from: "2026-01-01T00:00:01Z",
      valid_to: "2026-02-01T00:00:00Z",
      citation: citationFor(1),
      score_explanation: { keyword: 0.8 },
      metadata: { entity_type: "decision", assembly_lane: "graph" },
    }]);
    assert.deepEqual(assembly.assembly_policy, {
      verbatim_enabled: true,
      verbatim_slots: 1,
      packet_memory_enabled: false,
      packet_memory_slots: 0,
    });
    assert.equal(assembleContext(input()).contexts[0].score_explanation, null);
  });
});

describe("assembleContext budget", () => {
  const big = input({
    retrieval: retrieval(Array.from({ length: 8 }, (_, i) => context(i + 1, `fact number ${i + 1} `.repeat(10)))),
    recentEvents: Array.from({ length: 6 }, (_, i) => event(i + 1, "note.added", "agent", [["text", "x".repeat(120)]])),
    replayEventCount: 6,
  });

  test("without maxTokens there is no budget key", () => {
    assert.ok(!("budget" in assembleContext(big)));
  });

  test("maxTokens keeps the prompt within budget and reports what it elided", () => {
    const full = assembleContext(big).prompt;
    const assembly = assembleContext({ ...big, maxTokens: 250 });
    assert.ok(estimateTokens(full) > 250);
    assert.ok(estimateTokens(assembly.prompt) <= 250);
    assert.deepEqual(assembly.budget, {
      budget_requested: 250,
      budget_used: estimateTokens(assembly.prompt),
      elided: [{ section_id: "retrieved_context", estimated_tokens: estimateTokens(full.split("\n\n")[1] + "\n\n") }],
    });
    assert.equal(assembly.prompt, full.split("\n\n")[0]);
  });

  test("maxTokens 0 keeps only the warnings", () => {
    const assembly = assembleContext({ ...big, retrieval: { ...big.retrieval, degraded: true, degradedReason: "x" }, maxTokens: 0 });
    assert.equal(assembly.prompt, "# Context Warnings\n- retrieval was degraded (x); retrieved context may be incomplete");
    assert.deepEqual(assembly.budget?.elided.map((e) => e.section_id), ["recent_events", "retrieved_context"]);
  });

  test("a negative or fractional maxTokens is rejected with invalid_max_tokens", () => {
    assert.throws(() => assembleContext({ ...big, maxTokens: -1 }), { code: "invalid_max_tokens" });
    assert.throws(() => assembleContext({ ...big, maxTokens: 1.5 }), { code: "invalid_max_tokens" });
  });
});

describe("the key facts of the engine's own event types (issue 18 item 2)", () => {
  test("command.completed, tool.call.completed and file.edit.applied show what ran and how it ended, not `TYPE by ACTOR`", () => {
    assert.equal(eventText(event(1, "command.completed", "agent", [["command", "npm test"], ["exit_code", JsonNumber.int(0)]])), "npm test → exit 0");
    assert.equal(eventText(event(2, "command.completed", "agent", [["command", "npm test"], ["outcome", "failed"], ["exit_code", JsonNumber.int(1)]])), "npm test → failed (exit 1)");
    assert.equal(eventText(event(3, "tool.call.completed", "agent", [["tool_name", "Bash"], ["status", "ok"], ["result_summary", "12 files changed"]])), "Bash ok: 12 files changed");
    assert.equal(eventText(event(4, "file.edit.applied", "agent", [["path", "src/app.ts"], ["operation", "created"]])), "created src/app.ts");
    assert.equal(eventText(event(5, "session.ended", "agent", [["reason", "done"], ["turn_count", JsonNumber.int(12)]])), "reason=done, turn_count=12");
    // An unknown type, or a known one with nothing to show, keeps Python's line.
    assert.equal(eventText(event(6, "tool.called", "agent", [["args", "x"]])), "tool.called by agent");
    assert.equal(eventText(event(7, "command.completed", "agent", [])), "command.completed by agent");
  });
});
