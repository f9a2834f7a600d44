/**
 * Issue 14, tail catch-up piece 2: the read model stores every relation row, each position's
 * current relations and a node-key table, and `readModelFoldBase` answers the `LazyFoldBase`
 * contract (src/projection/lazyFoldBase.ts) from those files exactly as the whole rows do:
 * latest versions (current, superseded, retired), current relations in relation order (closed
 * ones left out, a self-loop once), positions. A corrupt or missing file is refused, never read;
 * a manifest written before these files existed is refused with a reason, so it is rebuilt.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { mixedSessionItems } from "../../src/bench/mixedSession.ts";
import { fromJs } from "../../src/canonical/mod.ts";
import { type AppendItem } from "../../src/eventloom/append.ts";
import { appendEvents } from "../../src/events/append.ts";
import { verifiedCheckpointPath, verifyWithCheckpoint } from "../../src/eventloom/verifiedCheckpoint.ts";
import { foldLogRows } from "../../src/projection/foldLog.ts";
import type { EntityRow, RelationRow, SessionGraphRows } from "../../src/projection/types.ts";
import { openReadModel, type ReadModelOpening } from "../../src/readmodel/diskSessionIndex.ts";
import { manifestBytes, manifestPath, type ReadModelManifest, readManifest, readModelDir } from "../../src/readmodel/manifest.ts";
import type { ReadModelFoldBase } from "../../src/readmodel/readModelFoldBase.ts";
import { ReadModelCorruptError } from "../../src/platform/readModelError.ts";
import { writeReadModel } from "../../src/readmodel/writeReadModel.ts";
import { buildSessionIndex } from "../../src/retrieval/sessionIndex.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";

/** Events whose relations the generated mix does not make: retired goals, retractions, self-loops. */
function handWrittenItems(): AppendItem[] {
  return handWrittenEvents().map((event) => ({ ...event, payload: fromJs(event.payload) }));
}

function handWrittenEvents(): Array<{ type: string; actor: string; payload: Record<string, unknown> }> {
  const ref = (name: string, entityType: string) => ({ name, entity_type: entityType });
  const edge = (source: object, target: object, relationType: string, confidence = 0.8) => ({
    type: "inference.edge.generated",
    actor: "zaxy-inference",
    payload: { source, target, relation_type: relationType, confidence, inference_method: "test_v1", evidence: { why: relationType } },
  });
  const retract = (source: object, target: object, relationType: string) => ({
    type: "inference.edge.retracted",
    actor: "zaxy-inference",
    payload: { source, target, relation_type: relationType, valid_from: "2026-01-01T00:00:00Z", valid_to: "2026-01-02T00:00:00Z", confidence: 0, inference_method: "test_retraction_v1" },
  });
  const taskA = ref("T-rel-a", "task");
  const taskB = ref("T-rel-b", "task");
  const decision = ref("D-rel", "decision");
  return [
    { type: "task.proposed", actor: "agent", payload: { taskId: "T-rel-a", summary: "wire the relation table", goalTitle: "Ship relations" } },
    { type: "task.claimed", actor: "agent-b", payload: { taskId: "T-rel-b" } },
    { type: "task.proposed", actor: "agent", payload: { taskId: "T-rel-b", summary: "second task, closes the bare version" } },
    { type: "decision.made", actor: "agent", payload: { decision: "D-rel", summary: "store relations in the read model" } },
    // Superseded preferences: three versions, the last current.
    { type: "user.preference_changed", actor: "agent", payload: { userId: "u-rel", key: "pager", value: "less" } },
    { type: "user.preference_changed", actor: "agent", payload: { userId: "u-rel", key: "pager", value: "more" } },
    { type: "user.preference_changed", actor: "agent", payload: { userId: "u-rel", key: "pager", value: "most" } },
    // Retired goals: stale and superseded statements leave their entity without a current version.
    { type: "goal.created", actor: "agent", payload: { title: "Ship relations", description: "first plan" } },
    { type: "goal.created", actor: "agent", payload: { title: "Ship relations", description: "withdrawn plan", stale: true } },
    { type: "goal.created", actor: "agent", payload: { title: "Retire me", description: "superseded plan", superseded_by: "agent:9" } },
    // A task pointing at the retired goal: the edge lands on the goal's latest (closed) version.
    { type: "task.proposed", actor: "agent", payload: { taskId: "T-rel-c", summary: "after the goal was withdrawn", goalTitle: "Ship relations" } },
    // Inferred relations: one retracted (closed), one self-loop, one generated again after a retraction.
    edge(taskA, decision, "likely_implemented_decision", 0.86),
    edge(taskA, taskA, "relates_to", 0.5),
    edge(taskB, decision, "relates_to"),
    retract(taskB, decision, "relates_to"),
    edge(decision, decision, "relates_to", 0.4),
    retract(decision, decision, "relates_to"),
    edge(decision, decision, "relates_to", 0.6),
    // New versions of endpoints: their current relations are copied onto the new version.
    { type: "task.proposed", actor: "agent", payload: { taskId: "T-rel-a", summary: "wire the relation table, revised" } },
    { type: "decision.made", actor: "agent", payload: { decision: "D-rel", summary: "store relations in the read model, revised" } },
  ];
}

interface Written {
  root: string;
  logPath: string;
  rows: SessionGraphRows;
}

async function verifiedEvents(root: string, logPath: string) {
  const verified = await verifyWithCheckpoint(logPath, verifiedCheckpointPath(root, sessionId), { events: "all" });
  assert.ok(verified.integrity.ok);
  return verified.tailEvents;
}

/** A session from `items`, its rows folded from the log, and its read model written from them. */
async function writeSession(items: readonly AppendItem[], editRows?: (rows: SessionGraphRows) => void): Promise<Written> {
  const root = path.join(makeTempDir("zaxy-reltable"), ".eventloom");
  let logPath = "";
  for (let start = 0; start < items.length; start += 500) logPath = (await appendEvents(root, sessionId, items.slice(start, start + 500))).logPath;
  const events = await verifiedEvents(root, logPath);
  const rows = foldLogRows(sessionId, events);
  editRows?.(rows);
  const index = buildSessionIndex(sessionId, rows, events, null);
  assert.notEqual(writeReadModel(root, logPath, index, rows, events, (message) => assert.fail(message)), null);
  return { root, logPath, rows };
}

/** A copy of a written session (its files get new inodes, so their SHA-256 is checked again). */
function copySession(written: Written): Written {
  const root = path.join(makeTempDir("zaxy-reltable-copy"), ".eventloom");
  fs.cpSync(written.root, root, { recursive: true });
  return { root, logPath: path.join(root, path.basename(written.logPath)), rows: written.rows };
}

async function open(written: Written): Promise<ReadModelOpening> {
  return await openReadModel(written.root, sessionId, written.logPath, async () => null);
}

async function openFoldBase(written: Written): Promise<ReadModelFoldBase> {
  const opening = await open(written);
  assert.equal(opening.status, "opened", JSON.stringify(opening));
  return (opening as { foldBase: ReadModelFoldBase }).foldBase;
}

/** The contract of `LazyFoldBase`, answered from the whole rows. */
function reference(rows: SessionGraphRows) {
  const positionByKey = new Map<string, number>();
  rows.entities.forEach((entity, position) => positionByKey.set(entity.nodeKey, position));
  return {
    latestVersion(entityType: string, name: string): EntityRow | null {
      const versions = rows.entities.filter((e) => e.entityType === entityType && e.name === name);
      const current = versions.filter((e) => e.validTo === null);
      if (current.length > 0) return current[current.length - 1];
      let retired: EntityRow | null = null;
      for (const version of versions) if (retired === null || version.sourceEventSeq > retired.sourceEventSeq) retired = version;
      return retired;
    },
    currentRelationsOf(nodeKey: string): RelationRow[] {
      return rows.relations.filter((r) => r.validTo === null && (r.sourceKey === nodeKey || r.targetKey === nodeKey));
    },
    positionOf(nodeKey: string): number | undefined {
      return positionByKey.get(nodeKey);
    },
    endpointPositions(relation: RelationRow): { sourcePosition: number; targetPosition: number } {
      return { sourcePosition: positionByKey.get(relation.sourceKey) ?? -1, targetPosition: positionByKey.get(relation.targetKey) ?? -1 };
    },
  };
}

/** Every identity, node key and position of `rows` asked of `base` and of the reference. */
function assertAnswersLikeRows(base: ReadModelFoldBase, rows: SessionGraphRows): void {
  const expected = reference(rows);
  assert.deepEqual(base.head, rows.head);
  assert.equal(base.relationCount, rows.relations.length);
  const identities = new Map(rows.entities.map((e) => [`${e.entityType}\x1f${e.name}`, e]));
  for (const { entityType, name } of identities.values()) {
    assert.deepEqual(base.latestVersion(entityType, name), expected.latestVersion(entityType, name), `latestVersion(${entityType}, ${name})`);
    // Another case of the same name is another identity (the names table is lowercased).
    const otherCase = name.toUpperCase() === name ? name.toLowerCase() : name.toUpperCase();
    if (otherCase !== name) assert.deepEqual(base.latestVersion(entityType, otherCase), expected.latestVersion(entityType, otherCase), `latestVersion(${entityType}, ${otherCase})`);
  }
  assert.equal(base.latestVersion("task", "no such entity"), null);
  for (const [position, entity] of rows.entities.entries()) {
    assert.equal(base.positionOf(entity.nodeKey), position, `positionOf ${position}`);
    assert.deepEqual(base.currentRelationsOf(entity.nodeKey), expected.currentRelationsOf(entity.nodeKey), `currentRelationsOf position ${position}`);
    const ids = [...base.currentRelationIdsAt(position)];
    assert.deepEqual(ids.map((id) => rows.relations[id]), expected.currentRelationsOf(entity.nodeKey), `currentRelationIdsAt ${position}`);
  }
  assert.equal(base.positionOf(`${sessionId}\x1fffffffffffffffffffffffff`), undefined);
  assert.deepEqual(base.currentRelationsOf(`${sessionId}\x1fffffffffffffffffffffffff`), []);
  assert.deepEqual([...base.currentRelationIdsAt(rows.entities.length)], []);
  rows.relations.forEach((relation, id) => {
    assert.deepEqual(base.relationAt(id), { row: relation, ...expected.endpointPositions(relation) }, `relationAt(${id})`);
  });
}

describe("read model relation table and fold base (issue 14, tail catch-up)", () => {
  let mixed: Written;
  let hand: Written;

  before(async () => {
    mixed = await writeSession([...mixedSessionItems(1500, 29).items, ...handWrittenItems(), ...mixedSessionItems(300, 31).items]);
    hand = await writeSession(handWrittenItems());
  }, slow);

  test("the session exercises superseded, retired and re-stated entities, closed relations and self-loops", () => {
    for (const { rows } of [mixed, hand]) {
      const closedVersions = rows.entities.filter((e) => e.validTo !== null);
      const current = new Set(rows.entities.filter((e) => e.validTo === null).map((e) => `${e.entityType}\x1f${e.name}`));
      assert.ok(rows.entities.filter((e) => e.entityType === "preference").length > 2 && closedVersions.some((e) => e.entityType === "preference"), "superseded preferences");
      assert.ok(closedVersions.some((e) => !current.has(`${e.entityType}\x1f${e.name}`) && e.entityType === "goal"), "a retired goal");
      assert.ok(rows.relations.some((r) => r.validTo !== null && r.inferred), "a retracted relation");
      assert.ok(rows.relations.some((r) => r.validTo === null && r.sourceKey === r.targetKey), "a current self-loop");
      assert.ok(rows.relations.some((r) => r.validTo !== null && r.sourceKey === r.targetKey), "a closed self-loop");
      const retired = rows.entities.find((e) => e.name === "Ship relations" && e.validTo !== null && rows.relations.some((r) => r.validTo === null && r.targetKey === e.nodeKey));
      assert.ok(retired !== undefined, "a current relation to a retired entity's latest version");
    }
    assert.ok(mixed.rows.relations.length > 1000, `${mixed.rows.relations.length} relations`);
  });

  test("readModelFoldBase answers latestVersion, currentRelationsOf and positionOf exactly as the whole rows do", slow, async () => {
    for (const written of [hand, mixed]) {
      const base = await openFoldBase(written);
      assertAnswersLikeRows(base, written.rows);
    }
  });

  test("a fold base hands out copies: changing an answer changes no later answer nor the index's rows", async () => {
    const opening = await open(hand);
    assert.equal(opening.status, "opened");
    const { foldBase, index } = opening as Extract<ReadModelOpening, { status: "opened" }>;
    const preference = hand.rows.entities.find((e) => e.entityType === "preference" && e.validTo === null)!;
    const latest = foldBase.latestVersion(preference.entityType, preference.name)!;
    latest.validTo = "2030-01-01T00:00:00Z";
    assert.equal(foldBase.latestVersion(preference.entityType, preference.name)!.validTo, null);
    assert.equal(index.entity(preference.vectorKey).validTo, null);
    const [relation] = foldBase.currentRelationsOf(preference.nodeKey);
    relation.validTo = "2030-01-01T00:00:00Z";
    assert.equal(foldBase.currentRelationsOf(preference.nodeKey)[0].validTo, null);
    const ids = foldBase.currentRelationIdsAt(preference.vectorKey);
    ids[0] = 99_999;
    assert.notEqual(foldBase.currentRelationIdsAt(preference.vectorKey)[0], 99_999);
    index.close();
  });

  test("a relation whose endpoint is no stored version is stored with position -1 and still found by its node key", async () => {
    const ghost = `${sessionId}\x1f${"0".repeat(24)}`;
    let orphan: RelationRow | undefined;
    const written = await writeSession(handWrittenItems(), (rows) => {
      const source = rows.entities[rows.entities.length - 1];
      orphan = { ...rows.relations[0], relKey: `${sessionId}\x1f999\x1f0`, sourceKey: source.nodeKey, targetKey: ghost, validTo: null };
      rows.relations.push(orphan, { ...orphan, relKey: `${sessionId}\x1f999\x1f1`, validTo: "2026-02-01T00:00:00Z" });
      rows.head = { ...rows.head!, relationCount: rows.relations.length, currentRelationCount: rows.head!.currentRelationCount + 1 };
    });
    const base = await openFoldBase(written);
    assertAnswersLikeRows(base, written.rows);
    assert.deepEqual(base.currentRelationsOf(ghost), [orphan]);
    assert.equal(base.relationAt(written.rows.relations.length - 2).targetPosition, -1);
  });

  for (const kind of ["relations", "nodekeys"]) {
    test(`a ${kind} file with a flipped byte or truncated is refused on open (status invalid), never read`, async () => {
      for (const damage of ["flip", "truncate"] as const) {
        const copy = copySession(hand);
        const dir = readModelDir(copy.root, sessionId);
        const file = path.join(dir, fs.readdirSync(dir).find((name) => name.startsWith(`${kind}-`))!);
        const bytes = fs.readFileSync(file);
        if (damage === "flip") {
          bytes[Math.floor(bytes.length / 2)] ^= 0x20;
          fs.writeFileSync(file, bytes);
        } else fs.truncateSync(file, bytes.length - 7);
        const opening = await open(copy);
        assert.equal(opening.status, "invalid", `${kind} ${damage}`);
        const reason = (opening as { reason: string }).reason;
        assert.match(reason, new RegExp(`${kind}-`), reason);
        assert.match(reason, damage === "flip" ? /does not match the SHA-256 its manifest records/ : /has \d+ bytes, the manifest records \d+/, reason);
      }
    });
  }

  test("a relations file truncated after the model was opened raises ReadModelCorruptError on read, never a short answer", async () => {
    const copy = copySession(hand);
    const base = await openFoldBase(copy);
    const dir = readModelDir(copy.root, sessionId);
    fs.truncateSync(path.join(dir, fs.readdirSync(dir).find((name) => name.startsWith("relations-"))!), 20);
    const withRelations = copy.rows.entities.find((e) => reference(copy.rows).currentRelationsOf(e.nodeKey).length > 0)!;
    assert.throws(() => base.currentRelationsOf(withRelations.nodeKey), (error) => error instanceof ReadModelCorruptError && /relations-/.test(error.message));
    assert.throws(() => base.relationAt(0), ReadModelCorruptError);
  });

  test("a manifest written before the relation and node-key files existed is invalid with a reason (rebuilt, not a crash)", async () => {
    const copy = copySession(hand);
    const manifest = readManifest(copy.root, sessionId) as ReadModelManifest;
    const files: Partial<ReadModelManifest["files"]> = { ...manifest.files };
    delete files.relations;
    delete files.node_keys;
    fs.writeFileSync(manifestPath(copy.root, sessionId), manifestBytes(copy.root, { ...manifest, files: files as ReadModelManifest["files"] }));
    const opening = await open(copy);
    assert.deepEqual(opening, { status: "invalid", reason: "its manifest was written by an earlier version of zaxy and lists no relations file" });

    // Through the CLI: the read is answered from the log, the model rewritten with the new files.
    const run = runZaxy(["--eventloom-path", copy.root, "--session-id", sessionId, "memory", "checkout", "wire the relation table", "--json"], { cwd: path.dirname(copy.root) });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.match(run.stderr, /read model of session "s" is rebuilt from the log: its manifest was written by an earlier version of zaxy and lists no relations file/);
    const rewritten = readManifest(copy.root, sessionId) as ReadModelManifest;
    assert.match(rewritten.files.relations.name, /^relations-\d+-[0-9a-f]{12}\.bin$/);
    assert.match(rewritten.files.node_keys.name, /^nodekeys-\d+-[0-9a-f]{12}\.bin$/);
    assert.equal((await open(copy)).status, "opened");
  });
});
