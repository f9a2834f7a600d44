// test-lane: full (slow)
/**
 * Issue 18, the everyday surface, through the CLI a user runs: each test runs the issue's command
 * and asserts the behaviour it asked for.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { canMountTmpfs, fillDisk, mountTmpfs, unmount } from "../reliability/fsFaults.ts";
import { runZaxy, stackTraceLines, zaxyInvocation } from "./zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 120_000 };

function json(run: { code: number | null; stdout: string; stderr: string }, code = 0) {
  assert.equal(run.code, code, run.stdout + run.stderr);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  return JSON.parse(run.stdout);
}

function appendGoal(cwd: string, title: string, session = "default"): void {
  json(runZaxy(["memory", "append", "goal.created", "--actor", "agent", "--session-id", session, "--payload-json", JSON.stringify({ title }), "--json"], { cwd }));
}

describe("item 5: what zaxy prints is ingestible", () => {
  test("memory log --json | jq -c '.events[]' | zaxy memory ingest - copies the events into another session, saying what was not kept", slow, () => {
    const dir = makeTempDir("zaxy-ingest-roundtrip");
    appendGoal(dir, "Ship the release");
    json(runZaxy(["memory", "append", "command.completed", "--actor", "ci", "--payload-json", '{"command":"npm test","exit_code":0}', "--json"], { cwd: dir }));
    const log = json(runZaxy(["memory", "log", "--json"], { cwd: dir }));
    const lines = log.events.map((event: unknown) => JSON.stringify(event)).join("\n") + "\n";
    const ingest = runZaxy(["memory", "ingest", "-", "--session-id", "copy", "--json"], { cwd: dir, input: lines });
    const doc = json(ingest);
    assert.equal(doc.imported, 2);
    assert.equal(doc.warnings.length, 1, doc.warnings.join(" | "));
    assert.match(doc.warnings[0], /^the input carries fields of zaxy's read output \(seq, timestamp, thread, security, prev_hash, hash, event_id, envelope, citation\): they were not kept/);
    assert.match(ingest.stderr, /^zaxy: warning: the input carries fields of zaxy's read output/m);
    const copy = json(runZaxy(["memory", "log", "--session-id", "copy", "--json"], { cwd: dir }));
    assert.deepEqual(copy.events.map((e: { type: string; actor: string; payload: unknown }) => [e.type, e.actor, e.payload]), log.events.map((e: { type: string; actor: string; payload: unknown }) => [e.type, e.actor, e.payload]));
  });

  test("a bad batch reports one error per line, numbered from 1, the allowed fields once; nothing is written", slow, () => {
    const dir = makeTempDir("zaxy-ingest-errors");
    const input = [
      '{"type":"goal.created","actor":"a","colour":"red","size":3}',
      '{"event_type":"goal.created","actor":"a"}',
      '{"event_type":"goal.created","type":"task.proposed","actor":"a"}',
      '{"type":"goal.created","actor":"a","shape":"round"}',
    ].join("\n") + "\n";
    const run = runZaxy(["memory", "ingest", "-", "--json"], { cwd: dir, input });
    const doc = json(run, 2);
    const message: string = doc.error.message;
    assert.match(message, /^Cannot ingest: line 1: unknown fields "colour", "size"; line 3: "event_type" and "type" name different types; give one; line 4: unknown field "shape" \(allowed fields: event_type \(or type\), actor, payload/);
    assert.equal(message.match(/allowed fields/g)?.length, 1, message);
    assert.equal(doc.error.line, 1);
    assert.ok(!fs.existsSync(path.join(dir, ".eventloom", "default.jsonl")), "nothing was written");
  });
});

describe("item 7: a command that takes a LOG defaults to the session's log", () => {
  test("zaxy compact --audit --session-id S and zaxy replay --session-id S read .eventloom/S.jsonl", slow, () => {
    const dir = makeTempDir("zaxy-log-default");
    appendGoal(dir, "First goal", "work");
    appendGoal(dir, "Second goal", "work");
    const audit = json(runZaxy(["compact", "--audit", "--session-id", "work", "--json"], { cwd: dir }));
    assert.equal(audit.event_count, 2);
    assert.equal(path.basename(audit.log_path), "work.jsonl");
    const replay = json(runZaxy(["replay", "--session-id", "work", "--json"], { cwd: dir }));
    assert.equal(replay.integrity.total_events, 2);
  });
});

describe("item 10: zaxy config get|set|unset|list", () => {
  test("set is checked by the engine's readers (bad value: exit 2, nothing written), get and list show values and sources, unset restores the default", slow, () => {
    const dir = makeTempDir("zaxy-config");
    json(runZaxy(["init", "--json"], { cwd: dir }));
    const file = path.join(dir, ".eventloom", "config.json");
    const before = fs.readFileSync(file, "utf8");
    const bad = json(runZaxy(["config", "set", "long_horizon_recent_window", "0", "--json"], { cwd: dir }), 2);
    assert.equal(bad.error.code, "invalid_config");
    assert.match(bad.error.message, /^\.eventloom\/config\.json: long_horizon_recent_window must be an integer >= 1, got 0$/);
    const badTier = json(runZaxy(["config", "set", "fleet_default_trust_tier", "admin", "--json"], { cwd: dir }), 2);
    assert.match(badTier.error.message, /fleet_default_trust_tier must be one of untrusted, member, trusted, steward, got "admin"/);
    const unknown = json(runZaxy(["config", "set", "fleet_enable", "true", "--json"], { cwd: dir }), 2);
    assert.equal(unknown.error.code, "unknown_config_key");
    assert.equal(fs.readFileSync(file, "utf8"), before, "refused values write nothing");
    assert.deepEqual(fs.readdirSync(path.join(dir, ".eventloom")), ["config.json"], "values are checked in memory: no scratch files");

    const set = json(runZaxy(["config", "set", "fleet_enabled", "true", "--json"], { cwd: dir }));
    assert.deepEqual({ key: set.key, value: set.value, previous: set.previous }, { key: "fleet_enabled", value: true, previous: null });
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).fleet_enabled, true);
    assert.equal(JSON.parse(fs.readFileSync(file, "utf8")).envelope, "v1", "other keys are kept");
    const text = runZaxy(["config", "set", "long_horizon_recent_window", "80"], { cwd: dir });
    assert.equal(text.code, 0, text.stderr);
    assert.match(text.stdout, /^long_horizon_recent_window = 80 \(.*config\.json\)\n$/);
    assert.equal(runZaxy(["config", "get", "long_horizon_recent_window"], { cwd: dir }).stdout, "80\n");
    const get = json(runZaxy(["config", "get", "forgetting_enabled", "--json"], { cwd: dir }));
    assert.deepEqual({ value: get.value, source: get.source }, { value: false, source: "default" });
    const list = json(runZaxy(["config", "list", "--json"], { cwd: dir }));
    const byKey = Object.fromEntries(list.settings.map((s: { key: string; value: unknown; source: string }) => [s.key, [s.value, s.source]]));
    assert.deepEqual(byKey.fleet_enabled, [true, "config.json"]);
    assert.deepEqual(byKey.long_horizon_recent_window, [80, "config.json"]);
    assert.deepEqual(byKey.hook_strictness, ["integrity", "default"]);
    // The fleet plane is on for the commands that read it.
    json(runZaxy(["fleet", "create", "f1", "--summary", "x", "--actor", "steward", "--json"], { cwd: dir }));
    const unset = json(runZaxy(["config", "unset", "long_horizon_recent_window", "--json"], { cwd: dir }));
    assert.deepEqual({ removed: unset.removed, default: unset.default }, { removed: true, default: 50 });
    assert.equal(runZaxy(["config", "get", "long_horizon_recent_window"], { cwd: dir }).stdout, "50\n");
  });

  test("a full disk: config set exits 3 naming the file, which is unchanged, with no temporary file left", { ...slow, skip: canMountTmpfs ? false : "cannot mount a tmpfs here" }, () => {
    const dir = makeTempDir("zaxy-config-full");
    const root = path.join(dir, ".eventloom");
    assert.ok(mountTmpfs(root, 64));
    try {
      json(runZaxy(["init", "--json"], { cwd: dir }));
      const before = fs.readFileSync(path.join(root, "config.json"), "utf8");
      const filler = fillDisk(root, 0);
      const run = runZaxy(["config", "set", "fleet_default_trust_tier", "trusted", "--json"], { cwd: dir });
      assert.equal(run.code, 3, run.stdout + run.stderr);
      assert.match(JSON.parse(run.stdout).error.message, /Cannot write .*config\.json: .*; it is unchanged/);
      fs.rmSync(filler);
      assert.equal(fs.readFileSync(path.join(root, "config.json"), "utf8"), before);
      assert.deepEqual(fs.readdirSync(root).sort(), ["config.json"]);
    } finally {
      unmount(root);
    }
  });

  test("a store URL with a password is not written to config; one already there is shown without it", slow, () => {
    const dir = makeTempDir("zaxy-config-store");
    const set = runZaxy(["config", "set", "store", "postgres://zaxy:s3cret@db.internal:5432/zaxy", "--json"], { cwd: dir });
    assert.equal(set.code, 2, set.stdout + set.stderr);
    assert.match(set.stdout + set.stderr, /password_in_config/);
    assert.match(set.stdout + set.stderr, /PGPASSFILE/);
    const configPath = path.join(dir, ".eventloom", "config.json");
    assert.ok(!fs.existsSync(configPath) || !fs.readFileSync(configPath, "utf8").includes("s3cret"), "nothing holding the password was written");
    // A config.json edited by hand with a password still works, and is never shown with it.
    fs.mkdirSync(path.dirname(configPath), { recursive: true });
    fs.writeFileSync(configPath, JSON.stringify({ schema: "zaxy.config.v1", envelope: "v1", store: "postgres://zaxy:s3cret@db.internal:5432/zaxy" }) + "\n");
    const get = runZaxy(["config", "get", "store"], { cwd: dir });
    assert.equal(get.code, 0, get.stderr);
    assert.doesNotMatch(get.stdout + get.stderr, /s3cret/);
    assert.match(get.stdout, /db\.internal/);
  });
});

describe("item 12: zaxy init inside a git repository", () => {
  test("writes <root>/.gitignore leaving out projections/, keys/ and *.lock; git then ignores the derived files", slow, () => {
    const repo = makeTempDir("zaxy-init-git");
    assert.equal(spawnSync("git", ["init", "-q"], { cwd: repo }).status, 0);
    const doc = json(runZaxy(["init", "--json"], { cwd: repo }));
    assert.equal(doc.gitignore_written, path.join(fs.realpathSync(repo), ".eventloom", ".gitignore"));
    assert.match(fs.readFileSync(path.join(repo, ".eventloom", ".gitignore"), "utf8"), /^projections\/$/m);
    appendGoal(repo, "Keep derived files out of git");
    json(runZaxy(["reproject", "--json"], { cwd: repo }));
    const status = spawnSync("git", ["status", "--porcelain", "--untracked-files=all"], { cwd: repo, encoding: "utf8" }).stdout;
    assert.match(status, /\.eventloom\/default\.jsonl/);
    assert.match(status, /\.eventloom\/config\.json/);
    assert.doesNotMatch(status, /projections|\.lock/, status);
    // A second init leaves an existing .gitignore alone.
    fs.writeFileSync(path.join(repo, ".eventloom", ".gitignore"), "mine\n");
    assert.equal(json(runZaxy(["init", "--json"], { cwd: repo })).gitignore_written, null);
    assert.equal(fs.readFileSync(path.join(repo, ".eventloom", ".gitignore"), "utf8"), "mine\n");
  });
});

describe("item 4: output that streams and pages", () => {
  test("replay, memory log, query and compact --audit take --ndjson: one JSON document per line", slow, () => {
    const dir = makeTempDir("zaxy-ndjson");
    for (let i = 1; i <= 5; i++) appendGoal(dir, `Goal number ${i} about the release`);
    const lines = (text: string) => text.trimEnd().split("\n").map((line) => JSON.parse(line));
    const replay = runZaxy(["replay", "--ndjson", "--from-seq", "2", "--to-seq", "4"], { cwd: dir });
    assert.equal(replay.code, 0, replay.stderr);
    assert.deepEqual(lines(replay.stdout).map((e) => [e.seq, e.type, e.verified]), [[2, "goal.created", true], [3, "goal.created", true], [4, "goal.created", true]]);
    const full = json(runZaxy(["replay", "--json"], { cwd: dir }));
    assert.deepEqual(lines(runZaxy(["replay", "--ndjson"], { cwd: dir }).stdout), full.events, "the same objects as --json's events[]");
    const log = runZaxy(["memory", "log", "--after-seq", "0", "--ndjson"], { cwd: dir });
    assert.deepEqual(lines(log.stdout).map((e) => e.seq), [1, 2, 3, 4, 5]);
    const query = lines(runZaxy(["memory", "query", "release goal", "--ndjson"], { cwd: dir }).stdout);
    assert.deepEqual(query, json(runZaxy(["memory", "query", "release goal", "--json"], { cwd: dir })).results);
    const audit = lines(runZaxy(["compact", "--audit", "--ndjson"], { cwd: dir }).stdout);
    assert.equal(audit[audit.length - 1].kind, "report");
    assert.equal(audit[audit.length - 1].event_count, 5);
    assert.ok(audit.slice(0, -1).every((line) => line.kind === "cluster"));
    const misuse = runZaxy(["compact", "--ndjson"], { cwd: dir });
    assert.equal(misuse.code, 2);
    assert.match(misuse.stderr, /--ndjson applies to --audit only/);
  });

  test("memory log --after-seq pages past the 1000 cap; next_after_seq is where the next page starts, null at the end", slow, () => {
    const dir = makeTempDir("zaxy-log-cursor");
    const items = Array.from({ length: 1205 }, (_, i) => JSON.stringify({ event_type: "note.added", actor: "a", payload: { n: i + 1 } })).join("\n") + "\n";
    json(runZaxy(["memory", "ingest", "-", "--json"], { cwd: dir, input: items }));
    const seen: number[] = [];
    let cursor: number | null = 0;
    let pages = 0;
    while (cursor !== null) {
      const page = json(runZaxy(["memory", "log", "--after-seq", String(cursor), "--limit", "1000", "--json"], { cwd: dir }));
      seen.push(...page.events.map((e: { seq: number }) => e.seq));
      cursor = page.next_after_seq;
      pages++;
    }
    assert.equal(pages, 2);
    assert.deepEqual(seen, Array.from({ length: 1205 }, (_, i) => i + 1));
    const text = runZaxy(["memory", "log", "--after-seq", "1200", "--limit", "2"], { cwd: dir }).stdout;
    assert.match(text, /^integrity: OK \(1205 events\)\n1201  \S+  note\.added  a  \{"n":1201\}\n1202  .*\nmore: zaxy memory log --after-seq 1202\n$/);
  });
});

describe("item 6: text a person can read", () => {
  test("memory log aligns its columns; verify colours OK on a terminal, never with NO_COLOR or in a pipe", slow, () => {
    const dir = makeTempDir("zaxy-text");
    appendGoal(dir, "Ship");
    json(runZaxy(["memory", "append", "command.completed", "--actor", "ci-runner", "--payload-json", '{"command":"npm test","exit_code":0}', "--json"], { cwd: dir }));
    const rows = runZaxy(["memory", "log"], { cwd: dir }).stdout.trimEnd().split("\n").slice(1);
    const typeColumn = rows.map((row) => row.indexOf("goal.created") >= 0 ? row.indexOf("goal.created") : row.indexOf("command.completed"));
    const actorColumn = rows.map((row) => row.search(/ (agent|ci-runner) /));
    assert.equal(new Set(typeColumn).size, 1, rows.join("\n"));
    assert.equal(new Set(actorColumn).size, 1, rows.join("\n"));
    assert.doesNotMatch(runZaxy(["verify"], { cwd: dir }).stdout, /\x1b\[/, "a pipe gets no escapes");
    if (spawnSync("script", ["--version"]).status !== 0) return;
    // stdout on a real pseudo-terminal: colour unless NO_COLOR is set.
    const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
    const command = [zaxyInvocation.command, ...zaxyInvocation.args, "verify"].map(quote).join(" ");
    const onTerminal = (extra: Record<string, string>) =>
      spawnSync("script", ["-qec", command, "/dev/null"], { cwd: dir, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: dir, TMPDIR: dir, TERM: "xterm", ...extra } }).stdout;
    // NO_COLOR empty counts as unset (no-color.org); set explicitly, since a runner may export it
    // (CI runs Deno with NO_COLOR=1, and Deno's child processes inherit the parent's environment).
    assert.match(onTerminal({ NO_COLOR: "" }), /\x1b\[32mOK\x1b\[0m/);
    assert.doesNotMatch(onTerminal({ NO_COLOR: "1" }), /\x1b\[/);
  });
});

describe("item 8: one name per concept", () => {
  test("fleet enroll takes --agent-id, keeps --agent as an alias (both: exit 2), and --help says so; ZAXY_ACTOR fills --actor", slow, () => {
    const dir = makeTempDir("zaxy-flags");
    json(runZaxy(["config", "set", "fleet_enabled", "true", "--json"], { cwd: dir }));
    json(runZaxy(["fleet", "create", "alpha", "--summary", "x", "--actor", "steward", "--json"], { cwd: dir }));
    assert.equal(json(runZaxy(["fleet", "enroll", "alpha", "--agent-id", "worker-1", "--actor", "steward", "--json"], { cwd: dir })).agent_id, "worker-1");
    assert.equal(json(runZaxy(["fleet", "enroll", "alpha", "--agent", "worker-2", "--json"], { cwd: dir, env: { ZAXY_ACTOR: "steward" } })).agent_id, "worker-2");
    const both = json(runZaxy(["fleet", "enroll", "alpha", "--agent", "a", "--agent-id", "b", "--actor", "steward", "--json"], { cwd: dir }), 2);
    assert.equal(both.error.message, "zaxy fleet enroll: --agent is another spelling of --agent-id; give one");
    assert.match(runZaxy(["fleet", "enroll", "--help"], { cwd: dir }).stdout, /--agent-id A +Agent to enroll \(required\) \(also --agent\)/);
    const appended = json(runZaxy(["memory", "append", "goal.created", "--payload-json", '{"title":"x"}', "--json"], { cwd: dir, env: { ZAXY_ACTOR: "agent-7" } }));
    assert.equal(json(runZaxy(["memory", "log", "--json"], { cwd: dir })).events.find((e: { seq: number }) => e.seq === appended.seq).actor, "agent-7");
    const missing = json(runZaxy(["memory", "append", "goal.created", "--json"], { cwd: dir }), 2);
    assert.equal(missing.error.message, "zaxy memory append: --actor is required (or set ZAXY_ACTOR)");
  });
});

describe("item 9: requests that are ignored say so", () => {
  test("an outcome.explained that yields no causal edge names why; one citing a wrong hash says so", slow, () => {
    const dir = makeTempDir("zaxy-ignored");
    const first = json(runZaxy(["memory", "append", "command.completed", "--actor", "ci", "--payload-json", '{"command":"npm test","exit_code":1}', "--json"], { cwd: dir }));
    const explain = (payload: unknown) => runZaxy(["memory", "append", "outcome.explained", "--actor", "agent", "--payload-json", JSON.stringify(payload), "--json"], { cwd: dir });
    const base = { cause: { name: "flaky dns", entity_type: "cause" }, effect: { name: "ci timeout", entity_type: "outcome" }, confidence: 0.8 };
    const badRelation = explain({ ...base, relation_type: "causes", evidence: { source_event_seq: 1, source_event_hash: first.hash.replace(/^sha256:/, "") } });
    const doc = json(badRelation);
    assert.equal(doc.generated_events, undefined, "no edge");
    assert.match(doc.warnings.join("\n"), /^outcome\.explained at seq 2 produced no causal edge: relation_type "causes" is not one of the taxonomy \(caused, enabled, blocked, prevented, regressed, fixed, explained\)/m);
    assert.match(badRelation.stderr, /^zaxy: warning: outcome\.explained at seq 2 produced no causal edge/m);
    const wrongHash = json(explain({ ...base, relation_type: "caused", evidence: { source_event_seq: 1, source_event_hash: "0".repeat(64) } }));
    assert.equal(wrongHash.generated_events.length, 1);
    assert.match(wrongHash.warnings.join("\n"), /outcome\.explained at seq 3 cites evidence seq 1 with hash 000000000000\.\.\., which is not that event's hash/);
    const good = json(explain({ ...base, relation_type: "caused", evidence: { source_event_seq: 1, source_event_hash: first.hash.replace(/^sha256:/, "") } }));
    assert.equal(good.warnings, undefined);
    assert.equal(good.generated_events[0].event_type, "causal.edge.generated");
  });
});

describe("item 2: summaries carry key facts", () => {
  test("the README's `echo '{\"command\":\"npm test\",\"exit_code\":0}' | zaxy memory append command.completed` shows the command and exit code in checkout", slow, () => {
    const dir = makeTempDir("zaxy-key-facts");
    appendGoal(dir, "Ship the release");
    const append = runZaxy(["memory", "append", "command.completed", "--actor", "agent"], { cwd: dir, input: '{"command":"npm test","exit_code":0}\n' });
    assert.equal(append.code, 0, append.stderr);
    json(runZaxy(["memory", "append", "tool.call.completed", "--actor", "agent", "--payload-json", '{"tool_name":"Bash","status":"ok","result_summary":"12 files changed"}', "--json"], { cwd: dir }));
    json(runZaxy(["memory", "append", "file.edit.applied", "--actor", "agent", "--payload-json", '{"path":"src/app.ts","operation":"modified"}', "--json"], { cwd: dir }));
    const prompt = runZaxy(["memory", "checkout", "did npm test pass"], { cwd: dir }).stdout;
    assert.match(prompt, /\(command_run\): npm test → exit 0/);
    // Every event is listed above by its citation (as a fact or as low-relevance evidence), so
    // Recent Events names each by seq instead of repeating it (their key-fact lines, as
    // context_assemble prints them, are tests/checkout/assembleContext_test.ts).
    const recent = prompt.split("# Recent Events\n")[1];
    assert.match(recent, /^\[2\] command\.completed by agent \(cited above\)$/m);
    assert.match(recent, /^\[3\] tool\.call\.completed by agent \(cited above\)$/m);
    assert.match(recent, /^\[4\] file\.edit\.applied by agent \(cited above\)$/m);
  });
});
