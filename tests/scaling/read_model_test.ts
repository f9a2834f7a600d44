// test-lane: full (slow)
/**
 * Issue 14 items 1 and 6: the on-disk read model answers exactly like the in-memory index it was
 * written from, and a missing, stale or corrupt read model is rebuilt from the log (with a
 * warning when it should have been there) without changing the answer.
 *
 * The session mixes the generated agent workload (decisions, tasks, documents, preferences that
 * change, transcripts, commands) with every whole-session fold the checkout reads: causal edges,
 * feedback reinforcement, a gate-withheld rule and consolidation candidates.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { triggerConsolidation } from "../../src/consolidation/trigger.ts";
import { type ConsolidationMemory, currentMemories, indexedMemories } from "../../src/consolidation/triggerMemories.ts";
import { validateTriggerParameters } from "../../src/consolidation/triggerParameters.ts";
import { triggerSessionConsolidation } from "../../src/consolidation/triggerSession.ts";
import { MemoryService } from "../../src/memory/service.ts";
import { readModelDir } from "../../src/readmodel/manifest.ts";
import { retrieve } from "../../src/retrieval/engine.ts";
import { buildSessionIndex } from "../../src/retrieval/sessionIndex.ts";
import { CausalSession, ref } from "../causal/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";
let root = "";
let cwd = "";
let queries: string[] = [];

function zaxy(args: string[]) {
  return runZaxy(["--eventloom-path", root, "--session-id", sessionId, ...args], { cwd });
}

function zaxyOk(args: string[]): string {
  const run = zaxy(args);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 400)}${run.stderr}`);
  return run.stdout;
}

/**
 * Without the semantic lane: a read embeds at most 128 facts that have no vector yet, so two reads
 * of this 1,589-fact session compare different facts (and say so). That the lane answers the same
 * bytes once every fact has its vector is tests/cli/memory_semantic_default_test.ts's.
 */
function request(query: string) {
  return { sessionId, query, limit: 10, depth: 2, maxTokens: 4000, replayFromSeq: 1, maxRecentEvents: 20, semantic: false } as Parameters<MemoryService["checkout"]>[0];
}

/**
 * What a checkout answers: its facts, evidence and citations. A rebuild of derived state adds
 * a `projection repaired` warning (and lowers the checkout's confidence), which is the point.
 */
function checkoutAnswer(stdout: string): unknown {
  const checkout = JSON.parse(stdout);
  return [checkout.current_facts, checkout.evidence, checkout.provenance, checkout.retention, checkout.context_counts, checkout.diagnostics.source_lanes, checkout.diagnostics.causal_context];
}

/** The query answer without `diagnostics.projection`, which says how this read found the projection. */
function withoutProjection(answer: { [key: string]: unknown }): unknown {
  const diagnostics = { ...(answer.diagnostics as { [key: string]: unknown }) };
  delete diagnostics.projection;
  return { ...answer, diagnostics };
}

before(async () => {
  cwd = makeTempDir();
  root = path.join(cwd, ".eventloom");
  const causal = new CausalSession(root, sessionId);
  await causal.explain(ref("config drift", "cause"), ref("stale connection pool", "symptom"));
  await causal.explain(ref("stale connection pool", "cause"), ref("checkout latency spike", "symptom"), "caused", 0.7);
  const session = mixedSessionItems(1500, 23);
  await writeMixedSession(root, sessionId, session.items);
  queries = [...sampleQueries(session, 24, 5), "config drift", "stale connection pool", "never retry payment webhooks twice", "zzz-no-match"];
  zaxyOk(["memory", "feedback", "stale connection pool", "--entity-type", "symptom", "--feedback", "helpful"]);
  zaxyOk(["memory", "feedback", "config drift", "--entity-type", "cause", "--feedback", "irrelevant"]);
  zaxyOk(["memory", "outcome", "failure", "--summary", "payment webhook retried twice", "--lesson", "never retry payment webhooks twice", "--confidence", "0.4"]);
  zaxyOk(["memory", "consolidation", "propose-from-log"]);
}, slow);

describe("read model (issue 14)", () => {
  test("a fresh process answers from the read model exactly as the in-memory index: every lane, fold and citation", slow, async () => {
    const memory = new MemoryService(root);
    const projected = await memory.session(sessionId);
    assert.notEqual(projected.projection.source, "read_model");
    // The reference: the same rows and events indexed in memory.
    const full = { index: buildSessionIndex(sessionId, projected.rows, projected.projected.events, projected.index.vectors) };
    const disk = new MemoryService(root);
    const opened = await disk.readSession(sessionId);
    assert.equal(opened.projection.source, "read_model");
    assert.equal(opened.index.eventCount, full.index.eventCount);
    assert.equal(opened.index.entityCount, full.index.entityCount);
    assert.ok(opened.index.folds.causalEdges().length >= 2, "the session has causal edges");
    assert.ok(opened.index.folds.withheldRuleSeqs().size >= 1, "the session has a withheld rule");
    assert.ok(opened.index.folds.consolidationCandidates().size >= 1, "the session has consolidation candidates");
    assert.deepEqual(opened.index.folds.causalEdges(), full.index.folds.causalEdges());
    assert.deepEqual([...opened.index.folds.reinforcement()], [...full.index.folds.reinforcement()]);
    assert.deepEqual([...opened.index.folds.consolidationCandidates()], [...full.index.folds.consolidationCandidates()]);
    for (const query of queries) {
      const options = { limit: 100, depth: 3 };
      assert.deepEqual(retrieve(opened.index, query, options), retrieve(full.index, query, options), `retrieve ${JSON.stringify(query)}`);
      assert.deepEqual(await disk.checkout(request(query)), await memory.checkout(request(query)), `checkout ${JSON.stringify(query)}`);
      assert.deepEqual(withoutProjection(await disk.query(request(query))), withoutProjection(await memory.query(request(query))), `query ${JSON.stringify(query)}`);
    }
    for (let position = 0; position < full.index.eventCount; position += 97) assert.deepEqual(opened.index.event(position), full.index.event(position));
    for (let position = 0; position < full.index.entityCount; position += 89) {
      assert.deepEqual(opened.index.entity(position), full.index.entity(position));
      assert.deepEqual(opened.index.neighbours(position, 1_000_000), full.index.neighbours(position, 1_000_000));
      assert.deepEqual(opened.index.neighbours(position, 3), full.index.neighbours(position, 3));
    }
    opened.index.close();
  });

  test("consolidation reads its memories from the read model: the same memories, order and citations as from the rows, and the same trigger document", slow, async () => {
    const full = await new MemoryService(root).session(sessionId);
    const fromRows = currentMemories(full.rows.entities, full.projected.events, sessionId);
    const disk = new MemoryService(root);
    const opened = await disk.readSession(sessionId);
    assert.equal(opened.projection.source, "read_model");
    const fromModel = indexedMemories(opened.index);
    const plain = (memories: readonly ConsolidationMemory[]) =>
      memories.map((m) => [m.name, m.entityType, m.summary, m.validFrom, m.sourceEventSeq, m.sourceEventHash, m.citation]);
    assert.ok(fromRows.length > 500, `${fromRows.length} memories`);
    assert.deepEqual(plain(fromModel), plain(fromRows));
    for (const strategy of ["similarity", "temporal", "semantic"] as const) {
      const parameters = validateTriggerParameters({ strategy, minSimilarity: 0.6, maxMemories: 10000 });
      const viaModel = await triggerSessionConsolidation(disk, sessionId, parameters);
      const viaRows = await triggerConsolidation(fromRows, parameters);
      assert.ok(viaRows.document.consolidation_result.candidate_count > 0, strategy);
      assert.deepEqual(viaModel.document, viaRows.document, strategy);
    }
    opened.index.close();
  });

  test("a missing read model is rebuilt with a warning; the answer is unchanged", slow, () => {
    const before = zaxyOk(["memory", "checkout", "config drift", "--json"]);
    fs.rmSync(readModelDir(root, sessionId), { recursive: true });
    const run = zaxy(["memory", "checkout", "config drift", "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /read model of session "s" was missing; rebuilt from the log/);
    assert.match(JSON.parse(run.stdout).warnings.join("\n"), /projection repaired: read model of session "s" was missing/);
    assert.deepEqual(checkoutAnswer(run.stdout), checkoutAnswer(before));
    assert.ok(fs.existsSync(path.join(readModelDir(root, sessionId), "manifest.json")));
    const again = zaxy(["memory", "checkout", "config drift", "--json"]);
    assert.equal(again.stderr, "", "the rebuilt read model is used silently");
    assert.equal(again.stdout, before);
  });

  for (const kind of ["entities", "names", "adjacency", "events", "manifest"]) {
    test(`a corrupt ${kind} file is refused and rebuilt with a warning; the answer is unchanged`, slow, () => {
      const query = "stale connection pool";
      const before = zaxyOk(["memory", "checkout", query, "--json"]);
      const dir = readModelDir(root, sessionId);
      const name = fs.readdirSync(dir).find((file) => file.startsWith(`${kind}`))!;
      const file = path.join(dir, name);
      const bytes = fs.readFileSync(file);
      // Past the header for the binary files, inside the JSON for the manifest.
      bytes[Math.floor(bytes.length / 2)] ^= 0x20;
      fs.writeFileSync(file, bytes);
      const run = zaxy(["memory", "checkout", query, "--json"]);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /read model of session "s" is rebuilt from the log/);
      assert.deepEqual(checkoutAnswer(run.stdout), checkoutAnswer(before));
      assert.equal(zaxy(["memory", "checkout", query, "--json"]).stderr, "", "rebuilt");
    });
  }

  test("a corrupt BM25 segment is refused when a query reads it: rebuilt with a warning, same answer", slow, () => {
    const query = "stale connection pool";
    const before = zaxyOk(["memory", "query", query, "--json"]);
    const dir = readModelDir(root, sessionId);
    const file = path.join(dir, fs.readdirSync(dir).find((name) => name.startsWith("keyword"))!);
    const bytes = fs.readFileSync(file);
    // Flip a byte in every 64 past the first kilobyte (dictionary, keys, postings), keeping the size.
    for (let at = 1024; at < bytes.length; at += 64) bytes[at] ^= 0x01;
    fs.writeFileSync(file, bytes);
    const run = zaxy(["memory", "query", query, "--json"]);
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stderr, /read model of session "s" is rebuilt from the log/);
    assert.deepEqual(JSON.parse(run.stdout).results, JSON.parse(before).results);
  });

  test("an append by another process between two checkouts is seen by the second (the tail folded on the read model)", slow, () => {
    zaxyOk(["memory", "checkout", "runbook", "--json"]);
    zaxyOk(["memory", "append", "decision.made", "--actor", "agent", "--payload-json", JSON.stringify({ decision: "adopt quokka-cache for reports", rationale: "read model test" })]);
    const after = JSON.parse(zaxyOk(["memory", "checkout", "quokka-cache", "--json"]));
    assert.match(JSON.stringify(after.current_facts) + JSON.stringify(after.evidence), /quokka-cache/);
    const diagnostics = JSON.parse(zaxyOk(["memory", "query", "quokka-cache", "--json"])).diagnostics.projection;
    assert.equal(diagnostics.source, "read_model_tail", "the appended event is folded on top of the read model");
    assert.equal(diagnostics.events_applied, 1);
  });

  test("a byte flipped in the log under a read model is refused by checkout (integrity_failure), never answered", slow, () => {
    const copy = path.join(makeTempDir(), ".eventloom");
    fs.cpSync(root, copy, { recursive: true });
    const log = path.join(copy, `${sessionId}.jsonl`);
    const bytes = fs.readFileSync(log);
    const at = bytes.indexOf(Buffer.from("config drift"));
    bytes[at] = "C".charCodeAt(0);
    fs.writeFileSync(log, bytes);
    const run = runZaxy(["--eventloom-path", copy, "--session-id", sessionId, "memory", "checkout", "config drift", "--json"], { cwd });
    assert.equal(run.code, 1, run.stdout + run.stderr);
    assert.equal(JSON.parse(run.stdout).error.code, "integrity_failure");
  });
});
