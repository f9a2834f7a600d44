/**
 * Issue 12 item 9: with `TMPDIR` read-only the usearch addon cannot be loaded (the binary
 * unpacks it under TMPDIR; reads no longer open the graph store, issue 14), and query and
 * checkout answer degraded, without the vector lane. A degraded answer keeps the projection's
 * temporal validity: after alice's editor changed from vim to helix, helix is the current value
 * and vim is never presented as current; every answer says it is degraded.
 *
 * Before the fix the degraded lane ranked raw events by BM25 alone: both preference events came
 * back open (`valid_to: null`), vim first, and checkout listed both as current facts.
 *
 * The read-only TMPDIR is a tmpfs mounted `ro` (we run as root, so a chmod would not stop us);
 * where mounting is not allowed it is a path under a regular file (ENOTDIR), which fails the
 * same cache write. The test prints which one it used.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/eventloom/mod.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

const slow = { timeout: 120_000 };

let dir = "";
let readOnlyTmp = "";
let unmount: (() => void) | null = null;

after(() => {
  unmount?.();
  removeTempDirs();
});

/** A TMPDIR nothing can be written under: a read-only tmpfs, else a path below a regular file. */
function makeReadOnlyTmpdir(base: string): string {
  const mountPoint = path.join(base, "ro-tmp");
  fs.mkdirSync(mountPoint);
  const mounted = spawnSync("mount", ["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", mountPoint], { encoding: "utf8" });
  if (mounted.status === 0) {
    unmount = () => void spawnSync("umount", [mountPoint]);
    console.error(`read-only TMPDIR: tmpfs mounted ro at ${mountPoint}`);
    return mountPoint;
  }
  const file = path.join(base, "not-a-dir");
  fs.writeFileSync(file, "");
  console.error(`read-only TMPDIR: mount failed (${mounted.stderr.trim()}); using a path under a regular file (ENOTDIR)`);
  return path.join(file, "tmp");
}

function degradedRun(args: string[]): ZaxyRun {
  const run = runZaxy([...args, "--json"], { cwd: dir, env: { TMPDIR: readOnlyTmp } });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 500)}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  assert.match(run.stderr, /^zaxy: warning: vector index unavailable, vector lane skipped: /m);
  return run;
}

before(async () => {
  dir = makeTempDir("zaxy-degraded");
  readOnlyTmp = makeReadOnlyTmpdir(dir);
  assert.throws(() => fs.mkdirSync(path.join(readOnlyTmp, "probe")), "the TMPDIR must refuse writes");
  await appendEvents(path.join(dir, ".eventloom"), "default", [
    { type: "user.preference_changed", actor: "alice", payload: fromJs({ userId: "alice", key: "editor", value: "vim" }) },
    { type: "user.preference_changed", actor: "alice", payload: fromJs({ userId: "alice", key: "editor", value: "helix" }) },
  ]);
});

describe("degraded reads keep temporal validity", () => {
  test("query \"editor alice\" under a read-only TMPDIR ranks helix as current and vim only as superseded", slow, () => {
    const doc = JSON.parse(degradedRun(["memory", "query", "editor alice"]).stdout);
    assert.equal(doc.diagnostics.degraded, true);
    assert.equal(doc.diagnostics.projection.degraded, true);
    assert.match(doc.diagnostics.degraded_reason, /^the vector index is unavailable: /);
    assert.equal(doc.diagnostics.source_lanes.vector, 0);
    // deno-lint-ignore no-explicit-any
    const results: any[] = doc.results;
    assert.ok(results.length > 0);
    for (const result of results) assert.equal(result.metadata.degraded, true, result.content);
    const helix = results.findIndex((r) => /editor=helix/.test(r.content));
    const vim = results.findIndex((r) => /editor=vim/.test(r.content));
    assert.ok(helix >= 0, JSON.stringify(results.map((r) => r.content)));
    assert.equal(results[helix].valid_to, null);
    assert.equal(results[helix].event_seq, 2);
    // Nothing open says vim: the superseded version is closed at helix's time.
    for (const result of results.filter((r) => /\bvim\b/.test(r.content))) {
      assert.notEqual(result.valid_to, null, `presented as current: ${result.content}`);
    }
    if (vim >= 0) {
      assert.ok(helix < vim, "the current value ranks before the superseded one");
      assert.equal(results[vim].valid_to, results[helix].valid_from);
    }
  });

  test("checkout \"editor alice\" under a read-only TMPDIR has helix, never vim, as a current fact and warns it is degraded", slow, () => {
    const run = degradedRun(["memory", "checkout", "editor alice"]);
    const doc = JSON.parse(run.stdout);
    // deno-lint-ignore no-explicit-any
    const facts: string[] = doc.current_facts.map((fact: any) => fact.content);
    assert.ok(facts.some((fact) => /editor=helix/.test(fact)), facts.join(" | "));
    assert.ok(!facts.some((fact) => /\bvim\b/.test(fact)), facts.join(" | "));
    const currentSection = doc.prompt.split("## Current Facts\n")[1].split("\n\n")[0];
    assert.match(currentSection, /editor=helix/);
    assert.doesNotMatch(currentSection, /\bvim\b/);
    assert.equal(doc.retention.superseded_contexts_excluded, 1);
    assert.equal(doc.diagnostics.projection_degraded, true);
    assert.ok(doc.warnings.some((w: string) => /^retrieval was degraded \(.+\); retrieved context may be incomplete$/.test(w)), doc.warnings.join(" | "));
    assert.notEqual(doc.quality.answerability, "answer_from_memory");
  });

  test("the same checkout with a writable TMPDIR has the same current facts, without the warning", slow, () => {
    const degraded = JSON.parse(degradedRun(["memory", "checkout", "editor alice"]).stdout);
    const run = runZaxy(["memory", "checkout", "editor alice", "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const normal = JSON.parse(run.stdout);
    // deno-lint-ignore no-explicit-any
    const cited = (doc: any) => doc.current_facts.map((fact: any) => `${fact.citation} ${fact.content}`).sort();
    assert.deepEqual(cited(degraded), cited(normal));
    assert.deepEqual(normal.warnings, []);
  });
});
