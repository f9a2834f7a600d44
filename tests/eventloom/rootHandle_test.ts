/**
 * A Root handle (src/eventloom/rootHandle.ts) owns a root's process state, and its per-session
 * index of event ids and producer refs (src/eventloom/logKeyIndex.ts) answers an append's
 * duplicate checks exactly as a read of the whole log would: also after another handle or
 * another process appended, and after the file was rewritten or replaced underneath.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { type AppendItem, logKeyIndexOf, readEvents, verifyLog } from "../../src/eventloom/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { defineRootSlot, Root } from "../../src/eventloom/rootHandle.ts";
import { isZaxyError } from "../../src/errors.ts";
import { bunPath, repoRoot, runProcess } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "./testkit.ts";

after(removeTempDirs);

const worker = path.join(repoRoot, "tests", "eventloom", "root_append_worker.ts");

function note(text: string, extra: Partial<AppendItem> = {}): AppendItem {
  return { type: "note.added", actor: "agent", payload: fromJs({ text }), ...extra };
}

/** The error an append throws, as `{code, message}`; fails the test when it does not throw. */
async function refusal(append: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await append;
  } catch (error) {
    assert.ok(isZaxyError(error), `expected a zaxy error, got ${String(error)}`);
    return { code: error.code, message: error.message };
  }
  assert.fail("the append was not refused");
}

function freshRoot(label: string): string {
  return path.join(makeTempDir(label), ".eventloom");
}

describe("Root handle", () => {
  test("Root.of returns one handle per resolved path; Root.open a separate one", () => {
    const root = freshRoot("root-of");
    assert.equal(Root.of(root), Root.of(path.join(root, ".", "")));
    assert.equal(Root.of(Root.of(root)), Root.of(root));
    assert.notEqual(Root.open(root), Root.of(root));
    assert.equal(Root.open(root).resolvedPath, path.resolve(root));
  });

  test("a slot's state is made once per handle, on first use", () => {
    let made = 0;
    const slot = defineRootSlot("counter", () => ({ n: ++made }));
    const handle = Root.open(freshRoot("root-slot"));
    assert.equal(handle.peekSlot(slot), undefined);
    assert.equal(handle.slot(slot).n, 1);
    assert.equal(handle.slot(slot).n, 1);
    assert.equal(Root.open(handle.path).slot(slot).n, 2);
    handle.clearSlot(slot);
    assert.equal(handle.slot(slot).n, 3);
  });
});

describe("duplicate checks through the root's key index", () => {
  test("an id already in the log is refused with the event holding it; nothing is written", async () => {
    const root = Root.open(freshRoot("dup-id"));
    await appendEvents(root, "s", [note("a", { id: "evt_a" }), note("b", { id: "evt_b" })]);
    const before = fs.readFileSync(path.join(root.path, "s.jsonl"));
    const refused = await refusal(appendEvents(root, "s", [note("c", { id: "evt_b" })]));
    assert.equal(refused.code, "invalid_event");
    assert.equal(refused.message, 'Cannot append: id "evt_b" is already event 2 of the log; event ids are unique. Nothing was written.');
    assert.deepEqual(fs.readFileSync(path.join(root.path, "s.jsonl")), before);
  });

  test("an id appended by this handle a moment ago is refused without reading the log again", async () => {
    const root = Root.open(freshRoot("dup-own"));
    await appendEvents(root, "s", [note("a", { id: "evt_a" })]);
    await appendEvents(root, "s", [note("b", { id: "evt_b" })]);
    assert.equal((await refusal(appendEvents(root, "s", [note("c", { id: "evt_b" })]))).code, "invalid_event");
    assert.equal(logKeyIndexOf(root, "s").rebuildCount, 1, "built once, then kept up to date");
  });

  test("several colliding ids are named in log order, whatever the batch order", async () => {
    const root = Root.open(freshRoot("dup-order"));
    await appendEvents(root, "s", [note("a", { id: "evt_a" }), note("b", { id: "evt_b" })]);
    const refused = await refusal(appendEvents(root, "s", [note("x", { id: "evt_b", origin: "line 1" }), note("y", { id: "evt_a", origin: "line 2" })]));
    assert.equal(
      refused.message,
      'Cannot append: line 2: id "evt_a" is already event 1 of the log; event ids are unique; line 1: id "evt_b" is already event 2 of the log; event ids are unique. Nothing was written.',
    );
  });

  test("an id another handle appended after this one built its index is refused", async () => {
    const dir = freshRoot("dup-other-handle");
    const first = Root.open(dir);
    const second = Root.open(dir);
    await appendEvents(first, "s", [note("a", { id: "evt_a" })]);
    await appendEvents(second, "s", [note("b", { id: "evt_b", producerRef: "ref-b" })], { dedupProducerRefs: true });
    const refused = await refusal(appendEvents(first, "s", [note("c", { id: "evt_b" })]));
    assert.equal(refused.message, 'Cannot append: id "evt_b" is already event 2 of the log; event ids are unique. Nothing was written.');
    const skipped = await appendEvents(first, "s", [note("d", { producerRef: "ref-b" })], { dedupProducerRefs: true });
    assert.equal(skipped.deduped, 1);
    assert.equal(skipped.events.length, 0);
    assert.equal(logKeyIndexOf(first, "s").rebuildCount, 1, "the other handle's lines were read in, not the whole log");
  });

  test("an id and a producer ref another process appended are refused and skipped", { timeout: 60_000 }, async () => {
    const dir = freshRoot("dup-other-process");
    const root = Root.open(dir);
    await appendEvents(root, "s", [note("a", { id: "evt_a" })]);
    const run = await runProcess(bunPath, [worker, dir, "s", "evt_other", "ref-other"], { cwd: path.dirname(dir) });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout), { seq: 2 });
    const refused = await refusal(appendEvents(root, "s", [note("c", { id: "evt_other" })]));
    assert.equal(refused.message, 'Cannot append: id "evt_other" is already event 2 of the log; event ids are unique. Nothing was written.');
    const skipped = await appendEvents(root, "s", [note("d", { producerRef: "ref-other" }), note("e", { producerRef: "ref-new" })], { dedupProducerRefs: true });
    assert.equal(skipped.deduped, 1);
    assert.deepEqual(skipped.events.map((event) => event.seq), [3]);
    assert.equal((await verifyLog(path.join(dir, "s.jsonl"))).ok, true);
  });

  test("a log rewritten in place underneath (same length, same file, other events) is indexed again", async () => {
    const dir = freshRoot("rewritten");
    const root = Root.open(dir);
    const clock = () => 1_700_000_000_123_456;
    await appendEvents(root, "s", [note("a", { id: "evt_a" })], { clock });
    const log = path.join(dir, "s.jsonl");
    // Another writer's log of the same length holding the id evt_z is written over this one.
    const other = Root.open(path.join(path.dirname(dir), "other"));
    await appendEvents(other, "s", [note("a", { id: "evt_z" })], { clock });
    const replacement = fs.readFileSync(path.join(other.path, "s.jsonl"));
    assert.equal(replacement.length, fs.statSync(log).size, "same length, so only the content tells");
    fs.writeFileSync(log, replacement);
    assert.equal((await refusal(appendEvents(root, "s", [note("b", { id: "evt_z" })]))).code, "invalid_event");
    // The id of the overwritten log is free again.
    const appended = await appendEvents(root, "s", [note("c", { id: "evt_a" })]);
    assert.deepEqual(appended.events.map((event) => event.seq), [2]);
    assert.equal(logKeyIndexOf(root, "s").rebuildCount, 2);
  });

  test("a log replaced by another file underneath is indexed again from the start", async () => {
    const dir = freshRoot("replaced");
    const root = Root.open(dir);
    await appendEvents(root, "s", [note("a", { id: "evt_a" })]);
    const other = Root.open(path.join(path.dirname(dir), "other"));
    await appendEvents(other, "s", [note("a", { id: "evt_z" }), note("b", { id: "evt_y" })]);
    fs.renameSync(path.join(other.path, "s.jsonl"), path.join(dir, "s.jsonl"));
    const refused = await refusal(appendEvents(root, "s", [note("c", { id: "evt_y" })]));
    assert.equal(refused.message, 'Cannot append: id "evt_y" is already event 2 of the log; event ids are unique. Nothing was written.');
    assert.deepEqual((await appendEvents(root, "s", [note("d", { id: "evt_a" })])).events.map((event) => event.seq), [3]);
  });

  test("a log truncated underneath is indexed again: a removed id is free, a kept one refused", async () => {
    const dir = freshRoot("truncated");
    const root = Root.open(dir);
    await appendEvents(root, "s", [note("a", { id: "evt_a" }), note("b", { id: "evt_b" })]);
    const log = path.join(dir, "s.jsonl");
    const lines = fs.readFileSync(log, "utf8").split("\n");
    fs.writeFileSync(log, lines[0] + "\n");
    assert.equal((await refusal(appendEvents(root, "s", [note("c", { id: "evt_a" })]))).code, "invalid_event");
    const appended = await appendEvents(root, "s", [note("d", { id: "evt_b" })]);
    assert.deepEqual(appended.events.map((event) => event.seq), [2]);
    assert.deepEqual(readEvents(log).events.map((event) => event.id), ["evt_a", "evt_b"]);
  });

  test("a v1 tail with a producer-supplied id gets the next seq from the index's event count", async () => {
    const dir = freshRoot("seq-from-index");
    const root = Root.open(dir);
    await appendEvents(root, "s", [note("a", { id: "evt_a" }), note("b", { id: "evt_b" })]);
    const next = await appendEvents(root, "s", [note("c")]);
    assert.deepEqual(next.events.map((event) => event.seq), [3]);
    assert.equal((await verifyLog(path.join(dir, "s.jsonl"))).ok, true);
  });
});
