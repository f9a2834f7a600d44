/**
 * The causal MCP tools of `zaxy serve` (the BUILT binary) through the official SDK client:
 * listed right after memory_verify with strict schemas; memory_append of a cited
 * `outcome.explained` produces the causal edge (an uncited one nothing); predecessors and
 * successors return `{results}` in the right direction; memory_explain_outcome; invalid
 * arguments are `invalid_request` results that write nothing and leave the server serving.
 * Skipped when dist/zaxy has not been built.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

if (skip) console.error(`skipping causal MCP tests: ${skip}`);

after(removeTempDirs);

const slow = { timeout: 60_000 };
let mcp: McpServer;

const ref = (name: string, entityType: string) => ({ name, entity_type: entityType });
const logPath = () => path.join(mcp.root, "default.jsonl");
// deno-lint-ignore no-explicit-any
const edges: any[] = [];

describe("zaxy serve: causal tools", { skip }, () => {
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("causal-mcp"), { clientName: "zaxy-causal-test" });
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("tools/list: the three causal tools right after memory_verify, strict schemas", slow, async () => {
    const { tools } = await mcp.client.listTools();
    const names = tools.map((t) => t.name);
    const at = names.indexOf("memory_verify");
    assert.deepEqual(names.slice(at + 1, at + 4), ["memory_causal_successors", "memory_causal_predecessors", "memory_explain_outcome"]);
    const byName = new Map(tools.map((t) => [t.name, t.inputSchema as { required?: string[]; additionalProperties?: boolean; properties: Record<string, Record<string, unknown>> }]));
    for (const name of ["memory_causal_successors", "memory_causal_predecessors"]) {
      const schema = byName.get(name)!;
      assert.deepEqual(schema.required, ["entity_name"]);
      assert.equal(schema.additionalProperties, false);
      assert.deepEqual(Object.keys(schema.properties), ["entity_name", "relation_type", "depth", "session_id", "entity_type"]);
      assert.deepEqual(schema.properties.relation_type.enum, ["caused", "enabled", "blocked", "prevented", "regressed", "fixed", "explained"]);
      assert.deepEqual([schema.properties.depth.minimum, schema.properties.depth.maximum], [1, 5]);
    }
    const explain = byName.get("memory_explain_outcome")!;
    assert.deepEqual(explain.required, ["outcome"]);
    assert.deepEqual(explain.properties.phase.enum, ["planning", "execution", "review", "reflection"]);
  });

  test("memory_append: a cited outcome.explained is followed by its causal edge; an uncited one by nothing", slow, async () => {
    const chain: Array<[ReturnType<typeof ref>, ReturnType<typeof ref>]> = [
      [ref("config drift", "cause"), ref("stale pool", "symptom")],
      [ref("stale pool", "symptom"), ref("payment timeouts", "outcome")],
    ];
    for (const [cause, effect] of chain) {
      const observed = await mcp.callOk("memory_append", { event_type: "observation.recorded", actor: "ops", payload: { summary: `${cause.name} -> ${effect.name}` } });
      const doc = await mcp.callOk("memory_append", {
        event_type: "outcome.explained",
        actor: "ops",
        payload: { cause, effect, relation_type: "caused", confidence: 0.7, evidence: { source_event_seq: observed.seq, source_event_hash: observed.hash } },
      });
      assert.equal(doc.generated_events.length, 1);
      assert.equal(doc.generated_events[0].event_type, "causal.edge.generated");
      edges.push(doc.generated_events[0]);
    }
    const before = fs.readFileSync(logPath()).length;
    const uncited = await mcp.callOk("memory_append", {
      event_type: "outcome.explained", actor: "ops", payload: { cause: ref("gremlins", "cause"), effect: ref("stale pool", "symptom"), relation_type: "caused", confidence: 0.9 },
    });
    assert.equal(uncited.generated_events, undefined);
    const added = fs.readFileSync(logPath()).subarray(before).toString("utf8");
    assert.equal(added.trim().split("\n").length, 1);
    assert.ok(!added.includes("causal.edge.generated"));
  });

  test("predecessors are causes, successors effects, each cited and non-authoritative", slow, async () => {
    const causes = await mcp.callOk("memory_causal_predecessors", { entity_name: "payment timeouts" });
    assert.deepEqual(Object.keys(causes), ["results"]);
    assert.deepEqual(causes.results.map((r: { source: { name: string } }) => r.source.name), ["stale pool", "config drift"]);
    assert.deepEqual(causes.results.map((r: { citation: string }) => r.citation), [edges[1].citation, edges[0].citation]);
    for (const result of causes.results) assert.equal(result.authority_status, "non_authoritative");
    const effects = await mcp.callOk("memory_causal_successors", { entity_name: "config drift", depth: 1, relation_type: "caused", entity_type: "cause" });
    assert.deepEqual(effects.results.map((r: { target: { name: string } }) => r.target.name), ["stale pool"]);
    assert.deepEqual((await mcp.callOk("memory_causal_successors", { entity_name: "payment timeouts", depth: 5 })).results, []);
  });

  test("memory_explain_outcome explains by causes, or falls back to checkout evidence", slow, async () => {
    const doc = await mcp.callOk("memory_explain_outcome", { outcome: "payment timeouts", phase: "reflection" });
    assert.deepEqual([doc.primitive, doc.phase, doc.fallback_used, doc.result_count], ["explain_outcome", "reflection", false, 2]);
    const fallback = await mcp.callOk("memory_explain_outcome", { outcome: "observation about stale pool", depth: 1 });
    assert.equal(fallback.fallback_used, true);
    assert.ok(fallback.results.every((r: { source: string }) => r.source === "checkout"));
  });

  test("invalid arguments are invalid_request naming the field, write nothing, and the server keeps serving", slow, async () => {
    const before = fs.readFileSync(logPath());
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["memory_causal_predecessors", { entity_name: "x", depth: 6 }, /depth/],
      ["memory_causal_predecessors", { entity_name: "x", depth: 0 }, /depth/],
      ["memory_causal_successors", { entity_name: "x", relation_type: "causal_caused" }, /relation_type must be one of "caused", "enabled", "blocked"/],
      ["memory_causal_successors", { entity_name: "  " }, /^entity_name must be a non-empty string$/],
      ["memory_causal_successors", { entity_name: "x", session_id: "nosuch" }, /Unknown session "nosuch"/],
      ["memory_causal_successors", { entity_name: "x", surprise: 1 }, /surprise/],
      ["memory_explain_outcome", { outcome: "x", phase: "retro" }, /phase/],
      ["memory_explain_outcome", { outcome: "" }, /^outcome must be a non-empty string$/],
    ];
    for (const [name, args, message] of cases) {
      const outcome = await mcp.call(name, args);
      assert.equal(outcome.isError, true, JSON.stringify(args));
      assert.equal(outcome.doc.error.code, "invalid_request", JSON.stringify(outcome.doc));
      assert.match(outcome.doc.error.message, message);
    }
    assert.deepEqual(fs.readFileSync(logPath()), before);
    assert.equal(fs.existsSync(path.join(mcp.root, "nosuch.jsonl")), false);
    assert.equal((await mcp.callOk("memory_causal_predecessors", { entity_name: "stale pool" })).results.length, 1);
  });
});
