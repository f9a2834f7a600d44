/**
 * The temporal-validity fold (src/projection/graphFold.ts; DESIGN §4, reference §2.3), driven by
 * hand-built events through `extractEvent`: entity versions and their validity intervals,
 * no-op restatements, relation copying onto new versions, bare endpoint versions, retractions,
 * the incremental diff, and that an incremental catch-up from stored rows gives exactly the rows
 * of a full reproject (seeded random logs; seed printed, `ZAXY_PROPERTY_SEED=<n>` overrides it).
 */
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import { type EntityRow, entityNodeKey, type ExtractionResult, type GraphDiff, type RelationRow, type SessionGraphRows } from "../../src/projection/types.ts";
import { fakeEventRecord, fakeHash, fakeTimestamp } from "../testkit/eventRecord.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";

const session = "sess-1";
const sep = "\x1f";
const hash = fakeHash;
const ts = fakeTimestamp;
const nodeKey = (type: string, name: string, seq: number) => entityNodeKey(session, type, name, seq);
const relKey = (seq: number, ordinal: number) => [session, String(seq), String(ordinal)].join(sep);

function record(seq: number, type: string, payload: Record<string, unknown>, actor = "agent-a"): EventRecord {
  return fakeEventRecord(seq, type, payload, { actor, thread: session });
}

type Spec = [type: string, payload: Record<string, unknown>, actor?: string];

/** Events with seq `first`, `first + 1`, … and ascending timestamps. */
function events(specs: Spec[], first = 1): EventRecord[] {
  return specs.map(([type, payload, actor], i) => record(first + i, type, payload, actor));
}

function foldInto(fold: GraphFold, records: EventRecord[]): GraphFold {
  for (const r of records) fold.apply(r, extractEvent(r));
  return fold;
}

const fold = (records: EventRecord[], base?: SessionGraphRows) => foldInto(new GraphFold(session, base), records);

const copy = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const versionsOf = (rows: SessionGraphRows, type: string, name: string) =>
  rows.entities.filter((e) => e.entityType === type && e.name === name);

const entityRow = (fields: Partial<EntityRow> & Pick<EntityRow, "entityType" | "name" | "sourceEventSeq" | "vectorKey">): EntityRow => ({
  nodeKey: nodeKey(fields.entityType, fields.name, fields.sourceEventSeq),
  sessionId: session,
  summary: null,
  propertiesJson: "{}",
  validFrom: ts(fields.sourceEventSeq),
  validTo: null,
  sourceEventHash: hash(fields.sourceEventSeq),
  ...fields,
});

const observed = (
  seq: number,
  ordinal: number,
  sourceKey: string,
  targetKey: string,
  relationType: string,
  validFrom = ts(seq),
  /** The event the relation cites: a copy onto a new version keeps its original event's. */
  citedSeq = seq,
): RelationRow => ({
  relKey: relKey(seq, ordinal),
  sessionId: session,
  sourceKey,
  targetKey,
  relationType,
  validFrom,
  validTo: null,
  inferred: false,
  confidence: 1,
  inferenceMethod: null,
  sourceEventSeq: citedSeq,
  sourceEventHash: hash(citedSeq),
  evidenceJson: "{}",
});

/** The base rows with a diff applied, as a store would: append new rows, close named rows. */
function applyDiff(base: SessionGraphRows, diff: GraphDiff | null, message: string): SessionGraphRows {
  const out = copy(base);
  if (diff === null) return out;
  assert.deepEqual(diff.previousHead, base.head, `${message}: previousHead`);
  for (const { nodeKey, validTo } of diff.closedEntities) {
    const row = out.entities.find((e) => e.nodeKey === nodeKey);
    assert.ok(row !== undefined, `${message}: closed entity ${JSON.stringify(nodeKey)} is not in the base`);
    assert.equal(row.validTo, null, `${message}: closed entity ${JSON.stringify(nodeKey)} was already closed in the base`);
    row.validTo = validTo;
  }
  for (const { relKey, validTo } of diff.closedRelations) {
    const row = out.relations.find((r) => r.relKey === relKey);
    assert.ok(row !== undefined, `${message}: closed relation ${JSON.stringify(relKey)} is not in the base`);
    assert.equal(row.validTo, null, `${message}: closed relation ${JSON.stringify(relKey)} was already closed in the base`);
    row.validTo = validTo;
  }
  out.entities.push(...copy(diff.newEntities));
  out.relations.push(...copy(diff.newRelations));
  out.head = copy(diff.head);
  return out;
}

const pref = (value: string, user = "u1", key = "theme"): Spec => ["user.preference_changed", { userId: user, key, value }];

describe("entity versions", () => {
  test("a preference changed three times has three versions chained by validity; nothing is deleted", () => {
    const rows = fold(events([pref("dark"), pref("light"), pref("solarized")])).rows();
    const props = (value: string) => JSON.stringify({ key: "theme", user: "u1", value });
    assert.deepEqual(rows.entities, [
      entityRow({ entityType: "user", name: "u1", sourceEventSeq: 1, vectorKey: 0 }),
      entityRow({ entityType: "preference", name: "u1:theme", sourceEventSeq: 1, vectorKey: 1, summary: "theme=dark", propertiesJson: props("dark"), validTo: ts(2) }),
      entityRow({ entityType: "preference", name: "u1:theme", sourceEventSeq: 2, vectorKey: 2, summary: "theme=light", propertiesJson: props("light"), validTo: ts(3) }),
      entityRow({ entityType: "preference", name: "u1:theme", sourceEventSeq: 3, vectorKey: 3, summary: "theme=solarized", propertiesJson: props("solarized") }),
    ]);
    assert.match(rows.entities[1].nodeKey, /^sess-1\x1f[0-9a-f]{24}$/);
    assert.equal(rows.entities[1].nodeKey, entityNodeKey("sess-1", "preference", "u1:theme", 1));
    const versions = versionsOf(rows, "preference", "u1:theme");
    assert.deepEqual(versions.map((v) => v.validTo), [versions[1].validFrom, versions[2].validFrom, null]);
    // The user→preference edge is created once, then carried onto each new version.
    const user = nodeKey("user", "u1", 1);
    assert.deepEqual(rows.relations, [
      observed(1, 0, user, nodeKey("preference", "u1:theme", 1), "has_theme"),
      observed(2, 0, user, nodeKey("preference", "u1:theme", 2), "has_theme", ts(1), 1),
      observed(3, 0, user, nodeKey("preference", "u1:theme", 3), "has_theme", ts(1), 1),
    ]);
    assert.deepEqual(rows.head, { sessionId: session, seq: 3, hash: hash(3), eventCount: 3, entityCount: 4, currentEntityCount: 2, relationCount: 3, currentRelationCount: 3,
    });
  });

  test("vector keys are 0..n-1 in insertion order and node keys are session/type/name/seq", () => {
    const rows = fold(events([pref("a"), ["goal.created", { title: "G" }], pref("b", "u2"), pref("c"), ["decision.made", { decision: "D" }]])).rows();
    assert.deepEqual(rows.entities.map((e) => e.vectorKey), [...rows.entities.keys()]);
    assert.deepEqual(
      rows.entities.map((e) => e.nodeKey),
      [
        nodeKey("user", "u1", 1),
        nodeKey("preference", "u1:theme", 1),
        nodeKey("goal", "G", 2),
        nodeKey("actor", "agent-a", 2),
        nodeKey("user", "u2", 3),
        nodeKey("preference", "u2:theme", 3),
        nodeKey("preference", "u1:theme", 4),
        nodeKey("decision", "D", 5),
      ],
    );
    for (const e of rows.entities) assert.equal(e.nodeKey, entityNodeKey(e.sessionId, e.entityType, e.name, e.sourceEventSeq));
  });

  test("an identical repeated event creates no new version and no new relation", () => {
    const once = fold(events([pref("dark")])).rows();
    const twice = fold(events([pref("dark"), pref("dark")])).rows();
    assert.deepEqual(twice.entities, once.entities);
    assert.deepEqual(twice.relations, once.relations);
    assert.deepEqual(twice.head, { sessionId: session, seq: 2, hash: hash(2), eventCount: 2, entityCount: 2, currentEntityCount: 2, relationCount: 1, currentRelationCount: 1,
    });
    // Back to an earlier value is a change again: a third version.
    const back = fold(events([pref("dark"), pref("light"), pref("dark")])).rows();
    assert.deepEqual(versionsOf(back, "preference", "u1:theme").map((v) => [v.summary, v.validTo]), [
      ["theme=dark", ts(2)],
      ["theme=light", ts(3)],
      ["theme=dark", null],
    ]);
  });

  test("actor entities never version", () => {
    const rows = fold(
      events([
        ["goal.created", { title: "G1", description: "one" }],
        ["task.proposed", { taskId: "T1", summary: "t" }],
        ["decision.made", { decision: "D1" }],
        ["goal.created", { title: "G1", description: "two" }],
        ["task.completed", { taskId: "T1", summary: "done" }],
      ]),
    ).rows();
    assert.deepEqual(versionsOf(rows, "actor", "agent-a"), [entityRow({ entityType: "actor", name: "agent-a", sourceEventSeq: 1, vectorKey: 1 })]);
    assert.equal(versionsOf(rows, "goal", "G1").length, 2);
    assert.equal(versionsOf(rows, "task", "T1").length, 2);
  });

  test("two versions of one entity emitted by one event merge into that event's version", () => {
    const [r1, r2] = events([pref("dark"), pref("light")]);
    const f = fold([r1]);
    const base = extractEvent(r2);
    const preference = base.entities.find((e) => e.entityType === "preference")!;
    const twice: ExtractionResult = { ...base, entities: [...base.entities, { ...preference, summary: "theme=final", properties: { v: 2 } }] };
    f.apply(r2, twice);
    assert.deepEqual(versionsOf(f.rows(), "preference", "u1:theme").map((v) => [v.nodeKey, v.summary, v.propertiesJson, v.validTo]), [
      [nodeKey("preference", "u1:theme", 1), "theme=dark", JSON.stringify({ key: "theme", user: "u1", value: "dark" }), ts(2)],
      [nodeKey("preference", "u1:theme", 2), "theme=final", '{"v":2}', null],
    ]);
  });
});

describe("relations across versions", () => {
  test("the relations of a superseded version are copied onto the new version; the old ones are kept", () => {
    const rows = fold(
      events([
        ["goal.created", { title: "G", description: "first" }],
        ["task.proposed", { taskId: "T1", summary: "build", goalTitle: "G" }],
        ["goal.created", { title: "G", description: "second" }],
      ]),
    ).rows();
    const actor = nodeKey("actor", "agent-a", 1);
    const g1 = nodeKey("goal", "G", 1);
    const g3 = nodeKey("goal", "G", 3);
    const t1 = nodeKey("task", "T1", 2);
    assert.deepEqual(rows.entities, [
      entityRow({ entityType: "goal", name: "G", sourceEventSeq: 1, vectorKey: 0, summary: "first", validTo: ts(3) }),
      entityRow({ entityType: "actor", name: "agent-a", sourceEventSeq: 1, vectorKey: 1 }),
      entityRow({ entityType: "task", name: "T1", sourceEventSeq: 2, vectorKey: 2, summary: "build", propertiesJson: '{"taskId":"T1"}' }),
      entityRow({ entityType: "goal", name: "G", sourceEventSeq: 3, vectorKey: 3, summary: "second" }),
    ]);
    assert.deepEqual(rows.relations, [
      observed(1, 0, actor, g1, "created_goal"),
      observed(2, 0, actor, t1, "proposed_task"),
      observed(2, 1, g1, t1, "has_task"),
      // Copied by event 3, keeping the original validity start, evidence and citation.
      observed(3, 0, actor, g3, "created_goal", ts(1), 1),
      observed(3, 1, g3, t1, "has_task", ts(2), 2),
    ]);
    // Traversal from current facts: the relations between current versions.
    const current = new Set(rows.entities.filter((e) => e.validTo === null).map((e) => e.nodeKey));
    const currentRelations = rows.relations
      .filter((r) => r.validTo === null && current.has(r.sourceKey) && current.has(r.targetKey))
      .map((r) => [r.sourceKey, r.relationType, r.targetKey]);
    assert.deepEqual(currentRelations, [
      [actor, "proposed_task", t1],
      [actor, "created_goal", g3],
      [g3, "has_task", t1],
    ]);
  });

  test("an edge to a missing entity creates a bare version that a later real entity closes", () => {
    const rows = fold(
      events([
        ["task.claimed", { taskId: "T9" }],
        ["task.proposed", { taskId: "T9", summary: "Write docs" }],
      ]),
    ).rows();
    const actor = nodeKey("actor", "agent-a", 1);
    assert.deepEqual(rows.entities, [
      entityRow({ entityType: "actor", name: "agent-a", sourceEventSeq: 1, vectorKey: 0 }),
      entityRow({ entityType: "task", name: "T9", sourceEventSeq: 1, vectorKey: 1, summary: null, propertiesJson: "{}", validTo: ts(2) }),
      entityRow({ entityType: "task", name: "T9", sourceEventSeq: 2, vectorKey: 2, summary: "Write docs", propertiesJson: '{"taskId":"T9"}' }),
    ]);
    assert.deepEqual(rows.relations, [
      observed(1, 0, actor, nodeKey("task", "T9", 1), "claimed_task"),
      observed(2, 0, actor, nodeKey("task", "T9", 2), "claimed_task", ts(1), 1),
      observed(2, 1, actor, nodeKey("task", "T9", 2), "proposed_task"),
    ]);
  });

  const edgeRefs = { source: { name: "T1", entity_type: "task" }, target: { name: "D1", entity_type: "decision" }, relation_type: "likely_implemented_decision" };
  const generated: Spec = [
    "inference.edge.generated",
    { ...edgeRefs, confidence: 0.86, inference_method: "task_completed_decision_citation_v1", evidence: { reason: "cited" } },
    "zaxy-inference",
  ];
  const retracted = (validTo: string): Spec => [
    "inference.edge.retracted",
    { ...edgeRefs, valid_from: ts(3), valid_to: validTo, confidence: 0, inference_method: "contradicting_evidence_retraction_v1" },
    "zaxy-inference",
  ];
  const setup: Spec[] = [
    ["task.proposed", { taskId: "T1", summary: "impl" }],
    ["decision.made", { decision: "D1", summary: "use kuzu" }],
  ];
  const inferred = (validTo: string | null): RelationRow => ({
    relKey: relKey(3, 0),
    sessionId: session,
    sourceKey: nodeKey("task", "T1", 1),
    targetKey: nodeKey("decision", "D1", 2),
    relationType: "likely_implemented_decision",
    validFrom: ts(3),
    validTo,
    inferred: true,
    confidence: 0.86,
    inferenceMethod: "task_completed_decision_citation_v1",
    sourceEventSeq: 3,
    sourceEventHash: hash(3),
    evidenceJson: '{"reason":"cited"}',
  });

  test("inference.edge.generated then .retracted closes the edge at the retraction's valid_to", () => {
    const rows = fold(events([...setup, generated, retracted(ts(4))])).rows();
    assert.deepEqual(rows.relations.filter((r) => r.inferred), [inferred(ts(4))]);
    assert.equal(rows.entities.length, 3, "the retraction adds no entity versions");
    // Generating it again after the retraction opens a new relation.
    const again = fold(events([...setup, generated, retracted(ts(4)), generated])).rows();
    assert.deepEqual(again.relations.filter((r) => r.inferred).map((r) => [r.relKey, r.validTo]), [
      [relKey(3, 0), ts(4)],
      [relKey(5, 0), null],
    ]);
  });

  test("an incremental fold's diff lists a retracted base edge in closedRelations", () => {
    const [s1, s2, gen, ret] = events([...setup, generated, retracted(ts(4))]);
    const base = copy(fold([s1, s2, gen]).rows());
    assert.deepEqual(base.relations.filter((r) => r.inferred), [inferred(null)]);
    const incremental = fold([ret], copy(base));
    const diff = incremental.diff();
    assert.ok(diff !== null);
    assert.deepEqual(diff.closedRelations, [{ relKey: relKey(3, 0), validTo: ts(4) }]);
    assert.deepEqual(diff.closedEntities, []);
    assert.deepEqual(diff.newEntities, []);
    assert.deepEqual(diff.newRelations, []);
    assert.deepEqual(diff.previousHead, base.head);
    assert.deepEqual(diff.head, { sessionId: session, seq: 4, hash: hash(4), eventCount: 4, entityCount: 3, currentEntityCount: 3, relationCount: 3, currentRelationCount: 2,
    });
    assert.deepEqual(diff.newEvents, [
      {
        eventKey: `${session}${sep}4`,
        sessionId: session,
        seq: 4,
        hash: hash(4),
        prevHash: hash(3),
        eventType: "inference.edge.retracted",
        sourceThread: session,
      },
    ]);
    assert.deepEqual(applyDiff(base, diff, "retraction"), copy(fold([s1, s2, gen, ret]).rows()));

    // Generated and retracted within one catch-up: a new row already closed, nothing in closedRelations.
    const both = fold([gen, ret], copy(fold([s1, s2]).rows())).diff();
    assert.ok(both !== null);
    assert.deepEqual(both.closedRelations, []);
    assert.deepEqual(both.newRelations, [inferred(ts(4))]);
  });

  test("a retraction of an edge that was never generated is recorded closed", () => {
    const rows = fold(events([...setup, retracted(ts(3))])).rows();
    assert.deepEqual(rows.relations.filter((r) => r.inferred).map((r) => [r.relKey, r.validFrom, r.validTo, r.confidence]), [[relKey(3, 0), ts(3), ts(3), 0]]);
  });
});

describe("incremental catch-up equals a full reproject", () => {
  const users = ["u1", "u2"];
  const keys = ["theme", "lang"];
  const values = ["a", "b", "c"];
  const goals = ["G1", "G2", "G3"];
  const tasks = ["T1", "T2", "T3", "T4", "T5"];
  const decisions = ["D1", "D2", "D3"];
  const actors = ["agent-a", "agent-b", ""];
  const refPool = [
    ...tasks.map((name) => ({ name, entity_type: "task" })),
    ...decisions.map((name) => ({ name, entity_type: "decision" })),
    ...goals.map((name) => ({ name, entity_type: "goal" })),
    { name: "ghost", entity_type: "concept" },
  ];
  const inferredTypes = ["likely_implemented_decision", "relates_to"];

  /** `generated`: the edges generated so far, which retractions mostly aim at. */
  function randomEvent(rng: Rng, seq: number, generated: object[]): EventRecord {
    const actor = rng.pick(actors);
    const maybe = <T>(value: T, p = 0.7): T | undefined => (rng.chance(p) ? value : undefined);
    const freshEdge = () => ({ source: rng.pick(refPool), target: rng.pick(refPool), relation_type: rng.pick(inferredTypes) });
    const edgePayload = (retraction: boolean) => {
      if (retraction && generated.length > 0 && rng.chance(0.8)) return rng.pick(generated);
      const edge = rng.chance(0.3) && generated.length > 0 ? rng.pick(generated) : freshEdge();
      if (!retraction) generated.push(edge);
      return edge;
    };
    switch (rng.int(12)) {
      case 0:
        return record(seq, "goal.created", { title: rng.pick(goals), description: maybe(rng.pick(["ship", "polish"])) }, actor);
      case 1:
        return record(seq, "task.proposed", { taskId: rng.pick(tasks), summary: maybe(rng.pick(["s1", "s2"])), goalTitle: maybe(rng.pick(goals), 0.5) }, actor);
      case 2:
        // Sometimes without a task id: the fallback entity.
        return record(seq, "task.claimed", rng.chance(0.9) ? { taskId: rng.pick(tasks) } : {}, actor);
      case 3:
        return record(seq, "task.completed", { taskId: rng.pick(tasks), summary: maybe(rng.pick(["done", "shipped"]), 0.5) }, actor);
      case 4:
        return record(seq, "decision.made", { decision: rng.pick(decisions), summary: maybe(rng.pick(["why", "because"])), rationale: maybe("r", 0.3) }, actor);
      case 5:
      case 6:
        return record(seq, "user.preference_changed", { userId: rng.pick(users), key: rng.pick(keys), value: rng.pick(values) }, actor);
      case 7:
        return record(seq, "document.indexed", { path: rng.pick(["a.md", "b.md"]), start_line: rng.pick([1, 11]), end_line: 20, content: rng.pick(["x", "y", "z"]) }, actor);
      case 8:
        return record(seq, "transcript.turn", { source: "chat", turn_index: rng.range(1, 4), role: rng.pick(["user", "assistant"]), content: rng.pick(["hi", "ok"]) }, actor);
      case 9:
      case 10:
        return rng.chance(0.55)
          ? record(seq, "inference.edge.generated", { ...edgePayload(false), confidence: rng.pick([0.5, 0.86]), inference_method: "m1", evidence: { n: rng.int(3) } }, "zaxy-inference")
          : record(seq, "inference.edge.retracted", { ...edgePayload(true), valid_from: ts(1), valid_to: ts(seq), confidence: 0, inference_method: "m2" }, "zaxy-inference");
      default:
        return record(seq, "custom.unknown_thing", { n: rng.int(4), label: rng.pick(["p", "q"]) }, actor);
    }
  }

  function checkInvariants(rows: SessionGraphRows, message: string): void {
    assert.deepEqual(rows.entities.map((e) => e.vectorKey), [...rows.entities.keys()], `${message}: vector keys`);
    const keysSeen = new Set<string>();
    const byIdentity = new Map<string, EntityRow[]>();
    for (const e of rows.entities) {
      assert.equal(e.nodeKey, entityNodeKey(session, e.entityType, e.name, e.sourceEventSeq), `${message}: node key`);
      assert.ok(!keysSeen.has(e.nodeKey), `${message}: duplicate node key ${JSON.stringify(e.nodeKey)}`);
      keysSeen.add(e.nodeKey);
      const identity = e.entityType + sep + e.name;
      byIdentity.set(identity, [...(byIdentity.get(identity) ?? []), e]);
    }
    for (const [identity, versions] of byIdentity) {
      for (let i = 0; i < versions.length; i++) {
        const expected = i + 1 < versions.length ? versions[i + 1].validFrom : null;
        assert.equal(versions[i].validTo, expected, `${message}: validity chain of ${JSON.stringify(identity)}`);
      }
    }
    const relKeys = new Set(rows.relations.map((r) => r.relKey));
    assert.equal(relKeys.size, rows.relations.length, `${message}: duplicate relation keys`);
    const activeIdentities = new Set<string>();
    for (const r of rows.relations) {
      assert.ok(keysSeen.has(r.sourceKey) && keysSeen.has(r.targetKey), `${message}: relation ${JSON.stringify(r.relKey)} endpoints exist`);
      if (r.validTo !== null) continue;
      const identity = [r.sourceKey, r.targetKey, r.relationType].join(sep);
      assert.ok(!activeIdentities.has(identity), `${message}: two active relations ${JSON.stringify(identity)}`);
      activeIdentities.add(identity);
    }
  }

  for (const defaultSeed of [0x5eed_f01d, 20260101, 7]) {
    test(`seeded random log of 300 events folded in pieces (default seed ${defaultSeed})`, () => {
      const seed = propertySeed(defaultSeed);
      const rng = new Rng(seed);
      const generated: object[] = [];
      const log = Array.from({ length: 300 }, (_, i) => randomEvent(rng, i + 1, generated));
      const fullFold = fold(log);
      const full = copy(fullFold.rows());
      const message = `seed ${seed}`;
      checkInvariants(full, message);
      assert.equal(full.head?.eventCount, 300, message);
      // The log exercises what the fold decides: versions, copies, bare endpoints, retractions.
      assert.ok(full.entities.some((e) => e.validTo !== null), `${message}: some entity was superseded`);
      assert.ok(full.relations.some((r) => r.validTo !== null && r.inferred), `${message}: some inferred edge was closed`);
      assert.ok(full.entities.some((e) => e.summary === null && e.entityType === "task" && e.validTo !== null), `${message}: a bare task was later filled in`);
      // A full reproject is the diff from the empty graph.
      assert.deepEqual(applyDiff({ entities: [], relations: [], head: null }, fullFold.diff(), message), full, `${message}: full diff`);

      // Random splits, plus one just before each retraction so some catch-up closes a base edge.
      const beforeRetractions = log.filter((r) => r.type === "inference.edge.retracted").map((r) => r.seq - 1);
      const splits = [0, 1, 150, 299, 300, ...Array.from({ length: 8 }, () => rng.range(1, 299)), ...beforeRetractions];
      let closedBaseEntities = 0;
      let closedBaseRelations = 0;
      for (const split of splits) {
        const at = `${message}, split ${split}`;
        const base = copy(fold(log.slice(0, split)).rows());
        const incremental = fold(log.slice(split), copy(base));
        assert.deepEqual(copy(incremental.rows()), full, `${at}: incremental rows`);
        const diff = incremental.diff();
        assert.equal(diff === null, split === 300, `${at}: diff is null only when nothing was applied`);
        closedBaseEntities += diff?.closedEntities.length ?? 0;
        closedBaseRelations += diff?.closedRelations.length ?? 0;
        assert.deepEqual(applyDiff(base, diff, at), full, `${at}: base + diff`);
      }
      assert.ok(closedBaseEntities > 0 && closedBaseRelations > 0, `${message}: catch-ups closed base rows (${closedBaseEntities} entities, ${closedBaseRelations} relations)`);

      // Several catch-ups in a row, each from the rows the previous one left.
      const cuts = [...new Set([rng.range(1, 100), rng.range(100, 200), rng.range(200, 299)])].sort((a, b) => a - b);
      let rows: SessionGraphRows = { entities: [], relations: [], head: null };
      let from = 0;
      for (const cut of [...cuts, 300]) {
        const next = fold(log.slice(from, cut), copy(rows));
        const stepped = applyDiff(rows, next.diff(), `${message}, chain to ${cut}`);
        rows = copy(next.rows());
        assert.deepEqual(stepped, rows, `${message}, chain to ${cut}: base + diff`);
        from = cut;
      }
      assert.deepEqual(rows, full, `${message}: chained catch-ups (cuts ${cuts.join(",")})`);
    });
  }
});

describe("event order", () => {
  test("apply rejects an event at or before the head and leaves the rows unchanged", () => {
    const log = events([pref("a"), pref("b"), pref("c")]);
    const f = fold(log.slice(0, 2));
    const before = copy(f.rows());
    assert.throws(() => f.apply(log[1], extractEvent(log[1])), /event 2 is not after the head 2/);
    assert.throws(() => f.apply(log[0], extractEvent(log[0])), /event 1 is not after the head 2/);
    assert.deepEqual(copy(f.rows()), before);
    f.apply(log[2], extractEvent(log[2]));
    assert.equal(f.rows().head?.seq, 3);

    const incremental = new GraphFold(session, copy(before));
    assert.equal(incremental.diff(), null, "nothing applied yet");
    assert.throws(() => incremental.apply(log[1], extractEvent(log[1])), /event 2 is not after the head 2/);
    assert.equal(incremental.diff(), null);
    incremental.apply(log[2], extractEvent(log[2]));
    assert.deepEqual(copy(incremental.rows()), copy(f.rows()));
  });
});
