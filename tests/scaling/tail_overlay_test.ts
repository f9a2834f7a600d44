/**
 * Issue 14, tail catch-up piece 4: a session index at the log head built from an index at an
 * earlier head (in memory, or the on-disk read model) plus the tail's GraphDiff and events
 * answers every `SessionIndex` method exactly as `buildSessionIndex` over the rows and events at
 * the head: events, versions (a closed base version shows the tail's validTo), names, vector keys,
 * keyword and verbatim BM25 (same hits, bit-identical scores, same order), neighbours of every
 * position, folds, vectors and close.
 *
 * The session is the generated agent workload with hand-written events around it: a preference
 * changed in the tail (superseding a base version, whose relation is copied onto the new one), a
 * retraction closing a base relation, relations between base entities and from tail entities onto
 * base ones, a self-loop, and tail names equal to base names but for case.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { type MixedSession, mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import type { AppendItem } from "../../src/eventloom/append.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { readEvents } from "../../src/eventloom/replay.ts";
import { sessionLogPath } from "../../src/eventloom/root.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { foldLogRows } from "../../src/projection/foldLog.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import type { GraphDiff, SessionGraphRows } from "../../src/projection/types.ts";
import { extendVectorIndex, type SessionVectorIndex, syncVectorIndex, viewVectorIndexAt } from "../../src/projection/vectorIndex.ts";
import { exactCosineTop } from "../../src/projection/vectorIndex.ts";
import { openReadModel } from "../../src/readmodel/diskSessionIndex.ts";
import { rowsTailOverlayLookups, TailOverlayIndex } from "../../src/readmodel/tailOverlayIndex.ts";
import { writeReadModel } from "../../src/readmodel/writeReadModel.ts";
import { type Bm25Hit, Bm25Index } from "../../src/retrieval/bm25.ts";
import { buildSessionIndex, type SessionIndex } from "../../src/retrieval/sessionIndex.ts";
import { entitySearchText, keywordTerms, queryTerms, rawEventText } from "../../src/vector/textAnalysis.ts";
import { vectorLaneHits } from "../../src/retrieval/engine.ts";
import { hashEmbedMany } from "../../src/vector/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";
/** Small enough to build vector indexes quickly, large enough for hash collisions to be rare. */
const dim = 256;

/** An inferred edge between two named entities: asserted, or retracted (closing it). */
function edgeEvent(type: "inference.edge.generated" | "inference.edge.retracted", source: [string, string], target: [string, string], relationType: string): AppendItem {
  const retraction = type === "inference.edge.retracted" ? { valid_from: "2026-01-01T00:00:00Z", valid_to: "2026-01-02T00:00:00Z" } : {};
  return {
    type,
    actor: "agent",
    payload: fromJs({
      source: { name: source[0], entity_type: source[1] },
      target: { name: target[0], entity_type: target[1] },
      relation_type: relationType,
      ...retraction,
      confidence: 0.8,
      inference_method: "test",
    }),
  };
}

const inferred = (source: [string, string], target: [string, string], relationType: string) => edgeEvent("inference.edge.generated", source, target, relationType);
const retracted = (source: [string, string], target: [string, string], relationType: string) => edgeEvent("inference.edge.retracted", source, target, relationType);

function preference(user: string, key: string, value: string): AppendItem {
  return { type: "user.preference_changed", actor: user, payload: fromJs({ userId: user, key, value }) };
}

const drift: [string, string] = ["config drift", "cause"];
const pool: [string, string] = ["stale connection pool", "symptom"];
const spike: [string, string] = ["checkout latency spike", "symptom"];

/** Before the generated workload: facts and relations the tail then changes. */
const headItems: AppendItem[] = [
  preference("user-zed", "editor", "vim"),
  inferred(drift, pool, "causes"),
  inferred(pool, spike, "causes"),
  inferred(drift, spike, "correlates"),
  { type: "decision.made", actor: "agent", payload: fromJs({ decision: "Use quokka queues for the ledger", rationale: "quokka is rare in the base" }) },
];

/** The hand-written tail. */
const tailItems: AppendItem[] = [
  preference("user-zed", "editor", "helix"),
  retracted(drift, pool, "causes"),
  inferred(spike, drift, "explained_by"),
  inferred(["Config Drift", "cause"], pool, "mentions"),
  inferred(["STALE CONNECTION POOL", "finding"], spike, "causes"),
  inferred(pool, pool, "self_reinforces"),
  inferred(["quokka migration", "task"], drift, "fixes"),
  { type: "decision.made", actor: "agent", payload: fromJs({ decision: "Quokka quokka everywhere: move billing to quokka queues", rationale: "quokka quokka" }) },
  { type: "transcript.turn", actor: "user-zed", payload: fromJs({ role: "user", text: "why did the Config Drift cause the stale connection pool, quokka?" }) },
];

interface Session {
  mixed: MixedSession;
  events: EventRecord[];
  logPath: string;
  rowsAtHead: SessionGraphRows;
  full: SessionIndex;
  queries: string[][];
}

let session: Session;

before(async () => {
  const root = path.join(makeTempDir(), ".eventloom");
  const mixed = mixedSessionItems(300, 41);
  const logPath = await writeMixedSession(root, sessionId, [...headItems, ...mixed.items, ...tailItems]);
  const events = readEvents(logPath).events;
  const rowsAtHead = foldLogRows(sessionId, events);
  const full = buildSessionIndex(sessionId, rowsAtHead, events, null);
  const texts = [...rowsAtHead.entities.map(entitySearchText), ...events.map(rawEventText)];
  const vocabulary = [...new Set(texts.flatMap(keywordTerms))].sort();
  const handQueries = ["quokka", "quokka queues ledger", "config drift", "stale connection pool", "user-zed editor helix", "editor", "vim", "zzz-no-match", "the the the"];
  const queries = [
    ...[...sampleQueries(mixed, 40, 9), ...handQueries].map(queryTerms),
    // Every term alone, and pairs of neighbours in the vocabulary: df, idf and lengths all matter.
    ...vocabulary.map((term) => [term]),
    ...vocabulary.slice(1).map((term, i) => [vocabulary[i], term]),
  ];
  session = { mixed, events, logPath, rowsAtHead, full, queries };
}, slow);

/** The tail's diff folded on top of the rows at `k`, as the catch-up folds it. */
function tailDiff(rowsAtK: SessionGraphRows, tail: readonly EventRecord[]): GraphDiff {
  const fold = new GraphFold(sessionId, rowsAtK);
  for (const event of tail) fold.apply(event, extractEvent(event));
  return fold.diff()!;
}

/** `base` (at event `from`, whose rows are `rowsAtFrom`) with the events `from`..`to` on top. */
async function overlayTo(base: SessionIndex, rowsAtFrom: SessionGraphRows, from: number, to: number): Promise<TailOverlayIndex> {
  const tail = session.events.slice(from, to);
  const diff = tailDiff(rowsAtFrom, tail);
  const vectors = base.vectors === null ? null : await extendVectorIndex(base.vectors, diff.newEntities);
  return new TailOverlayIndex(base, diff, tail, session.full.folds, rowsTailOverlayLookups(rowsAtFrom), vectors);
}

async function overlayAt(k: number, base: SessionIndex): Promise<{ overlay: TailOverlayIndex; rowsAtK: SessionGraphRows }> {
  const rowsAtK = foldLogRows(sessionId, session.events.slice(0, k));
  return { overlay: await overlayTo(base, rowsAtK, k, session.events.length), rowsAtK };
}

/** Every method of `overlay` against the in-memory index at the head. */
function assertSameAnswers(overlay: SessionIndex, full: SessionIndex, what: string): void {
  assert.equal(overlay.sessionId, full.sessionId);
  assert.equal(overlay.eventCount, full.eventCount, `${what}: eventCount`);
  assert.equal(overlay.entityCount, full.entityCount, `${what}: entityCount`);
  for (let p = 0; p < full.eventCount; p++) assert.deepEqual(overlay.event(p), full.event(p), `${what}: event ${p}`);
  const n = full.eventCount;
  for (const [from, to] of [[0, n], [0, 1], [n - 1, n], [n - 12, n - 3], [5, n + 10], [3, 3], [7, 2]]) {
    assert.deepEqual(overlay.eventRange(from, to), full.eventRange(from, to), `${what}: eventRange(${from}, ${to})`);
  }
  for (let p = 0; p < full.entityCount; p++) assert.deepEqual(overlay.entity(p), full.entity(p), `${what}: entity ${p}`);
  const names = new Set(session.rowsAtHead.entities.map((entity) => entity.name.toLowerCase()));
  for (const name of [...names, "no such name", "Config Drift"]) assert.deepEqual([...overlay.namePositions(name)], [...full.namePositions(name)], `${what}: namePositions(${JSON.stringify(name)})`);
  for (const key of [-1, 0.5, full.entityCount, full.entityCount + 3, ...Array.from({ length: full.entityCount }, (_, i) => i)]) {
    assert.equal(overlay.positionOfVectorKey(key), full.positionOfVectorKey(key), `${what}: positionOfVectorKey(${key})`);
  }
  for (const terms of session.queries) {
    for (const limit of [1, 10, 10_000]) {
      assert.deepStrictEqual(overlay.keywordSearch(terms, limit), full.keywordSearch(terms, limit), `${what}: keywordSearch(${JSON.stringify(terms)}, ${limit})`);
      assert.deepStrictEqual(overlay.verbatimSearch(terms, limit), full.verbatimSearch(terms, limit), `${what}: verbatimSearch(${JSON.stringify(terms)}, ${limit})`);
    }
  }
  for (let p = -1; p <= full.entityCount; p++) {
    assert.deepEqual(overlay.neighbours(p, 10_000), full.neighbours(p, 10_000), `${what}: neighbours(${p})`);
    assert.deepEqual(overlay.neighbours(p, 1), full.neighbours(p, 1), `${what}: neighbours(${p}, 1)`);
  }
}

/** Splits: an empty base, inside the workload, just before the hand-written tail, one event short. */
function splits(): number[] {
  const n = session.events.length;
  return [0, headItems.length, Math.floor(n / 2), n - tailItems.length, n - 4, n - 1];
}

describe("tail overlay index (issue 14)", () => {
  test("the hand-written tail changes what the test needs it to change", () => {
    const k = session.events.length - tailItems.length;
    const diff = tailDiff(foldLogRows(sessionId, session.events.slice(0, k)), session.events.slice(k));
    assert.ok(diff.closedEntities.length >= 1, "a base preference version is superseded");
    assert.ok(diff.closedRelations.length >= 1, "a base relation is retracted");
    assert.ok(diff.newRelations.some((relation) => relation.sourceKey === relation.targetKey), "a self-loop");
    const rowsAtK = foldLogRows(sessionId, session.events.slice(0, k));
    const baseKeys = new Set(rowsAtK.entities.map((entity) => entity.nodeKey));
    assert.ok(diff.newRelations.some((relation) => relation.sourceEventSeq <= k), "a base relation copied onto a superseding version");
    assert.ok(diff.newRelations.some((relation) => baseKeys.has(relation.sourceKey) && baseKeys.has(relation.targetKey)), "a tail relation between base versions");
    assert.ok(diff.newRelations.some((relation) => baseKeys.has(relation.sourceKey) !== baseKeys.has(relation.targetKey)), "a tail relation from a tail version onto a base one");
    const baseNames = new Set(rowsAtK.entities.map((entity) => entity.name.toLowerCase()));
    assert.ok(diff.newEntities.some((entity) => baseNames.has(entity.name.toLowerCase()) && !rowsAtK.entities.some((base) => base.name === entity.name)), "a tail name equal to a base name but for case");
  });

  test("an overlay on an in-memory index at k answers every method as buildSessionIndex at the head, for several k", slow, async () => {
    for (const k of splits()) {
      const rowsAtK = foldLogRows(sessionId, session.events.slice(0, k));
      const base = buildSessionIndex(sessionId, rowsAtK, session.events.slice(0, k), null);
      const { overlay } = await overlayAt(k, base);
      assert.equal(overlay.folds, session.full.folds, "folds pass through");
      assertSameAnswers(overlay, session.full, `k=${k}`);
      // An overlay is itself a base: its corpora chain, so a second tail on top answers the same.
      const m = session.events.length - 2;
      if (k < m) {
        const first = await overlayTo(base, rowsAtK, k, m);
        const rowsAtM = foldLogRows(sessionId, session.events.slice(0, m));
        const stacked = await overlayTo(first, rowsAtM, m, session.events.length);
        assertSameAnswers(stacked, session.full, `k=${k} to ${m}, then to the head`);
      }
    }
  });

  test("scoring base and tail with their own statistics would give other scores (the comparison above can fail)", () => {
    const k = session.events.length - tailItems.length;
    const base = buildSessionIndex(sessionId, foldLogRows(sessionId, session.events.slice(0, k)), session.events.slice(0, k), null);
    const tail = new Bm25Index({ averageLengthFloor: 1 });
    for (const event of session.events.slice(k)) tail.add(rawEventText(event));
    const naive = (terms: string[]): Bm25Hit[] =>
      [...base.verbatimSearch(terms, 10_000), ...tail.search(terms, 10_000).map((hit) => ({ docId: hit.docId + k, score: hit.score }))]
        .sort((a, b) => b.score - a.score || a.docId - b.docId);
    const differing = session.queries.filter((terms) => JSON.stringify(naive(terms)) !== JSON.stringify(session.full.verbatimSearch(terms, 10_000)));
    assert.ok(differing.length > session.queries.length / 2, `per-corpus statistics differ on ${differing.length} of ${session.queries.length} queries`);
  });

  test("an overlay on the on-disk read model at k answers as buildSessionIndex at the head, vectors included, and closing it closes the read model", slow, async () => {
    const n = session.events.length;
    for (const k of [Math.floor(n / 2), n - tailItems.length]) {
      // A log of the first k events (the same bytes), with its read model and vector index at k.
      const root = path.join(makeTempDir(), ".eventloom");
      const logPath = sessionLogPath(root, sessionId);
      fs.mkdirSync(path.dirname(logPath), { recursive: true });
      const lines = fs.readFileSync(session.logPath, "utf8").split("\n");
      fs.writeFileSync(logPath, lines.slice(0, k).join("\n") + "\n");
      const eventsAtK = readEvents(logPath).events;
      assert.equal(eventsAtK.length, k);
      const rowsAtK = foldLogRows(sessionId, eventsAtK);
      await syncVectorIndex(root, sessionId, rowsAtK, eventsAtK, dim);
      assert.notEqual(writeReadModel(root, logPath, buildSessionIndex(sessionId, rowsAtK, eventsAtK, null), rowsAtK, eventsAtK), null);
      const opening = await openReadModel(root, sessionId, logPath, (manifest) => viewVectorIndexAt(root, sessionId, manifest.head, manifest.head.entityCount, dim));
      assert.equal(opening.status, "opened", JSON.stringify(opening));
      if (opening.status !== "opened") return;
      const { overlay } = await overlayAt(k, opening.index);
      assertSameAnswers(overlay, session.full, `disk k=${k}`);

      const fullVectors = await syncVectorIndex(path.join(makeTempDir(), ".eventloom"), sessionId, session.rowsAtHead, session.events, dim);
      const withVectors = buildSessionIndex(sessionId, session.rowsAtHead, session.events, fullVectors);
      assert.equal(overlay.vectors?.count, fullVectors.count);
      assert.equal(overlay.vectors?.dim, dim);
      // More versions than the lane's candidate window, so the lane searches the index.
      assert.ok(withVectors.entityCount > 200);
      for (const query of [...sampleQueries(session.mixed, 20, 4), "quokka migration", "STALE CONNECTION POOL finding", "user-zed editor helix"]) {
        assert.deepStrictEqual(vectorLaneHits(overlay, query, 50), vectorLaneHits(withVectors, query, 50), `vector lane, disk k=${k}: ${query}`);
      }
      let baseClosed = 0;
      const closeBase = opening.index.close.bind(opening.index);
      opening.index.close = () => {
        baseClosed++;
        closeBase();
      };
      overlay.close();
      assert.equal(baseClosed, 1, "closing the overlay closes the read model");
    }
  });

  test("the overlay's vector index is the base's extended as the full catch-up extends it: the same searches, keys and distances, and the lane's hits of a rebuild", slow, async () => {
    const root = path.join(makeTempDir(), ".eventloom");
    const small = mixedSessionItems(300, 5);
    const logPath = await writeMixedSession(root, sessionId, [...headItems, ...small.items, ...tailItems]);
    const events = readEvents(logPath).events;
    const rowsAtHead = foldLogRows(sessionId, events);
    const full = await syncVectorIndex(path.join(makeTempDir(), ".eventloom"), sessionId, rowsAtHead, events, dim);
    assert.ok(full.count > 200, "more versions than the largest limit asked");
    const queries = [...sampleQueries(small, 20, 8), "quokka migration", "config drift cause", "user-zed editor"];
    for (const k of [headItems.length, 30, events.length - tailItems.length, events.length - 1]) {
      const rowsAtK = foldLogRows(sessionId, events.slice(0, k));
      const atK = path.join(makeTempDir(), ".eventloom");
      await syncVectorIndex(atK, sessionId, rowsAtK, events.slice(0, k), dim);
      // The full path's catch-up of a copy: it loads the index at k and appends the tail's versions.
      const caughtUpRoot = path.join(makeTempDir(), ".eventloom");
      fs.cpSync(atK, caughtUpRoot, { recursive: true });
      const caughtUp = await syncVectorIndex(caughtUpRoot, sessionId, rowsAtHead, events, dim);
      assert.equal(caughtUp.action, "appended");
      const view = await viewVectorIndexAt(atK, sessionId, rowsAtK.head!, rowsAtK.entities.length, dim);
      const base = buildSessionIndex(sessionId, rowsAtK, events.slice(0, k), view);
      const tail = events.slice(k);
      const diff = tailDiff(rowsAtK, tail);
      const overlay = new TailOverlayIndex(base, diff, tail, base.folds, rowsTailOverlayLookups(rowsAtK), await extendVectorIndex(view, diff.newEntities));
      const vectors = overlay.vectors as SessionVectorIndex;
      assert.equal(vectors.count, full.count);
      assert.equal(vectors.index.size(), full.index.size());
      for (const query of queries) {
        const queryVector = hashEmbedMany([query], dim)[0];
        for (const limit of [5, 50, 200]) {
          const extended = exactCosineTop(vectors.index, queryVector, limit);
          assert.deepEqual(extended, exactCosineTop(caughtUp.index, queryVector, limit), `${query} (k=${k}, limit ${limit})`);
          assert.deepEqual(extended, exactCosineTop(full.index, queryVector, limit), `${query} (k=${k}, limit ${limit}): rebuilt`);
        }
        const rebuilt = buildSessionIndex(sessionId, rowsAtHead, events, full);
        assert.deepEqual(vectorLaneHits(overlay, query, 50), vectorLaneHits(rebuilt, query, 50), `vector lane: ${query} (k=${k})`);
      }
    }
  });
});
