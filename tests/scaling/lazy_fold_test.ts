/**
 * Issue 14, tail catch-up piece 1: `GraphFold.onLazyBase` folds a tail of events on top of a
 * `LazyFoldBase` (an identity's latest version and its current relations, asked for lazily)
 * and gives exactly the `GraphDiff` the whole-rows fold gives for the same tail: the same new
 * rows (vector keys, validity), the same closed rows, the same relation keys and order, the same
 * head counts. The base here is `rowsFoldBase` (rows in memory), the reference any on-disk base
 * must answer like.
 *
 * Sessions: the generated agent workload appended to a real log and read back, seeded random
 * logs with stale markers, self-loops and retractions, and hand-written tails for each rule that
 * reaches into the base (seeds printed; `ZAXY_PROPERTY_SEED=<n>` overrides them).
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { mixedSessionItems, writeMixedSession } from "../../src/bench/mixedSession.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { readEvents } from "../../src/eventloom/replay.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import type { LazyFoldBase } from "../../src/projection/lazyFoldBase.ts";
import { rowsFoldBase } from "../../src/projection/rowsFoldBase.ts";
import { entityNodeKey, type ExtractionResult, type GraphDiff, keySeparator, relationKey, type SessionGraphRows } from "../../src/projection/types.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { fakeEventRecord, fakeHash, fakeTimestamp } from "../testkit/eventRecord.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

after(removeTempDirs);

const session = "sess-lazy";
const hash = fakeHash;
const ts = fakeTimestamp;
const nodeKey = (type: string, name: string, seq: number) => entityNodeKey(session, type, name, seq);
const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

function record(seq: number, type: string, payload: Record<string, unknown>, actor = "agent-a"): EventRecord {
  return fakeEventRecord(seq, type, payload, { actor, thread: session });
}

/** An event and, where a test needs one no extractor produces, the extraction to apply instead. */
type TailStep = EventRecord | [EventRecord, ExtractionResult];

function foldInto(fold: GraphFold, steps: readonly TailStep[]): GraphFold {
  for (const step of steps) {
    const [event, extraction] = Array.isArray(step) ? step : [step, extractEvent(step)];
    fold.apply(event, extraction);
  }
  return fold;
}

/** `LazyFoldBase` calls, to show the fold asks about what the tail names and nothing else. */
function recordingBase(base: LazyFoldBase): { base: LazyFoldBase; identities: string[]; nodeKeys: string[] } {
  const identities: string[] = [];
  const nodeKeys: string[] = [];
  return {
    identities,
    nodeKeys,
    base: {
      head: base.head,
      latestVersion(entityType, name) {
        identities.push(entityType + keySeparator + name);
        return base.latestVersion(entityType, name);
      },
      currentRelationsOf(key) {
        nodeKeys.push(key);
        return base.currentRelationsOf(key);
      },
      positionOf: (key) => base.positionOf(key),
      currentRelationCountOf: (key) => base.currentRelationCountOf(key),
    },
  };
}

/**
 * Folds `steps[0..k)` whole, then the tail on those rows (whole-rows mode) and on
 * `rowsFoldBase(rows)` (lazy mode); asserts the diffs are deep-equal, the lazy fold left the
 * base rows untouched and asked about each named identity once, and the head counts are those of
 * a whole fold of every step. Returns the lazy diff.
 */
function checkTail(steps: readonly TailStep[], k: number, label: string): GraphDiff | null {
  const baseRows: SessionGraphRows = copy(foldInto(new GraphFold(session), steps.slice(0, k)).rows());
  const before = copy(baseRows);
  const whole = foldInto(new GraphFold(session, copy(baseRows)), steps.slice(k)).diff();
  const recorder = recordingBase(rowsFoldBase(baseRows));
  const lazy = foldInto(GraphFold.onLazyBase(session, recorder.base), steps.slice(k)).diff();
  assert.deepEqual(copy(lazy), copy(whole), `${label}, split ${k}: lazy diff equals the whole-rows diff`);
  assert.deepEqual(baseRows, before, `${label}, split ${k}: the lazy fold did not change the base's rows`);
  assert.equal(new Set(recorder.identities).size, recorder.identities.length, `${label}, split ${k}: each identity asked once`);
  const named = new Set<string>();
  for (const step of steps.slice(k)) {
    const extraction = Array.isArray(step) ? step[1] : extractEvent(step);
    for (const entity of extraction.entities) named.add(entity.entityType + keySeparator + entity.name);
    for (const edge of extraction.edges) for (const ref of [edge.source, edge.target]) named.add(ref.entityType + keySeparator + ref.name);
  }
  assert.deepEqual(new Set(recorder.identities), named, `${label}, split ${k}: the base is asked about the tail's identities only`);
  const fullHead = foldInto(new GraphFold(session), steps).rows().head;
  assert.deepEqual(lazy?.head ?? baseRows.head, fullHead, `${label}, split ${k}: head with counts equals a whole fold's`);
  return lazy;
}

describe("design: a tail folded on a lazy base gives the whole-rows diff", () => {
  test("issue 14: a tail of new decisions by a stored actor reads none of the actor's relations (a hub), and still equals the whole-rows diff", () => {
    const history = Array.from({ length: 300 }, (_, i) => record(i + 1, "decision.made", { decision: `stored decision ${i}` }));
    const tail = [record(301, "decision.made", { decision: "a new decision" }), record(302, "decision.made", { decision: "another new decision" })];
    const rows = foldInto(new GraphFold(session), history).rows();
    const actor = rows.entities.find((entity) => entity.entityType === "actor" && entity.name === "agent-a");
    assert.ok(actor !== undefined, "the stored actor");
    assert.ok(rowsFoldBase(rows).currentRelationsOf(actor.nodeKey).length >= 300, "the actor is a hub");
    const recorder = recordingBase(rowsFoldBase(copy(rows)));
    const lazy = foldInto(GraphFold.onLazyBase(session, recorder.base), tail).diff();
    assert.deepEqual(copy(lazy), copy(foldInto(new GraphFold(session, copy(rows)), tail).diff()));
    assert.ok(!recorder.nodeKeys.includes(actor.nodeKey), `the hub's relations were read: ${recorder.nodeKeys.length} reads`);
  });

  test("issue 14: generated agent sessions appended to a log, split at several points", async () => {
    for (const seed of [7, 11, 2026]) {
      const root = makeTempDir("zaxy-lazy-fold");
      const generated = mixedSessionItems(400, seed);
      const logPath = await writeMixedSession(root, session, generated.items);
      const events = readEvents(logPath).events;
      assert.equal(events.length, 400);
      const rng = new Rng(propertySeed(seed));
      const splits = [1, 2, 200, 399, 400, ...Array.from({ length: 6 }, () => rng.range(3, 398))];
      let closedBase = 0;
      for (const k of splits) {
        const diff = checkTail(events, k, `mixed seed ${seed}`);
        closedBase += (diff?.closedEntities.length ?? 0) + (diff?.closedRelations.length ?? 0);
      }
      assert.ok(closedBase > 0, `mixed seed ${seed}: some tail closed base rows`);
    }
  });

  const users = ["u1", "u2"];
  const decisions = ["D1", "D2", "D3"];
  const tasks = ["T1", "T2", "T3"];
  const refPool = [
    ...tasks.map((name) => ({ name, entity_type: "task" })),
    ...decisions.map((name) => ({ name, entity_type: "decision" })),
    { name: "G1", entity_type: "goal" },
    { name: "ghost", entity_type: "concept" },
  ];

  /** `edges`: the edges generated so far, which retractions mostly aim at. */
  function randomEvent(rng: Rng, seq: number, edges: object[]): EventRecord {
    const maybe = <T>(value: T, p = 0.7): T | undefined => (rng.chance(p) ? value : undefined);
    switch (rng.int(10)) {
      case 0:
      case 1:
        return record(seq, "user.preference_changed", { userId: rng.pick(users), key: rng.pick(["theme", "lang"]), value: rng.pick(["a", "b", "c"]) });
      case 2:
        // Stale markers retire the decision; a plain restatement brings it back.
        return record(seq, "decision.made", { decision: rng.pick(decisions), summary: maybe(rng.pick(["why", "because"])), stale: maybe(true, 0.3) });
      case 3:
        return record(seq, "task.proposed", { taskId: rng.pick(tasks), summary: maybe(rng.pick(["s1", "s2"])), goalTitle: maybe("G1", 0.5) });
      case 4:
        return record(seq, "task.completed", { taskId: rng.pick(tasks), summary: maybe("done", 0.5) }, rng.pick(["agent-a", "agent-b"]));
      case 5:
        return record(seq, "memory.reinforced", { entity_name: rng.pick(decisions), entity_type: "decision", summary: maybe("reinforced", 0.4) });
      case 6:
        return record(seq, "goal.created", { title: "G1", description: maybe(rng.pick(["ship", "polish"])), superseded_by: maybe("G2", 0.2) });
      default: {
        const retraction = rng.chance(0.4);
        let edge: object;
        if (retraction && edges.length > 0 && rng.chance(0.8)) edge = rng.pick(edges);
        else {
          const source = rng.pick(refPool);
          // Self-loops too.
          edge = { source, target: rng.chance(0.2) ? source : rng.pick(refPool), relation_type: rng.pick(["relates_to", "likely_implemented_decision"]) };
          if (!retraction) edges.push(edge);
        }
        return retraction
          ? record(seq, "inference.edge.retracted", { ...edge, valid_from: ts(1), valid_to: ts(seq), confidence: 0, inference_method: "m2" }, "zaxy-inference")
          : record(seq, "inference.edge.generated", { ...edge, confidence: rng.pick([0.5, 0.86]), inference_method: "m1", evidence: { n: rng.int(3) } }, "zaxy-inference");
      }
    }
  }

  for (const defaultSeed of [0x1a2f_01d, 20261125, 3]) {
    test(`issue 14: seeded random logs with stale markers, self-loops and retractions, every 5th split (default seed ${defaultSeed})`, () => {
      const seed = propertySeed(defaultSeed);
      const rng = new Rng(seed);
      const edges: object[] = [];
      const log = Array.from({ length: 200 }, (_, i) => randomEvent(rng, i + 1, edges));
      const full = foldInto(new GraphFold(session), log).rows();
      assert.ok(full.entities.some((e) => e.validTo !== null && e.propertiesJson.includes('"stale":true')), `seed ${seed}: some entity was retired`);
      assert.ok(full.relations.some((r) => r.sourceKey === r.targetKey), `seed ${seed}: some self-loop`);
      let closedEntities = 0;
      let closedRelations = 0;
      const splits = [...Array.from({ length: 40 }, (_, i) => 1 + i * 5), 199, 200];
      for (const k of splits) {
        const diff = checkTail(log, k, `seed ${seed}`);
        closedEntities += diff?.closedEntities.length ?? 0;
        closedRelations += diff?.closedRelations.length ?? 0;
      }
      assert.ok(closedEntities > 0 && closedRelations > 0, `seed ${seed}: tails closed base rows (${closedEntities} entities, ${closedRelations} relations)`);
    });
  }
});

describe("design: each rule that reaches into the base, on a lazy base", () => {
  const generated = (source: string, sourceType: string, target: string, targetType: string, relationType = "relates_to") => ({
    source: { name: source, entity_type: sourceType },
    target: { name: target, entity_type: targetType },
    relation_type: relationType,
  });
  const t1d1 = generated("T1", "task", "D1", "decision", "likely_implemented_decision");
  const loop = generated("D1", "decision", "D1", "decision");
  const gen = (seq: number, edge: object) => record(seq, "inference.edge.generated", { ...edge, confidence: 0.86, inference_method: "m1", evidence: { seq } }, "zaxy-inference");
  const retract = (seq: number, edge: object) =>
    record(seq, "inference.edge.retracted", { ...edge, valid_from: ts(1), valid_to: ts(seq), confidence: 0, inference_method: "m2" }, "zaxy-inference");
  const pref = (seq: number, value: string) => record(seq, "user.preference_changed", { userId: "u1", key: "theme", value });
  const decision = (seq: number, name: string, payload: Record<string, unknown>) => record(seq, "decision.made", { decision: name, ...payload });
  // Seqs 1..9; every tail below starts at seq 10.
  const base = [
    pref(1, "dark"),
    record(2, "task.proposed", { taskId: "T1", summary: "impl", goalTitle: "G" }),
    decision(3, "D1", { summary: "use kuzu" }),
    gen(4, t1d1),
    decision(5, "D2", { summary: "old" }),
    gen(6, loop),
    decision(7, "D3", { summary: "gone", stale: true }),
    gen(8, generated("T1", "task", "D2", "decision")),
    record(9, "goal.created", { title: "G", description: "first" }),
  ];
  const check = (tail: TailStep[], label: string) => {
    const diff = checkTail([...base, ...tail], base.length, label);
    assert.ok(diff !== null);
    return diff;
  };

  test("a preference change supersedes a base version and carries its relation onto the new one", () => {
    const diff = check([pref(10, "light")], "preference change");
    assert.deepEqual(diff.closedEntities, [{ nodeKey: nodeKey("preference", "u1:theme", 1), validTo: ts(10) }]);
    assert.deepEqual(diff.newRelations.map((r) => [r.relKey, r.sourceKey, r.targetKey, r.sourceEventSeq]), [
      [relationKey(session, 10, 0), nodeKey("user", "u1", 1), nodeKey("preference", "u1:theme", 10), 1],
    ]);
    assert.equal(diff.newEntities[0].vectorKey, diff.previousHead!.entityCount);
  });

  test("an edge retraction closes a base relation", () => {
    const diff = check([retract(10, t1d1)], "retraction");
    assert.deepEqual(diff.closedRelations, [{ relKey: relationKey(session, 4, 0), validTo: ts(10) }]);
    assert.equal(diff.head.currentRelationCount, diff.previousHead!.currentRelationCount - 1);
  });

  test("a stale marker retires a base entity (its relations copied onto the closed version), then a restatement makes it current", () => {
    const diff = check([decision(10, "D2", { summary: "old", stale: true }), decision(11, "D2", { summary: "back" })], "stale then restated");
    assert.deepEqual(diff.closedEntities, [{ nodeKey: nodeKey("decision", "D2", 5), validTo: ts(10) }]);
    assert.deepEqual(diff.newEntities.filter((e) => e.entityType === "decision").map((e) => [e.sourceEventSeq, e.validTo]), [
      [10, ts(10)],
      [11, null],
    ]);
    assert.ok(diff.newRelations.some((r) => r.sourceKey === nodeKey("task", "T1", 2) && r.targetKey === nodeKey("decision", "D2", 10)), "T1→D2 copied onto the retired version");
  });

  test("an edge lands on an entity the base retired, without a new version", () => {
    const diff = check([gen(10, generated("T1", "task", "D3", "decision"))], "edge on retired");
    assert.deepEqual(diff.newEntities, []);
    assert.deepEqual(diff.newRelations.map((r) => r.targetKey), [nodeKey("decision", "D3", 7)]);
    // Retired in the tail itself, then an edge lands on it: on the tail's closed version.
    const inTail = check([decision(10, "D1", { summary: "use kuzu", stale: true }), gen(11, generated("T1", "task", "D1", "decision"))], "retired in tail");
    assert.ok(inTail.newRelations.some((r) => r.sourceEventSeq === 11 && r.targetKey === nodeKey("decision", "D1", 10)));
  });

  test("two versions of a base entity from one event merge into one version carrying the base relations", () => {
    const event = decision(10, "D1", { summary: "v2" });
    const extraction = extractEvent(event);
    const d1 = extraction.entities.find((e) => e.entityType === "decision")!;
    const twice: ExtractionResult = { ...extraction, entities: [...extraction.entities, { ...d1, summary: "v3", properties: { v: 3 } }] };
    const diff = check([[event, twice]], "two versions");
    assert.deepEqual(diff.newEntities.filter((e) => e.entityType === "decision").map((e) => [e.nodeKey, e.summary]), [[nodeKey("decision", "D1", 10), "v3"]]);
    assert.deepEqual(diff.closedEntities, [{ nodeKey: nodeKey("decision", "D1", 3), validTo: ts(10) }]);
  });

  test("a base self-loop is copied once onto a new version, and a retraction of a base self-loop closes it", () => {
    const d1 = nodeKey("decision", "D1", 10);
    const superseded = check([decision(10, "D1", { summary: "changed" })], "self-loop copied");
    assert.deepEqual(superseded.newRelations.filter((r) => r.sourceKey === d1 && r.targetKey === d1).map((r) => r.relationType), ["relates_to"]);
    const closed = check([retract(10, loop)], "self-loop retracted");
    assert.deepEqual(closed.closedRelations, [{ relKey: relationKey(session, 6, 0), validTo: ts(10) }]);
    // Superseded, then the retraction closes the copy (a new row), not the base row.
    const both = check([decision(10, "D1", { summary: "changed" }), retract(11, loop)], "self-loop copied then retracted");
    assert.deepEqual(both.closedRelations, []);
  });

  test("a relation whose endpoints are both superseded by the tail: copies in whole-rows relation order", () => {
    // T1's new version copies T1→D1 before D1 is loaded; D1's new version then copies D1's
    // relations in relation order: the base ones first, then T1'→D1.
    const diff = check([record(10, "task.completed", { taskId: "T1", summary: "done" }), decision(11, "D1", { summary: "again" })], "both endpoints");
    const t1 = nodeKey("task", "T1", 2);
    const t1New = nodeKey("task", "T1", 10);
    const d1New = nodeKey("decision", "D1", 11);
    const copiesOntoD1 = diff.newRelations.filter((r) => r.sourceEventSeq !== 11 && r.relKey.split(keySeparator)[1] === "11" && r.targetKey === d1New);
    assert.deepEqual(copiesOntoD1.map((r) => [r.sourceKey, r.relationType]), [
      [nodeKey("actor", "agent-a", 2), "made_decision"],
      [t1, "likely_implemented_decision"],
      [d1New, "relates_to"],
      [t1New, "likely_implemented_decision"],
    ]);
    // And the other order: D1 first, then T1.
    check([decision(10, "D1", { summary: "again" }), record(11, "task.completed", { taskId: "T1", summary: "done" })], "both endpoints, other order");
  });

  test("a base that does not answer relations gives a different diff (the comparison sees them)", () => {
    const rows = foldInto(new GraphFold(session), base).rows();
    const tail = [pref(10, "light")];
    const whole = foldInto(new GraphFold(session, copy(rows)), tail).diff();
    const rowsBase = rowsFoldBase(copy(rows));
    const forgetful: LazyFoldBase = { ...rowsBase, currentRelationsOf: () => [] };
    const lazy = foldInto(GraphFold.onLazyBase(session, forgetful), tail).diff();
    assert.notDeepEqual(copy(lazy), copy(whole));
  });
});

describe("rowsFoldBase answers the LazyFoldBase contract from rows", () => {
  test("latest version (current, else the retired one), current relations in relation order with a self-loop once, positions", () => {
    const events = [
      record(1, "decision.made", { decision: "D1", summary: "a" }),
      record(2, "decision.made", { decision: "D1", summary: "b" }),
      record(3, "decision.made", { decision: "D2", summary: "x" }),
      record(4, "decision.made", { decision: "D2", summary: "y", stale: true }),
      record(5, "inference.edge.generated", { source: { name: "D1", entity_type: "decision" }, target: { name: "D1", entity_type: "decision" }, relation_type: "relates_to", confidence: 1, inference_method: "m" }),
      record(6, "inference.edge.generated", { source: { name: "D2", entity_type: "decision" }, target: { name: "D1", entity_type: "decision" }, relation_type: "relates_to", confidence: 1, inference_method: "m" }),
    ];
    const rows = foldInto(new GraphFold(session), events).rows();
    const base = rowsFoldBase(rows);
    assert.equal(base.head, rows.head);
    assert.equal(base.latestVersion("decision", "D1")?.nodeKey, nodeKey("decision", "D1", 2));
    assert.deepEqual([base.latestVersion("decision", "D2")?.nodeKey, base.latestVersion("decision", "D2")?.validTo], [nodeKey("decision", "D2", 4), ts(4)]);
    assert.equal(base.latestVersion("decision", "D9"), null);
    const d1 = nodeKey("decision", "D1", 2);
    assert.deepEqual(base.currentRelationsOf(d1).map((r) => [r.sourceKey, r.targetKey, r.relationType]), [
      [nodeKey("actor", "agent-a", 1), d1, "made_decision"],
      [d1, d1, "relates_to"],
      [nodeKey("decision", "D2", 4), d1, "relates_to"],
    ]);
    assert.deepEqual(base.currentRelationsOf("no such key"), []);
    for (const row of rows.entities) assert.equal(base.positionOf(row.nodeKey), row.vectorKey);
    assert.equal(base.positionOf("no such key"), undefined);
  });
});

describe("lazy base: what it refuses", () => {
  test("rows() on a lazy fold, a base of another session and rows without a head are refused with a clear error", () => {
    const rows = foldInto(new GraphFold(session), [record(1, "goal.created", { title: "G" })]).rows();
    const fold = GraphFold.onLazyBase(session, rowsFoldBase(rows));
    assert.throws(() => fold.rows(), /rows\(\) is not available on a lazy base/);
    assert.throws(() => GraphFold.onLazyBase("other", rowsFoldBase(rows)), /the base head is session "sess-lazy", not "other"/);
    assert.throws(() => rowsFoldBase({ entities: [], relations: [], head: null }), /a lazy base needs a projection head/);
    assert.equal(fold.diff(), null, "nothing applied yet");
    assert.throws(() => fold.apply(record(1, "goal.created", { title: "G" }), extractEvent(record(1, "goal.created", { title: "G" }))), /event 1 is not after the head 1/);
  });
});
