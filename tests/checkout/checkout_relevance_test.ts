// test-lane: full (slow)
/**
 * Checkout answers only as much as memory matches (docs/checkout.md, "Answerability and
 * confidence"; "Token budgets"), through the binary and the MCP server: an unrelated question is
 * `ask_user` with no current facts and a reason naming the words memory does not hold; one
 * keyword hit does not spread through the session's actor to every fact; a partial match is
 * never answered from memory; a question that names the actor still reaches its decisions; and
 * under `--max-tokens` the best facts come first and the text says what was cut.
 */
import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { type McpServer, skipWithoutBinary, startMcpServer } from "../mcp/mcpTestClient.ts";
import { estimateTokens } from "../../src/retrieval/tokenBudget.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

/** Four decisions about a database, a cache and billing (the shape of a short agent session). */
const fourDecisions: Array<[string, string]> = [
  ["Use PostgreSQL 16 for the primary database", "mature, transactional, team knows it"],
  ["Cache user sessions in Redis", "sub-millisecond reads"],
  ["Bill customers monthly through Stripe", "handles invoices and tax"],
  ["Run database migrations with Flyway before each deploy", "repeatable schema changes"],
];

const eightMore: Array<[string, string]> = [
  ["Deploy with blue-green releases on Kubernetes", "zero-downtime deploys"],
  ["Build container images in GitHub Actions", "runs on every push"],
  ["Store uploaded files in S3", "cheap and durable"],
  ["Send transactional email through Postmark", "good deliverability"],
  ["Gate risky rollouts behind LaunchDarkly flags", "gradual exposure"],
  ["Log structured JSON to Loki", "queryable logs"],
  ["Alert on-call through PagerDuty", "existing rotation"],
  ["Write the API in TypeScript on Bun", "fast startup"],
];

function sessionWith(decisions: Array<[string, string]>): string {
  const dir = makeTempDir("zaxy-checkout-relevance");
  for (const [decision, rationale] of decisions) {
    const run = runZaxy(
      ["memory", "append", "decision.made", "--actor", "claude-agent", "--payload-json", JSON.stringify({ decision, rationale }), "-q"],
      { cwd: dir },
    );
    assert.equal(run.code, 0, run.stderr);
  }
  return dir;
}

// deno-lint-ignore no-explicit-any
function checkout(dir: string, query: string, extra: string[] = []): any {
  const run = runZaxy(["memory", "checkout", query, "--json", ...extra], { cwd: dir });
  assert.equal(run.code, 0, `${query}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

function factTexts(doc: { current_facts: Array<{ content: string }> }): string[] {
  return doc.current_facts.map((fact) => fact.content);
}

describe("checkout confidence follows the match", () => {
  let four = "";
  let twelve = "";
  before(() => {
    four = sessionWith(fourDecisions);
    twelve = sessionWith([...fourDecisions, ...eightMore]);
  });

  test("an unrelated question is ask_user at 0.25 with no current facts and names the words memory lacks", slow, () => {
    const doc = checkout(four, "what is the weather in Paris?");
    assert.equal(doc.quality.answerability, "ask_user");
    assert.equal(doc.quality.confidence, 0.25);
    assert.deepEqual(doc.current_facts, []);
    // What retrieval found is offered only as low-relevance evidence, marked in JSON and text.
    for (const item of doc.evidence) {
      assert.equal(item.matches_query, false, item.content);
      assert.ok(doc.prompt.includes(`- ${item.citation}: ${item.content} (low relevance: shares no word with the query)\n`), item.content);
    }
    for (const item of doc.provenance) assert.equal(item.matches_query, false);
    assert.equal(doc.diagnostics.feedback_recommended, false);
    assert.ok(doc.quality.reasons.includes("Nothing in memory matches the query: no current fact mentions 'weather', 'paris'."), doc.quality.reasons);
    assert.equal(doc.quality.required_action.type, "ask_user");
    assert.match(doc.quality.required_action.reason, /^Nothing in memory matches the query \('weather', 'paris'\)/);
    assert.deepEqual(doc.diagnostics.query_match.query_terms, ["weather", "paris"]);
    assert.deepEqual(doc.diagnostics.query_match.matched_terms, []);
    assert.equal(doc.diagnostics.query_match.coverage, 0);
    assert.ok(doc.diagnostics.query_match.unmatched_contexts_excluded > 0, "retrieval found something; checkout did not serve it");
    assert.ok(doc.prompt.includes("\n- No current facts were retrieved.\n"));
    assert.ok(doc.prompt.includes("- Answerability: ask_user\n- Confidence: 0.25\n"));
  });

  test("a question about someone else's pizza is not answered from a session about databases", slow, () => {
    const doc = checkout(four, "favourite pizza topping of the chief executive");
    assert.equal(doc.quality.answerability, "ask_user");
    assert.ok(doc.quality.confidence <= 0.25);
    assert.deepEqual(doc.current_facts, []);
  });

  test("one keyword hit does not spread through the actor to every decision of the session", slow, () => {
    const doc = checkout(twelve, "redis");
    assert.deepEqual(factTexts(doc), ["Cache user sessions in Redis (decision): sub-millisecond reads"]);
    const matched = doc.evidence.filter((item: { matches_query?: boolean }) => item.matches_query !== false);
    assert.deepEqual(matched.map((item: { content: string }) => item.content), factTexts(doc));
    assert.equal(doc.quality.answerability, "answer_from_memory");
    for (const fact of doc.current_facts) assert.notEqual(fact.entity_type, "actor");
  });

  test("a question that names the actor still reaches the actor's decisions", slow, () => {
    const doc = checkout(four, "what did claude-agent decide");
    const texts = factTexts(doc);
    assert.ok(texts.includes("claude-agent (actor)"), texts.join("\n"));
    for (const [decision] of fourDecisions) assert.ok(texts.some((text) => text.startsWith(decision)), `${decision} missing`);
  });

  test("a partial match is refresh_recommended with confidence capped by the share of terms found", slow, () => {
    const doc = checkout(four, "redis eviction policy");
    assert.deepEqual(doc.diagnostics.query_match.matched_terms, ["redis"]);
    assert.equal(doc.quality.answerability, "refresh_recommended");
    // 0.25 + 0.70 x 1/3, rounded to hundredths.
    assert.equal(doc.quality.confidence, 0.48);
    assert.ok(doc.quality.reasons.includes("Current facts match 1 of 3 query terms ('redis'); not found in memory: 'eviction', 'policy'."));
    assert.deepEqual(factTexts(doc), ["Cache user sessions in Redis (decision): sub-millisecond reads"]);
  });

  test("related questions, asked with inflected words, are answered from memory with the right fact first", slow, () => {
    const cases: Array<[string, string]> = [
      ["which database do we use", "Use PostgreSQL 16 for the primary database"],
      ["how do we handle billing for customers", "Bill customers monthly through Stripe"],
      ["caching of sessions", "Cache user sessions in Redis"],
    ];
    for (const [query, expected] of cases) {
      const doc = checkout(four, query);
      assert.ok(factTexts(doc)[0]?.startsWith(expected), `${query}: ${factTexts(doc).join(" | ")}`);
      assert.notEqual(doc.quality.answerability, "ask_user", query);
    }
    assert.equal(checkout(four, "which database do we use").quality.answerability, "answer_from_memory");
  });
});

describe("checkout under a token budget", () => {
  let twelve = "";
  before(() => {
    twelve = sessionWith([...fourDecisions, ...eightMore]);
  });

  test("--max-tokens 400 keeps the current facts and says in the text what it cut", slow, () => {
    const full = checkout(twelve, "deploy");
    const doc = checkout(twelve, "deploy", ["--max-tokens", "400"]);
    assert.ok(full.current_facts.length >= 2);
    assert.ok(estimateTokens(doc.prompt) <= 400);
    for (const fact of full.current_facts) assert.ok(doc.prompt.includes(`- ${fact.content} (${fact.citation})`), fact.content);
    const budgetLine = doc.prompt.split("\n")[2];
    assert.match(budgetLine, /^Budget: 400 tokens; .*cut .*diagnostics/);
    assert.ok(!doc.prompt.includes("## Checkout Diagnostics"));
    const cut = doc.diagnostics.elided.map((item: { section_id: string }) => item.section_id);
    assert.ok(!cut.includes("current_facts"), cut.join(","));
    assert.ok(cut.includes("diagnostics"));
  });

  test("a tight budget shows fewer facts, the best first, before facts disappear entirely", slow, () => {
    const full = checkout(twelve, "database deploy");
    assert.ok(full.current_facts.length >= 3);
    const doc = checkout(twelve, "database deploy", ["--max-tokens", "200"]);
    const facts = doc.prompt.split("## Current Facts\n")[1]?.split("\n\n")[0]?.split("\n") ?? [];
    assert.ok(facts.length >= 1 && facts.length < full.current_facts.length, doc.prompt);
    const best = full.current_facts[0];
    assert.equal(facts[0], `- ${best.content} (${best.citation})`);
    assert.match(doc.prompt, new RegExp(`\\nBudget: 200 tokens; shown ${facts.length} of ${full.current_facts.length} current facts`));
    const factsEntry = doc.diagnostics.elided.find((item: { section_id: string }) => item.section_id === "current_facts");
    assert.deepEqual([factsEntry.items_kept, factsEntry.items_total], [facts.length, full.current_facts.length]);
    const guidance = doc.diagnostics.elided.find((item: { section_id: string }) => item.section_id === "guidance");
    assert.equal(guidance.condensed, true, "guidance shrinks before facts go");
    assert.ok(doc.prompt.includes("## Checkout Guidance\n"));
    // The JSON document is never cut.
    assert.deepEqual(doc.current_facts, full.current_facts);
  });

  test("a bigger budget never shows fewer facts, and a large one changes nothing", slow, () => {
    let shown = -1;
    for (const budget of [50, 150, 250, 350, 500, 800]) {
      const doc = checkout(twelve, "database deploy", ["--max-tokens", String(budget)]);
      const count = doc.prompt.split("\n").filter((line: string) => line.startsWith("- ") && line.includes("(decision)") && line.endsWith(")") && !line.startsWith("- eventloom://")).length;
      assert.ok(count >= shown, `budget ${budget}: ${count} < ${shown}`);
      shown = count;
    }
    const unbudgeted = checkout(twelve, "database deploy");
    assert.equal(checkout(twelve, "database deploy", ["--max-tokens", "100000"]).prompt, unbudgeted.prompt);
  });
});

describe("checkout over MCP follows the match", { skip: skipWithoutBinary }, () => {
  let mcp: McpServer;
  before(async () => {
    const dir = sessionWith(fourDecisions);
    mcp = await startMcpServer(`${dir}/.eventloom`, { profile: "core" });
  }, slow);
  after(async () => {
    await mcp?.close();
  });

  test("memory_checkout of an unrelated question answers ask_user with no current facts", slow, async () => {
    const doc = await mcp.callOk("memory_checkout", { query: "what is the weather in Paris?" });
    assert.equal(doc.quality.answerability, "ask_user");
    assert.deepEqual(doc.current_facts, []);
    const related = await mcp.callOk("memory_checkout", { query: "which database do we use" });
    assert.equal(related.quality.answerability, "answer_from_memory");
  });
});
