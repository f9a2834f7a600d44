/**
 * A symbolic link planted under the Eventloom root never makes a write land outside it: an
 * append, an ingest or a repair of a session whose log (or intent file) is a link, dangling or
 * to an existing file elsewhere, is refused with `unsafe_path` (exit 2) naming the link, and
 * nothing outside the root is created or changed; a `projections/` that is a link is not written
 * through either.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

const slow = { timeout: 120_000 };
after(() => removeTempDirs());

function setup(): { dir: string; root: string; outside: string; zaxy: (...args: string[]) => ReturnType<typeof runZaxy> } {
  const dir = makeTempDir("zaxy-symlink");
  const root = path.join(dir, "root");
  const outside = path.join(dir, "outside");
  fs.mkdirSync(outside);
  const zaxy = (...args: string[]) => runZaxy(["--eventloom-path", root, ...args], { cwd: dir });
  assert.equal(zaxy("init").code, 0);
  return { dir, root, outside, zaxy };
}

const goal = JSON.stringify({ title: "Ship it" });

function assertRefused(run: ReturnType<typeof runZaxy>, link: string): void {
  assert.equal(run.code, 2, run.stdout + run.stderr);
  assert.ok(run.stderr.includes(link), run.stderr);
  assert.match(run.stderr, /is a symbolic link/);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  assert.equal(run.stdout, "");
}

describe("writes through a symbolic link under the root", () => {
  test("memory append to a session whose log is a dangling link exits 2 naming the link, and creates nothing outside the root", slow, () => {
    const { root, outside, zaxy } = setup();
    const target = path.join(outside, "s3-target.jsonl");
    const link = path.join(root, "s3.jsonl");
    fs.symlinkSync(target, link);
    assertRefused(zaxy("--session-id", "s3", "memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal), link);
    assert.deepEqual(fs.readdirSync(outside), [], "nothing is created outside the root");
    const json = zaxy("--session-id", "s3", "memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal, "--json");
    assert.equal(json.code, 2);
    assert.equal(JSON.parse(json.stdout || json.stderr).error.code, "unsafe_path");
    assert.deepEqual(fs.readdirSync(outside), []);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), "the link is left as it was");
  });

  test("memory append and ingest to a session whose log links to an existing file outside the root exit 2 and leave that file unchanged", slow, () => {
    const { dir, root, outside, zaxy } = setup();
    const target = path.join(outside, "precious.txt");
    fs.writeFileSync(target, "do not touch\n");
    const link = path.join(root, "s3.jsonl");
    fs.symlinkSync(target, link);
    assertRefused(zaxy("--session-id", "s3", "memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal), link);
    const batch = path.join(dir, "batch.jsonl");
    fs.writeFileSync(batch, `${JSON.stringify({ type: "goal.created", actor: "ci", payload: { title: "x" } })}\n`);
    assertRefused(zaxy("--session-id", "s3", "memory", "ingest", batch), link);
    assertRefused(zaxy("--session-id", "s3", "repair", "--truncate-torn-tail"), link);
    assert.equal(fs.readFileSync(target, "utf8"), "do not touch\n");
    assert.deepEqual(fs.readdirSync(outside), ["precious.txt"]);
  });

  test("an append whose intent file is a dangling link exits 2 and writes neither the log nor anything outside the root", slow, () => {
    const { root, outside, zaxy } = setup();
    const link = path.join(root, "s4.jsonl.intent");
    fs.symlinkSync(path.join(outside, "intent-target"), link);
    assertRefused(zaxy("--session-id", "s4", "memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal), link);
    assert.deepEqual(fs.readdirSync(outside), []);
    assert.equal(fs.existsSync(path.join(root, "s4.jsonl")), false);
  });

  test("a projections/ that links outside the root is not written through: a read still answers from the log", slow, () => {
    const { root, outside, zaxy } = setup();
    assert.equal(zaxy("memory", "append", "goal.created", "--actor", "ci", "--payload-json", goal).code, 0);
    fs.rmSync(path.join(root, "projections"), { recursive: true, force: true });
    fs.symlinkSync(outside, path.join(root, "projections"));
    const run = zaxy("memory", "checkout", "ship", "--json");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Ship it/);
    assert.deepEqual(stackTraceLines(run.stderr), []);
    assert.deepEqual(fs.readdirSync(outside), [], "nothing is written through the link");
  });
});
