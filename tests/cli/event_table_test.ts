/**
 * `zaxy replay` and `zaxy memory log` print events the same way (src/cli/eventTable.ts): aligned
 * columns `seq  timestamp  type  actor  payload`, seq on the right; replay marks an event past a
 * broken link with a trailing `UNVERIFIED`, which leaves the columns where they were.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { eventTableLines } from "../../src/cli/eventTable.ts";
import { makeTempDir, readLines, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const plain = { stdoutIsTTY: false, env: {} };
const terminal = { stdoutIsTTY: true, env: { TERM: "xterm" } };

describe("eventTableLines", () => {
  const rows = [
    { seq: 9, timestamp: "2026-01-01T00:00:00Z", type: "goal.created", actor: "agent", payload: fromJs({ title: "Ship" }) },
    { seq: 10, timestamp: "2026-01-01T00:00:01Z", type: "command.completed", actor: "ci", payload: fromJs({}), verified: false },
  ];

  test("pads every column but the last to its widest cell, seq on the right; UNVERIFIED goes after the payload", () => {
    assert.deepEqual(eventTableLines(rows, plain), [
      ' 9  2026-01-01T00:00:00Z  goal.created       agent  {"title":"Ship"}',
      "10  2026-01-01T00:00:01Z  command.completed  ci     {}  UNVERIFIED",
    ]);
  });

  test("on a terminal seq is dim, type cyan and UNVERIFIED red; the padding is the same", () => {
    const lines = eventTableLines(rows, terminal);
    assert.equal(lines[1], "\x1b[2m10\x1b[0m  2026-01-01T00:00:01Z  \x1b[36mcommand.completed\x1b[0m  ci     {}  \x1b[31mUNVERIFIED\x1b[0m");
    assert.deepEqual(lines.map((line) => line.replace(/\x1b\[\d+m/g, "")), eventTableLines(rows, plain));
  });
});

describe("zaxy replay text", () => {
  function seeded(): string {
    const dir = makeTempDir("event-table");
    const events = [["goal.created", "agent", { title: "Ship" }], ["command.completed", "ci-runner", { command: "npm test", exit_code: 0 }]] as const;
    for (let i = 0; i < 10; i++) {
      const [type, actor, payload] = events[i % 2];
      const run = runZaxy(["memory", "append", type, "--actor", actor, "--payload-json", JSON.stringify(payload), "--json"], { cwd: dir });
      assert.equal(run.code, 0, run.stderr);
    }
    return dir;
  }

  test("prints the same aligned rows as memory log for the same events", () => {
    const dir = seeded();
    const replay = runZaxy(["replay", "--from-seq", "8"], { cwd: dir });
    assert.equal(replay.code, 0, replay.stderr);
    assert.equal(replay.stderr, "");
    const log = runZaxy(["memory", "log", "--limit", "3"], { cwd: dir });
    const rows = (text: string) => text.trimEnd().split("\n").slice(1, 4);
    assert.deepEqual(rows(replay.stdout), rows(log.stdout));
    const [eight, nine, ten] = rows(replay.stdout);
    assert.match(eight, /^ 8  \S+  command\.completed  ci-runner  \{"command":"npm test","exit_code":0\}$/);
    assert.match(nine, /^ 9  \S+  goal\.created       agent      \{"title":"Ship"\}$/);
    assert.match(ten, /^10  \S+  command\.completed  ci-runner  /);
    assert.match(replay.stdout.trimEnd().split("\n").at(-1)!, /^handoff: 3 events; /);
  });

  test("a broken chain keeps the columns aligned and marks the unverified rows at their end", () => {
    const dir = seeded();
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const lines = readLines(file);
    lines[8] = lines[8].replace('"actorId":"agent"', '"actorId":"mallory"');
    fs.writeFileSync(file, lines.join("\n") + "\n");
    const replay = runZaxy(["replay", "--from-seq", "8"], { cwd: dir });
    assert.equal(replay.code, 1);
    const rows = replay.stdout.trimEnd().split("\n").slice(1, 4);
    assert.deepEqual(rows.map((row) => row.endsWith("  UNVERIFIED")), [false, true, true]);
    assert.equal(new Set(rows.map((row) => row.search(/ (ci-runner|mallory) /))).size, 1, rows.join("\n"));
    assert.match(rows[1], /^ 9  \S+  goal\.created       mallory    \{"title":"Ship"\}  UNVERIFIED$/);
  });
});
