/**
 * `zaxy fleet ...` through the built binary: exit 0 on success, 1 when the check said no
 * (rejected promotion, unauthorised action, unresolved audit ref), 2 for bad input naming the
 * flag, with nothing written; `--json` prints exactly one document.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

let dir = "";
let root = "";
let hashes: string[] = [];

function zaxy(...args: string[]) {
  const run = runZaxy([...args, "--eventloom-path", root], { cwd: dir });
  assert.deepEqual(stackTraceLines(run.stderr), [], run.stderr);
  return run;
}

function json(...args: string[]) {
  const run = zaxy(...args, "--json");
  return { ...run, doc: JSON.parse(run.stdout) as Record<string, unknown> };
}

function fleetLogBytes(): Buffer {
  return fs.readFileSync(path.join(root, "fleet.alpha.jsonl"));
}

before(() => {
  dir = makeTempDir("zaxy-fleet-cli");
  root = path.join(dir, ".eventloom");
  // The fleet plane is off unless config.json enables it (design I7 invariant 6).
  assert.equal(runZaxy(["init", "--fleet", "--eventloom-path", root], { cwd: dir }).code, 0);
  for (const title of ["a", "b", "c", "d"]) {
    const run = runZaxy(["memory", "append", "task.completed", "--actor", "w1", "--session-id", "w1", "--payload-json", JSON.stringify({ title }), "--eventloom-path", root, "--json"], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    hashes.push(JSON.parse(run.stdout).hash);
  }
});

describe("zaxy fleet", () => {
  test("create, enroll, promote, status, audit, review, rollback: exit codes and JSON documents", () => {
    const created = json("fleet", "create", "alpha", "--summary", "Auth workers");
    assert.equal(created.code, 0, created.stderr);
    assert.equal(created.doc.schema, "zaxy.fleet.create.v1");
    assert.equal(created.stderr, "");
    assert.equal(json("fleet", "create", "alpha", "--summary", "again").code, 1);
    assert.equal(zaxy("fleet", "enroll", "alpha", "--agent", "w1", "--actor", "coordinator").code, 0);
    assert.equal(zaxy("fleet", "enroll", "alpha", "--agent", "w2", "--actor", "w1").code, 1, "only a steward enrolls");

    const promoteArgs = ["fleet", "promote-outcome", "alpha", "--outcome", "failure", "--summary", "JWKS expiry", "--claim-key", "auth", "--origin-session", "w1", "--confidence", "0.9", "--actor", "w1"];
    const promoted = json(...promoteArgs, "--source-event", `1:${hashes[0]}`);
    assert.equal(promoted.code, 0, promoted.stderr);
    assert.deepEqual([promoted.doc.rejected, promoted.doc.review_status, promoted.doc.auto_applied], [false, "active", true]);
    assert.match(promoted.doc.promotion_id as string, /^fleetpromo:[0-9a-f]{24}$/);

    const before = fleetLogBytes();
    const rejected = json(...promoteArgs, "--source-event", `2:${hashes[1]}`, "--visibility-scope", "global");
    assert.equal(rejected.code, 1);
    assert.equal(rejected.doc.rejected, true);
    assert.equal(rejected.doc.reason, "insufficient trust: actor 'w1' (tier 'member') may not propose visibility_scope 'global'; max proposable scope is 'fleet'");
    const rejectedText = zaxy(...promoteArgs, "--source-event", `2:${hashes[1]}`, "--visibility-scope", "global");
    assert.equal(rejectedText.code, 1);
    assert.match(rejectedText.stderr, /rejected: insufficient trust/);
    assert.deepEqual(fleetLogBytes(), before, "a rejected promotion appends nothing");

    const skill = json("fleet", "promote-skill", "alpha", "--skill-id", "jwks", "--skill-version", "1", "--origin-session", "w1", "--source-event", `3:${hashes[2]}`, "--confidence", "0.5", "--actor", "w1");
    assert.equal(skill.doc.review_status, "pending");
    const rule = json("fleet", "promote-rule", "alpha", "--rule", "refresh JWKS early", "--trigger", "401 spike", "--origin-session", "w1", "--source-event", `4:${hashes[3]}`, "--confidence", "0.95", "--actor", "w1", "--keystone");
    assert.equal(rule.doc.review_status, "active");

    assert.equal(zaxy("fleet", "review", "alpha", "--promotion", skill.doc.promotion_id as string, "--decision", "accepted", "--actor", "w1").code, 1, "only a steward reviews");
    const reviewed = json("fleet", "review", "alpha", "--promotion", skill.doc.promotion_id as string, "--decision", "accepted", "--actor", "coordinator", "--rationale", "ok");
    assert.equal(reviewed.code, 0, reviewed.stderr);
    assert.equal(reviewed.doc.review_status, "active");

    const status = zaxy("fleet", "status", "alpha");
    assert.equal(status.code, 0);
    assert.match(status.stdout, /^Active promotions: 3$/m);
    const statusJson = json("fleet", "status", "alpha");
    assert.equal(statusJson.doc.active_promotion_count, 3);
    // Issue 18 item 6: each promotion id is printed in full (review and rollback take it), in
    // aligned columns.
    const rows = status.stdout.split("\n").filter((line) => line.startsWith("fleetpromo:"));
    assert.equal(rows.length, 3);
    for (const p of statusJson.doc.promotions as Array<{ promotion_id: string }>) assert.ok(rows.some((row) => row.startsWith(`${p.promotion_id}  `)), p.promotion_id);
    const kindColumn = rows.map((row) => row.indexOf(" ", row.indexOf(" ") + 1) === -1 ? -1 : row.search(/ {2}\S/));
    assert.equal(new Set(kindColumn).size, 1, status.stdout);

    const rolled = json("fleet", "rollback", "alpha", "--promotion", promoted.doc.promotion_id as string, "--reason", "wrong cause", "--actor", "w1");
    assert.equal(rolled.code, 0, rolled.stderr);
    assert.equal(rolled.doc.within_rollback_window, true);
    assert.match(zaxy("fleet", "status", "alpha").stdout, /^Active promotions: 2$/m);

    const audit = json("fleet", "audit", "alpha");
    assert.equal(audit.code, 0, audit.stdout);
    assert.deepEqual([audit.doc.ok, audit.doc.promotion_count, audit.doc.unresolved_count], [true, 3, 0]);
    const first = (audit.doc.promotions as Array<{ origin_actor: string; source_refs: Array<{ citation: string; resolved: boolean }> }>)[0];
    assert.equal(first.origin_actor, "w1");
    assert.deepEqual(first.source_refs.map((r) => [r.citation, r.resolved]), [[`eventloom://w1/events/1#${hashes[0].slice(0, 12)}`, true]]);

    const verify = zaxy("verify", path.join(root, "fleet.alpha.jsonl"));
    assert.equal(verify.code, 0, verify.stdout);
  });

  test("bad input is exit 2 naming the flag, and writes nothing", () => {
    const base = ["fleet", "promote-outcome", "alpha", "--outcome", "failure", "--summary", "s", "--origin-session", "w1", "--confidence", "0.9", "--actor", "w1"];
    const cases: Array<[string[], RegExp]> = [
      [base, /--source-event/],
      [[...base, "--source-event", "1:abc"], /--source-event "1:abc" is not SEQ:HASH/],
      [[...base, "--source-event", `1:${hashes[1]}`], /--source-event 1:[0-9a-f]{64} is not a sealed event of origin session "w1"/],
      [[...base.slice(0, 10), "1.5", "--actor", "w1", "--source-event", `1:${hashes[0]}`], /--confidence must be a number between 0.0 and 1.0/],
      [[...base, "--source-event", `1:${hashes[0]}`, "--visibility-scope", "galaxy"], /--visibility-scope must be one of: private, session, mission, fleet, global/],
      [[...base, "--source-event", `1:${hashes[0]}`, "--visibility-scope", "session"], /--visibility-scope must be fleet or global/],
      [["fleet", "promote-outcome", "alpha", "--outcome", "meh", "--summary", "s", "--origin-session", "w1", "--confidence", "0.9", "--actor", "w1", "--source-event", `1:${hashes[0]}`], /--outcome must be one of/],
      [["fleet", "enroll", "alpha", "--agent", "w9", "--actor", "coordinator", "--trust-tier", "boss"], /--trust-tier must be one of: untrusted, member, trusted, steward/],
      [["fleet", "review", "alpha", "--promotion", "nope", "--decision", "accepted", "--actor", "coordinator"], /--promotion "nope" is not a promotion id/],
      [["fleet", "review", "alpha", "--promotion", "fleetpromo:" + "0".repeat(24), "--decision", "sure", "--actor", "coordinator"], /--decision must be one of: accepted, rejected, deferred/],
      [["fleet", "status", "a:b"], /ID "a:b" is not a fleet id/],
      [["fleet", "status", "ghost"], /Unknown fleet "ghost"/],
    ];
    const before = fleetLogBytes();
    for (const [args, message] of cases) {
      const run = zaxy(...args);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stderr}`);
      assert.match(run.stderr, message, args.join(" "));
      assert.equal(run.stdout, "");
    }
    assert.deepEqual(fleetLogBytes(), before);
    assert.equal(fs.existsSync(path.join(root, "fleet.ghost.jsonl")), false);
    const jsonError = json("fleet", "status", "ghost");
    assert.equal(jsonError.code, 2);
    assert.equal((jsonError.doc.error as { code: string }).code, "unknown_fleet");
  });

  test("audit exits 1 and lists the ref when a cited origin session no longer holds the event", () => {
    const other = path.join(makeTempDir("zaxy-fleet-audit"), ".eventloom");
    fs.mkdirSync(other, { recursive: true });
    fs.writeFileSync(path.join(other, "config.json"), JSON.stringify({ fleet_enabled: true }));
    fs.copyFileSync(path.join(root, "fleet.alpha.jsonl"), path.join(other, "fleet.alpha.jsonl"));
    const run = runZaxy(["fleet", "audit", "alpha", "--eventloom-path", other, "--json"], { cwd: dir });
    assert.equal(run.code, 1);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.ok, false);
    assert.equal(doc.unresolved_count, 3);
    assert.match(doc.unresolved[0].problem, /origin session "w1" has no log/);
  });
});
