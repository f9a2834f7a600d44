// test-lane: full (slow)
/**
 * The first checkout of a new session (docs/checkout.md "A session with no events yet"): agents
 * check out at the start of every turn, before their first append, so `memory checkout`,
 * `memory query`, MCP `memory_checkout`, `memory_query` and `context_assemble` of a session
 * without a log answer empty (cited nothing, `ask_user`, low confidence, a warning saying the
 * session has no events yet) and write nothing; a fleet member's first checkout still gets the
 * fleet lane; an invalid session id is still exit 2 naming `session_id`; and the commands for
 * which a missing session is a mistake (memory log, status, export, verify, replay) keep exit 2.
 * Driven through the CLI and `zaxy serve` for real.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "../cli/zaxy.ts";

after(removeTempDirs);
const slow = { timeout: 120_000 };

function noEventsWarning(sessionId: string): string {
  return `session ${JSON.stringify(sessionId)} has no events yet, so nothing in it can be recalled or cited; its first append creates it`;
}

/** Every path under `dir` with its size and mtime, sorted: equal listings mean nothing was written. */
function listing(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const out: string[] = [];
  const walk = (at: string): void => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name);
      const stat = fs.statSync(full);
      out.push(`${path.relative(dir, full)} ${entry.isDirectory() ? "dir" : `${stat.size} ${stat.mtimeMs}`}`);
      if (entry.isDirectory()) walk(full);
    }
  };
  walk(dir);
  return out.sort();
}

function zaxyIn(dir: string, args: string[]): ZaxyRun {
  return runZaxy(args, { cwd: dir });
}

// deno-lint-ignore no-explicit-any
function jsonOkIn(dir: string, args: string[]): any {
  const run = zaxyIn(dir, [...args, "--json"]);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

/** `zaxy serve` run as the CLI tests run zaxy (the built binary, or the sources under Bun). */
function serve(root: string, clientName: string): Promise<McpServer> {
  return startMcpServer(root, { clientName });
}

// deno-lint-ignore no-explicit-any
function assertEmptyCheckout(doc: any, sessionId: string): void {
  assert.equal(doc.session_id, sessionId);
  assert.deepEqual([doc.current_facts, doc.evidence, doc.provenance], [[], [], []]);
  assert.equal(doc.quality.answerability, "ask_user");
  assert.ok(doc.quality.confidence <= 0.25, `low confidence: ${doc.quality.confidence}`);
  assert.equal(doc.quality.required_action.type, "ask_user");
  assert.deepEqual(doc.warnings, [noEventsWarning(sessionId)]);
  assert.equal(doc.diagnostics.warning_count, 1);
  assert.equal(doc.diagnostics.citation_count, 0);
  assert.equal(doc.replay_event_count, 0);
  assert.ok(doc.prompt.includes(`# Context Warnings\n- ${noEventsWarning(sessionId)}`), doc.prompt);
}

describe("memory checkout and memory query of a session with no events yet", () => {
  let dir = "";
  let root = "";

  before(() => {
    dir = makeTempDir("zaxy-first-turn");
    root = path.join(dir, ".eventloom");
    // Another session's memory must not leak into the new session's answer.
    jsonOkIn(dir, ["memory", "append", "decision.made", "--actor", "alice", "--payload-json", JSON.stringify({ text: "postgres is the release database" })]);
  }, slow);

  test("memory checkout answers an empty, cited-nothing checkout (ask_user, low confidence, a warning why) and writes nothing", slow, () => {
    const before = listing(root);
    const run = zaxyIn(dir, ["memory", "checkout", "release database", "--session-id", "fresh", "--json"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, `zaxy: warning: ${noEventsWarning("fresh")}\n`);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.schema, "zaxy.memory.checkout.v1");
    assertEmptyCheckout(doc, "fresh");
    assert.ok(!run.stdout.includes("postgres"), "another session's memory stays out");

    const text = zaxyIn(dir, ["memory", "checkout", "release database", "--session-id", "fresh"]);
    assert.equal(text.code, 0);
    assert.equal(text.stdout.trimEnd(), doc.prompt);
    assert.deepEqual(listing(root), before, "nothing written");
    assert.equal(fs.existsSync(path.join(root, "fresh.jsonl")), false);
  });

  test("memory query answers no results with the same warning and projection source no_log, writing nothing", slow, () => {
    const before = listing(root);
    const run = zaxyIn(dir, ["memory", "query", "release database", "--session-id", "fresh", "--json"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.equal(run.stderr, `zaxy: warning: ${noEventsWarning("fresh")}\n`);
    const doc = JSON.parse(run.stdout);
    assert.deepEqual(doc.results, []);
    assert.equal(doc.diagnostics.result_count, 0);
    assert.deepEqual(doc.diagnostics.warnings, [noEventsWarning("fresh")]);
    assert.deepEqual(doc.diagnostics.projection, {
      source: "no_log", events_applied: 0, head_seq: 0, head_hash: null, entity_versions: 0, vector_index: null,
      degraded: false, degraded_reason: null, warnings: [],
    });
    assert.equal(zaxyIn(dir, ["memory", "query", "release database", "--session-id", "fresh"]).stdout, "No memory matched.\n");
    assert.deepEqual(listing(root), before, "nothing written");
  });

  test("without an Eventloom root, checkout and query answer empty and create no root", slow, () => {
    const bare = makeTempDir("zaxy-first-turn-bare");
    const checkout = zaxyIn(bare, ["memory", "checkout", "release plan", "--json"]);
    assert.equal(checkout.code, 0, checkout.stdout + checkout.stderr);
    assertEmptyCheckout(JSON.parse(checkout.stdout), "default");
    assert.equal(zaxyIn(bare, ["memory", "query", "release plan", "--json"]).code, 0);
    assert.deepEqual(fs.readdirSync(bare), [], "no .eventloom created");
  });

  test("an invalid session id is still exit 2 invalid_session_id naming --session-id; nothing written", slow, () => {
    const before = listing(root);
    for (const command of ["checkout", "query"]) {
      const run = zaxyIn(dir, ["memory", command, "q", "--session-id", "a/b", "--json"]);
      assert.equal(run.code, 2, `${command}: ${run.stdout}${run.stderr}`);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      const { error } = JSON.parse(run.stdout);
      assert.deepEqual([error.code, error.field], ["invalid_session_id", "--session-id"]);
      assert.match(error.message, /^Cannot read session "a\/b": session ids are 1-128 of/);
    }
    assert.deepEqual(listing(root), before);
  });

  test("memory log, status and export keep unknown_session, verify and replay unreadable_log: exit 2", slow, () => {
    const before = listing(root);
    const refused: Array<[string[], string]> = [
      [["memory", "log"], "unknown_session"],
      [["memory", "status"], "unknown_session"],
      [["memory", "export"], "unknown_session"],
      [["verify"], "unreadable_log"],
      [["replay"], "unreadable_log"],
    ];
    for (const [args, code] of refused) {
      const run = zaxyIn(dir, [...args, "--session-id", "fresh", "--json"]);
      assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.equal(JSON.parse(run.stdout).error.code, code, args.join(" "));
    }
    assert.deepEqual(listing(root), before);
  });

  test("after the session's first append, its checkout answers from it without the warning", slow, () => {
    jsonOkIn(dir, ["memory", "append", "decision.made", "--actor", "bob", "--session-id", "fresh", "--payload-json", JSON.stringify({ text: "sqlite is the release database" })]);
    const doc = jsonOkIn(dir, ["memory", "checkout", "release database", "--session-id", "fresh"]);
    assert.equal(doc.warnings.includes(noEventsWarning("fresh")), false);
    assert.ok(doc.current_facts.length > 0);
    assert.ok(doc.current_facts.every((fact: { citation: string }) => fact.citation.startsWith("eventloom://fresh/")));
  });
});

describe("MCP memory_checkout, memory_query and context_assemble of a new session_id", () => {
  let mcp: McpServer;
  let root = "";

  before(async () => {
    const dir = makeTempDir("zaxy-first-turn-mcp");
    root = path.join(dir, ".eventloom");
    jsonOkIn(dir, ["memory", "append", "decision.made", "--actor", "alice", "--payload-json", JSON.stringify({ text: "postgres is the release database" })]);
    mcp = await serve(root, "zaxy-first-turn-test");
  }, slow);

  after(async () => {
    await mcp?.close();
  });

  test("the three reads answer empty with the warning (not isError) and write nothing", slow, async () => {
    const before = listing(root);
    const checkout = await mcp.call("memory_checkout", { query: "release database", session_id: "fresh-mcp" });
    assert.equal(checkout.isError, false, JSON.stringify(checkout.doc));
    assertEmptyCheckout(checkout.doc, "fresh-mcp");
    const query = await mcp.callOk("memory_query", { query: "release database", session_id: "fresh-mcp" });
    assert.deepEqual(query.results, []);
    assert.deepEqual(query.diagnostics.warnings, [noEventsWarning("fresh-mcp")]);
    const assembled = await mcp.callOk("context_assemble", { query: "release database", session_id: "fresh-mcp" });
    assert.deepEqual(assembled.contexts, []);
    assert.deepEqual(assembled.warnings, [noEventsWarning("fresh-mcp")]);
    assert.deepEqual(listing(root), before, "nothing written");
    assert.equal(fs.existsSync(path.join(root, "fresh-mcp.jsonl")), false);
  });

  test("an invalid session_id is still an error naming the session; the server keeps serving", slow, async () => {
    const error = await mcp.callError("memory_checkout", { query: "x", session_id: "a/b" }, "invalid_request");
    assert.match(error.message, /session "a\/b": session ids are 1-128 of/);
  });

  test("after memory_append the same server answers from the new session, not from a remembered empty read", slow, async () => {
    await mcp.callOk("memory_append", {
      session_id: "fresh-mcp", event_type: "decision.made", actor: "bob", payload: { text: "sqlite is the release database" },
    });
    const doc = await mcp.callOk("memory_checkout", { query: "release database", session_id: "fresh-mcp" });
    assert.deepEqual(doc.warnings, []);
    assert.ok(doc.current_facts.some((fact: { citation: string }) => fact.citation.startsWith("eventloom://fresh-mcp/events/1#")));
  });

  test("memory_feeling_of_knowing of a new session still says it has no log", slow, async () => {
    const fok = await mcp.callOk("memory_feeling_of_knowing", { query: "release database", session_id: "fresh-fok" });
    assert.deepEqual([fok.prediction, fok.signals.session_exists, fok.signals.result_count], ["unlikely", false, 0]);
  });
});

describe("a fleet member's first checkout sees the fleet lane", () => {
  let dir = "";
  let root = "";
  // deno-lint-ignore no-explicit-any
  let promotion: any;

  before(() => {
    dir = makeTempDir("zaxy-first-turn-fleet");
    root = path.join(dir, ".eventloom");
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ schema: "zaxy.config.v1", envelope: "v1", fleet_enabled: true }, null, 2) + "\n");
    jsonOkIn(dir, ["fleet", "create", "alpha", "--summary", "Auth workers"]);
    for (const agent of ["agent-a", "agent-b"]) jsonOkIn(dir, ["fleet", "enroll", "alpha", "--agent", agent, "--actor", "coordinator"]);
    jsonOkIn(dir, ["fleet", "assign-trust", "alpha", "--agent", "agent-b", "--trust-tier", "trusted", "--actor", "coordinator"]);
    const origin = jsonOkIn(dir, ["memory", "append", "task.completed", "--actor", "agent-a", "--session-id", "agent-a", "--payload-json", JSON.stringify({ title: "JWKS cache expiry caused the auth failures" })]);
    promotion = jsonOkIn(dir, [
      "fleet", "promote-outcome", "alpha", "--outcome", "failure", "--summary", "JWKS cache expiry caused the auth failures",
      "--claim-key", "auth.cause", "--source-event", `${origin.seq}:${origin.hash}`, "--confidence", "0.9",
      "--origin-session", "agent-a", "--actor", "agent-a",
    ]);
    assert.equal(promotion.review_status, "active");
  }, slow);

  test("CLI: the promoted item is a cited fact of the new session's checkout; the session is not created", slow, () => {
    const before = listing(root);
    const run = zaxyIn(dir, ["memory", "checkout", "auth failures", "--session-id", "agent-b-turn-1", "--fleet-id", "alpha", "--agent-id", "agent-b", "--json"]);
    assert.equal(run.code, 0, run.stdout + run.stderr);
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.diagnostics.fleet.count, 1);
    assert.equal(doc.diagnostics.fleet.items[0].promotion_id, promotion.promotion_id);
    const fleetFacts = doc.current_facts.filter((fact: { source: string }) => fact.source === "fleet");
    assert.deepEqual(fleetFacts.map((fact: { citation: string }) => fact.citation), [promotion.citation]);
    assert.deepEqual(doc.warnings, [noEventsWarning("agent-b-turn-1")]);
    assert.deepEqual(listing(root), before, "nothing written");
    assert.equal(fs.existsSync(path.join(root, "agent-b-turn-1.jsonl")), false);
  });

  test("MCP: memory_checkout with a new session_id, fleet_ids and agent_id serves the fleet item", slow, async () => {
    const mcp = await serve(root, "zaxy-first-turn-fleet-test");
    try {
      const before = listing(root);
      const doc = await mcp.callOk("memory_checkout", { query: "auth failures", session_id: "agent-b-turn-2", fleet_ids: ["alpha"], agent_id: "agent-b" });
      assert.equal(doc.diagnostics.fleet.count, 1);
      assert.ok(doc.current_facts.some((fact: { citation: string }) => fact.citation === promotion.citation));
      assert.deepEqual(listing(root), before, "nothing written");
    } finally {
      await mcp.close();
    }
  });
});
