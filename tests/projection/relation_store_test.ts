/**
 * The fold's relation columns (src/projection/relationStore.ts) and its per-node relation lists
 * (src/projection/relationsByNode.ts): rows read back as they went in, keys spelled from the
 * copying event, stored keys kept, closings, release; list order, self-loops and relinking.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { GrowableArray } from "../../src/growableArray.ts";
import { RelationsByNode } from "../../src/projection/relationsByNode.ts";
import { type RelationFields, relationRowsOf, RelationStore } from "../../src/projection/relationStore.ts";
import type { RelationRow } from "../../src/projection/types.ts";

const session = "s";
const sep = "\x1f";

function fields(sourceKey: string, targetKey: string, more: Partial<RelationFields> = {}): RelationFields {
  return {
    sourceKey,
    targetKey,
    relationType: "uses",
    validFrom: "2026-01-01T00:00:00Z",
    validTo: null,
    inferred: false,
    confidence: 1,
    inferenceMethod: null,
    sourceEventSeq: 3,
    sourceEventHash: "h3",
    evidenceJson: "{}",
    ...more,
  };
}

test("RelationStore gives back each row as added, keyed by the event that added it", () => {
  const store = new RelationStore(session);
  const observed = store.add(fields("s\x1fa", "s\x1fb"), 3, 0);
  // A copy onto a new version keeps its citation (seq 3, h3) under the copying event's key.
  const copied = store.add(fields("s\x1fa2", "s\x1fb", { inferred: true, confidence: 0.25, inferenceMethod: "cooccurrence", evidenceJson: '{"n":2}' }), 9, 4);
  assert.equal(store.length, 2);
  assert.deepEqual(store.row(observed), { relKey: `s${sep}3${sep}0`, sessionId: session, ...fields("s\x1fa", "s\x1fb") });
  assert.deepEqual(store.row(copied), {
    relKey: `s${sep}9${sep}4`,
    sessionId: session,
    ...fields("s\x1fa2", "s\x1fb", { inferred: true, confidence: 0.25, inferenceMethod: "cooccurrence", evidenceJson: '{"n":2}' }),
  });
  assert.deepEqual(Object.keys(store.row(copied)), ["relKey", "sessionId", "sourceKey", "targetKey", "relationType", "validFrom", "validTo", "inferred", "confidence", "inferenceMethod", "sourceEventSeq", "sourceEventHash", "evidenceJson"]);
});

test("RelationStore keeps a stored row's own key, closes rows, and refuses another session's row", () => {
  const store = new RelationStore(session);
  const stored: RelationRow = { relKey: "s\x1fimported-7", sessionId: session, ...fields("s\x1fa", "s\x1fb", { validTo: "2026-01-02T00:00:00Z" }) };
  const id = store.addRow(stored);
  assert.deepEqual(store.row(id), stored);
  const open = store.add(fields("s\x1fa", "s\x1fc"), 5, 0);
  store.setValidTo(open, "2026-01-03T00:00:00Z");
  assert.equal(store.validTo(open), "2026-01-03T00:00:00Z");
  assert.equal(store.row(open).validTo, "2026-01-03T00:00:00Z");
  assert.throws(() => store.addRow({ ...stored, sessionId: "other" }), /a row of session "other"/);
  store.clear();
  assert.equal(store.length, 0);
});

test("relationRowsOf reads an array of rows field by field", () => {
  const row: RelationRow = { relKey: "k", sessionId: session, ...fields("s\x1fa", "s\x1fb", { relationType: "owns" }) };
  const rows = relationRowsOf([row]);
  assert.equal(rows.length, 1);
  assert.equal(rows.row(0), row);
  assert.deepEqual([rows.sourceKey(0), rows.targetKey(0), rows.relationType(0), rows.validTo(0)], ["s\x1fa", "s\x1fb", "owns", null]);
});

test("RelationsByNode lists each node's relations in order, a self-loop once, and relinks a list", () => {
  const store = new RelationStore(session);
  const byNode = new RelationsByNode(store);
  const ab = store.add(fields("a", "b"), 1, 0);
  const ba = store.add(fields("b", "a"), 1, 1);
  const aa = store.add(fields("a", "a"), 2, 0);
  const bc = store.add(fields("b", "c"), 2, 1);
  for (const id of [ab, ba, aa, bc]) {
    byNode.append(store.sourceKey(id), id);
    if (store.targetKey(id) !== store.sourceKey(id)) byNode.append(store.targetKey(id), id);
  }
  assert.deepEqual(byNode.ids("a"), [ab, ba, aa]);
  assert.deepEqual(byNode.ids("b"), [ab, ba, bc]);
  assert.deepEqual(byNode.ids("c"), [bc]);
  assert.deepEqual(byNode.ids("d"), []);
  // Relinking one node's list leaves the other lists the same relations are in.
  byNode.replace("b", [bc, ab]);
  assert.deepEqual(byNode.ids("b"), [bc, ab]);
  assert.deepEqual(byNode.ids("a"), [ab, ba, aa]);
  assert.deepEqual(byNode.ids("c"), [bc]);
  byNode.replace("c", []);
  assert.deepEqual(byNode.ids("c"), []);
  const cd = store.add(fields("c", "d"), 3, 0);
  byNode.append("c", cd);
  assert.deepEqual(byNode.ids("c"), [cd]);
  byNode.replace("e", [store.add(fields("e", "a"), 4, 0)]);
  assert.deepEqual(byNode.ids("e"), [5]);
});

test("RelationsByNode grows past its first arrays", () => {
  const store = new RelationStore(session);
  const byNode = new RelationsByNode(store);
  const added: number[] = [];
  for (let i = 0; i < 1000; i++) {
    const id = store.add(fields("hub", `n${i}`), i + 1, 0);
    byNode.append("hub", id);
    byNode.append(`n${i}`, id);
    added.push(id);
  }
  assert.deepEqual(byNode.ids("hub"), added);
  assert.deepEqual(byNode.ids("n999"), [999]);
});

test("GrowableArray.extendTo makes indexes valid without losing values, and never shrinks", () => {
  const column = new GrowableArray(new Int32Array(2), (n) => new Int32Array(n));
  column.push(7);
  column.extendTo(100);
  assert.equal(column.length, 100);
  assert.ok(column.data.length >= 100);
  assert.deepEqual([column.data[0], column.data[1], column.data[99]], [7, 0, 0]);
  column.extendTo(5);
  assert.equal(column.length, 100);
  column.push(3);
  assert.equal(column.data[100], 3);
});
