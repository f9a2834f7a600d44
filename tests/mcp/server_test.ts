/**
 * `zaxy serve` end to end: the BUILT binary (`dist/zaxy`) spoken to by the official MCP SDK
 * client over stdio. Covers tool listing per profile, the four Eventloom tools, the error result
 * shape, that a bad call never kills the server, and that stdout carries protocol messages only.
 * Skipped when dist/zaxy has not been built (`node_modules/.bin/bun build.ts`).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import {
  builtBinary,
  type McpServer as Session,
  removeTempDirs,
  skipWithoutBinary as skip,
  startMcpServer,
  tempEventloomRoot,
} from "./mcpTestClient.ts";

const refVerify = "/work/shared/tools/ref_verify.py";
if (skip) console.error(`skipping MCP server tests: ${skip}`);

const allToolNames = [
  "memory_checkout", "memory_append", "memory_query", "context_assemble", "memory_feedback", "memory_invalidate", "memory_capabilities",
  "memory_feeling_of_knowing", "memory_ingest", "memory_sessions", "memory_get", "memory_edit", "memory_forget", "memory_graph_query", "memory_export", "memory_verbatim", "memory_bootstrap", "context_after_turn",
  "memory_replay", "memory_verify",
  "memory_causal_successors", "memory_causal_predecessors", "memory_explain_outcome",
  "memory_consolidation_candidate", "memory_consolidation_propose_from_log", "memory_consolidation_review", "memory_consolidation_status",
  "memory_rollback", "memory_evolution_gate", "memory_outcome", "trigger_consolidation", "merge_concepts",
  "fleet_create", "fleet_enroll", "fleet_assign_trust", "fleet_promote", "fleet_review", "fleet_rollback", "fleet_status", "fleet_audit",
];
/** Python's core profile, exactly: every one of its eight tools is served. */
const coreToolNames = [
  "memory_checkout", "memory_append", "memory_query", "context_assemble", "memory_feedback", "memory_invalidate", "memory_capabilities", "memory_feeling_of_knowing",
];

function tempRoot(): string {
  return tempEventloomRoot("zaxy-mcp-test");
}

/** `zaxy serve --eventloom-path ROOT [...args]`: the server's default profile unless args name one. */
function startServer(options: { args?: string[]; env?: Record<string, string>; root?: string } = {}): Promise<Session> {
  return startMcpServer(options.root ?? tempRoot(), { profile: null, args: options.args, env: options.env });
}

function refVerifyLog(logPath: string): { status: number | null; stdout: string } {
  const run = spawnSync("python3", [refVerify, logPath, "--json"], { encoding: "utf8" });
  return { status: run.status, stdout: run.stdout + run.stderr };
}

function citationOf(session: string, seq: number, hash: string): string {
  return `eventloom://${session}/events/${seq}#${hash.slice(0, 12)}`;
}

const citationPattern = /^eventloom:\/\/([A-Za-z0-9_.-]+)\/events\/([1-9][0-9]*)#([0-9a-f]{12})$/;

after(removeTempDirs);

describe("zaxy serve: tools/list", { skip }, () => {
  test("the core profile (default) lists exactly Python's eight core tools", async () => {
    const session = await startServer();
    try {
      assert.deepEqual(session.client.getServerVersion(), { name: "zaxy", version: "0.1.0" });
      const { tools } = await session.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), coreToolNames);
    } finally {
      await session.close();
    }
  });

  test("the full profile lists every tool, each with a strict input schema", async () => {
    const session = await startServer({ args: ["--profile", "full"] });
    try {
      const { tools } = await session.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), allToolNames);
      for (const tool of tools) {
        assert.equal(tool.inputSchema.type, "object", tool.name);
        assert.equal((tool.inputSchema as Record<string, unknown>).additionalProperties, false, tool.name);
        assert.ok(typeof tool.description === "string" && tool.description.length > 0, tool.name);
      }
      const byName = new Map(tools.map((t) => [t.name, t]));
      assert.deepEqual(byName.get("memory_append")?.inputSchema.required, ["event_type", "actor", "payload"]);
      assert.equal(byName.get("memory_replay")?.inputSchema.required, undefined); // session_id defaults to the server's
      assert.deepEqual(byName.get("memory_ingest")?.inputSchema.required, ["events"]);
      assert.equal(byName.get("memory_verify")?.inputSchema.required, undefined);
      // deno-lint-ignore no-explicit-any
      const events = (byName.get("memory_ingest")?.inputSchema.properties as any).events;
      assert.equal(events.type, "array");
      assert.equal(events.minItems, 1);
      assert.equal(events.items.additionalProperties, false);
      assert.deepEqual(events.items.required, ["event_type", "actor"]);
    } finally {
      await session.close();
    }
  });

  test("MCP_TOOL_PROFILE=full selects the full profile", async () => {
    const session = await startServer({ env: { MCP_TOOL_PROFILE: "full" } });
    try {
      const { tools } = await session.client.listTools();
      assert.deepEqual(tools.map((t) => t.name), allToolNames);
    } finally {
      await session.close();
    }
  });

  test("a tool the core profile does not list is still callable by name", async () => {
    const session = await startServer();
    try {
      await session.callOk("memory_append", { event_type: "note.added", actor: "a", payload: {} });
      const report = await session.callOk("memory_verify", {});
      assert.equal(report.ok, true);
      assert.equal(report.total_events, 1);
    } finally {
      await session.close();
    }
  });
});

describe("zaxy serve: Eventloom tools", { skip }, () => {
  let session: Session;

  before(async () => {
    session = await startServer({ args: ["--session-id", "agent-1"] });
  });

  after(async () => {
    await session?.close();
  });

  test("memory_append returns seq 1 then 2 with citations, and the log verifies with ref_verify.py", async () => {
    const first = await session.callOk("memory_append", {
      event_type: "goal.created",
      actor: "planner",
      payload: { title: "Ship the MCP server", ratio: 0.25, tags: ["a", "b"] },
    });
    assert.deepEqual(Object.keys(first), ["seq", "hash", "event_id", "session_id", "event_type", "citation"]);
    assert.equal(first.seq, 1);
    assert.match(first.hash, /^[0-9a-f]{64}$/);
    assert.match(first.event_id, /^evt_zaxy_000000000001_[0-9a-f]{16}$/);
    assert.equal(first.session_id, "agent-1");
    assert.equal(first.event_type, "goal.created");
    assert.match(first.citation, citationPattern);
    assert.equal(first.citation, citationOf("agent-1", 1, first.hash));

    const second = await session.callOk("memory_append", { event_type: "task.started", actor: "worker", payload: { taskId: "t1" } });
    assert.equal(second.seq, 2);
    assert.equal(second.citation, citationOf("agent-1", 2, second.hash));
    assert.notEqual(second.hash, first.hash);

    const logPath = path.join(session.root, "agent-1.jsonl");
    const lines = fs.readFileSync(logPath, "utf8").trimEnd().split("\n");
    assert.equal(lines.length, 2);
    assert.equal(JSON.parse(lines[1]).integrity.previousHash, `sha256:${first.hash}`);
    const ref = refVerifyLog(logPath);
    assert.equal(ref.status, 0, ref.stdout);
    assert.equal(JSON.parse(ref.stdout).ok, true);
  });

  test("memory_append honours session_id and its legacy alias thread", async () => {
    const bySession = await session.callOk("memory_append", { event_type: "note.added", actor: "a", payload: {}, session_id: "other" });
    assert.equal(bySession.session_id, "other");
    assert.equal(bySession.seq, 1);
    const byThread = await session.callOk("memory_append", { event_type: "note.added", actor: "a", payload: {}, thread: "other" });
    assert.equal(byThread.session_id, "other");
    assert.equal(byThread.seq, 2);
    assert.equal(byThread.citation, citationOf("other", 2, byThread.hash));
    const conflict = await session.callError(
      "memory_append",
      { event_type: "note.added", actor: "a", payload: {}, session_id: "other", thread: "third" },
      "invalid_request",
    );
    assert.match(conflict.message, /session_id "other" and thread "third"/);
    assert.equal(fs.existsSync(path.join(session.root, "third.jsonl")), false);
  });

  test("memory_ingest is atomic: a batch with one invalid item appends nothing", async () => {
    await session.callOk("memory_ingest", { session_id: "ingest", events: [{ event_type: "note.added", actor: "a" }] });
    const logPath = path.join(session.root, "ingest.jsonl");
    const before = fs.readFileSync(logPath);

    // Rejected by the input schema (payload is not an object).
    const schema = await session.callError(
      "memory_ingest",
      {
        session_id: "ingest",
        events: [
          { event_type: "note.added", actor: "a", payload: { n: 1 } },
          { event_type: "note.added", actor: "a", payload: "not an object" },
        ],
      },
      "invalid_request",
    );
    assert.match(schema.message, /events\[1\]\.payload must be an object, got the string "not an object"/);
    assert.deepEqual(fs.readFileSync(logPath), before);

    // Passes the schema, rejected by the library (control character in the event type).
    const library = await session.callError(
      "memory_ingest",
      {
        session_id: "ingest",
        events: [
          { event_type: "note.added", actor: "a" },
          { event_type: "note.added", actor: "a" },
          { event_type: "bad\u0001type", actor: "a" },
        ],
      },
      "invalid_request",
    );
    assert.match(library.message, /event 2: event_type .* contains a control character/);
    assert.match(library.message, /Nothing was written/);
    assert.deepEqual(fs.readFileSync(logPath), before);

    const report = await session.callOk("memory_verify", { session_id: "ingest" });
    assert.equal(report.total_events, 1);
  });

  test("memory_ingest dedups by producer_ref across calls and within a batch", async () => {
    const first = await session.callOk("memory_ingest", {
      session_id: "dedup",
      events: [
        { event_type: "ticket.opened", actor: "jira", payload: { key: "A-1" }, producer_ref: "jira:A-1" },
        { event_type: "ticket.opened", actor: "jira", payload: { key: "A-2" }, producer_ref: "jira:A-2" },
      ],
    });
    assert.deepEqual(Object.keys(first), ["imported", "deduped", "session_id", "events"]);
    assert.equal(first.imported, 2);
    assert.equal(first.deduped, 0);
    assert.equal(first.session_id, "dedup");
    assert.deepEqual(first.events.map((e: { seq: number }) => e.seq), [1, 2]);
    for (const event of first.events) {
      assert.deepEqual(Object.keys(event), ["seq", "hash", "citation"]);
      assert.equal(event.citation, citationOf("dedup", event.seq, event.hash));
    }

    const second = await session.callOk("memory_ingest", {
      session_id: "dedup",
      events: [
        { event_type: "ticket.opened", actor: "jira", payload: { key: "A-1" }, producer_ref: "jira:A-1" },
        { event_type: "ticket.opened", actor: "jira", payload: { key: "A-3" }, producer_ref: "jira:A-3" },
        { event_type: "ticket.opened", actor: "jira", payload: { key: "A-3" }, producer_ref: "jira:A-3" },
      ],
    });
    assert.equal(second.imported, 1);
    assert.equal(second.deduped, 2);
    assert.deepEqual(second.events.map((e: { seq: number }) => e.seq), [3]);

    const all = await session.callError(
      "memory_ingest",
      { session_id: "dedup", events: [] },
      "invalid_request",
    );
    assert.match(all.message, /events must have at least 1 item, got 0/);

    const ref = refVerifyLog(path.join(session.root, "dedup.jsonl"));
    assert.equal(ref.status, 0, ref.stdout);
  });

  test("memory_replay returns an inclusive window with citations, integrity and a handoff", async () => {
    for (let i = 1; i <= 5; i++) {
      await session.callOk("memory_append", { event_type: "task.created", actor: `w${i}`, payload: { taskId: `t${i}`, n: i }, session_id: "replay" });
    }
    const replay = await session.callOk("memory_replay", { session_id: "replay", from_seq: 2, to_seq: 4 });
    assert.deepEqual(Object.keys(replay), ["integrity", "events", "truncated", "total_events", "handoff"]);
    assert.equal(replay.integrity.ok, true);
    assert.equal(replay.integrity.total_events, 5);
    assert.equal(replay.truncated, false);
    assert.equal(replay.total_events, 5);
    assert.deepEqual(replay.events.map((e: { seq: number }) => e.seq), [2, 3, 4]);
    const event = replay.events[0];
    assert.deepEqual(Object.keys(event), [
      "seq", "timestamp", "type", "actor", "thread", "payload", "security", "prev_hash", "hash", "event_id", "envelope", "citation",
    ]);
    assert.equal(event.type, "task.created");
    assert.equal(event.actor, "w2");
    assert.equal(event.thread, "replay");
    assert.deepEqual(event.payload, { taskId: "t2", n: 2 });
    assert.match(event.timestamp, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{6})?Z$/);
    assert.equal(event.citation, citationOf("replay", 2, event.hash));
    assert.equal(replay.events[1].prev_hash, event.hash);
    assert.equal(replay.handoff.event_count, 3);
    assert.equal(replay.handoff.open_tasks.length, 3);
    assert.equal(replay.handoff.last_actor, "w4");

    const whole = await session.callOk("memory_replay", { session_id: "replay" });
    assert.deepEqual(whole.events.map((e: { seq: number }) => e.seq), [1, 2, 3, 4, 5]);
    assert.equal(whole.events[0].prev_hash, null);

    const past = await session.callOk("memory_replay", { session_id: "replay", from_seq: 9 });
    assert.deepEqual(past.events, []);
    assert.equal(past.truncated, false);

    const inverted = await session.callError("memory_replay", { session_id: "replay", from_seq: 4, to_seq: 2 }, "invalid_request");
    assert.match(inverted.message, /from_seq 4 is after to_seq 2/);
    const missing = await session.callError("memory_replay", { session_id: "no-such-session" }, "invalid_request");
    assert.match(missing.message, /session "no-such-session": it has no log/);
  });

  test("memory_replay returns at most 1000 events and says when it truncated", async () => {
    const events = Array.from({ length: 1001 }, (_, i) => ({ event_type: "note.added", actor: "bulk", payload: { i } }));
    const ingest = await session.callOk("memory_ingest", { session_id: "big", events });
    assert.equal(ingest.imported, 1001);
    const capped = await session.callOk("memory_replay", { session_id: "big" });
    assert.equal(capped.events.length, 1000);
    assert.equal(capped.events[0].seq, 1);
    assert.equal(capped.events[999].seq, 1000);
    assert.equal(capped.truncated, true);
    assert.equal(capped.total_events, 1001);
    assert.equal(capped.handoff.event_count, 1000);
    const rest = await session.callOk("memory_replay", { session_id: "big", from_seq: 1001 });
    assert.deepEqual(rest.events.map((e: { seq: number }) => e.seq), [1001]);
    assert.equal(rest.truncated, false);
    const exact = await session.callOk("memory_replay", { session_id: "big", from_seq: 2, to_seq: 1001 });
    assert.equal(exact.events.length, 1000);
    assert.equal(exact.truncated, false);
  });

  test("memory_verify reports ok, then hash_mismatch at the seq whose line was edited", async () => {
    for (let i = 1; i <= 4; i++) {
      await session.callOk("memory_append", { event_type: "note.added", actor: "a", payload: { title: `event ${i}` }, session_id: "tamper" });
    }
    const ok = await session.callOk("memory_verify", { session_id: "tamper" });
    assert.deepEqual(ok, {
      ok: true,
      total_events: 4,
      broken_at_seq: null,
      broken_reason: null,
      code: null,
      line: null,
      torn_tail: false,
      errors: [],
    });

    const logPath = path.join(session.root, "tamper.jsonl");
    const bytes = fs.readFileSync(logPath);
    const at = bytes.indexOf("event 3");
    assert.ok(at > 0);
    bytes[at + "event ".length] = "X".charCodeAt(0);
    fs.writeFileSync(logPath, bytes);

    const broken = await session.callOk("memory_verify", { session_id: "tamper" });
    assert.equal(broken.ok, false);
    assert.equal(broken.code, "hash_mismatch");
    assert.equal(broken.broken_at_seq, 3);
    assert.equal(broken.broken_reason, "Event 3 hash mismatch");
    assert.equal(broken.line, 3);
    assert.equal(refVerifyLog(logPath).status, 1);

    const every = await session.callOk("memory_verify", { session_id: "tamper", all_errors: true });
    assert.equal(every.ok, false);
    assert.ok(every.errors.length >= 1);
    assert.deepEqual(Object.keys(every.errors[0]), ["code", "seq", "line", "reason"]);
    assert.equal(every.errors[0].seq, 3);

    const replay = await session.callOk("memory_replay", { session_id: "tamper" });
    assert.equal(replay.integrity.ok, false);
    assert.equal(replay.integrity.broken_at_seq, 3);

    const missing = await session.callError("memory_verify", { session_id: "never-written" }, "invalid_request");
    assert.match(missing.message, /Cannot verify session "never-written": it has no log/);
  });

  test("nothing but protocol reached stdout and nothing went to stderr", () => {
    assert.deepEqual(session.clientErrors, []);
    assert.equal(session.stderr(), "");
  });
});

describe("zaxy serve: errors are results and never kill the server", { skip }, () => {
  let session: Session;

  before(async () => {
    session = await startServer({ args: ["--profile", "full"] });
  });

  after(async () => {
    await session?.close();
  });

  /** The server still answers: a valid call right after the failure succeeds. */
  async function stillServing(): Promise<void> {
    const { tools } = await session.client.listTools();
    assert.equal(tools.length, allToolNames.length);
    const appended = await session.callOk("memory_append", { event_type: "note.added", actor: "probe", payload: {} });
    assert.ok(appended.seq >= 1);
  }

  test("a missing required field names the field and the expectation", async () => {
    const error = await session.callError("memory_append", { event_type: "goal.created", payload: {} }, "invalid_request");
    assert.equal(error.message, "Invalid arguments for memory_append: actor is required (a string)");
    assert.match(error.remediation, /memory_append takes event_type \(string, required\), actor \(string, required\), payload \(object, required\)/);
    await stillServing();
  });

  test("an unknown extra field is refused", async () => {
    const error = await session.callError(
      "memory_append",
      { event_type: "goal.created", actor: "a", payload: {}, priority: "high" },
      "invalid_request",
    );
    assert.equal(error.message, 'Invalid arguments for memory_append: unknown field "priority"');
    await stillServing();
  });

  test("a payload that is not an object is refused", async () => {
    for (const [payload, got] of [
      [[1, 2], "an array"],
      ["text", 'the string "text"'],
      [null, "null"],
      [7, "7"],
    ] as const) {
      const error = await session.callError("memory_append", { event_type: "goal.created", actor: "a", payload }, "invalid_request");
      assert.equal(error.message, `Invalid arguments for memory_append: payload must be an object, got ${got}`);
    }
    await stillServing();
  });

  test("an invalid session id is refused before touching the disk", async () => {
    const error = await session.callError(
      "memory_append",
      { event_type: "goal.created", actor: "a", payload: {}, session_id: "../x" },
      "invalid_request",
    );
    assert.match(error.message, /session "\.\.\/x": session ids are 1-128 of A-Z a-z 0-9 \. _ -/);
    assert.equal(fs.existsSync(path.join(path.dirname(session.root), "x.jsonl")), false);
    for (const name of ["memory_replay", "memory_verify", "memory_ingest"]) {
      const args: Record<string, unknown> = { session_id: "../x" };
      if (name === "memory_ingest") args.events = [{ event_type: "a.b", actor: "a" }];
      await session.callError(name, args, "invalid_request");
    }
    await stillServing();
  });

  test("an unknown tool is unknown_tool", async () => {
    const error = await session.callError("memory_teleport", {}, "unknown_tool");
    assert.equal(error.message, 'Unknown tool "memory_teleport"');
    assert.ok(error.remediation.includes(allToolNames.join(", ")), error.remediation);
    await stillServing();
  });

  test("several problems are reported together, with array paths and bounds", async () => {
    const error = await session.callError(
      "memory_ingest",
      { events: [{ event_type: "", actor: 3, caused_by: "x", extra: true }] },
      "invalid_request",
    );
    assert.match(error.message, /events\[0\]\.event_type must be a non-empty string/);
    assert.match(error.message, /events\[0\]\.actor must be a string, got 3/);
    assert.match(error.message, /events\[0\]\.caused_by must be an array, got the string "x"/);
    assert.match(error.message, /unknown field "extra" in events\[0\]/);
    const seq = await session.callError("memory_replay", { session_id: "default", from_seq: 0 }, "invalid_request");
    assert.equal(seq.message, "Invalid arguments for memory_replay: from_seq must be >= 1, got 0");
    const fraction = await session.callError("memory_replay", { session_id: "default", from_seq: 1.5 }, "invalid_request");
    assert.match(fraction.message, /from_seq must be an integer, got 1\.5/);
    await stillServing();
  });

  test("no failure wrote to stdout outside the protocol or logged to stderr", () => {
    assert.deepEqual(session.clientErrors, []);
    assert.equal(session.stderr(), "");
  });
});

describe("zaxy serve: the raw stdio stream", { skip }, () => {
  test("stdout carries only JSON-RPC lines, pipelined calls are all answered, and EOF exits 0", async () => {
    const root = tempRoot();
    const child = spawn(builtBinary, ["serve", "--eventloom-path", root], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: os.tmpdir() },
      stdio: ["pipe", "pipe", "pipe"],
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (chunk: Uint8Array) => (stdout += new TextDecoder().decode(chunk)));
    child.stderr.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
    const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
    const messages = [
      { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } },
      { jsonrpc: "2.0", method: "notifications/initialized" },
      { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "memory_append", arguments: { event_type: "goal.created", actor: "a", payload: { title: "t" } } } },
      { jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "memory_replay", arguments: { session_id: "default" } } },
      { jsonrpc: "2.0", id: 4, method: "tools/call", params: { name: "memory_append", arguments: { bogus: 1 } } },
    ];
    child.stdin.write(messages.map((m) => JSON.stringify(m)).join("\n") + "\nthis line is not JSON\n");
    child.stdin.end();
    const code = await exited;

    assert.equal(code, 0, stderr);
    const lines = stdout.split("\n").filter((line) => line !== "");
    const all = lines.map((line) => JSON.parse(line));
    for (const response of all) assert.equal(response.jsonrpc, "2.0");
    // The unparsable line is answered at once with a parse error (so before the tool calls).
    const parseErrors = all.filter((r) => r.id === null);
    assert.equal(parseErrors.length, 1);
    assert.equal(parseErrors[0].error.code, -32700);
    const responses = all.filter((r) => r.id !== null);
    assert.deepEqual(responses.map((r) => r.id), [1, 2, 3, 4]);
    const replay = JSON.parse(responses[2].result.content[0].text);
    assert.deepEqual(replay.events.map((e: { seq: number }) => e.seq), [1], "calls run in arrival order");
    assert.equal(JSON.parse(responses[3].result.content[0].text).error.code, "invalid_request");
    // It is also a diagnostic on stderr, not a crash.
    assert.match(stderr, /^zaxy serve: answered -32700 \(id null\): Parse error/);
  });
});

describe("zaxy serve: usage errors", { skip }, () => {
  function serve(args: string[], env: Record<string, string> = {}) {
    return spawnSync(builtBinary, ["serve", ...args], {
      encoding: "utf8",
      input: "",
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: os.tmpdir(), ...env },
    });
  }

  test("an invalid --profile exits 2 and lists the valid profiles", () => {
    const run = serve(["--profile", "everything"]);
    assert.equal(run.status, 2);
    assert.equal(run.stdout, "");
    assert.equal(run.stderr, 'zaxy: --profile must be one of core, full, got "everything"\n');
  });

  test("an invalid MCP_TOOL_PROFILE exits 2 with a JSON error under --json", () => {
    const run = serve(["--json"], { MCP_TOOL_PROFILE: "all" });
    assert.equal(run.status, 2);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.error.code, "invalid_option");
    assert.equal(doc.error.field, "MCP_TOOL_PROFILE");
    assert.match(doc.error.message, /must be one of core, full, got "all"/);
  });

  test("an unsupported --transport and an invalid --session-id exit 2", () => {
    const transport = serve(["--transport", "sse"]);
    assert.equal(transport.status, 2);
    assert.match(transport.stderr, /--transport must be one of stdio/);
    const sessionRun = serve(["--session-id", "../x"]);
    assert.equal(sessionRun.status, 2);
    assert.match(sessionRun.stderr, /session ids are 1-128/);
  });
});
