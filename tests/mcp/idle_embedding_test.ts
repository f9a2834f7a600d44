/**
 * `zaxy serve` (the BUILT binary, over stdio) embeds the facts a read could not compare yet while
 * no call runs: after one read of a session with more facts than a read embeds, the vectors file
 * fills up with no further call, and the next read compares every fact without embedding any.
 * A one-shot CLI read leaves the rest for later reads. Skipped when dist/zaxy has not been built.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { runZaxy } from "../cli/zaxy.ts";
import { removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "./mcpTestClient.ts";

after(removeTempDirs);

/** What one read embeds (docs/retrieval.md "Vectors on disk"). */
const readEmbedBudget = 16;
const factCount = readEmbedBudget + 21;
const paraphrase = "how are we upgrading the db?";
/** Idle embedding takes about 0.1-0.5 s per step of 4 facts; this bounds a loaded machine. */
const fillTimeoutMs = 90_000;

function storedVectorCount(root: string): number {
  const dir = path.join(root, "projections", "semantic", "default");
  if (!fs.existsSync(dir)) return 0;
  const files = fs.readdirSync(dir).filter((name) => name.endsWith(".vec"));
  assert.ok(files.length <= 1, String(files));
  if (files.length === 0) return 0;
  const bytes = fs.readFileSync(path.join(dir, files[0]));
  const recordBytes = 32 + 4 + bytes.readUInt32LE(12) + 4;
  return Math.floor((bytes.length - 64) / recordBytes);
}

function ingestFacts(root: string): void {
  const lines = Array.from({ length: factCount }, (_, i) =>
    JSON.stringify({ event_type: "decision.made", actor: "architect", payload: { decision: `Service ${i} deploys to region ${i % 7} with ${i % 5} replicas`, rationale: "capacity review" } })
  ).join("\n") + "\n";
  const run = runZaxy(["memory", "ingest", "-", "--eventloom-path", root, "--json"], { cwd: path.dirname(root), input: lines });
  assert.equal(run.code, 0, run.stdout + run.stderr);
}

test("zaxy serve embeds the facts a read left without a vector while idle; the next read compares them all", { skip, timeout: 180_000 }, async () => {
  const root = tempEventloomRoot("zaxy-mcp-idle-embed");
  ingestFacts(root);
  const mcp = await startMcpServer(root, { profile: "core" });
  try {
    const first = await mcp.callOk("memory_query", { query: paraphrase, limit: 5, semantic: true });
    assert.equal(first.diagnostics.semantic.facts_compared, readEmbedBudget);
    assert.equal(first.diagnostics.semantic.embedded_now, readEmbedBudget);
    assert.equal(first.diagnostics.semantic.facts_not_embedded, factCount - readEmbedBudget);

    const deadline = Date.now() + fillTimeoutMs;
    while (storedVectorCount(root) < factCount && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(storedVectorCount(root), factCount, `vectors stored while idle; server stderr: ${mcp.stderr()}`);

    const second = await mcp.callOk("memory_query", { query: paraphrase, limit: 5, semantic: true });
    assert.equal(second.diagnostics.semantic.facts_compared, factCount);
    assert.equal(second.diagnostics.semantic.facts_not_embedded, 0);
    assert.equal(second.diagnostics.semantic.embedded_now, 0);
    assert.ok(!(second.diagnostics.warnings ?? []).some((w: string) => w.includes("zaxy memory embed")), JSON.stringify(second.diagnostics.warnings));
    // Nothing is stored twice: a read and the idle steps share one queue per session.
    assert.equal(storedVectorCount(root), factCount);
    assert.doesNotMatch(mcp.stderr(), /while idle stopped/);
  } finally {
    await mcp.close();
  }
});

test("a one-shot CLI read embeds its budget and exits; the rest waits for later reads", { skip, timeout: 120_000 }, () => {
  const root = tempEventloomRoot("zaxy-cli-no-idle-embed");
  ingestFacts(root);
  const run = runZaxy(["memory", "query", paraphrase, "--semantic", "--eventloom-path", root, "--json"], { cwd: path.dirname(root) });
  assert.equal(run.code, 0, run.stdout + run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.diagnostics.semantic.embedded_now, readEmbedBudget);
  assert.match(run.stderr, new RegExp(`compared ${readEmbedBudget} of ${factCount} current facts.*zaxy memory embed --session-id default`));
  assert.equal(storedVectorCount(root), readEmbedBudget);
});
