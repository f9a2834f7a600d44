// deno-test: own-process (runs zaxy in this process, which may load kuzu-wasm; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Issue 12 item 7: the same log gives the same answer. A realistic mixed session (2,500 events:
 * preferences changed over and over, re-indexed documents, near-duplicate decisions and task
 * summaries, so vector similarities and fused scores tie) is rebuilt from scratch twice through
 * the binary, and 20 checkouts and 20 queries (limit 100, every score shown) must be byte for byte
 * the same; the vector index file must be too. Then the same log reached by a catch-up (the vector
 * index appended to) must answer exactly like the rebuild.
 *
 * Before issue 12's fix the usearch index was built with every core (racing insertions, a
 * different graph each build) and its approximate, i8-quantised distances fed the vector lane
 * directly, so two rebuilds differed in the vector lane's contexts, their scores and the current
 * facts. The lane searches exact postings (projection/vectorIndex.ts).
 *
 * Nothing is excluded from the comparison: a `--json` checkout holds no timings or clock
 * readings, and the query's `diagnostics.projection` (how this read found the projection) is the
 * same because every compared read finds the projection at the log head.
 *
 * The rebuilds run the built binary; the reads run in this process (tests/cli/inProcessRoot.ts),
 * each with a fresh memory service as the binary has, so 160 reads do not pay 160 process starts. Every compared answer comes from the same kind of run.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import type { EntityRow } from "../../src/projection/types.ts";
import { buildSessionIndex } from "../../src/retrieval/sessionIndex.ts";
import { embedPostings, MemoryVectorPostings } from "../../src/projection/vectorIndex.ts";
import { vectorLaneHits } from "../../src/retrieval/engine.ts";
import { entityEmbeddingText, hashEmbedMany } from "../../src/vector/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, type ZaxyRun } from "../cli/zaxy.ts";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";

after(removeTempDirs);

/** Rebuilds of 2,500 events and 40 reads per round take a while on a loaded 2-core machine. */
const slow = { timeout: 900_000 };
const eventCount = 2500;
const queryCount = 20;

let dir = "";
let queries: string[] = [];
let rebuiltAnswers: Answers | undefined;

interface Answers {
  checkouts: string[];
  queries: string[];
}

/**
 * Expects exit 0. Compared reads find the projection current and must be silent; the steps that
 * build it (`quietStderr: false`) may say so on stderr.
 */
function assertOk(run: ZaxyRun, args: string[], quietStderr: boolean): string {
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 500)}${run.stderr}`);
  if (quietStderr) assert.equal(run.stderr, "", args.join(" "));
  return run.stdout;
}

/** Runs the built binary in `cwd`, expecting exit 0. */
function zaxyOk(args: string[], cwd: string, quietStderr = true): string {
  return assertOk(runZaxy(args, { cwd }), args, quietStderr);
}

/**
 * Runs zaxy in this process on `cwd`'s root, expecting exit 0. Paths read as the binary run in
 * `cwd` prints them (`.eventloom/...`), so that answers from different roots compare.
 */
async function zaxyInProcessOk(args: string[], cwd: string, quietStderr = true): Promise<string> {
  return assertOk(await runZaxyInProcess(args, { cwd }), args, quietStderr).replaceAll(cwd + path.sep, "");
}

async function answers(cwd: string): Promise<Answers> {
  const out: Answers = { checkouts: [], queries: [] };
  for (const query of queries) {
    out.checkouts.push(await zaxyInProcessOk(["memory", "checkout", query, "--json"], cwd));
    out.queries.push(await zaxyInProcessOk(["memory", "query", query, "--limit", "100", "--json"], cwd));
  }
  return out;
}

/** Byte equality, reported as the first differing position with some context either side. */
function assertSameText(actual: string, expected: string, label: string): void {
  if (actual === expected) return;
  let at = 0;
  while (at < actual.length && actual[at] === expected[at]) at++;
  const around = (text: string) => JSON.stringify(text.slice(Math.max(0, at - 120), at + 120));
  assert.fail(`${label} differs at character ${at}:\n  got      ${around(actual)}\n  expected ${around(expected)}`);
}

function assertSameAnswers(actual: Answers, expected: Answers, label: string): void {
  queries.forEach((query, i) => {
    assertSameText(actual.checkouts[i], expected.checkouts[i], `${label}: checkout ${JSON.stringify(query)}`);
    assertSameText(actual.queries[i], expected.queries[i], `${label}: query ${JSON.stringify(query)}`);
  });
}

function vectorIndexSha256(cwd: string): string {
  return createHash("sha256").update(fs.readFileSync(path.join(cwd, ".eventloom", "projections", "vectors", "default.vectors"))).digest("hex");
}

function rebuild(cwd: string): void {
  const doc = JSON.parse(zaxyOk(["reproject", "--reset-projection", "--json"], cwd, false));
  assert.equal(doc.ok, true);
  assert.equal(doc.sessions[0].events, eventCount);
}

before(async () => {
  dir = makeTempDir("zaxy-determinism");
  const session = mixedSessionItems(eventCount, 7);
  await writeMixedSession(path.join(dir, ".eventloom"), "default", session.items);
  queries = sampleQueries(session, queryCount, 11);
  assert.equal(queries.length, queryCount);
});

describe("rebuilds are deterministic", () => {
  test("two clean rebuilds of one log give byte-identical checkouts, queries and vector index files", slow, async () => {
    rebuild(dir);
    const firstIndex = vectorIndexSha256(dir);
    const first = await answers(dir);
    // The vector lane took part: otherwise this would not test it.
    const vectorHits = first.queries.map((doc) => JSON.parse(doc).diagnostics.source_lanes.vector as number);
    assert.ok(vectorHits.every((hits) => hits > 0), `vector hits per query: ${vectorHits.join(",")}`);

    rebuild(dir);
    const second = await answers(dir);
    rebuiltAnswers = first;
    assertSameAnswers(second, first, "second rebuild");
    assert.equal(vectorIndexSha256(dir), firstIndex, "the rebuilt vector index file differs");
  });

  /** A root holding the log's first `prefixCount` events, read once, then given the rest. */
  async function grownRoot(prefixCount: number): Promise<string> {
    const lines = fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"), "utf8").split(/(?<=\n)/);
    const grown = makeTempDir("zaxy-determinism-catchup");
    const log = path.join(grown, ".eventloom", "default.jsonl");
    fs.mkdirSync(path.dirname(log));
    fs.writeFileSync(log, lines.slice(0, prefixCount).join(""));
    await zaxyInProcessOk(["memory", "checkout", "warm up", "--json"], grown, false);
    fs.appendFileSync(log, lines.slice(prefixCount).join(""));
    return grown;
  }

  test("a catch-up that appends to the vector index answers exactly like a rebuild of the same log", slow, async () => {
    assert.ok(rebuiltAnswers, "needs the rebuild test's answers");
    // A tail longer than the 1,000 events a read folds in memory: the read continues from the
    // read model's rows and catches the read model and the vector index up.
    const prefixCount = 1400;
    const caughtUp = await grownRoot(prefixCount);
    const first = JSON.parse(await zaxyInProcessOk(["memory", "query", "catch up", "--json"], caughtUp, false));
    assert.equal(first.diagnostics.projection.source, "caught_up");
    assert.equal(first.diagnostics.projection.events_applied, eventCount - prefixCount);
    assertSameAnswers(await answers(caughtUp), rebuiltAnswers, "catch-up");
  });

  test("a tail folded on the read model answers exactly like a rebuild of the same log", slow, async () => {
    assert.ok(rebuiltAnswers, "needs the rebuild test's answers");
    const prefixCount = eventCount - 1000;
    const grown = await grownRoot(prefixCount);
    const first = JSON.parse(await zaxyInProcessOk(["memory", "query", "catch up", "--json"], grown, false));
    assert.equal(first.diagnostics.projection.source, "read_model_tail");
    assert.equal(first.diagnostics.projection.events_applied, eventCount - prefixCount);
    // Byte for byte, but for how the projection was found (`read_model_tail` vs `read_model`).
    const withoutProjection = (all: Answers): Answers => ({
      checkouts: all.checkouts,
      queries: all.queries.map((stdout) => {
        const answer = JSON.parse(stdout);
        delete answer.diagnostics.projection;
        return JSON.stringify(answer);
      }),
    });
    assertSameAnswers(withoutProjection(await answers(grown)), withoutProjection(rebuiltAnswers), "tail");
  });
});

describe("the vector lane is exact", () => {
  const dim = 256;
  /**
   * 600 entities in pairs with the same tokens in another order ("red blue alpha7" and "alpha7
   * blue red"): the pairs have identical hash embeddings, and most of them tie exactly for the
   * query "blue red", far beyond the 50 hits a lane keeps.
   */
  const entities: EntityRow[] = Array.from({ length: 600 }, (_, i) => {
    const token = `alpha${Math.floor(i / 2)}`;
    return {
      nodeKey: `s\x1fnode${i}`, sessionId: "s", name: i % 2 === 0 ? `red blue ${token}` : `${token} blue red`, entityType: "note",
      summary: null, propertiesJson: "{}", validFrom: "2026-11-24T00:00:00.000000Z", validTo: null, sourceEventSeq: i + 1,
      sourceEventHash: "a".repeat(64), vectorKey: i,
    };
  });

  function sessionIndex() {
    const index = new MemoryVectorPostings(embedPostings(entities, dim, 0));
    return buildSessionIndex("s", { entities, relations: [], head: null }, [], { index, count: entities.length, dim, path: "", action: "built" });
  }

  /** Every entity scored with the dense dot product of the kernel's embeddings, ordered as the lane orders. */
  function bruteForce(query: string, limit: number) {
    const [q] = hashEmbedMany([query], dim);
    const vectors = hashEmbedMany(entities.map((e) => entityEmbeddingText(e.name, e.entityType, e.summary)), dim);
    return vectors
      .map((v, position) => {
        let similarity = 0;
        for (let i = 0; i < dim; i++) similarity += q[i] * v[i];
        return { position, similarity };
      })
      .filter((hit) => hit.similarity > 0)
      .sort((a, b) => b.similarity - a.similarity || a.position - b.position)
      .slice(0, limit);
  }

  test("vectorLaneHits is the dense scan's top, bit for bit, ties in entity order", () => {
    const index = sessionIndex();
    for (const query of ["blue red", "red", "alpha3 blue", "alpha299 red blue", "no such token"]) {
      for (const limit of [1, 50, 600]) assert.deepEqual(vectorLaneHits(index, query, limit), bruteForce(query, limit), `${query} (limit ${limit})`);
    }
    // The tie really reaches past the cut: the 50 kept all share one similarity.
    const tied = vectorLaneHits(index, "blue red", 50);
    assert.equal(new Set(tied.map((hit) => hit.similarity)).size, 1);
    assert.equal(tied[0].position, 0);
  });
});
