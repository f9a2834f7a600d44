/**
 * Memory Checkout: current facts and retention, quality numbers, guidance, the exact prompt,
 * token budgets, determinism, degraded retrieval and the optional-diagnostics contract.
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { buildCheckout, type CheckoutInput, rankForCheckout } from "../../src/checkout/mod.ts";
import { estimateTokens } from "../../src/retrieval/tokenBudget.ts";
import { citationFor, context, event, hashFor, retrieval } from "./fixtures.ts";

function input(overrides: Partial<CheckoutInput> = {}): CheckoutInput {
  return {
    sessionId: "default",
    query: "release plan",
    retrieval: retrieval([context(1, "Release plan (decision): ship on Friday", { entityName: "Release plan", entityType: "decision" })]),
    recentEvents: [event(1, "decision.made", "user", [["decision", "ship on Friday"]])],
    withheldRuleSeqs: new Set(),
    replayEventCount: 1,
    compacted: false,
    limit: 10,
    ...overrides,
  };
}

/** `n` cited, current facts about the release. */
function facts(n: number): ReturnType<typeof context>[] {
  return Array.from({ length: n }, (_, i) => context(i + 1, `Release plan fact ${i + 1}`));
}

const baseDiagnosticKeys = [
  "source_lanes",
  "citation_count",
  "current_citation_count",
  "current_fact_count",
  "superseded_contexts_excluded",
  "warning_count",
  "feedback_recommended",
  "feedback_tool",
  "feedback_reason",
  "query_match",
];

describe("current facts and retention", () => {
  test("superseded versions of an entity are excluded from facts and each one is counted", () => {
    const checkout = buildCheckout(input({
      retrieval: retrieval([
        context(5, "Release plan (decision): ship on Friday", { entityName: "Release plan", entityType: "decision" }),
        context(3, "Release plan (decision): ship on Monday", {
          entityName: "Release plan",
          entityType: "decision",
          validTo: "2026-01-01T00:00:05Z",
        }),
        context(1, "Release plan (decision): ship next week", {
          entityName: "Release plan",
          entityType: "decision",
          validTo: "2026-01-01T00:00:03Z",
        }),
        // Reached through the graph from the plan: related, so served, though it shares no word.
        context(2, "Owner (person): Ana", { entityName: "Owner", entityType: "person", sourceLane: "traversal" }),
      ]),
    }));
    assert.deepEqual(checkout.current_facts.map((f) => f.content), ["Release plan (decision): ship on Friday", "Owner (person): Ana"]);
    assert.deepEqual(checkout.retention, { policy: "current_only", superseded_contexts_excluded: 2 });
    assert.equal(checkout.diagnostics.superseded_contexts_excluded, 2);
    assert.equal(checkout.evidence.length, 4);
    assert.deepEqual(
      checkout.provenance.map((p) => [p.event_seq, p.valid_to]),
      [[5, null], [3, "2026-01-01T00:00:05Z"], [1, "2026-01-01T00:00:03Z"], [2, null]],
    );
    assert.ok(checkout.guidance.ignore.includes("Superseded contexts were excluded from current_facts but remain auditable."));
    assert.ok(!checkout.prompt.split("## Evidence")[0].includes("ship on Monday"));
  });

  test("a current context without a citation is neither a fact nor evidence", () => {
    const checkout = buildCheckout(input({ retrieval: retrieval([context(1, "Release plan: uncited", { citation: null })]) }));
    assert.deepEqual(checkout.current_facts, []);
    assert.deepEqual(checkout.evidence, []);
    assert.deepEqual(checkout.provenance, []);
    assert.equal(checkout.quality.answerability, "ask_user");
    assert.equal(checkout.diagnostics.feedback_recommended, false);
    assert.ok(checkout.guidance.trust.includes("Treat this checkout as low-confidence because it has no cited evidence."));
  });

  test("fact, evidence and provenance records carry exactly their documented fields", () => {
    const checkout = buildCheckout(input({
      retrieval: retrieval([
        context(4, "Release plan (decision): ship on Friday", {
          entityName: "Release plan",
          entityType: "decision",
          score: 0.9,
          scoreExplanation: { keyword: 0.8 },
        }),
      ]),
    }));
    assert.deepEqual(checkout.current_facts, [{
      content: "Release plan (decision): ship on Friday",
      source: "graph",
      score: 0.9,
      citation: citationFor(4),
      valid_from: "2026-01-01T00:00:04Z",
      valid_to: null,
      source_lane: "keyword",
      entity_name: "Release plan",
      entity_type: "decision",
      score_explanation: { keyword: 0.8 },
    }]);
    assert.deepEqual(checkout.evidence, [{
      citation: citationFor(4),
      content: "Release plan (decision): ship on Friday",
      source: "graph",
      source_lane: "keyword",
      score: 0.9,
      event_seq: 4,
      event_hash: hashFor(4).slice(0, 12),
      score_explanation: { keyword: 0.8 },
    }]);
    assert.deepEqual(checkout.provenance, [{
      citation: citationFor(4),
      event_seq: 4,
      event_hash: hashFor(4).slice(0, 12),
      source: "graph",
      source_lane: "keyword",
      valid_from: "2026-01-01T00:00:04Z",
      valid_to: null,
    }]);
  });

  test("rankForCheckout orders by query overlap, citation, source lane, entity type, valid_from, score", () => {
    const ranked = rankForCheckout([
      context(1, "unrelated note", { score: 0.99 }),
      context(2, "release tomorrow", { citation: null }),
      context(3, "release tomorrow", { entityType: "person" }),
      context(4, "release tomorrow", { entityType: "task" }),
      context(5, "release tomorrow", { source: "verbatim", sourceLane: "verbatim" }),
      context(6, "release plan", { validFrom: null }),
      context(7, "release plan", { validFrom: null, score: 0.9 }),
    ], "release plan");
    assert.deepEqual(ranked.map((c) => c.eventSeq), [7, 6, 5, 4, 3, 2, 1]);
  });
});

describe("quality", () => {
  test("no facts: confidence 0.25 and ask_user", () => {
    const checkout = buildCheckout(input({ retrieval: retrieval([]) }));
    assert.deepEqual(checkout.quality, {
      answerability: "ask_user",
      confidence: 0.25,
      reasons: ["No current facts were retrieved.", "Nothing in memory matches the query: no current fact mentions 'release', 'plan'."],
      required_action: {
        type: "ask_user",
        reason: "Nothing in memory matches the query ('release', 'plan'); ask the user for the missing context before answering from memory.",
      },
    });
  });

  test("one cited fact: confidence 0.75 and answer_from_memory", () => {
    const checkout = buildCheckout(input({ retrieval: retrieval(facts(1)) }));
    assert.deepEqual(checkout.quality, {
      answerability: "answer_from_memory",
      confidence: 0.75,
      reasons: ["Retrieved current facts with Eventloom citations.", "Current facts match 2 of 2 query terms ('release', 'plan')."],
      required_action: null,
    });
  });

  test("two or more cited facts: confidence capped at 0.95", () => {
    assert.equal(buildCheckout(input({ retrieval: retrieval(facts(2)) })).quality.confidence, 0.95);
    assert.equal(buildCheckout(input({ retrieval: retrieval(facts(5)) })).quality.confidence, 0.95);
  });

  test("one fact with a superseded version excluded: confidence 0.82", () => {
    const checkout = buildCheckout(input({
      retrieval: retrieval([...facts(1), context(9, "Release plan fact old", { validTo: "2026-01-02T00:00:00Z" })]),
    }));
    assert.equal(checkout.quality.confidence, 0.82);
    assert.deepEqual(checkout.quality.reasons, [
      "Retrieved current facts with Eventloom citations.",
      "Current facts match 2 of 2 query terms ('release', 'plan').",
      "Superseded contexts were excluded from current facts.",
    ]);
  });

  test("one warning: confidence minus 0.18 and refresh_recommended with the refresh call", () => {
    const checkout = buildCheckout(input({ retrieval: retrieval(facts(1), { degraded: true, degradedReason: "graph unavailable" }) }));
    assert.equal(checkout.warnings.length, 1);
    assert.deepEqual(checkout.quality, {
      answerability: "refresh_recommended",
      confidence: 0.57,
      reasons: ["Retrieved current facts with Eventloom citations.", "Current facts match 2 of 2 query terms ('release', 'plan').", "Checkout contains warnings that reduce confidence."],
      required_action: {
        tool: "memory_checkout",
        query: "current decisions, blockers, and next actions for: release plan",
        reason: "Refresh memory before major follow-up work, after compaction/resume, or when task scope changes.",
      },
    });
  });

  test("two warnings cost at most 0.35, and confidence never goes below 0", () => {
    const twoWarnings = { degraded: true, degradedReason: "graph unavailable" };
    const compacted = { compacted: true };
    // Cited facts: only the degraded warning (0.95 - 0.18).
    assert.equal(buildCheckout(input({ ...compacted, retrieval: retrieval(facts(2), twoWarnings) })).quality.confidence, 0.77);
    const empty = buildCheckout(input({ ...compacted, retrieval: retrieval([], twoWarnings) }));
    assert.equal(empty.warnings.length, 2);
    assert.equal(empty.quality.confidence, 0);
    assert.equal(empty.quality.answerability, "ask_user");
    assert.ok(empty.prompt.includes("\n- Confidence: 0.0\n"));
  });

  test("a compacted replay warns only when no retrieved context is cited", () => {
    const cited = buildCheckout(input({ retrieval: retrieval(facts(2)), compacted: true }));
    assert.deepEqual(cited.warnings, []);
    assert.equal(cited.compacted, true);
    assert.equal(cited.quality.answerability, "answer_from_memory");
    const uncited = buildCheckout(input({ retrieval: retrieval([]), compacted: true }));
    assert.deepEqual(uncited.warnings, ["recent replay was truncated and no retrieved source context was available"]);
  });
});

describe("guidance", () => {
  test("feedback offers at most three payloads, for the top-ranked facts", () => {
    const checkout = buildCheckout(input({ retrieval: retrieval(facts(5)) }));
    assert.equal(checkout.guidance.feedback.payloads.length, 3);
    assert.deepEqual(checkout.guidance.feedback.payloads[0], {
      entity_name: "Release plan fact 5",
      entity_type: "memory",
      feedback: "used",
      actor: "assistant",
      query: "release plan",
      source: "graph",
      score: 0.5,
      citation: citationFor(5),
      importance: 0.6,
    });
  });

  test("extra guidance lines are appended after checkout's own and shown in the prompt", () => {
    const checkout = buildCheckout(input({ extraGuidance: { trust: ["Trust causal edges."], ignore: ["Ignore pending candidates."] } }));
    assert.equal(checkout.guidance.trust.at(-1), "Trust causal edges.");
    assert.equal(checkout.guidance.ignore.at(-1), "Ignore pending candidates.");
    assert.ok(checkout.prompt.includes("- Trust: Trust causal edges.\n"));
    assert.ok(checkout.prompt.includes("- Ignore: Ignore pending candidates.\n"));
  });
});

describe("prompt", () => {
  test("the prompt has the exact checkout sections followed by the assembly's, each cited item once", () => {
    const checkout = buildCheckout(input({ query: "what's the release plan?" }));
    const citation = citationFor(1);
    assert.equal(
      checkout.prompt,
      [
        "# Memory Checkout",
        "Query: what's the release plan?",
        "",
        "## Current Facts",
        `- Release plan (decision): ship on Friday (${citation})`,
        "",
        "## Checkout Quality",
        "- Answerability: answer_from_memory",
        "- Confidence: 0.75",
        "- Reason: Retrieved current facts with Eventloom citations.",
        "- Reason: Current facts match 2 of 2 query terms ('release', 'plan').",
        "- Required action: none",
        "",
        "## Checkout Guidance",
        "- Trust: Use current_facts as the primary working memory for this turn.",
        "- Trust: Use cited evidence and provenance when making claims about remembered context.",
        "- Ignore: Do not treat superseded contexts as current facts.",
        "- Ignore: Do not rely on uncited facts without checking memory again or asking the user.",
        `- Suggested next call: memory_checkout("current decisions, blockers, and next actions for: what's the release plan?")`,
        "- Feedback: call memory_feedback with a listed payload after use.",
        "",
        "## Checkout Diagnostics",
        "- Source lanes: keyword=1",
        "- Query match: 2 of 2 terms (release, plan); unrelated contexts excluded: 0",
        "- Citations: 1",
        "- Current citations: 1",
        "- Current facts: 1",
        "- Superseded contexts excluded: 0",
        "- Feedback: call memory_feedback after using cited context.",
        "",
        "# Recent Events",
        "[1] decision.made by user (cited above)",
      ].join("\n"),
    );
  });

  test("an empty checkout says so and quotes the ask_user action", () => {
    const checkout = buildCheckout(input({ retrieval: retrieval([], { laneCounts: {} }), recentEvents: [], replayEventCount: 0 }));
    const lines = checkout.prompt.split("\n");
    assert.ok(lines.includes("- No current facts were retrieved."));
    assert.ok(lines.includes("- No cited evidence was retrieved."));
    assert.ok(lines.includes("- Source lanes: none"));
    assert.ok(lines.includes(
      "- Required action: ask_user: Nothing in memory matches the query ('release', 'plan'); ask the user for the missing context before answering from memory.",
    ));
    assert.ok(!lines.some((line) => line.startsWith("- Feedback:")));
  });

  test("a refresh required action is rendered as a call with the query quoted like Python's repr", () => {
    const checkout = buildCheckout(input({ query: "it's \"done\"\n", retrieval: retrieval(facts(1), { degraded: true, degradedReason: "x" }) }));
    assert.ok(checkout.prompt.includes(
      `\n- Required action: memory_checkout('current decisions, blockers, and next actions for: it\\'s "done"\\n')\n`,
    ));
  });
});

describe("token budget", () => {
  // 8 current facts, 4 superseded versions (evidence only), an uncited context (retrieved
  // context only) and 8 recent events none of them cites: every section has its own lines.
  const big = input({
    retrieval: retrieval([
      ...Array.from({ length: 8 }, (_, i) => context(i + 1, `release plan fact ${i + 1} `.repeat(6))),
      ...Array.from({ length: 4 }, (_, i) => context(i + 9, `release plan earlier fact ${i + 1} `.repeat(6), { validTo: "2026-01-02T00:00:00Z" })),
      context(13, "release plan note without a source ".repeat(3), { citation: null }),
    ]),
    recentEvents: Array.from({ length: 8 }, (_, i) => event(i + 21, "note.added", "agent", [["text", "y".repeat(150)]])),
    replayEventCount: 8,
    limit: 14,
  });

  test("without maxTokens there are no budget diagnostics", () => {
    const diagnostics = buildCheckout(big).diagnostics;
    assert.ok(!("budget_requested" in diagnostics) && !("budget_used" in diagnostics) && !("elided" in diagnostics));
  });

  test("maxTokens packs within budget and reports the elided sections", () => {
    const full = buildCheckout(big);
    for (const maxTokens of [400, 700, 1000, 10_000]) {
      const checkout = buildCheckout({ ...big, maxTokens });
      const used = estimateTokens(checkout.prompt);
      assert.ok(used <= maxTokens, `used ${used} > ${maxTokens}`);
      assert.equal(checkout.diagnostics.budget_requested, maxTokens);
      assert.equal(checkout.diagnostics.budget_used, used);
      const elided = checkout.diagnostics.elided ?? [];
      for (const item of elided) {
        // A list cut part way and a condensed guidance keep their heading; a cut section does not.
        const headingKept = (item.items_kept ?? 0) > 0 || item.condensed === true;
        assert.equal(checkout.prompt.includes(sectionHeading(item.section_id)), headingKept, item.section_id);
      }
      if (maxTokens === 10_000) {
        assert.deepEqual(elided, []);
        assert.equal(checkout.prompt, full.prompt);
      }
    }
    const tight = buildCheckout({ ...big, maxTokens: 400 });
    assert.ok((tight.diagnostics.elided ?? []).length > 0);
    assert.ok(tight.prompt.startsWith("# Memory Checkout\nQuery: release plan\nBudget: 400 tokens; "));
  });

  test("maxTokens 0 keeps only the header, quality and guidance", () => {
    const checkout = buildCheckout({ ...big, maxTokens: 0 });
    assert.deepEqual(
      checkout.prompt.split("\n").filter((line) => line.startsWith("#")),
      ["# Memory Checkout", "## Checkout Quality", "## Checkout Guidance"],
    );
    assert.deepEqual(
      (checkout.diagnostics.elided ?? []).map((item) => item.section_id),
      ["current_facts", "evidence", "guidance", "diagnostics", "recent_events", "retrieved_context"],
    );
    for (const item of checkout.diagnostics.elided ?? []) assert.ok(item.estimated_tokens > 0);
    assert.ok(checkout.prompt.includes("\nBudget: 0 tokens; shown 0 of 8 current facts and 0 of 4 evidence items, best first; cut guidance (condensed), retrieved context, recent events, diagnostics."));
    assert.ok((checkout.diagnostics.budget_used ?? 0) > 0);
  });

  test("the JSON outside the prompt does not depend on the budget", () => {
    const { prompt: _a, diagnostics: d1, ...rest1 } = buildCheckout(big);
    const { prompt: _b, diagnostics: d2, ...rest2 } = buildCheckout({ ...big, maxTokens: 300 });
    assert.deepEqual(rest1, rest2);
    const { budget_requested: _r, budget_used: _u, elided: _e, ...base2 } = d2;
    assert.deepEqual(d1, base2);
  });
});

function sectionHeading(id: string): string {
  const headings: { [id: string]: string } = {
    current_facts: "## Current Facts",
    evidence: "## Evidence",
    guidance: "## Checkout Guidance",
    diagnostics: "## Checkout Diagnostics",
    recent_events: "# Recent Events",
    retrieved_context: "# Retrieved Context",
    context_warnings: "# Context Warnings",
  };
  return headings[id];
}

describe("determinism and optional diagnostics", () => {
  test("the same input gives byte-identical JSON", () => {
    const make = () =>
      buildCheckout(input({
        retrieval: retrieval([
          ...facts(3),
          context(7, "Release fact old", { validTo: "2026-01-02T00:00:00Z", scoreExplanation: { b: 1, a: 2 } }),
          context(8, "raw", { source: "verbatim", sourceLane: "verbatim" }),
        ], { laneCounts: { verbatim: 1, keyword: 4, exact: 1 } }),
        maxTokens: 500,
        ref: "HEAD",
      }));
    assert.equal(JSON.stringify(make()), JSON.stringify(make()));
    assert.deepEqual(Object.keys(make().diagnostics.source_lanes), ["exact", "keyword", "verbatim"]);
  });

  test("top-level keys are the contract's, with no working_set and no ref unless HEAD resolves", () => {
    const keys = [
      "session_id",
      "query",
      "prompt",
      "current_facts",
      "evidence",
      "provenance",
      "retention",
      "warnings",
      "guidance",
      "quality",
      "diagnostics",
      "context_counts",
      "replay_event_count",
      "compacted",
      "assembly_policy",
    ];
    assert.deepEqual(Object.keys(buildCheckout(input())), keys);
    assert.deepEqual(Object.keys(buildCheckout(input({ ref: "refs/heads/main" }))), keys);
    assert.deepEqual(Object.keys(buildCheckout(input({ ref: "HEAD", recentEvents: [] }))), keys);
    const head = buildCheckout(input({ ref: "HEAD" }));
    assert.deepEqual(head.ref, {
      name: "HEAD",
      session_id: "default",
      target_seq: 1,
      target_hash: hashFor(1),
      ref_type: "head",
      updated_at: "2026-01-01T00:00:01Z",
    });
  });

  test("diagnostics carry no optional keys when no feature contributes", () => {
    assert.deepEqual(Object.keys(buildCheckout(input()).diagnostics), baseDiagnosticKeys);
    const empty = buildCheckout(input({
      extraDiagnostics: { causal_context: {}, consolidation_candidates: [], long_horizon: null, fleet: undefined, note: "" },
      extraGuidance: {},
    }));
    assert.equal(JSON.stringify(empty), JSON.stringify(buildCheckout(input())));
  });

  test("feature diagnostics with content are merged after the base keys", () => {
    const checkout = buildCheckout(input({ extraDiagnostics: { causal_context: { edge_count: 2 }, fleet: [] } }));
    assert.deepEqual(Object.keys(checkout.diagnostics), [...baseDiagnosticKeys, "causal_context"]);
    assert.deepEqual(checkout.diagnostics.causal_context, { edge_count: 2 });
    assert.throws(() => buildCheckout(input({ extraDiagnostics: { warning_count: 5 } })), TypeError);
  });

  test("feature prompt lines are listed under Checkout Diagnostics, after the standard lines", () => {
    const checkout = buildCheckout(input({ extraDiagnosticLines: ["Causal context: contexts=1, edges=2, average_trust=0.9"] }));
    const lines = checkout.prompt.split("\n");
    const at = lines.indexOf("- Causal context: contexts=1, edges=2, average_trust=0.9");
    assert.ok(at > lines.indexOf("## Checkout Diagnostics"));
    assert.ok(at > lines.findIndex((line) => line.startsWith("- Superseded contexts excluded:")));
    assert.equal(buildCheckout(input({ extraDiagnosticLines: [] })).prompt, buildCheckout(input()).prompt);
  });

  test("degraded retrieval warns and marks the diagnostics", () => {
    const checkout = buildCheckout(input({
      retrieval: retrieval(facts(1), { degraded: true, degradedReason: "graph unavailable" }),
    }));
    assert.deepEqual(checkout.warnings, ["retrieval was degraded (graph unavailable); retrieved context may be incomplete"]);
    assert.equal(checkout.diagnostics.projection_degraded, true);
    assert.equal(checkout.diagnostics.degraded_reason, "graph unavailable");
    assert.deepEqual(Object.keys(checkout.diagnostics), [...baseDiagnosticKeys, "projection_degraded", "degraded_reason"]);
    assert.ok(
      checkout.prompt.endsWith("# Context Warnings\n- retrieval was degraded (graph unavailable); retrieved context may be incomplete"),
    );
  });
});
