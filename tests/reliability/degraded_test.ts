/**
 * Issue 12 item 9: when the vector index cannot be written or opened, query and checkout answer
 * degraded, without the vector lane. A degraded answer keeps the projection's temporal validity:
 * after alice's editor changed from vim to helix, helix is the current value and vim is never
 * presented as current; every answer says it is degraded.
 *
 * Before the fix the degraded lane ranked raw events by BM25 alone: both preference events came
 * back open (`valid_to: null`), vim first, and checkout listed both as current facts.
 *
 * Until issue 14 a read-only `TMPDIR` was how a vector index became unavailable (reads loaded the
 * usearch addon, which the binary unpacks under TMPDIR). Reads no longer load usearch (the vector
 * lane searches postings, projection/vectorIndex.ts), so a read-only TMPDIR must not degrade
 * them at all (tested last); the index is made unavailable here by a regular file where its
 * directory should be (ENOTDIR; we run as root, so a chmod would not stop us).
 *
 * The read-only TMPDIR is a tmpfs mounted `ro`; where mounting is not allowed it is a path under
 * a regular file (ENOTDIR). The test prints which one it used.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import { appendEvents } from "../../src/events/append.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

const slow = { timeout: 120_000 };

/** The root whose vector index cannot be written, and one with the same log that is left alone. */
let dir = "";
let normalDir = "";
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
  const run = runZaxy([...args, "--json"], { cwd: dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 500)}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  assert.match(run.stderr, /^zaxy: warning: vector index unavailable, vector lane skipped: /m);
  return run;
}

before(async () => {
  const base = makeTempDir("zaxy-degraded");
  dir = path.join(base, "blocked");
  normalDir = path.join(base, "normal");
  readOnlyTmp = makeReadOnlyTmpdir(base);
  assert.throws(() => fs.mkdirSync(path.join(readOnlyTmp, "probe")), "the TMPDIR must refuse writes");
  await appendEvents(path.join(dir, ".eventloom"), "default", [
    { type: "user.preference_changed", actor: "alice", payload: fromJs({ userId: "alice", key: "editor", value: "vim" }) },
    { type: "user.preference_changed", actor: "alice", payload: fromJs({ userId: "alice", key: "editor", value: "helix" }) },
  ]);
  // The same bytes, so the same citations.
  fs.mkdirSync(path.join(normalDir, ".eventloom"), { recursive: true });
  fs.copyFileSync(path.join(dir, ".eventloom", "default.jsonl"), path.join(normalDir, ".eventloom", "default.jsonl"));
  fs.mkdirSync(path.join(dir, ".eventloom", "projections"), { recursive: true });
  fs.writeFileSync(path.join(dir, ".eventloom", "projections", "vectors"), "not a directory");
});

describe("degraded reads keep temporal validity", () => {
  test("query \"editor alice\" without a vector index ranks helix as current and vim only as superseded", slow, () => {
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

  test("checkout \"editor alice\" without a vector index has helix, never vim, as a current fact and warns it is degraded", slow, () => {
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

  test("the same checkout with its vector index has the same current facts, without the warning", slow, () => {
    const degraded = JSON.parse(degradedRun(["memory", "checkout", "editor alice"]).stdout);
    const run = runZaxy(["memory", "checkout", "editor alice", "--json"], { cwd: normalDir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const normal = JSON.parse(run.stdout);
    // deno-lint-ignore no-explicit-any
    const cited = (doc: any) => doc.current_facts.map((fact: any) => `${fact.citation} ${fact.content}`).sort();
    assert.deepEqual(cited(degraded), cited(normal));
    assert.deepEqual(normal.warnings, []);
  });
});

describe("a read-only TMPDIR does not degrade reads", () => {
  test("query and checkout under a read-only TMPDIR use the vector lane, warn nothing and answer as with a writable one", slow, () => {
    for (const args of [["memory", "query", "editor alice"], ["memory", "checkout", "editor alice"]]) {
      const readOnly = runZaxy([...args, "--json"], { cwd: normalDir, env: { TMPDIR: readOnlyTmp } });
      assert.equal(readOnly.code, 0, `${args.join(" ")}: ${readOnly.stdout.slice(0, 500)}${readOnly.stderr}`);
      assert.equal(readOnly.stderr, "", args.join(" "));
      const writable = runZaxy([...args, "--json"], { cwd: normalDir });
      assert.equal(writable.code, 0, writable.stderr);
      assert.equal(readOnly.stdout, writable.stdout, args.join(" "));
      const doc = JSON.parse(readOnly.stdout);
      if (args[1] === "query") {
        assert.equal(doc.diagnostics.degraded, false);
        assert.ok(doc.diagnostics.source_lanes.vector > 0, JSON.stringify(doc.diagnostics.source_lanes));
      } else {
        assert.deepEqual(doc.warnings, []);
      }
    }
  });
});
