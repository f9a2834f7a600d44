/**
 * The pre-commit check of one staged log against its committed version (src/hooks/checkStagedLog.ts)
 * in process: a staged log that drops committed events is `history_rewritten`, and the message
 * names the dropped range in words that fit one event as well as many.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { checkStagedLog, droppedEventsText } from "../../src/hooks/checkStagedLog.ts";
import { defaultHookPolicy } from "../../src/hooks/mod.ts";
import { makeTempDir, readLines, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

describe("droppedEventsText", () => {
  test("one dropped event is named alone; several as a range", () => {
    assert.equal(droppedEventsText(2, 3), "it has 2 events, the last commit has 3: event 3 was dropped");
    assert.equal(droppedEventsText(3, 6), "it has 3 events, the last commit has 6: events 4 to 6 were dropped");
    assert.equal(droppedEventsText(1, 3), "it has 1 event, the last commit has 3: events 2 to 3 were dropped");
    assert.equal(droppedEventsText(0, 1), "it has 0 events, the last commit has 1: event 1 was dropped");
  });
});

describe("checkStagedLog", () => {
  test("a staged log one event shorter than the commit is history_rewritten: event 3 was dropped", async () => {
    const dir = makeTempDir("zaxy-staged-log");
    const root = path.join(dir, ".eventloom");
    await appendEvents(root, "default", [1, 2, 3].map((n) => ({ type: "goal.created", actor: "agent", payload: fromJs({ title: `goal ${n}` }) })));
    const committed = path.join(root, "default.jsonl");
    const staged = path.join(dir, "staged.jsonl");
    fs.writeFileSync(staged, readLines(committed).slice(0, 2).join("\n") + "\n");
    const check = await checkStagedLog({ staged, committed, path: ".eventloom/default.jsonl", policy: defaultHookPolicy });
    assert.equal(check.ok, false);
    assert.equal(check.problem, "history_rewritten");
    assert.equal(check.message, ".eventloom/default.jsonl rewrites committed history: it has 2 events, the last commit has 3: event 3 was dropped");
  });
});
