/**
 * The memory read tools of `zaxy serve --profile core` (the BUILT binary) through the official
 * MCP SDK client over stdio: tools/list order, memory_append then memory_checkout with cited
 * current facts, the memory_query and context_assemble documents, invalid arguments as
 * `invalid_request` results that leave the server serving, and that the server's warm cache
 * notices new events (appended through the server or by another process).
 * Skipped when dist/zaxy has not been built (`npm run build`).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { runZaxy } from "../cli/zaxy.ts";
import { type McpError, type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "./mcpTestClient.ts";

if (skip) console.error(`skipping MCP memory tool tests: ${skip}`);

/** Bun's default per-test timeout is 5 s; the first read of a session loads Kuzu (~1 s). */
const slow = { timeout: 60_000 };
const frontDoor = ["memory_checkout", "memory_append", "memory_query", "context_assemble"];
/** What `core` may list after the front door, in order, once those tools exist. */
const laterCoreTools = ["memory_feedback", "memory_invalidate", "memory_capabilities", "memory_feeling_of_knowing"];
const checkoutKeys = [
  "session_id", "query", "prompt", "current_facts", "evidence", "provenance", "retention", "warnings", "guidance", "quality", "diagnostics",
  "context_counts", "replay_event_count", "compacted", "assembly_policy",
];
const assemblyKeys = ["session_id", "prompt", "contexts", "replay_event_count", "compacted", "warnings", "assembly_policy", "context_counts"];
const citationPattern = /^eventloom:\/\/([A-Za-z0-9_.-]+)\/events\/([1-9][0-9]*)#([0-9a-f]{12})$/;

after(removeTempDirs);

let mcp: McpServer;

function callInvalid(name: string, args: Record<string, unknown>): Promise<McpError> {
  return mcp.callError(name, args, "invalid_request");
}

function logBytes(session = "default"): Buffer {
  return fs.readFileSync(path.join(mcp.root, `${session}.jsonl`));
}

function assertCited(items: Array<{ citation: string }>, session = "default"): void {
  for (const item of items) {
    const match = citationPattern.exec(item.citation);
    assert.ok(match, `citation ${item.citation}`);
    assert.equal(match[1], session);
  }
}

const appended: Array<{ seq: number; hash: string; citation: string }> = [];

describe("zaxy serve --profile core: memory tools", { skip }, () => {
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-memory"), { profile: "core", clientName: "zaxy-memory-test" });
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("tools/list: the front door in order, then only registered core tools", slow, async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name);
    assert.deepEqual(names.slice(0, 4), frontDoor);
    const extra = names.slice(4);
    assert.deepEqual(extra, laterCoreTools.filter((name) => extra.includes(name)), `unexpected extra tools: ${JSON.stringify(extra)}`);
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["memory_checkout", "memory_query", "context_assemble"]) {
      const schema = byName.get(name)!.inputSchema as { required?: string[]; additionalProperties?: boolean; properties: Record<string, unknown> };
      assert.deepEqual(schema.required, ["query"], name);
      assert.equal(schema.additionalProperties, false, name);
      assert.ok("limit" in schema.properties && "depth" in schema.properties && "session_id" in schema.properties, name);
      assert.equal(byName.get(name)!.annotations?.readOnlyHint, true, name);
    }
  });

  test("memory_append twice, then memory_checkout returns cited current facts", slow, async () => {
    for (const value of ["vim", "helix"]) {
      const doc = await mcp.callOk("memory_append", { event_type: "user.preference_changed", allow_envelope_switch: true, actor: "alice", payload: { user: "alice", key: "editor", value } });
      appended.push(doc);
    }
    assert.deepEqual(appended.map((a) => a.seq), [1, 2]);
    const checkout = await mcp.callOk("memory_checkout", { query: "which editor does alice use" });
    assert.deepEqual(Object.keys(checkout), checkoutKeys);
    assert.deepEqual([checkout.session_id, checkout.query], ["default", "which editor does alice use"]);
    assert.ok(checkout.current_facts.length > 0);
    assertCited(checkout.current_facts);
    assertCited(checkout.evidence);
    const helix = checkout.current_facts.find((f: { content: string }) => f.content.includes("editor=helix"));
    assert.ok(helix, JSON.stringify(checkout.current_facts));
    assert.equal(helix.citation, appended[1].citation);
    assert.equal(helix.valid_to, null);
    assert.ok(!checkout.current_facts.some((f: { content: string }) => f.content.includes("editor=vim")));
    assert.equal(checkout.retention.superseded_contexts_excluded, 1);
    assert.equal(checkout.quality.answerability, "answer_from_memory");
    assert.ok(checkout.prompt.includes(`editor=helix (${appended[1].citation})`), checkout.prompt);
  });

  test("memory_checkout and context_assemble: the text block is the prompt, structuredContent the document", slow, async () => {
    for (const [name, heading] of [["memory_checkout", "# Memory Checkout\n"], ["context_assemble", "# Recent Events\n"]]) {
      const result = await mcp.client.callTool({ name, arguments: { query: "which editor does alice use" } });
      const content = result.content as Array<{ type: string; text: string }>;
      const document = result.structuredContent as { prompt: string; session_id: string };
      assert.equal(content.length, 1, name);
      assert.equal(content[0].type, "text", name);
      assert.equal(content[0].text, document.prompt, name);
      assert.ok(content[0].text.startsWith(heading), content[0].text);
      assert.equal(document.session_id, "default", name);
    }
  });

  test("memory_query returns ranked, cited contexts with per-lane diagnostics", slow, async () => {
    const doc = await mcp.callOk("memory_query", { query: "alice editor", limit: 5 });
    assert.deepEqual(Object.keys(doc), ["session_id", "query", "results", "diagnostics"]);
    assert.ok(doc.results.length > 0 && doc.results.length <= 5);
    for (const result of doc.results) {
      const keys = Object.keys(result).filter((k) => k !== "entity_name" && k !== "entity_type");
      assert.deepEqual(keys, ["content", "source", "source_lane", "score", "valid_from", "valid_to", "citation", "event_seq", "event_hash", "score_explanation", "metadata"]);
    }
    assertCited(doc.results);
    assert.ok(doc.results.some((r: { valid_to: string | null; content: string }) => r.valid_to !== null && r.content.includes("editor=vim")), "superseded included");
    assert.deepEqual(Object.keys(doc.diagnostics), ["source_lanes", "result_count", "degraded", "semantic", "projection"]);
    // Asked in the memory's own words: the semantic lane did not run, and says so.
    assert.deepEqual(doc.diagnostics.semantic, { ran: false, reason: "a current fact holds 70 % of the query's content words or more", model_id: "use-lite-512-uint8-v1" });
    assert.equal(doc.diagnostics.result_count, doc.results.length);
    assert.equal(doc.diagnostics.degraded, false);
    assert.equal(doc.diagnostics.projection.head_seq, 2);
    assert.equal(doc.diagnostics.projection.head_hash, appended[1].hash);
  });

  test("memory_query and memory_checkout with semantic: true add the semantic lane and its receipt", slow, async () => {
    const query = await mcp.callOk("memory_query", { query: "which text editor does alice like?", limit: 5, semantic: true });
    assert.deepEqual(Object.keys(query.diagnostics), ["source_lanes", "result_count", "degraded", "semantic", "projection"]);
    assert.equal(query.diagnostics.semantic.model_id, "use-lite-512-uint8-v1");
    assert.match(query.diagnostics.semantic.weights_sha256, /^[0-9a-f]{64}$/);
    assert.equal(typeof query.diagnostics.source_lanes.semantic, "number");
    const checkout = await mcp.callOk("memory_checkout", { query: "which text editor does alice like?", semantic: true });
    // The same receipt, except that the query embedded the fact and the checkout found it stored.
    assert.equal(query.diagnostics.semantic.embedded_now, 1);
    assert.deepEqual(checkout.diagnostics.semantic, { ...query.diagnostics.semantic, embedded_now: 0 });
    const off = await mcp.callOk("memory_query", { query: "which text editor does alice like?", limit: 5, semantic: false });
    assert.equal(off.diagnostics.semantic, undefined);
    assert.ok(off.results.every((r: { score_explanation: { lanes: object } }) => !("semantic" in r.score_explanation.lanes)));
    await callInvalid("memory_query", { query: "x", semantic: "yes" });
  });

  test("context_assemble returns the assembly document with recent events and retrieved context", slow, async () => {
    const doc = await mcp.callOk("context_assemble", { query: "alice editor", max_recent_events: 1 });
    assert.deepEqual(Object.keys(doc), assemblyKeys);
    assert.equal(doc.session_id, "default");
    assert.ok(doc.prompt.startsWith("# Recent Events\n[2] user.preference_changed by alice\n"), doc.prompt);
    assert.ok(doc.prompt.includes("\n# Retrieved Context\n"), doc.prompt);
    assert.equal(doc.replay_event_count, 1);
    assert.equal(doc.compacted, true);
    assert.deepEqual(doc.context_counts.replay, 1);
    assert.ok(doc.contexts.length > 0);
    for (const context of doc.contexts) {
      assert.deepEqual(Object.keys(context), ["content", "source", "score", "valid_from", "valid_to", "citation", "score_explanation", "metadata"]);
    }
    const budgeted = await mcp.callOk("context_assemble", { query: "alice editor", max_tokens: 10 });
    assert.deepEqual(Object.keys(budgeted), [...assemblyKeys, "budget"]);
    assert.deepEqual(Object.keys(budgeted.budget), ["budget_requested", "budget_used", "elided"]);
    assert.equal(budgeted.budget.budget_requested, 10);
  });

  test("invalid limit, depth, empty or too long query, invalid session id: invalid_request, and the server keeps serving", slow, async () => {
    const before = logBytes();
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["memory_checkout", { query: "x", limit: 0 }, /limit/],
      ["memory_checkout", { query: "x", limit: 101 }, /limit/],
      ["memory_query", { query: "x", limit: 1.5 }, /limit/],
      ["context_assemble", { query: "x", depth: 6 }, /depth/],
      ["memory_checkout", { query: "" }, /query must be a non-empty string/],
      ["memory_query", { query: "   " }, /query must be a non-empty string/],
      ["context_assemble", { query: "a".repeat(4097) }, /4097 characters; at most 4096/],
      ["memory_checkout", { query: "x", session_id: "../escape" }, /session/],
      ["memory_checkout", { query: "x", surprise: true }, /surprise/],
    ];
    for (const [name, args, message] of cases) {
      const error = await callInvalid(name, args);
      assert.match(error.message, message, `${name} ${JSON.stringify(args).slice(0, 80)}: ${error.message}`);
    }
    assert.ok(!fs.existsSync(path.join(mcp.root, "nosuch.jsonl")));
    assert.deepEqual(logBytes(), before, "failed calls wrote nothing");
    const still = await mcp.callOk("memory_checkout", { query: "alice editor" });
    assert.ok(still.current_facts.length > 0, "still serving");
  });

  test("a checkout after another memory_append (or an append by another process) reflects the new event", slow, async () => {
    const first = await mcp.callOk("memory_checkout", { query: "which editor does alice use" });
    assert.ok(first.current_facts.some((f: { content: string }) => f.content.includes("editor=helix")));
    const third = await mcp.callOk("memory_append", { event_type: "user.preference_changed", allow_envelope_switch: true, actor: "alice", payload: { user: "alice", key: "editor", value: "emacs" } });
    assert.equal(third.seq, 3);
    const second = await mcp.callOk("memory_checkout", { query: "which editor does alice use" });
    const facts = second.current_facts.map((f: { content: string }) => f.content);
    assert.ok(facts.some((c: string) => c.includes("editor=emacs")), JSON.stringify(facts));
    assert.ok(!facts.some((c: string) => /editor=(vim|helix)/.test(c)), JSON.stringify(facts));
    assert.equal(second.current_facts.find((f: { content: string }) => f.content.includes("editor=emacs")).citation, third.citation);
    assert.equal(second.retention.superseded_contexts_excluded, 2);
    assert.equal(second.replay_event_count, 3);

    // Another process appends to the same log; the server's next answer includes it.
    const cli = runZaxy(
      ["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "alice", "--eventloom-path", mcp.root, "--payload-json", JSON.stringify({ user: "alice", key: "editor", value: "nano" })],
      { cwd: path.dirname(mcp.root) },
    );
    assert.equal(cli.code, 0, cli.stderr);
    const query = await mcp.callOk("memory_query", { query: "alice editor" });
    assert.equal(query.diagnostics.projection.head_seq, 4);
    // Two events past the read model the first checkout wrote (seq 2): folded on top of it in memory.
    assert.equal(query.diagnostics.projection.source, "read_model_tail");
    assert.equal(query.diagnostics.projection.events_applied, 2);
    const latest = await mcp.callOk("memory_checkout", { query: "which editor does alice use" });
    const latestFacts = latest.current_facts.map((f: { content: string }) => f.content);
    assert.ok(latestFacts.some((c: string) => c.includes("editor=nano")), JSON.stringify(latestFacts));
    assert.ok(!latestFacts.some((c: string) => /editor=(vim|helix|emacs)/.test(c)), JSON.stringify(latestFacts));
    // An unchanged log is answered from the warm cache: the same projection diagnostics.
    const again = await mcp.callOk("memory_query", { query: "alice editor" });
    assert.deepEqual(again.diagnostics.projection, query.diagnostics.projection);
  });

  test("nothing but protocol reached stdout and nothing went to stderr", () => {
    assert.deepEqual(mcp.clientErrors, []);
    assert.equal(mcp.stderr(), "");
  });
});
