/**
 * `appendPlanned` (src/eventloom/append.ts): decide-then-append under one exclusive lock. The
 * plan sees every verified event; a rejection, an empty plan or a throwing plan writes
 * nothing; a planned item can cite the events sealed before it in the same batch; a log that
 * fails verification is refused with exit 1.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { readEvents, verifyLog } from "../../src/eventloom/mod.ts";
import { appendEvents, appendPlanned } from "../../src/events/append.ts";
import { inputError, isZaxyError } from "../../src/errors.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

async function seeded(): Promise<{ root: string; log: string }> {
  const root = path.join(makeTempDir("zaxy-planned"), ".eventloom");
  await appendEvents(root, "s", [{ type: "goal.created", actor: "a", payload: fromJs({ title: "one" }) }, { type: "task.created", actor: "a", payload: fromJs({ title: "two" }) }]);
  return { root, log: path.join(root, "s.jsonl") };
}

describe("appendPlanned", () => {
  test("the plan sees every existing event; a later item cites the hash of an earlier one in the batch", async () => {
    const { root, log } = await seeded();
    let seen: string[] = [];
    const result = await appendPlanned(root, "s", (existing) => {
      seen = existing.map((e) => e.type);
      return [
        { type: "first.event", actor: "a", payload: fromJs({ n: 1 }) },
        (sealed) => ({ type: "second.event", actor: "a", payload: fromJs({ cites: { seq: sealed[0].seq, hash: sealed[0].hash } }) }),
      ];
    });
    assert.deepEqual(seen, ["goal.created", "task.created"]);
    assert.equal(result.existingEventCount, 2);
    const events = readEvents(log).events;
    assert.equal(events.length, 4);
    const cites = events[3].payload.get("cites") as Map<string, unknown>;
    assert.equal(cites.get("hash"), events[2].hash);
    assert.equal(result.events[1].hash, events[3].hash);
    assert.equal((await verifyLog(log)).ok, true);
  });

  test("a plain item of a type v1 cannot carry makes the whole batch legacy lines, as appendEvents does", async () => {
    const { root, log } = await seeded();
    assert.equal(readEvents(log).events[1].envelope, "v1");
    const result = await appendPlanned(root, "s", () => [
      { type: "evolution.gate.evaluated", actor: "a", payload: fromJs({ op: "update" }) },
      { type: "memory.rolled_back", actor: "a", payload: fromJs({ reason: "r" }) },
    ]);
    assert.deepEqual(result.events.map((e) => e.envelope), ["legacy", "legacy"]);
    assert.deepEqual(readEvents(log).events.map((e) => e.envelope), ["v1", "v1", "legacy", "legacy"]);
    assert.equal((await verifyLog(log)).ok, true);
    // A built item cannot change the envelope fixed by then: a v1 batch refuses it, writing nothing.
    const bytes = fs.readFileSync(path.join(root, "s.jsonl"));
    const fresh = await seeded();
    await assert.rejects(
      appendPlanned(fresh.root, "s", () => [
        { type: "first.event", actor: "a", payload: fromJs({}) },
        () => ({ type: "memory.rolled_back", actor: "a", payload: fromJs({}) }),
      ]),
      (error: unknown) => isZaxyError(error) && /cannot join a v1 batch/.test((error as Error).message),
    );
    assert.equal(readEvents(fresh.log).events.length, 2);
    assert.deepEqual(fs.readFileSync(path.join(root, "s.jsonl")), bytes);
  });

  test("a rejection, an empty plan and a throwing plan leave the log byte-identical", async () => {
    const { root, log } = await seeded();
    const before = fs.readFileSync(log);
    const rejected = await appendPlanned<string>(root, "s", () => ({ rejected: "no" }));
    assert.equal(rejected.rejection, "no");
    assert.deepEqual(rejected.events, []);
    const empty = await appendPlanned(root, "s", () => []);
    assert.deepEqual(empty.events, []);
    await assert.rejects(appendPlanned(root, "s", () => {
      throw inputError("bad", "bad plan");
    }), (e: unknown) => isZaxyError(e) && e.code === "bad");
    await assert.rejects(
      appendPlanned(root, "s", () => [{ type: "ok.event", actor: "a" }, () => ({ type: "", actor: "a" })]),
      (e: unknown) => isZaxyError(e) && e.code === "invalid_event" && e.exitCode === 2,
    );
    assert.deepEqual(fs.readFileSync(log), before);
    // The lock was released every time: a plain append still works at once.
    await appendEvents(root, "s", [{ type: "after.event", actor: "a" }], { lockWaitMs: 1000 });
  });

  test("a log that fails verification is refused with integrity_failure (exit 1) and the plan never runs", async () => {
    const { root, log } = await seeded();
    const lines = fs.readFileSync(log, "utf8").split("\n");
    lines[0] = lines[0].replace('"one"', '"ONE"');
    fs.writeFileSync(log, lines.join("\n"));
    let ran = false;
    await assert.rejects(
      appendPlanned(root, "s", () => {
        ran = true;
        return [];
      }),
      (e: unknown) => isZaxyError(e) && e.code === "integrity_failure" && e.exitCode === 1,
    );
    assert.equal(ran, false);
  });
});
