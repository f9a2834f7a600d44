/**
 * `zaxy memory append` and `zaxy memory ingest` refuse what a user almost surely did not mean:
 * an event type that differs from a known one only in capitals or by a typo (unless
 * `--allow-new-type`), and an append that would switch a v1 session to legacy lines for good
 * (unless `--allow-envelope-switch`). A refusal exits 2, names the field and writes nothing; a
 * session already in legacy lines (the Python interop logs) appends exactly as before.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { interopDir, makeTempDir, readLines, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

/** A root holding one v1 event, and its log's path and bytes. */
function seeded(label: string): { dir: string; log: string; before: Buffer } {
  const dir = makeTempDir(label);
  const run = runZaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"Ship"}'], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const log = path.join(dir, ".eventloom", "default.jsonl");
  return { dir, log, before: fs.readFileSync(log) };
}

function append(dir: string, type: string, ...flags: string[]) {
  return runZaxy(["memory", "append", type, "--actor", "a", "--payload-json", '{"decision":"Refetch JWKS"}', ...flags], { cwd: dir });
}

function ingest(dir: string, lines: unknown[], ...flags: string[]) {
  const file = path.join(dir, "batch.jsonl");
  fs.writeFileSync(file, lines.map((line) => JSON.stringify(line)).join("\n") + "\n");
  return runZaxy(["memory", "ingest", file, "--json", ...flags], { cwd: dir });
}

describe("a misspelt known event type is refused", () => {
  test("Decision.Made: exit 2, did you mean \"decision.made\", the field named, the log's bytes unchanged", () => {
    const { dir, log, before } = seeded("guard-case");
    const run = append(dir, "Decision.Made");
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stdout, "");
    assert.match(run.stderr, /^zaxy: Cannot append: unknown event type "Decision\.Made" in event_type; did you mean "decision\.made"\? \(it differs only in capitals\)\. Nothing was written\..*pass --allow-new-type\.\n/);
    assert.deepEqual(fs.readFileSync(log), before);

    const json = append(dir, "Decision.Made", "--json");
    assert.equal(json.code, 2);
    const error = JSON.parse(json.stdout).error;
    assert.equal(error.code, "unknown_event_type");
    assert.equal(error.field, "event_type");
    assert.deepEqual(fs.readFileSync(log), before);
  });

  test("a near miss (goal.craeted) is refused naming goal.created; a genuinely new type is appended as before", () => {
    const { dir, log, before } = seeded("guard-typo");
    const run = append(dir, "goal.craeted");
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /unknown event type "goal\.craeted" in event_type; did you mean "goal\.created"\?/);
    assert.ok(!run.stderr.includes("differs only in capitals"));
    assert.deepEqual(fs.readFileSync(log), before);

    const fresh = append(dir, "deploy.finished", "--json");
    assert.equal(fresh.code, 0, fresh.stderr);
    assert.equal(fresh.stderr, "");
    assert.equal(JSON.parse(fresh.stdout).envelope, "v1");
  });

  test("--allow-new-type appends the type as written, with the warning naming the known type", () => {
    const { dir, log } = seeded("guard-allow-type");
    const run = append(dir, "goal.craeted", "--allow-new-type", "--json");
    assert.equal(run.code, 0, run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.event_type, "goal.craeted");
    assert.equal(doc.envelope, "v1");
    assert.match(doc.warnings[0], /the closest known type is "goal\.created"/);
    assert.equal(JSON.parse(readLines(log)[1]).type, "goal.craeted");
  });
});

describe("a switch to legacy lines must be asked for", () => {
  test("user.preference_changed on a v1 session: refused naming --allow-envelope-switch; accepted with it, and later appends need nothing", () => {
    const { dir, log, before } = seeded("guard-switch");
    const refused = append(dir, "user.preference_changed");
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr, /event_type "user\.preference_changed" cannot be written in the eventloom\.v1 envelope.*would switch session "default" to legacy lines from seq 2 on.*pass --allow-envelope-switch/);
    assert.deepEqual(fs.readFileSync(log), before);

    const allowed = append(dir, "user.preference_changed", "--allow-envelope-switch", "--json");
    assert.equal(allowed.code, 0, allowed.stderr);
    assert.equal(JSON.parse(allowed.stdout).envelope, "legacy");
    assert.match(allowed.stderr, /zaxy: warning: event type "user\.preference_changed" cannot be written in the eventloom\.v1 envelope/);

    const later = append(dir, "user.preference_changed", "--json");
    assert.equal(later.code, 0, later.stderr);
    assert.equal(later.stderr, "", "the session is legacy now: nothing to switch, nothing to say");
  });

  test("the Python interop logs in legacy lines append as before: no flag, no warning, and they still verify", () => {
    const legacyLogs = fs.readdirSync(interopDir).filter((name) => name.startsWith("legacy-") && name.endsWith(".jsonl"));
    assert.ok(legacyLogs.length > 0);
    const dir = makeTempDir("guard-interop");
    const root = path.join(dir, ".eventloom");
    fs.mkdirSync(root);
    const expectedEvents = new Map<string, number>();
    for (const name of legacyLogs) {
      const session = name.replace(/\.jsonl$/, "");
      fs.copyFileSync(path.join(interopDir, name), path.join(root, name));
      expectedEvents.set(path.join(".eventloom", name), readLines(path.join(root, name)).length + 1);
      const run = runZaxy(["memory", "append", "user.preference_changed", "--actor", "a", "--session-id", session, "--payload-json", '{"user":"a","key":"k","value":"v"}', "--json"], { cwd: dir });
      assert.equal(run.code, 0, run.stderr);
      assert.equal(run.stderr, "", name);
      assert.equal(JSON.parse(run.stdout).envelope, "legacy", name);
    }
    const verify = runZaxy(["verify", "--all", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stdout);
    const logs = JSON.parse(verify.stdout).logs as Array<{ path: string; ok: boolean; total_events: number }>;
    assert.deepEqual(new Map(logs.map((log) => [log.path, log.total_events])), expectedEvents);
  });
});

describe("memory ingest: one bad line refuses the whole batch", () => {
  test("a misspelt type on line 2: exit 2 naming line 2 and the field, nothing written; --allow-new-type ingests all", () => {
    const { dir, log, before } = seeded("guard-ingest-type");
    const lines = [
      { event_type: "goal.created", actor: "a", payload: { title: "one" } },
      { event_type: "task.complted", actor: "a", payload: { taskId: "t1" } },
      { event_type: "goal.created", actor: "a", payload: { title: "three" } },
    ];
    const run = ingest(dir, lines);
    assert.equal(run.code, 2, run.stdout);
    const error = JSON.parse(run.stdout).error;
    assert.equal(error.code, "unknown_event_type");
    assert.equal(error.field, "event_type");
    assert.match(error.message, /^Cannot append: line 2: unknown event type "task\.complted" in event_type; did you mean "task\.completed"\?/);
    assert.deepEqual(fs.readFileSync(log), before);

    const allowed = ingest(dir, lines, "--allow-new-type");
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.equal(JSON.parse(allowed.stdout).imported, 3);
  });

  test("a line that would switch the session to legacy: exit 2 naming the line and --allow-envelope-switch, nothing written", () => {
    const { dir, log, before } = seeded("guard-ingest-switch");
    const lines = [
      { event_type: "goal.created", actor: "a", payload: { title: "one" } },
      { event_type: "user.preference_changed", actor: "a", payload: { user: "a", key: "editor", value: "vim" } },
    ];
    const run = ingest(dir, lines);
    assert.equal(run.code, 2, run.stdout);
    const error = JSON.parse(run.stdout).error;
    assert.equal(error.code, "envelope_switch");
    assert.match(error.message, /line 2: event_type "user\.preference_changed" .*--allow-envelope-switch/);
    assert.deepEqual(fs.readFileSync(log), before);

    const allowed = ingest(dir, lines, "--allow-envelope-switch");
    assert.equal(allowed.code, 0, allowed.stdout);
    assert.equal(JSON.parse(allowed.stdout).imported, 2);
    assert.equal(readLines(log).length, 3);
  });

  test("--json lists the paths redacted from each ingested event's payload", () => {
    const dir = makeTempDir("guard-ingest-redacted");
    const run = ingest(dir, [
      { event_type: "note.added", actor: "a", payload: { api_key: "sk-" + "abcdef1234567890abcdef", text: "kept" } },
      { event_type: "note.added", actor: "a", payload: { text: "plain" } },
    ]);
    assert.equal(run.code, 0, run.stdout);
    const events = JSON.parse(run.stdout).events;
    assert.deepEqual(events[0].redacted_paths, ["api_key"]);
    assert.equal(events[1].redacted_paths, undefined);
  });
});
