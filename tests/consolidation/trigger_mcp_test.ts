/**
 * MCP `trigger_consolidation` and `merge_concepts` of `zaxy serve` (the BUILT binary, full
 * profile) through the official SDK client: the trigger document for a session with a planted
 * near-duplicate pair, `invalid_request` for an unknown strategy or a threshold outside 0..1
 * (the server keeps serving), then merge_concepts on the pair the trigger reported: created once,
 * `already_exists` the second time with the log unchanged, an unknown memory refused.
 * Skipped when dist/zaxy has not been built.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

const slow = { timeout: 60_000 };
after(removeTempDirs);

let mcp: McpServer;

function logBytes(): Buffer {
  return fs.readFileSync(path.join(mcp.root, "default.jsonl"));
}

describe("zaxy serve: trigger_consolidation and merge_concepts", { skip }, () => {
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-trigger"), { clientName: "zaxy-trigger-test" });
    for (const [decision, summary] of [
      ["Cache invoices in Redis", "invoice pdfs are cached in redis for one hour after rendering"],
      ["Keep rendered invoices in Redis", "invoice pdfs are cached in redis for one hour after rendering"],
      ["Page the on-call engineer", "alerts page whoever holds the pager this week"],
    ]) {
      const appended = await mcp.call("memory_append", { event_type: "decision.made", actor: "agent", payload: { decision, summary } });
      assert.equal(appended.isError, false, JSON.stringify(appended.doc));
    }
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("trigger_consolidation returns the document with the near-duplicate pair", slow, async () => {
    const before = logBytes();
    const { isError, doc } = await mcp.call("trigger_consolidation", { strategy: "similarity", min_similarity: 0.85, max_memories: 50 });
    assert.equal(isError, false, JSON.stringify(doc));
    assert.deepEqual(Object.keys(doc), ["consolidation_result", "statistics", "candidates_sample"]);
    assert.deepEqual(doc.consolidation_result, { status: "candidates_found", candidate_count: 1, action_required: true });
    assert.deepEqual(doc.statistics.max_memories_limit, 50);
    assert.deepEqual(doc.candidates_sample[0].memories.map((m: { name: string }) => m.name), ["Cache invoices in Redis", "Keep rendered invoices in Redis"]);
    assert.deepEqual(logBytes(), before);
  });

  test("embedding: model ranks with the bundled model and says so; hash is the default's document plus its receipt; another value is invalid_request", slow, async () => {
    const model = await mcp.call("trigger_consolidation", { strategy: "similarity", max_memories: 50, embedding: "model" });
    assert.equal(model.isError, false, JSON.stringify(model.doc));
    assert.equal(model.doc.embedding.kind, "model");
    assert.equal(model.doc.embedding.id, "use-lite-512-uint8-v1");
    assert.match(model.doc.embedding.weights_sha256, /^[0-9a-f]{64}$/);
    // The two rewordings of one decision are a pair for the model too.
    assert.deepEqual(model.doc.candidates_sample[0].memories.map((m: { name: string }) => m.name).sort(), ["Cache invoices in Redis", "Keep rendered invoices in Redis"]);
    const plain = await mcp.call("trigger_consolidation", { strategy: "similarity", min_similarity: 0.85, max_memories: 50 });
    const hash = await mcp.call("trigger_consolidation", { strategy: "similarity", min_similarity: 0.85, max_memories: 50, embedding: "hash" });
    const { embedding, ...rest } = hash.doc;
    assert.equal(embedding.kind, "hash");
    assert.deepEqual(rest, plain.doc);
    const bad = await mcp.call("trigger_consolidation", { embedding: "bert" });
    assert.equal(bad.isError, true);
    assert.equal(bad.doc.error.code, "invalid_request");
    assert.match(bad.doc.error.message, /embedding/);
  });

  test("an unknown strategy or a threshold outside 0..1 is invalid_request naming the valid values", slow, async () => {
    const strategy = await mcp.call("trigger_consolidation", { strategy: "cluster" });
    assert.equal(strategy.isError, true);
    assert.equal(strategy.doc.error.code, "invalid_request");
    assert.match(strategy.doc.error.message, /strategy must be one of "similarity", "temporal", "semantic", got the string "cluster"$/);
    const threshold = await mcp.call("trigger_consolidation", { min_similarity: 1.5 });
    assert.equal(threshold.isError, true);
    assert.equal(threshold.doc.error.code, "invalid_request");
    assert.match(threshold.doc.error.message, /min_similarity must be <= 1/);
    const still = await mcp.call("trigger_consolidation", {});
    assert.equal(still.isError, false, "the server keeps serving");
  });

  test("merge_concepts appends one pending claim candidate, then reports it as already existing", slow, async () => {
    const before = logBytes();
    const memories = [{ name: "Cache invoices in Redis", entity_type: "decision" }, { name: "Keep rendered invoices in Redis" }];
    const first = await mcp.call("merge_concepts", { memories, actor: "reviewer-bot" });
    assert.equal(first.isError, false, JSON.stringify(first.doc));
    assert.equal(first.doc.status, "created");
    assert.equal(first.doc.events_appended, 1);
    const after = logBytes();
    assert.deepEqual(after.subarray(0, before.length), before);
    const added = after.subarray(before.length).toString("utf8").trim().split("\n");
    assert.equal(added.length, 1);
    const event = JSON.parse(added[0]);
    assert.equal(event.payload.candidate_type, "claim");
    assert.equal(event.payload.review_status, "pending");
    assert.equal(event.payload.authority_status, "non_authoritative");
    assert.deepEqual(event.payload.source_events.map((e: { seq: number }) => e.seq), [1, 2]);

    const second = await mcp.call("merge_concepts", { memories });
    assert.equal(second.isError, false);
    assert.equal(second.doc.status, "already_exists");
    assert.equal(second.doc.candidate_id, first.doc.candidate_id);
    assert.deepEqual(logBytes(), after);

    const unknown = await mcp.call("merge_concepts", { memories: [{ name: "Cache invoices in Redis" }, { name: "No such memory" }] });
    assert.equal(unknown.isError, true);
    assert.equal(unknown.doc.error.code, "invalid_request");
    assert.match(unknown.doc.error.message, /Cannot merge memory "No such memory"/);
    assert.deepEqual(logBytes(), after);
  });
});
