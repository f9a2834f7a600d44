// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import { pathToFileURL } from "node:url";
import { runtimeName } from "../../src/platform/mod.ts";
import { KuzuStore } from "../../src/projection/kuzuStore.ts";
import { ProjectionBusyError, ProjectionCorruptError } from "../../src/projection/projectionErrors.ts";
import {
  entityNodeKey,
  type EntityRow,
  eventKey,
  type EventRow,
  type GraphDiff,
  type ProjectionHead,
  relationKey,
  type RelationRow,
} from "../../src/projection/types.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-kuzustore-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));

let dbCount = 0;
function freshDbPath(): string {
  dbCount++;
  return path.join(root, `db${dbCount}`, "projections", "embedded.kuzu");
}

const hash = (seq: number) => seq.toString(16).padStart(64, "0");
const timestamp = (seq: number) => `2025-01-01T00:00:${String(seq % 60).padStart(2, "0")}.${String(seq).padStart(6, "0")}Z`;

function event(sessionId: string, seq: number): EventRow {
  return {
    eventKey: eventKey(sessionId, seq),
    sessionId,
    seq,
    hash: hash(seq),
    prevHash: seq === 1 ? null : hash(seq - 1),
    eventType: "task.created",
    sourceThread: "main",
  };
}

function entity(sessionId: string, seq: number, name: string, vectorKey: number, extra: Partial<EntityRow> = {}): EntityRow {
  return {
    nodeKey: entityNodeKey(sessionId, "task", name, seq),
    sessionId,
    name,
    entityType: "task",
    summary: `summary of ${name}`,
    propertiesJson: `{"n":${vectorKey},"name":${JSON.stringify(name)}}`,
    validFrom: timestamp(seq),
    validTo: null,
    sourceEventSeq: seq,
    sourceEventHash: hash(seq),
    vectorKey,
    ...extra,
  };
}

function relation(source: EntityRow, target: EntityRow, seq: number, ordinal: number, extra: Partial<RelationRow> = {}): RelationRow {
  return {
    relKey: relationKey(source.sessionId, seq, ordinal),
    sessionId: source.sessionId,
    sourceKey: source.nodeKey,
    targetKey: target.nodeKey,
    relationType: "depends_on",
    validFrom: timestamp(seq),
    validTo: null,
    inferred: false,
    confidence: 1,
    inferenceMethod: null,
    sourceEventSeq: seq,
    sourceEventHash: hash(seq),
    evidenceJson: `{"seq":${seq}}`,
    ...extra,
  };
}

/** The store keeps a head's counts as given; whether they match the rows is the projector's check. */
function head(sessionId: string, seq: number, entityCount: number): ProjectionHead {
  return { sessionId, seq, hash: hash(seq), eventCount: seq, entityCount, currentEntityCount: 0, relationCount: 0, currentRelationCount: 0 };
}

function emptyDiff(sessionId: string, previousHead: ProjectionHead | null, nextHead: ProjectionHead): GraphDiff {
  return {
    sessionId,
    newEntities: [],
    closedEntities: [],
    newRelations: [],
    closedRelations: [],
    newEvents: [],
    previousHead,
    head: nextHead,
  };
}

/** Values CSV and the packed read must carry unchanged. */
const awkwardStrings = [
  'quote " and ""double"" quotes',
  "comma, separated, text",
  "line one\nline two\r\nline three",
  "back\\slash \\n not a newline",
  "unicode: café 漢字 🚀",
  "  leading and trailing spaces  ",
  "NULL",
  "\x1f unit separator",
  "'single' quotes",
];

/** A hand-built first diff: 3 events, awkward strings, nulls, an inferred edge with 0.86. */
function firstDiff(sessionId: string): GraphDiff {
  const events = [1, 2, 3].map((seq) => event(sessionId, seq));
  const alpha = entity(sessionId, 1, "alpha", 0, { summary: null });
  const beta = entity(sessionId, 2, "beta", 1, { summary: "" });
  const awkward = awkwardStrings.map((text, i) =>
    entity(sessionId, 3, `awkward ${i}: ${text}`, 2 + i, { summary: text, validFrom: text }),
  );
  const relations = [
    relation(alpha, beta, 2, 0),
    relation(beta, alpha, 3, 0, {
      relationType: "likely_implemented_decision",
      inferred: true,
      confidence: 0.86,
      inferenceMethod: "task_completed_decision_citation_v1",
      evidenceJson: '{"reason":"task.completed explicitly cited a decision Eventloom event"}',
    }),
    relation(awkward[0], awkward[1], 3, 1, { confidence: 0.1 + 0.2, relationType: awkwardStrings[2], validTo: "" }),
  ];
  return {
    ...emptyDiff(sessionId, null, head(sessionId, 3, 2 + awkward.length)),
    newEvents: events,
    newEntities: [alpha, beta, ...awkward],
    newRelations: relations,
  };
}

/** A synthetic full reproject: `eventCount` events, two entities and two relations per event. */
function bulkDiff(sessionId: string, eventCount: number): GraphDiff {
  const events: EventRow[] = [];
  const entities: EntityRow[] = [];
  const relations: RelationRow[] = [];
  for (let seq = 1; seq <= eventCount; seq++) {
    events.push(event(sessionId, seq));
    // The first events carry the awkward strings, and one empty string, through the CSV path.
    const task = entity(sessionId, seq, `task ${seq} ${awkwardStrings[seq - 1] ?? ""}`, entities.length, {
      summary: seq % 3 === 0 ? null : seq === 10 ? "" : `line one of ${seq}\nline "two"`,
      validTo: seq % 5 === 0 ? timestamp(seq + 1) : null,
    });
    entities.push(task);
    const file = entity(sessionId, seq, `file ${seq}.ts`, entities.length, { entityType: "file", nodeKey: entityNodeKey(sessionId, "file", `file ${seq}.ts`, seq) });
    entities.push(file);
    relations.push(relation(task, file, seq, 0, { confidence: (seq % 100) / 100 }));
    const earlier = entities[Math.max(0, entities.length - 7)];
    relations.push(relation(file, earlier, seq, 1, { inferred: seq % 2 === 0, inferenceMethod: seq % 2 === 0 ? "m" : null }));
  }
  return {
    ...emptyDiff(sessionId, null, head(sessionId, eventCount, entities.length)),
    newEvents: events,
    newEntities: entities,
    newRelations: relations,
  };
}

function sortedRows(diff: GraphDiff) {
  return {
    entities: [...diff.newEntities].sort((a, b) => a.vectorKey - b.vectorKey),
    // Creation order: the creating event and ordinal in relKey (not the cited source event).
    relations: [...diff.newRelations].sort((a, b) => a.relKey.localeCompare(b.relKey, "en", { numeric: true })),
    head: diff.head,
  };
}

// The first test pays for loading Kuzu (~1 s).
test("KuzuStore.open creates the schema idempotently and reopens in one process", { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  for (let i = 0; i < 3; i++) {
    const store = await KuzuStore.open(dbPath);
    try {
      assert.deepEqual(store.sessions(), []);
      assert.deepEqual(store.counts(), { entities: 0, currentEntities: 0, relations: 0, currentRelations: 0, events: 0 });
      assert.equal(store.head("s1"), null);
    } finally {
      store.close();
    }
  }
  assert.ok(fs.existsSync(dbPath));
  assert.ok(fs.existsSync(`${dbPath}.lock`));
});

test("applyDiff then readSession returns the identical rows, nulls, empty strings and floats included", async () => {
  const store = await KuzuStore.open(freshDbPath());
  try {
    const diff = firstDiff("s1");
    await store.applyDiff(diff);
    assert.deepEqual(store.readSession("s1"), sortedRows(diff));
    assert.deepEqual(store.head("s1"), diff.head);
    assert.deepEqual(store.sessions(), ["s1"]);
    assert.deepEqual(store.readSession("other"), { entities: [], relations: [], head: null });
  } finally {
    store.close();
  }
});

test("readSession falls back to column reads when a value holds the packing separator", async () => {
  const store = await KuzuStore.open(freshDbPath());
  try {
    const diff = firstDiff("s1");
    diff.newEntities[0] = { ...diff.newEntities[0], name: "record\x1eseparator", summary: "\x1e" };
    diff.newRelations[0] = { ...diff.newRelations[0], sourceKey: diff.newEntities[0].nodeKey, relationType: "a\x1eb" };
    await store.applyDiff(diff);
    assert.deepEqual(store.readSession("s1"), sortedRows(diff));
  } finally {
    store.close();
  }
});

test("an incremental diff closes earlier versions and extends the NEXT_EVENT chain", async () => {
  const store = await KuzuStore.open(freshDbPath());
  try {
    const first = firstDiff("s1");
    await store.applyDiff(first);
    const [alpha, beta] = first.newEntities;
    const alpha2 = entity("s1", 4, "alpha", first.newEntities.length, { summary: "alpha v2" });
    const edge = relation(alpha2, beta, 5, 0);
    const second: GraphDiff = {
      ...emptyDiff("s1", first.head, head("s1", 5, first.newEntities.length + 1)),
      newEvents: [event("s1", 4), event("s1", 5)],
      newEntities: [alpha2],
      closedEntities: [{ nodeKey: alpha.nodeKey, validTo: alpha2.validFrom }],
      newRelations: [edge],
      closedRelations: [{ relKey: first.newRelations[0].relKey, validTo: timestamp(5) }],
    };
    await store.applyDiff(second);

    const rows = store.readSession("s1");
    assert.deepEqual(rows.head, second.head);
    assert.equal(rows.entities.length, first.newEntities.length + 1);
    assert.deepEqual(rows.entities[0], { ...alpha, validTo: alpha2.validFrom });
    assert.deepEqual(rows.entities.at(-1), alpha2);
    assert.deepEqual(rows.relations[0], { ...first.newRelations[0], validTo: timestamp(5) });
    assert.deepEqual(rows.relations.at(-1), edge);
    assert.deepEqual(store.counts("s1"), {
      entities: first.newEntities.length + 1,
      currentEntities: first.newEntities.length,
      relations: 4,
      currentRelations: rows.relations.filter((r) => r.validTo === null).length,
      events: 5,
    });

    const chain = store
      .queryRows(
        "MATCH (a:Event)-[n:NEXT_EVENT]->(b:Event) WHERE a.session_id = $s RETURN a.seq, b.seq ORDER BY a.seq",
        { s: "s1" },
      )
      .map(([from, to]) => [Number(from), Number(to)]);
    assert.deepEqual(chain, [[1, 2], [2, 3], [3, 4], [4, 5]]);
  } finally {
    store.close();
  }
});

test("a relation created by one event but citing an earlier one keeps both: its key, its citation, and it can be closed", async () => {
  const store = await KuzuStore.open(freshDbPath());
  try {
    const first = firstDiff("s1");
    await store.applyDiff(first);
    const [alpha, beta] = first.newEntities;
    const alpha2 = entity("s1", 4, "alpha", first.newEntities.length, { summary: "alpha v2" });
    // Copied onto alpha's new version by event 4; still cites event 2, which asserted it.
    const copied = relation(alpha2, beta, 4, 0, { sourceEventSeq: 2, sourceEventHash: hash(2), validFrom: timestamp(2) });
    const asserted = relation(alpha2, beta, 4, 1, { relationType: "blocks" });
    const second: GraphDiff = {
      ...emptyDiff("s1", first.head, head("s1", 4, first.newEntities.length + 1)),
      newEvents: [event("s1", 4)],
      newEntities: [alpha2],
      closedEntities: [{ nodeKey: alpha.nodeKey, validTo: alpha2.validFrom }],
      newRelations: [copied, asserted],
    };
    await store.applyDiff(second);
    assert.deepEqual(store.readSession("s1").relations.slice(-2), [copied, asserted]);
    const third: GraphDiff = {
      ...emptyDiff("s1", second.head, head("s1", 5, first.newEntities.length + 1)),
      newEvents: [event("s1", 5)],
      closedRelations: [{ relKey: copied.relKey, validTo: timestamp(5) }],
    };
    await store.applyDiff(third);
    const relations = store.readSession("s1").relations;
    assert.deepEqual(relations.slice(-2), [{ ...copied, validTo: timestamp(5) }, asserted]);
    assert.deepEqual(relations.slice(0, -2), sortedRows(first).relations, "the other relations are untouched");
  } finally {
    store.close();
  }
});

test("hasSessionRows sees a session's rows with or without a head; RELATES cannot lose nodes (forward only)", async () => {
  const store = await KuzuStore.open(freshDbPath());
  try {
    await store.applyDiff(firstDiff("s1"));
    await store.applyDiff(firstDiff("s2"));
    assert.deepEqual(store.sessions(), ["s1", "s2"]);
    assert.equal(store.hasSessionRows("s1"), true);
    assert.equal(store.hasSessionRows("s3"), false);
    // A rebuild that died before its head leaves rows and no head: still "has rows".
    store.queryRows("MATCH (h:ProjectionHead) WHERE h.session_id = 's2' DELETE h");
    assert.equal(store.head("s2"), null);
    assert.equal(store.hasSessionRows("s2"), true);
    // Why the projector recreates the database instead of deleting a session's rows.
    assert.throws(() => store.queryRows("MATCH (e:Entity) WHERE e.session_id = 's1' DETACH DELETE e"), /bwd/);
    assert.deepEqual(store.readSession("s1"), sortedRows(firstDiff("s1")));
  } finally {
    store.close();
  }
});

// Bulk commits force a Kuzu checkpoint (seconds) and per-row inserts run a few hundred rows/s.
test("a bulk-loaded diff equals the per-row baseline, and a 20k-row diff reads back intact", { timeout: 120_000 }, async () => {
  const bulk = await KuzuStore.open(freshDbPath());
  const perRow = await KuzuStore.open(freshDbPath());
  try {
    const small = bulkDiff("s1", 240); // 240 events + 480 entities + 480 relations
    const progress: number[][] = [];
    await bulk.applyDiff(small, { onProgress: (done, total) => progress.push([done, total]) });
    await perRow.insertPerRowBaseline(small);
    const expected = sortedRows(small);
    assert.deepEqual(perRow.readSession("s1"), expected);
    assert.deepEqual(bulk.readSession("s1"), expected);
    assert.deepEqual(progress.at(-1), [1200 + 239 + 1, 1200 + 239 + 1]);

    const large = bulkDiff("s2", 4000); // 4k events + 8k entities + 8k relations
    await bulk.applyDiff(large);
    assert.deepEqual(bulk.readSession("s2"), sortedRows(large));
    assert.deepEqual(bulk.counts("s2"), { entities: 8000, currentEntities: 8000 - 800, relations: 8000, currentRelations: 8000, events: 4000 });
  } finally {
    bulk.close();
    perRow.close();
  }
});

test("open reports a corrupt file; openOrRebuild warns, deletes it and gives an empty working store", { timeout: 60_000 }, async () => {
  const damages: Array<[string, (dbPath: string) => void]> = [
    ["random bytes", (dbPath) => fs.writeFileSync(dbPath, Buffer.from(Array.from({ length: 20000 }, (_, i) => (i * 7919) % 251)))],
    ["truncated", (dbPath) => fs.truncateSync(dbPath, Math.floor(fs.statSync(dbPath).size / 2))],
    ["damaged header", (dbPath) => {
      const fd = fs.openSync(dbPath, "r+");
      fs.writeSync(fd, Buffer.alloc(64, 0xab), 0, 64, 8);
      fs.closeSync(fd);
    }],
  ];
  // One healthy store, written once (a commit checkpoints: seconds under load); each damage
  // works on a copy of its directory.
  const healthyPath = freshDbPath();
  const healthy = await KuzuStore.open(healthyPath);
  await healthy.applyDiff(firstDiff("s1"));
  healthy.close();
  for (const [label, damage] of damages) {
    const dbPath = freshDbPath();
    fs.cpSync(path.dirname(healthyPath), path.dirname(dbPath), { recursive: true });
    assert.ok(fs.statSync(dbPath).size > 0, label);
    damage(dbPath);

    await assert.rejects(KuzuStore.open(dbPath), ProjectionCorruptError, label);
    const warnings: string[] = [];
    const rebuilt = await KuzuStore.openOrRebuild(dbPath, (message) => warnings.push(message));
    try {
      assert.equal(warnings.length, 1, label);
      assert.match(warnings[0], /^Rebuilding the graph projection at ".*embedded\.kuzu": /);
      assert.deepEqual(rebuilt.sessions(), [], label);
      await rebuilt.applyDiff(firstDiff("s1"));
      assert.deepEqual(rebuilt.readSession("s1"), sortedRows(firstDiff("s1")), label);
    } finally {
      rebuilt.close();
    }
  }
});

test("a second process cannot open a store that is in use: ProjectionBusyError after the wait", { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  const store = await KuzuStore.open(dbPath);
  try {
    const script = path.join(root, "open_busy.ts");
    const storeUrl = pathToFileURL(path.resolve("src/projection/kuzuStore.ts")).href;
    fs.writeFileSync(
      script,
      `import { KuzuStore } from ${JSON.stringify(storeUrl)};
try {
  (await KuzuStore.open(${JSON.stringify(dbPath)}, { lockWaitMs: 300 })).close();
  console.log("opened");
} catch (error) {
  console.log(error.name + " " + error.code);
}
// Under Deno a timed-out lock attempt stays pending in a blocking thread; do not wait for it.
process.exit(0);
`,
    );
    const args = runtimeName === "deno" ? ["run", "-A", "--no-check", script] : [script];
    const started = Date.now();
    const child = spawnSync(process.execPath, args, { encoding: "utf8", timeout: 60_000 });
    assert.equal(child.stdout.trim(), "ProjectionBusyError projection_busy", child.stderr);
    assert.ok(Date.now() - started >= 300);
  } finally {
    store.close();
  }
});
