/**
 * The semantic lane (src/retrieval/semanticLane.ts) with the bundled model, fused by `retrieve`,
 * and what checkout's query match makes of it: a paraphrase finds its fact, an unrelated
 * question stays unmatched, and the answer does not depend on the vector cache.
 */
import { after, describe, test } from "node:test";
import * as fs from "node:fs";
import assert from "node:assert/strict";
import { fromJs } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import { matchQuery } from "../../src/checkout/checkout.ts";
import { retrieve, semanticLaneScore } from "../../src/retrieval/engine.ts";
import {
  expandAbbreviations,
  semanticEvidenceSimilarityMin,
  semanticLane,
  semanticCentredSimilarityMin,
  semanticPool,
  readEmbedBudget,
  semanticScoreAnchorSimilarity,
  SemanticVectorCache,
  type EmbedBudget,
} from "../../src/retrieval/semanticLane.ts";
import { semanticEmbedPerReadCharsMax, semanticEmbedPerReadMax } from "../../src/limits.ts";
import { buildSessionIndex, type SessionIndex } from "../../src/retrieval/sessionIndex.ts";
import type { RetrievedContext } from "../../src/retrieval/types.ts";
import { sharedSemanticEmbedder, type SemanticEmbedder } from "../../src/semantic/semanticEmbedder.ts";
import { quantised, textKey } from "../../src/semantic/vectorStore.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

const slow = { timeout: 120_000 };

after(removeTempDirs);

function indexOf(decisions: string[]): SessionIndex {
  const records: EventRecord[] = decisions.map((decision, i) => ({
    seq: i + 1,
    timestamp: `2026-11-28T00:00:${String(i).padStart(2, "0")}.000000Z`,
    type: "decision.made",
    actor: "architect",
    thread: "s",
    payload: fromJs({ decision, rationale: "agreed in the weekly review" }) as EventRecord["payload"],
    security: null,
    prevHash: i === 0 ? null : String(i).padStart(64, "a"),
    hash: String(i + 1).padStart(64, "a"),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  }));
  const fold = new GraphFold("s");
  for (const record of records) fold.apply(record, extractEvent(record));
  return buildSessionIndex("s", fold.rows(), records, null);
}

const facts = [
  "Migrated the database to PostgreSQL 16",
  "Nightly builds run on GitHub Actions using self-hosted runners",
  "Adopt Kuzu for the graph projection",
  "Carol leads the weekend on-call rotation",
];

test("expandAbbreviations spells out known abbreviations after the word, whole words only", () => {
  assert.equal(expandAbbreviations("how are we upgrading the db?"), "how are we upgrading the db (database)?");
  assert.equal(expandAbbreviations("K8S nodes"), "K8S (kubernetes) nodes");
  assert.equal(expandAbbreviations("dbase"), "dbase");
});

test("semanticLaneScore: the anchor centred similarity scores as the best keyword hit, capped at the vector lane's weight", () => {
  assert.ok(Math.abs(semanticLaneScore(semanticScoreAnchorSimilarity) - 0.8) < 1e-12);
  assert.ok(Math.abs(semanticLaneScore(semanticCentredSimilarityMin) - (0.8 * semanticCentredSimilarityMin) / semanticScoreAnchorSimilarity) < 1e-12);
  assert.equal(semanticLaneScore(0.5), 0.95);
  assert.equal(semanticLaneScore(0.9), 0.95);
  assert.ok(semanticLaneScore(0.2) < semanticLaneScore(0.25));
});

test("the semantic pool holds current facts, not hubs such as the actor", () => {
  const index = indexOf(facts);
  const pool = semanticPool(index);
  assert.equal(pool.length, facts.length);
  assert.ok(pool.every((entry) => index.entity(entry.position).entityType === "decision"));
  assert.match(pool.at(-1)!.text, /^Migrated the database to PostgreSQL 16: /);
});

describe("the semantic lane with the bundled model", () => {
  const index = indexOf(facts);

  test("a paraphrase with no shared word finds its fact first, with the lane in score_explanation", slow, async () => {
    const embedder = await sharedSemanticEmbedder();
    const lane = await semanticLane("s", index, "how are we upgrading the db?", embedder, new SemanticVectorCache(embedder.receipt.id), { limit: 50 });
    assert.equal(lane.model, embedder.receipt);
    assert.equal(lane.poolSize, facts.length);
    const result = retrieve(index, "how are we upgrading the db?", { limit: 3, semantic: lane });
    const top = result.contexts[0];
    assert.match(top.content, /Migrated the database to PostgreSQL 16/);
    const lanes = top.scoreExplanation.lanes as Record<string, number>;
    assert.ok(lanes.semantic > 0, JSON.stringify(top.scoreExplanation));
    // Frozen: the same under Bun, Deno and the compiled binary (vectors int8-quantised, as stored).
    assert.equal(top.scoreExplanation.semantic_similarity, 0.481717);
    assert.equal(result.laneCounts.semantic, lane.hits.length);
    // Ranked first, but below the evidence threshold: not a match for checkout when no word or
    // other name of one matches either ("db" names the database, vector/textAnalysis.ts).
    const match = matchQuery(result.contexts, "how are we upgrading the relational store?");
    assert.ok(match.unmatched.includes(top));
    assert.equal(match.report.semantic_matched_facts, undefined);
  });

  test("an unrelated question gets no semantic evidence and no coverage", slow, async () => {
    const embedder = await sharedSemanticEmbedder();
    const query = "what is the capital of Australia?";
    const lane = await semanticLane("s", index, query, embedder, new SemanticVectorCache(embedder.receipt.id), { limit: 50 });
    assert.ok(lane.hits.every((hit) => hit.similarity < semanticEvidenceSimilarityMin), JSON.stringify(lane.hits));
    const match = matchQuery(retrieve(index, query, { limit: 5, semantic: lane }).contexts, query);
    assert.equal(match.report.coverage, 0);
    assert.equal(match.report.semantic_matched_facts, undefined);
  });

  test("a warm cache gives the same answer as a cold one", slow, async () => {
    const embedder = await sharedSemanticEmbedder();
    const cache = new SemanticVectorCache(embedder.receipt.id);
    const cold = await semanticLane("s", index, "where do builds run?", embedder, cache, { limit: 50 });
    const warm = await semanticLane("s", index, "where do builds run?", embedder, cache, { limit: 50 });
    assert.equal(cold.embedded, facts.length);
    assert.equal(warm.embedded, 0);
    assert.deepEqual(warm.hits, cold.hits);
    assert.deepEqual(retrieve(index, "where do builds run?", { limit: 5, semantic: warm }), retrieve(index, "where do builds run?", { limit: 5, semantic: cold }));
  });

  test("without the lane, retrieval and its lane counts are as before", () => {
    const result = retrieve(index, "how are we upgrading the db?", { limit: 3 });
    assert.deepEqual(Object.keys(result.laneCounts), ["exact", "vector", "keyword", "traversal", "verbatim"]);
    assert.ok(result.contexts.every((context) => !("semantic" in (context.scoreExplanation.lanes as object))));
  });
});

function semanticContext(similarity: number): RetrievedContext {
  return {
    content: "Migrated the database to PostgreSQL 16 (decision)",
    source: "graph",
    sourceLane: "semantic",
    score: 0.9,
    validFrom: "2026-11-28T00:00:00.000000Z",
    validTo: null,
    citation: "eventloom://s/events/1#aaaaaaaaaaaa",
    eventSeq: 1,
    eventHash: "a".repeat(64),
    entityName: "Migrated the database to PostgreSQL 16",
    entityType: "decision",
    scoreExplanation: { lanes: { semantic: 0.9 }, fused_score: 0.9, semantic_similarity: similarity },
    metadata: {},
  };
}

test("a semantic hit is checkout evidence from the evidence threshold: served, coverage at least 0.5", () => {
  const question = "how are we upgrading the relational store?";
  const at = matchQuery([semanticContext(semanticEvidenceSimilarityMin)], question);
  assert.equal(at.served.length, 1);
  assert.deepEqual(at.report, { query_terms: ["upgrading", "relational", "store"], matched_terms: [], coverage: 0.5, unmatched_contexts_excluded: 0, semantic_matched_facts: 1 });
  const below = matchQuery([semanticContext(semanticEvidenceSimilarityMin - 1e-6)], question);
  assert.equal(below.served.length, 0);
  assert.deepEqual(below.report, { query_terms: ["upgrading", "relational", "store"], matched_terms: [], coverage: 0, unmatched_contexts_excluded: 1 });
  // Another name of what the fact names is a word match ("db" for "database").
  assert.deepEqual(matchQuery([semanticContext(0.1)], "how are we upgrading the db?").report.matched_terms, ["db"]);
  // A lexical match above the semantic floor keeps its own coverage.
  const lexical = matchQuery([semanticContext(0.9)], "database upgrade");
  assert.equal(lexical.report.coverage, 0.5);
  assert.equal(matchQuery([semanticContext(0.9)], "migrated database").report.coverage, 1);
});

/** A fake model: [text length, 1], counting the texts it embeds. */
function countingEmbedder(): SemanticEmbedder & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    receipt: { id: "fake", weights_sha256: "0".repeat(64), dim: 2 },
    embed(texts: readonly string[]) {
      calls.push(...texts);
      return Promise.resolve(texts.map((text) => Float32Array.of(text.length, 1)));
    },
  } as SemanticEmbedder & { calls: string[] };
}

/** A budget of `count` texts of any length. */
function factBudget(count: number): EmbedBudget {
  return { facts: count, chars: Number.POSITIVE_INFINITY };
}

test("a read's embedding budget: 16 facts and 2,048 characters of their text", () => {
  assert.deepEqual(readEmbedBudget, { facts: 16, chars: 2048 });
  assert.deepEqual([semanticEmbedPerReadMax, semanticEmbedPerReadCharsMax], [16, 2048]);
});

test("SemanticVectorCache.poolOf stops at the character budget: newest first without gaps, at least one text", async () => {
  const index = indexOf(facts);
  const pool = semanticPool(index);
  const lengths = pool.map((entry) => entry.text.length);
  // Room for the two newest texts and not the third: the shorter, older fourth waits too.
  const chars = lengths[0] + lengths[1] + lengths[2] - 1;
  const embedder = countingEmbedder();
  const cache = new SemanticVectorCache("fake");
  const first = await cache.poolOf("s", index, embedder, 2, { facts: 10, chars });
  assert.equal(first.embedded, 2);
  assert.deepEqual(embedder.calls, pool.slice(0, 2).map((entry) => entry.text));
  // A text longer than the whole budget is still embedded, alone: every call makes progress.
  const second = await cache.poolOf("s", index, embedder, 2, { facts: 10, chars: 1 });
  assert.equal(second.embedded, 1);
  assert.deepEqual(embedder.calls.slice(2), [pool[2].text]);
  const rest = await cache.poolOf("s", index, embedder, 2, { facts: 10, chars });
  assert.equal(rest.embedded, facts.length - 3);
  assert.equal(rest.vectors.filter((v) => v === undefined).length, 0);
});

test("SemanticVectorCache.poolOf embeds at most the budget's facts a read, newest first, then only the rest", async () => {
  const index = indexOf(facts);
  const embedder = countingEmbedder();
  const cache = new SemanticVectorCache("fake");
  assert.equal(cache.storeFile("s", 2), "", "no root: no file");
  const pool = semanticPool(index);
  const first = await cache.poolOf("s", index, embedder, 2, factBudget(3));
  assert.equal(first.embedded, 3);
  assert.deepEqual(embedder.calls, pool.slice(0, 3).map((entry) => entry.text), "newest first");
  assert.equal(first.vectors.filter((v) => v === undefined).length, 1);
  assert.deepEqual(first.vectors[0], quantised(Float32Array.of(pool[0].text.length, 1)), "vectors are quantised");
  const second = await cache.poolOf("s", index, embedder, 2, factBudget(3));
  assert.equal(second.embedded, 1);
  assert.equal(embedder.calls.length, facts.length, "each fact embedded once");
  assert.equal((await cache.poolOf("s", index, embedder, 2, factBudget(3))).embedded, 0);
  assert.equal(embedder.calls.length, facts.length);
});

test("the semantic lane reports facts over its embedding budget as not compared, and compares them on the next read", async () => {
  const index = indexOf(facts);
  const embedder = countingEmbedder();
  const cache = new SemanticVectorCache("fake");
  const first = await semanticLane("s", index, "anything", embedder, cache, { limit: 50, embedBudget: factBudget(1), centredMin: -1 });
  assert.deepEqual([first.poolSize, first.embedded, first.notEmbedded, first.hits.length], [facts.length, 1, facts.length - 1, 1]);
  const second = await semanticLane("s", index, "anything", embedder, cache, { limit: 50, embedBudget: factBudget(100), centredMin: -1 });
  assert.deepEqual([second.embedded, second.notEmbedded, second.hits.length], [facts.length - 1, 0, facts.length]);
  assert.ok(second.hits.every((hit, i) => i === 0 || second.hits[i - 1].centredSimilarity >= hit.centredSimilarity), "ranked by centred similarity");
});

test("SemanticVectorCache with a root keeps vectors on disk: another cache (a later process) embeds nothing again", async () => {
  const root = makeTempDir("semantic-cache");
  const index = indexOf(facts);
  const embedder = countingEmbedder();
  const cache = new SemanticVectorCache("fake", root);
  const file = cache.storeFile("s", 2);
  assert.ok(file.startsWith(root) && file.includes("/projections/semantic/s/") && file.endsWith(".vec"), file);
  const cold = await cache.poolOf("s", index, embedder, 2, factBudget(100));
  assert.equal(cold.embedded, facts.length);
  assert.ok(fs.existsSync(file));
  const later = new SemanticVectorCache("fake", root);
  const warm = await later.poolOf("s", index, embedder, 2, factBudget(100));
  assert.equal(warm.embedded, 0);
  assert.equal(embedder.calls.length, facts.length);
  assert.deepEqual(warm.vectors, cold.vectors, "a vector read back is the vector used fresh");
  // A rebuilt index of the same facts (a new object, as after a reproject) finds them on disk too.
  assert.equal((await later.poolOf("s", indexOf(facts), embedder, 2, factBudget(100))).embedded, 0);
  // Keys are the SHA-256 of the embedded text; another model id has its own file.
  assert.notEqual(new SemanticVectorCache("other", root).storeFile("s", 2), file);
  assert.equal(textKey(semanticPool(index)[0].text).length, 64);
});

/** A model that answers when told to, with a fixed vector per text, and counts what it embedded. */
function heldEmbedder(): SemanticEmbedder & { release(): void; texts: string[] } {
  const waiting: Array<() => void> = [];
  const texts: string[] = [];
  return {
    receipt: { id: "held-test-model", weights_sha256: null, dim: 4 },
    texts,
    release: () => waiting.splice(0).forEach((go) => go()),
    async embed(batch) {
      texts.push(...batch);
      await new Promise<void>((resolve) => waiting.push(resolve));
      return batch.map((text) => Float32Array.from([text.length % 7, 1, 0.5, 0.25]).map((x, _, a) => x / Math.hypot(...a)));
    },
  };
}

async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
}

describe("SemanticVectorCache stores fresh vectors only while the session is as read", () => {
  test("storeWhile false once the model answered: the vectors serve this read, nothing is written", async () => {
    const root = makeTempDir("semantic-store-while");
    const index = indexOf(facts);
    const embedder = heldEmbedder();
    let current = true;
    const filling = new SemanticVectorCache(embedder.receipt.id, root).poolOf("s", index, embedder, 4, factBudget(10), () => current);
    await settle();
    current = false; // e.g. a forget appended its tombstone while the model ran
    embedder.release();
    const pool = await filling;
    assert.equal(pool.embedded, facts.length);
    assert.ok(pool.vectors.every((vector) => vector !== undefined));
    const again = new SemanticVectorCache(embedder.receipt.id, root);
    const fresh = heldEmbedder();
    const read = again.poolOf("s", index, fresh, 4, factBudget(0));
    assert.equal((await read).vectors.filter((vector) => vector !== undefined).length, 0, "no vector was stored");
  });

  test("a closed cache stores nothing, even for an embedding already under way", async () => {
    const root = makeTempDir("semantic-store-closed");
    const index = indexOf(facts);
    const embedder = heldEmbedder();
    const cache = new SemanticVectorCache(embedder.receipt.id, root);
    const filling = cache.poolOf("s", index, embedder, 4, factBudget(10));
    await settle();
    cache.close();
    embedder.release();
    await filling;
    const reread = await new SemanticVectorCache(embedder.receipt.id, root).poolOf("s", index, heldEmbedder(), 4, factBudget(0));
    assert.equal(reread.vectors.filter((vector) => vector !== undefined).length, 0);
  });

  test("two fills of one pool run one after the other: no text is embedded twice", async () => {
    const root = makeTempDir("semantic-store-serial");
    const index = indexOf(facts);
    const embedder = heldEmbedder();
    const cache = new SemanticVectorCache(embedder.receipt.id, root);
    const first = cache.poolOf("s", index, embedder, 4, factBudget(2));
    const second = cache.poolOf("s", index, embedder, 4, factBudget(10));
    for (let i = 0; i < 3; i++) {
      await settle();
      embedder.release();
    }
    assert.equal((await first).embedded, 2);
    assert.equal((await second).embedded, facts.length - 2);
    assert.equal(new Set(embedder.texts).size, embedder.texts.length, JSON.stringify(embedder.texts));
    assert.equal(embedder.texts.length, facts.length);
    const reread = await new SemanticVectorCache(embedder.receipt.id, root).poolOf("s", index, heldEmbedder(), 4, factBudget(0));
    assert.equal(reread.vectors.filter((vector) => vector !== undefined).length, facts.length, "all stored once");
  });
});
