// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Issue 14 item 3 (reproject): `zaxy reproject` keeps its memory bounded by building the vector
 * index and the read model from the folded rows before the graph store is written, releasing the
 * parsed events before Kuzu's bulk load and streaming the Kuzu CSV cells. None of that may
 * change a byte: the vector index, the read model and
 * the checkout answers must be those of the plain pipeline (project, then vectors, then the read
 * model from the same rows and events), which this file runs in process as the reference.
 *
 * Peak RSS is a benchmark number (README "Scaling"), not a test: it depends on the machine's load.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { projectSession } from "../../src/projection/projector.ts";
import type { SessionGraphRows } from "../../src/projection/types.ts";
import { foldLogRows } from "../../src/projection/foldLog.ts";
import { syncVectorIndex, vectorIndexPath } from "../../src/projection/vectorIndex.ts";
import { exactCosineTop } from "../../src/projection/vectorIndex.ts";
import { readModelDir } from "../../src/readmodel/manifest.ts";
import { readModelRows } from "../../src/readmodel/readModelRows.ts";
import { writeReadModel } from "../../src/readmodel/writeReadModel.ts";
import { buildSessionIndex } from "../../src/retrieval/sessionIndex.ts";
import { defaultEmbeddingDim, hashEmbedMany, hashEmbedManyInto } from "../../src/vector/hashEmbedding.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";

/** The plain pipeline, as `zaxy reproject` ran it before issue 14: everything after the graph write. */
async function reprojectInProcess(root: string): Promise<void> {
  const projected = await projectSession(root, sessionId, { rebuild: true, onStoreFailure: "throw" });
  const rows = projected.rows!;
  const vectors = await syncVectorIndex(root, sessionId, rows, projected.events, defaultEmbeddingDim);
  const index = buildSessionIndex(sessionId, rows, projected.events, vectors);
  assert.notEqual(writeReadModel(root, projected.logPath, index, rows, projected.events), null);
}

/** Copies the session's log from one root into another (created), for a second pipeline to run on. */
function copySessionLog(fromRoot: string, toRoot: string): void {
  fs.mkdirSync(toRoot, { recursive: true });
  fs.copyFileSync(path.join(fromRoot, `${sessionId}.jsonl`), path.join(toRoot, `${sessionId}.jsonl`));
}

/** A JSON file's text without its `stamp` fields (file modification stamps differ by design). */
function withoutStamps(text: string): string {
  return text.replace(/"stamp":"[^"]*",?/g, "");
}

/** The read model manifest's body (after its header line, which hashes the stamps) without stamps. */
function manifestBody(root: string): string {
  const text = fs.readFileSync(path.join(readModelDir(root, sessionId), "manifest.json"), "utf8");
  return withoutStamps(text.slice(text.indexOf("\n") + 1));
}

function readModelFiles(root: string): string[] {
  return fs.readdirSync(readModelDir(root, sessionId)).filter((name) => name !== "manifest.json").sort();
}

describe("zaxy reproject with bounded memory", () => {
  let cwd = "";
  let cliRoot = "";
  let referenceRoot = "";
  let queries: string[] = [];
  let report: { ok: boolean; sessions: Array<{ events: number; entity_versions: number; relations: number; phases_ms: Record<string, number> }> };

  before(async () => {
    cwd = makeTempDir("zaxy-reprojmem");
    cliRoot = path.join(cwd, "cli", ".eventloom");
    referenceRoot = path.join(cwd, "reference", ".eventloom");
    const session = mixedSessionItems(1200, 41);
    await writeMixedSession(cliRoot, sessionId, session.items);
    queries = sampleQueries(session, 6, 5);
    copySessionLog(cliRoot, referenceRoot);
    const run = runZaxy(["--eventloom-path", cliRoot, "--session-id", sessionId, "reproject", "--json"], { cwd });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, "");
    report = JSON.parse(run.stdout);
    // One key for both roots, so their authenticated derived files can be compared byte for byte.
    fs.cpSync(path.join(cliRoot, "keys"), path.join(referenceRoot, "keys"), { recursive: true });
    await reprojectInProcess(referenceRoot);
  });

  test("design 014: reproject reports every event and row and the read model phase", () => {
    const reference = readModelRows(referenceRoot, sessionId);
    assert.equal(reference.status, "ok");
    const rows = (reference as { rows: SessionGraphRows }).rows;
    assert.equal(report.ok, true);
    const [one] = report.sessions;
    assert.equal(one.events, 1200);
    assert.equal(one.entity_versions, rows.entities.length);
    assert.equal(one.relations, rows.relations.length);
    for (const phase of ["verify_and_read", "fold", "read_model"]) {
      assert.equal(typeof one.phases_ms[phase], "number", phase);
    }
    // No read answers from the graph store: reproject leaves it to --graph-store.
    assert.equal(one.phases_ms.write_store, undefined);
  });

  test("design 014: reproject writes the vector index byte for byte as the plain pipeline", () => {
    assert.deepEqual(fs.readFileSync(vectorIndexPath(cliRoot, sessionId)), fs.readFileSync(vectorIndexPath(referenceRoot, sessionId)));
    assert.equal(
      withoutStamps(fs.readFileSync(`${vectorIndexPath(cliRoot, sessionId)}.json`, "utf8")),
      withoutStamps(fs.readFileSync(`${vectorIndexPath(referenceRoot, sessionId)}.json`, "utf8")),
    );
  });

  test("design 014: reproject writes every read model file byte for byte as the plain pipeline", () => {
    const names = readModelFiles(cliRoot);
    assert.deepEqual(names, readModelFiles(referenceRoot));
    assert.equal(names.length, 8, "entities, names, adjacency, events, keyword, verbatim, relations, node keys");
    for (const name of names) {
      assert.deepEqual(
        fs.readFileSync(path.join(readModelDir(cliRoot, sessionId), name)),
        fs.readFileSync(path.join(readModelDir(referenceRoot, sessionId), name)),
        name,
      );
    }
    assert.equal(manifestBody(cliRoot), manifestBody(referenceRoot));
  });

  test("design 014: checkouts after reproject answer as after the plain pipeline", slow, () => {
    for (const query of queries) {
      const answers = [cliRoot, referenceRoot].map((root) => {
        const run = runZaxy(["--eventloom-path", root, "--session-id", sessionId, "memory", "checkout", query, "--json"], { cwd });
        assert.equal(run.code, 0, run.stdout + run.stderr);
        const checkout = JSON.parse(run.stdout);
        return [checkout.current_facts, checkout.evidence, checkout.provenance, checkout.context_counts, checkout.diagnostics.source_lanes];
      });
      assert.deepEqual(answers[0], answers[1], query);
    }
  });
});

describe("projectSession beforeStoreWrite", () => {
  test("design 014: the hook sees every event and the final rows, and the events are released after it", slow, async () => {
    const cwd = makeTempDir("zaxy-reprojmem-hook");
    const hooked = path.join(cwd, "hooked", ".eventloom");
    const plain = path.join(cwd, "plain", ".eventloom");
    await writeMixedSession(hooked, sessionId, mixedSessionItems(300, 5).items);
    copySessionLog(hooked, plain);
    let seen: { rows: SessionGraphRows; eventCount: number; lastHash: string } | undefined;
    const withHook = await projectSession(hooked, sessionId, {
      rebuild: true,
      onStoreFailure: "throw",
      beforeStoreWrite: async (rows, events) => {
        seen = { rows, eventCount: events.length, lastHash: events[events.length - 1].hash };
      },
    });
    const without = await projectSession(plain, sessionId, { rebuild: true, onStoreFailure: "throw" });
    assert.ok(seen !== undefined, "the hook ran");
    assert.equal(seen.eventCount, without.events.length);
    assert.equal(seen.lastHash, without.events.at(-1)!.hash);
    assert.equal(seen.rows, withHook.rows, "the hook saw the rows the projection returns");
    assert.deepEqual(withHook.rows, without.rows);
    assert.deepEqual(withHook.events, [], "the parsed events are released after the hook");
    assert.equal(without.events.length, 300);
    // A second projection folds the log to the same rows.
    const reread = await projectSession(hooked, sessionId, {});
    assert.deepEqual(reread.rows, without.rows);
    assert.equal(reread.events.length, 300);
  });
});

describe("vectors embedded into one reused buffer", () => {
  test("design 014: hashEmbedManyInto writes each text's hashEmbedMany vector as f32 at i * dim, batch after batch", () => {
    const dim = 64;
    const batches = [["Straße repaired", "", "alpha beta gamma"], ["one more text", "alpha"]];
    const flat = new Float32Array(3 * dim).fill(7);
    for (const texts of batches) {
      hashEmbedManyInto(texts, dim, flat.subarray(0, texts.length * dim));
      const expected = new Float32Array(texts.length * dim);
      hashEmbedMany(texts, dim).forEach((vector, i) => expected.set(vector, i * dim));
      assert.deepEqual(flat.subarray(0, texts.length * dim), expected);
    }
    assert.throws(() => hashEmbedManyInto(["a", "b"], dim, new Float32Array(dim)), /target holds 64 values, 128 are needed/);
  });
});

describe("syncVectorIndex writes postings", () => {
  test("design 014: a built index is opened from its saved file; an index appended to has the bytes of one built at the same head; a leftover usearch index is removed", slow, async () => {
    const cwd = makeTempDir("zaxy-reprojmem-postings");
    const roots = ["built", "appended"].map((name) => path.join(cwd, name, ".eventloom"));
    const items = mixedSessionItems(600, 9).items;
    await writeMixedSession(roots[0], sessionId, items);
    copySessionLog(roots[0], roots[1]);
    const full = await projectSession(roots[0], sessionId, {});
    const built = await syncVectorIndex(roots[0], sessionId, full.rows!, full.events, defaultEmbeddingDim);
    assert.equal(built.action, "built");
    assert.equal(built.index.size(), full.rows!.entities.length);
    // The second root: an index at event 400 (and a leftover of the old format), then caught up.
    const prefix = full.events.slice(0, 400);
    const prefixRows = foldLogRows(sessionId, prefix);
    await syncVectorIndex(roots[1], sessionId, prefixRows, prefix, defaultEmbeddingDim);
    const vectorsDir = path.dirname(vectorIndexPath(roots[1], sessionId));
    fs.writeFileSync(path.join(vectorsDir, `${sessionId}.usearch`), "old index");
    fs.writeFileSync(path.join(vectorsDir, `${sessionId}.usearch.json`), "{}");
    const appended = await syncVectorIndex(roots[1], sessionId, full.rows!, full.events, defaultEmbeddingDim);
    assert.equal(appended.action, "appended");
    assert.deepEqual(fs.readFileSync(vectorIndexPath(roots[1], sessionId)), fs.readFileSync(vectorIndexPath(roots[0], sessionId)));
    assert.deepEqual(fs.readdirSync(vectorsDir).sort(), [`${sessionId}.vectors`, `${sessionId}.vectors.json`]);
    const queries = hashEmbedMany(Array.from({ length: 20 }, (_, i) => `decision ${i} retry policy billing task`), defaultEmbeddingDim);
    for (const [q, query] of queries.entries()) {
      assert.deepEqual(exactCosineTop(appended.index, query, 10), exactCosineTop(built.index, query, 10), `query ${q}`);
    }
    // What was returned reads the file it was saved as, not a copy that grows with the vectors.
    built.index.close();
    assert.throws(() => exactCosineTop(built.index, queries[0], 10));
    appended.index.close();
  });
});

describe("reproject releases the events before the vector build", () => {
  test("design 014: a second reproject reuses the saved vector index (its head checked against the log), and after an append extends it: no rebuild warning, the plain pipeline's bytes", slow, async () => {
    const cwd = makeTempDir("zaxy-reprojmem-reuse");
    const root = path.join(cwd, "cli", ".eventloom");
    const reference = path.join(cwd, "reference", ".eventloom");
    await writeMixedSession(root, sessionId, mixedSessionItems(900, 13).items);
    const reproject = () => {
      const run = runZaxy(["--eventloom-path", root, "--session-id", sessionId, "reproject", "--json"], { cwd });
      assert.equal(run.code, 0, run.stdout + run.stderr);
      assert.equal(run.stderr, "", "no vector index rebuild or other repair");
    };
    reproject();
    const first = fs.readFileSync(vectorIndexPath(root, sessionId));
    reproject();
    assert.deepEqual(fs.readFileSync(vectorIndexPath(root, sessionId)), first, "reused as it was");
    const append = runZaxy(["--eventloom-path", root, "--session-id", sessionId, "memory", "append", "decision.made", "--actor", "agent", "--payload-json", JSON.stringify({ decision: "adopt the wombat cache", rationale: "reuse test" })], { cwd });
    assert.equal(append.code, 0, append.stderr);
    reproject();
    copySessionLog(root, reference);
    await reprojectInProcess(reference);
    const extended = fs.readFileSync(vectorIndexPath(root, sessionId));
    assert.ok(extended.length > first.length, "the new versions were added");
    assert.deepEqual(extended, fs.readFileSync(vectorIndexPath(reference, sessionId)));
  });
});
