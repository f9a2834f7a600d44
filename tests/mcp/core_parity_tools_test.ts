// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * Python's core profile, completed (issue 16 item 1): memory_invalidate, memory_capabilities and
 * memory_feeling_of_knowing through the official SDK client against the BUILT binary, and their
 * CLI twins, which call the same library functions.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { runZaxyInProcess } from "../cli/inProcessRoot.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir } from "../eventloom/testkit.ts";
import { type McpServer, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "./mcpTestClient.ts";

after(removeTempDirs);
const slow = { timeout: 60_000 };

/**
 * The CLI twins run in this process: they are about what each command prints and writes, and a
 * process per call (each graph query loading Kuzu) made this file one of the slowest. Exit codes
 * of a real process are covered by tests/cli/contract_test.ts; `zaxy verify` (it opens its log by
 * a name relative to the working directory), the export's relative `--output` and the MCP
 * bundle's verify-export still run the binary.
 */
const inProcess = (dir: string) => (args: string[]) => runZaxyInProcess(args, { cwd: dir });

function logTypes(root: string): string[] {
  return fs.readFileSync(path.join(root, "default.jsonl"), "utf8").trim().split("\n").map((line) => {
    const event = JSON.parse(line);
    return event.type ?? event.event_type;
  });
}

describe("core profile parity tools over MCP", { skip }, () => {
  let mcp: McpServer;
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-parity"), { profile: "core", clientName: "zaxy-parity-test" });
    await mcp.callOk("memory_append", { event_type: "user.preference_changed", allow_envelope_switch: true, actor: "ci", payload: { user: "ci", key: "editor", value: "vim" } });
    await mcp.callOk("memory_append", { event_type: "decision.made", actor: "ci", payload: { decision: "use postgres for the shared event log", rationale: "agents span hosts" } });
  }, slow);
  after(async () => await mcp?.close());

  test("memory_capabilities is generated from the registry: every tool, the core listing, Python's core served", slow, async () => {
    const manifest = await mcp.callOk("memory_capabilities", { current_task: "fix the flaky test" });
    const { tools } = await mcp.client.listTools();
    assert.equal(manifest.schema, "zaxy.capabilities.v1");
    assert.equal(manifest.current_task, "fix the flaky test");
    assert.equal(manifest.profile.name, "core");
    assert.deepEqual(manifest.profile.listed, tools.map((tool) => tool.name));
    assert.deepEqual(manifest.python_core_profile.not_served, []);
    assert.deepEqual(manifest.python_core_profile.served, manifest.python_core_profile.tools);
    const invalidate = manifest.tools.find((tool: { name: string }) => tool.name === "memory_invalidate");
    assert.deepEqual(invalidate.required, ["entity_name", "entity_type", "invalid_at"]);
    assert.equal(invalidate.listed, true);
    const replay = manifest.tools.find((tool: { name: string }) => tool.name === "memory_replay");
    assert.deepEqual([replay.listed, replay.read_only], [false, true]);
    assert.deepEqual(manifest.features, { envelope: "v1", fleet_enabled: false, long_horizon_enabled: false, log_backend: "files" });
    assert.equal(manifest.session.log_exists, true);
  });

  test("memory_feeling_of_knowing: likely for a stated fact, unlikely for an unknown topic; each prediction is recorded and never answers itself", slow, async () => {
    const likely = await mcp.callOk("memory_feeling_of_knowing", { query: "which database for the shared event log" });
    assert.equal(likely.prediction, "likely");
    assert.ok(likely.signals.coverage >= 0.6, JSON.stringify(likely.signals));
    assert.equal(likely.event.event_type, "metacognition.fok.predicted");
    const unlikely = await mcp.callOk("memory_feeling_of_knowing", { query: "kubernetes autoscaler thresholds", cues: { service: "ingest-gateway" } });
    assert.equal(unlikely.prediction, "unlikely");
    assert.deepEqual(unlikely.signals.terms.slice(-2), ["ingest", "gateway"]);
    // Asked again, the earlier prediction (which repeats the query) is not evidence for it.
    const again = await mcp.callOk("memory_feeling_of_knowing", { query: "kubernetes autoscaler thresholds" });
    assert.equal(again.prediction, "unlikely");
    const checkout = await mcp.callOk("memory_checkout", { query: "kubernetes autoscaler thresholds" });
    assert.doesNotMatch(JSON.stringify(checkout.evidence), /metacognition\.fok\.predicted/);
    const types = logTypes(mcp.root);
    assert.equal(types.filter((type) => type === "metacognition.fok.predicted").length, 3);
    const error = await mcp.callError("memory_feeling_of_knowing", { query: "x", cues: { n: 1 } }, "invalid_request");
    assert.match(error.message, /cues/);
  });

  test("memory_invalidate closes the fact: checkout stops serving it, nothing is deleted, a new statement is current again", slow, async () => {
    const before = await mcp.callOk("memory_checkout", { query: "which editor does ci use" });
    assert.ok(before.current_facts.some((fact: { entity_name: string }) => fact.entity_name === "ci:editor"));
    const bytesBefore = fs.readFileSync(path.join(mcp.root, "default.jsonl"));
    const result = await mcp.callOk("memory_invalidate", { entity_name: "ci:editor", entity_type: "preference", invalid_at: new Date().toISOString(), reason: "switched editors" });
    assert.equal(result.status, "invalidated");
    assert.match(result.closed_citation, /^eventloom:\/\/default\/events\/1#/);
    const bytesAfter = fs.readFileSync(path.join(mcp.root, "default.jsonl"));
    assert.ok(Buffer.compare(bytesAfter.subarray(0, bytesBefore.length), bytesBefore) === 0, "the log only grew");
    const after = await mcp.callOk("memory_checkout", { query: "which editor does ci use" });
    assert.ok(!after.current_facts.some((fact: { entity_name: string }) => fact.entity_name === "ci:editor"), JSON.stringify(after.current_facts));
    assert.ok(after.retention.superseded_contexts_excluded >= 1);
    const twice = await mcp.callError("memory_invalidate", { entity_name: "ci:editor", entity_type: "preference", invalid_at: new Date().toISOString() }, "invalid_request");
    assert.match(twice.message, /no current fact/);
    const future = await mcp.callError("memory_invalidate", { entity_name: "decision", entity_type: "decision", invalid_at: "2999-01-01T00:00:00Z" }, "invalid_request");
    assert.match(future.message, /in the future/);
    await mcp.callOk("memory_append", { event_type: "user.preference_changed", allow_envelope_switch: true, actor: "ci", payload: { user: "ci", key: "editor", value: "helix" } });
    const restated = await mcp.callOk("memory_checkout", { query: "which editor does ci use" });
    const fact = restated.current_facts.find((item: { entity_name: string }) => item.entity_name === "ci:editor");
    assert.match(fact.content, /editor=helix/);
  });
});

describe("core profile parity commands (CLI)", () => {
  test("memory invalidate, capabilities and feeling-of-knowing: JSON contracts, bad input exits 2 with nothing written, reproject agrees", async () => {
    const dir = makeTempDir("zaxy-parity-cli");
    const z = inProcess(dir);
    assert.equal((await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "ci", "--payload-json", '{"user":"ci","key":"editor","value":"vim"}'])).code, 0);
    const log = path.join(dir, ".eventloom", "default.jsonl");
    const size = fs.statSync(log).size;
    for (const bad of [
      ["--entity-type", "preference", "--invalid-at", "yesterday"],
      ["--entity-type", "preference", "--invalid-at", "2026-01-01T00:00:00"],
      ["--entity-type", "nothing", "--invalid-at", "2026-01-01T00:00:00Z"],
    ]) {
      const run = await z(["memory", "invalidate", "ci:editor", ...bad, "--json"]);
      assert.equal(run.code, 2, run.stderr);
      assert.ok(["invalid_request", "unknown_memory"].includes(JSON.parse(run.stdout).error.code));
      assert.equal(fs.statSync(log).size, size, "nothing written");
    }
    const early = await z(["memory", "invalidate", "ci:editor", "--entity-type", "preference", "--invalid-at", "2001-01-01T00:00:00Z", "--json"]);
    assert.equal(early.code, 2);
    assert.match(JSON.parse(early.stdout).error.message, /before the fact became current/);
    const invalidated = JSON.parse((await z(["memory", "invalidate", "ci:editor", "--entity-type", "preference", "--invalid-at", new Date().toISOString(), "--reason", "gone", "--json"])).stdout);
    assert.deepEqual([invalidated.schema, invalidated.status, invalidated.event_type, invalidated.seq], ["zaxy.memory.invalidate.v1", "invalidated", "memory.invalidated", 2]);
    const factsOf = async () => JSON.parse((await z(["memory", "checkout", "which editor does ci use", "--json"])).stdout).current_facts.map((f: { entity_name: string }) => f.entity_name);
    assert.ok(!(await factsOf()).includes("ci:editor"));
    assert.equal((await z(["reproject", "--json"])).code, 0);
    assert.ok(!(await factsOf()).includes("ci:editor"), "a reproject folds the invalidation the same way");
    const caps = JSON.parse((await z(["memory", "capabilities", "--profile", "full", "--json"])).stdout);
    assert.equal(caps.schema, "zaxy.capabilities.v1");
    assert.equal(caps.profile.listed.length, caps.tools.length);
    assert.equal((await z(["memory", "capabilities", "--profile", "most"])).code, 2);
    const fok = JSON.parse((await z(["memory", "feeling-of-knowing", "which editor does ci use", "--cue", "tool=helix", "--json"])).stdout);
    assert.equal(fok.schema, "zaxy.memory.feeling_of_knowing.v1");
    assert.ok(["likely", "possible", "unlikely"].includes(fok.prediction));
    assert.equal((await z(["memory", "feeling-of-knowing", "x", "--cue", "novalue"])).code, 2);
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
  });
});

describe("sessions, get by citation, instructions over MCP", { skip }, () => {
  let mcp: McpServer;
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-sessions"), { profile: "full", clientName: "zaxy-sessions-test" });
  }, slow);
  after(async () => await mcp?.close());

  test("the server's instructions name only registered tools", slow, async () => {
    const instructions = mcp.client.getInstructions() ?? "";
    assert.match(instructions, /memory_checkout/);
    const { tools } = await mcp.client.listTools();
    const names = new Set(tools.map((tool) => tool.name));
    for (const [name] of instructions.matchAll(/\b(?:memory|context|fleet)_[a-z_]+\b/g)) assert.ok(names.has(name), `${name} is a tool`);
  });

  test("memory_sessions lists each log; memory_get returns the cited event and refuses a stale citation", slow, async () => {
    const first = await mcp.callOk("memory_append", { event_type: "goal.created", actor: "a", payload: { title: "ship" } });
    await mcp.callOk("memory_append", { session_id: "other", event_type: "task.proposed", actor: "b", payload: { title: "t" } });
    const listing = await mcp.callOk("memory_sessions", {});
    assert.deepEqual(listing.sessions.map((s: { session_id: string; events: number }) => [s.session_id, s.events]), [["default", 1], ["other", 1]]);
    const got = await mcp.callOk("memory_get", { citation: first.citation });
    assert.deepEqual([got.session_id, got.verified, got.event.seq, got.event.hash, got.event.type], ["default", true, 1, first.hash, "goal.created"]);
    const stale = await mcp.callError("memory_get", { citation: `eventloom://default/events/1#${"0".repeat(12)}` }, "invalid_request");
    assert.match(stale.message, /does not match event 1/);
    const malformed = await mcp.callError("memory_get", { citation: "https://example.com/1" }, "invalid_request");
    assert.match(malformed.message, /eventloom:\/\//);
    const missing = await mcp.callError("memory_get", { citation: `eventloom://default/events/9#${first.hash.slice(0, 12)}` }, "invalid_request");
    assert.match(missing.message, /no event 9/);
    // memory_replay and memory_consolidation_status default to the server's session.
    const replay = await mcp.callOk("memory_replay", {});
    assert.equal(replay.events.length, 1);
    await mcp.callOk("memory_consolidation_status", {});
  });
});

describe("sessions and get (CLI)", () => {
  test("memory sessions and memory get: JSON contracts, an interop log's own thread name resolves, a tampered log exits 1", async () => {
    const dir = makeTempDir("zaxy-get-cli");
    const z = inProcess(dir);
    const appended = JSON.parse((await z(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"x"}', "--json"])).stdout);
    const sessions = JSON.parse((await z(["memory", "sessions", "--json"])).stdout);
    assert.equal(sessions.schema, "zaxy.memory.sessions.v1");
    assert.deepEqual(sessions.sessions.map((s: { session_id: string; kind: string }) => [s.session_id, s.kind]), [["default", "session"]]);
    const got = JSON.parse((await z(["memory", "get", appended.citation, "--json"])).stdout);
    assert.deepEqual([got.schema, got.event.citation], ["zaxy.memory.get.v1", appended.citation]);
    assert.equal((await z(["memory", "get", "eventloom://default/events/1#abc"])).code, 2);
    // A Python log names its thread apart from its file: the citation's thread finds the log.
    const interop = path.join(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..", "..", "fixtures", "interop", "legacy-worker-release.jsonl");
    fs.copyFileSync(interop, path.join(dir, ".eventloom", "py-log.jsonl"));
    const line = JSON.parse(fs.readFileSync(interop, "utf8").split("\n")[0]);
    const citation = `eventloom://${line.thread}/events/1#${line.hash.slice(0, 12)}`;
    const fromPython = JSON.parse((await z(["memory", "get", citation, "--json"])).stdout);
    assert.equal(fromPython.session_id, "py-log");
    const log = path.join(dir, ".eventloom", "default.jsonl");
    fs.writeFileSync(log, fs.readFileSync(log, "utf8").replace('"title":"x"', '"title":"y"'));
    assert.equal((await z(["memory", "get", appended.citation])).code, 1);
  });
});

describe("verbatim, bootstrap, after-turn over MCP and the CLI", { skip }, () => {
  let mcp: McpServer;
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-start"), { profile: "full", clientName: "zaxy-start-test" });
  }, slow);
  after(async () => await mcp?.close());

  test("memory_bootstrap on an empty session, then the handoff and a cited checkout for the task; memory_verbatim returns sealed events; context_after_turn records the turn", slow, async () => {
    const empty = await mcp.callOk("memory_bootstrap", {});
    assert.deepEqual([empty.session_exists, empty.total_events, empty.checkout], [false, 0, null]);
    assert.equal(empty.event.event_type, "memory.bootstrap.shown");
    await mcp.callOk("memory_append", { event_type: "command.completed", actor: "ci", payload: { command: "npm test", exit_code: 0 } });
    const goal = await mcp.callOk("memory_append", { event_type: "goal.created", actor: "a", payload: { title: "ship the release" } });
    const packet = await mcp.callOk("memory_bootstrap", { current_task: "ship the release" });
    assert.deepEqual(packet.handoff.goals, ["ship the release"]);
    assert.equal(packet.recent_events.at(-1).citation, goal.citation);
    assert.match(packet.checkout.prompt, /ship the release/);
    const verbatim = await mcp.callOk("memory_verbatim", { query: "npm test", limit: 3 });
    assert.equal(verbatim.results[0].event_type, "command.completed");
    assert.deepEqual(verbatim.results[0].payload, { command: "npm test", exit_code: 0 });
    assert.match(verbatim.results[0].citation, /^eventloom:\/\/default\/events\/2#/);
    await mcp.callError("memory_verbatim", { query: "x", limit: 0 }, "invalid_request");
    const turn = await mcp.callOk("context_after_turn", { role: "user", content: "did npm test pass?" });
    assert.equal(turn.turn.event_type, "transcript.turn");
    assert.match(turn.context.prompt, /npm test/);
    const replay = await mcp.callOk("memory_replay", {});
    const last = replay.events.at(-1);
    assert.deepEqual([last.type, last.actor, last.payload], ["transcript.turn", "user", { role: "user", content: "did npm test pass?", source: "mcp" }]);
  });

  test("CLI: verbatim, bootstrap and after-turn print their JSON contracts; bad input exits 2 and writes nothing", async () => {
    const dir = makeTempDir("zaxy-start-cli");
    const z = inProcess(dir);
    assert.equal((await z(["memory", "append", "decision.made", "--actor", "a", "--payload-json", '{"decision":"pin the resolver"}'])).code, 0);
    const verbatim = JSON.parse((await z(["memory", "verbatim", "resolver", "--json"])).stdout);
    assert.deepEqual([verbatim.schema, verbatim.result_count], ["zaxy.memory.verbatim.v1", 1]);
    const boot = JSON.parse((await z(["memory", "bootstrap", "--json"])).stdout);
    assert.deepEqual([boot.schema, boot.total_events, boot.event.seq], ["zaxy.memory.bootstrap.v1", 1, 2]);
    const size = fs.statSync(path.join(dir, ".eventloom", "default.jsonl")).size;
    const missing = await z(["memory", "after-turn", "--role", "user", "--json"]);
    assert.equal(missing.code, 2);
    assert.equal(fs.statSync(path.join(dir, ".eventloom", "default.jsonl")).size, size);
    const turn = JSON.parse((await z(["memory", "after-turn", "--role", "user", "--content", "why pin the resolver?", "--json"])).stdout);
    assert.deepEqual([turn.schema, turn.turn.event_type, turn.turn.seq], ["zaxy.memory.after_turn.v1", "transcript.turn", 3]);
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
  });
});

describe("memory_edit: a cited correction becomes the current fact; rolling it back restores", { skip }, () => {
  let mcp: McpServer;
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-edit"), { profile: "full", clientName: "zaxy-edit-test" });
  }, slow);
  after(async () => await mcp?.close());

  const contentOf = (checkout: { current_facts: Array<{ entity_name: string; content: string; citation: string }> }, name: string) =>
    checkout.current_facts.find((fact) => fact.entity_name === name);

  test("MCP: edit, checkout, rollback, and refusals that write nothing", slow, async () => {
    const stated = await mcp.callOk("memory_append", { event_type: "user.preference_changed", allow_envelope_switch: true, actor: "ci", payload: { user: "ci", key: "shell", value: "bash" } });
    const before = contentOf(await mcp.callOk("memory_checkout", { query: "which shell does ci use" }), "ci:shell");
    assert.match(before!.content, /shell=bash/);
    const edit = await mcp.callOk("memory_edit", { target_seq: 1, target_hash: stated.hash, new_content: "shell=zsh", reason: "bash was a typo", confidence: 0.9 });
    assert.deepEqual([edit.status, edit.entity_name, edit.entity_type, edit.corrected_citation], ["corrected", "ci:shell", "preference", stated.citation]);
    assert.equal(edit.previous_content, "shell=bash");
    const after = contentOf(await mcp.callOk("memory_checkout", { query: "which shell does ci use" }), "ci:shell");
    assert.match(after!.content, /shell=zsh/);
    assert.equal(after!.citation, edit.citation, "the current fact cites the correction");
    const replay = await mcp.callOk("memory_replay", {});
    assert.deepEqual(replay.events[0].payload, { user: "ci", key: "shell", value: "bash" }, "the corrected event is unchanged");
    await mcp.callOk("memory_rollback", { target_seq: edit.seq, target_hash: edit.hash, reason: "the edit was wrong" });
    const restored = contentOf(await mcp.callOk("memory_checkout", { query: "which shell does ci use" }), "ci:shell");
    assert.match(restored!.content, /shell=bash/);
    const count = (await mcp.callOk("memory_replay", {})).events.length;
    const wrongHash = await mcp.callError("memory_edit", { target_seq: 1, target_hash: "0".repeat(64), new_content: "x", reason: "r" }, "invalid_request");
    assert.match(wrongHash.message, /does not match the sealed event/);
    const noSeq = await mcp.callError("memory_edit", { target_seq: 99, target_hash: stated.hash, new_content: "x", reason: "r" }, "invalid_request");
    assert.match(noSeq.message, /No event at seq 99/);
    assert.equal((await mcp.callOk("memory_replay", {})).events.length, count, "refusals write nothing");
  });

  test("CLI: memory edit prints its contract; a fact stated again after the correction keeps that statement on rollback", async () => {
    const dir = makeTempDir("zaxy-edit-cli");
    const z = inProcess(dir);
    const stated = JSON.parse((await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "ci", "--payload-json", '{"user":"ci","key":"editor","value":"vim"}', "--json"])).stdout);
    const edit = JSON.parse((await z(["memory", "edit", "--target-seq", "1", "--target-hash", stated.hash, "--content", "editor=nano", "--reason", "typo", "--json"])).stdout);
    assert.deepEqual([edit.schema, edit.event_type, edit.seq], ["zaxy.memory.edit.v1", "memory.corrected", 2]);
    assert.equal((await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "ci", "--payload-json", '{"user":"ci","key":"editor","value":"helix"}'])).code, 0);
    assert.equal((await z(["memory", "rollback", "--target-seq", String(edit.seq), "--target-hash", edit.hash, "--reason", "undo"])).code, 0);
    const facts = JSON.parse((await z(["memory", "checkout", "which editor does ci use", "--json"])).stdout).current_facts;
    assert.match(facts.find((f: { entity_name: string }) => f.entity_name === "ci:editor").content, /editor=helix/);
    const bad = await z(["memory", "edit", "--target-seq", "1", "--target-hash", "xyz", "--content", "a", "--reason", "b", "--json"]);
    assert.equal(bad.code, 2);
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
  });
});

describe("the graph is queryable: read-only Cypher (CLI and MCP)", { skip }, () => {
  // Each graph query starts a worker that loads its own Kuzu: seconds apiece on a loaded machine.
  test("CLI: the docs' example queries run; writes are refused before anything opens; a bad query and a timeout exit 2", { timeout: 300_000 }, async () => {
    const dir = makeTempDir("zaxy-graph-cli");
    const z = inProcess(dir);
    assert.equal((await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "agent-1", "--payload-json", '{"user":"ci","key":"editor","value":"vim"}'])).code, 0);
    assert.equal((await z(["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "agent-1", "--payload-json", '{"user":"ci","key":"editor","value":"helix"}'])).code, 0);
    const byType = JSON.parse((await z(["memory", "graph", "MATCH (e:Entity) WHERE e.session_id = $session_id AND e.valid_to IS NULL RETURN e.entity_type AS type, count(*) AS n ORDER BY n DESC", "--json"])).stdout);
    assert.equal(byType.schema, "zaxy.memory.graph.v1");
    assert.deepEqual(byType.columns, ["type", "n"]);
    assert.ok(byType.rows.some((row: { type: string; n: number }) => row.type === "preference" && row.n === 1));
    assert.equal(byType.graph.head_seq, 2);
    const history = JSON.parse((await z(["memory", "graph", "MATCH (e:Entity {entity_type: 'preference', name: $name}) WHERE e.session_id = $session_id RETURN e.summary AS said, e.valid_to AS until, e ORDER BY e.valid_from", "--param", "name=ci:editor", "--json"])).stdout);
    assert.deepEqual(history.rows.map((row: { said: string }) => row.said), ["editor=vim", "editor=helix"]);
    assert.notEqual(history.rows[0].until, null);
    assert.equal(history.rows[1].until, null);
    assert.match(history.rows[1].e.citation, /^eventloom:\/\/default\/events\/2#[0-9a-f]{12}$/);
    const limited = JSON.parse((await z(["memory", "graph", "MATCH (e:Entity) RETURN e.name AS name", "--limit", "1", "--json"])).stdout);
    assert.deepEqual([limited.row_count, limited.truncated], [1, true]);
    for (const write of ["MATCH (e:Entity) SET e.name = 'x' RETURN e", "CREATE (:Entity {node_key: 'x'})", "MATCH (e:Entity) DETACH DELETE e", "CALL show_tables() RETURN *"]) {
      const refused = await z(["memory", "graph", write, "--json"]);
      assert.equal(refused.code, 2, write);
      assert.equal(JSON.parse(refused.stdout).error.code, "read_only");
    }
    const quoted = JSON.parse((await z(["memory", "graph", "MATCH (e:Entity) WHERE e.name = 'CREATE' RETURN count(*) AS n", "--json"])).stdout);
    assert.deepEqual(quoted.rows, [{ n: 0 }]);
    const bad = await z(["memory", "graph", "MATCH (e:Entity RETURN e", "--json"]);
    assert.deepEqual([bad.code, JSON.parse(bad.stdout).error.code], [2, "invalid_query"]);
    const slowQuery = await z(["memory", "graph", "MATCH (a)-[*1..30]->(b) RETURN count(*)", "--timeout-ms", "1", "--json"]);
    assert.equal(slowQuery.code, 2);
    assert.equal(runZaxy(["verify"], { cwd: dir }).code, 0);
  });

  test("MCP: memory_graph_query answers from the synced projection and refuses writes", slow, async () => {
    const mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-graph"), { profile: "full", clientName: "zaxy-graph-test" });
    try {
      await mcp.callOk("memory_append", { event_type: "decision.made", actor: "agent-1", payload: { decision: "use postgres", rationale: "shared" } });
      const answer = await mcp.callOk("memory_graph_query", { query: "MATCH (a:Entity {entity_type: 'actor', name: $agent})-[r:RELATES]->(f:Entity) WHERE a.session_id = $session_id RETURN r.relation_type AS did, f", params: { agent: "agent-1" } });
      assert.deepEqual(answer.rows.map((row: { did: string }) => row.did), ["made_decision"]);
      assert.match(answer.rows[0].f.citation, /^eventloom:\/\/default\/events\/1#/);
      const refused = await mcp.callError("memory_graph_query", { query: "MERGE (e:Entity {node_key: 'x'}) RETURN e" }, "invalid_request");
      assert.match(refused.message, /read-only/);
    } finally {
      await mcp.close();
    }
  });
});

describe("export bundles: signed, filtered, verified (CLI and MCP)", { skip }, () => {
  test("CLI: a signed export verifies; a changed line, a changed field or another signer is caught (exit 1); filters and sensitivity exclusion", { timeout: 120_000 }, async () => {
    const dir = makeTempDir("zaxy-export-cli");
    const z = inProcess(dir);
    assert.equal((await z(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"ship"}'])).code, 0);
    assert.equal((await z(["memory", "append", "decision.made", "--actor", "a", "--payload-json", '{"decision":"rotate","api_key":"sk-abcdefghijklmnopqrstuvwx"}'])).code, 0);
    assert.equal((await z(["memory", "append", "task.proposed", "--actor", "a", "--payload-json", '{"title":"t"}'])).code, 0);
    const log = fs.readFileSync(path.join(dir, ".eventloom", "default.jsonl"), "utf8").trim().split("\n");
    // A relative --output resolves against the working directory: a real process.
    const summary = JSON.parse(runZaxy(["memory", "export", "--sign", "--output", "b.json", "--json"], { cwd: dir }).stdout);
    const at = (name: string) => path.join(dir, name);
    assert.deepEqual([summary.schema, summary.event_count, summary.signed], ["zaxy.memory.export.v1", 3, true]);
    assert.equal((fs.statSync(path.join(dir, ".eventloom", "keys", "export-ed25519.pkcs8")).mode & 0o777), 0o600);
    const bundle = JSON.parse(fs.readFileSync(path.join(dir, "b.json"), "utf8"));
    assert.deepEqual(bundle.events.map((e: { line: string }) => e.line), log, "the bundle carries the exact lines");
    const report = JSON.parse((await z(["memory", "verify-export", at("b.json"), "--key-id", summary.key_id, "--json"])).stdout);
    assert.deepEqual([report.ok, report.events_verified, report.links_checked, report.signature_valid, report.signer_pinned], [true, 3, 2, true, true]);
    const tamper = async (edit: (b: typeof bundle) => void, name: string) => {
      const copy = JSON.parse(JSON.stringify(bundle));
      edit(copy);
      fs.writeFileSync(path.join(dir, name), JSON.stringify(copy));
      const run = await z(["memory", "verify-export", at(name), "--json"]);
      assert.equal(run.code, 1, name);
      return JSON.parse(run.stdout).problems.join("; ");
    };
    assert.match(await tamper((b) => void (b.events[0].line = b.events[0].line.replace("ship", "shop")), "line.json"), /Event 1 hash mismatch/);
    assert.match(await tamper((b) => void (b.session_id = "other"), "field.json"), /digest mismatch/);
    assert.match(await tamper((b) => void b.events.pop(), "dropped.json"), /event_count/);
    assert.equal((await z(["memory", "verify-export", at("b.json"), "--key-id", "0000000000000000"])).code, 1);
    await z(["memory", "export", "--exclude-sensitivity", "restricted", "--output", at("f.json")]);
    const filtered = JSON.parse(fs.readFileSync(at("f.json"), "utf8"));
    assert.deepEqual(filtered.events.map((e: { seq: number }) => e.seq), [1, 3]);
    assert.deepEqual(filtered.excluded, { by_sensitivity: 1, by_filter: 0 });
    assert.equal(JSON.parse((await z(["memory", "verify-export", at("f.json"), "--json"])).stdout).ok, true);
    const window = JSON.parse((await z(["memory", "export", "--since-seq", "2", "--max-seq", "2"])).stdout);
    assert.deepEqual(window.events.map((e: { seq: number }) => e.seq), [2]);
    assert.equal((await z(["memory", "export", "--since-time", "yesterday"])).code, 2);
    assert.equal((await z(["memory", "export", "--key", "k"])).code, 2);
    // A device or a FIFO is refused unread (it would never end or block), exit 2.
    const device = await z(["memory", "verify-export", "/dev/zero", "--json"]);
    assert.deepEqual([device.code, JSON.parse(device.stdout).error.code], [2, "invalid_bundle"]);
    assert.match(JSON.parse(device.stdout).error.message, /not a regular file/);
  });

  test("MCP: memory_export returns a signed bundle that verify-export accepts", slow, async () => {
    const mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-export"), { profile: "full", clientName: "zaxy-export-test" });
    try {
      await mcp.callOk("memory_append", { event_type: "goal.created", actor: "a", payload: { title: "ship" } });
      const bundle = await mcp.callOk("memory_export", { sign: true, kinds: ["goal.created"] });
      assert.deepEqual([bundle.schema, bundle.event_count, bundle.signature.alg], ["zaxy.export.v1", 1, "Ed25519"]);
      const dir = makeTempDir("zaxy-export-mcp");
      fs.writeFileSync(path.join(dir, "m.json"), JSON.stringify(bundle));
      assert.equal(runZaxy(["memory", "verify-export", "m.json"], { cwd: dir }).code, 0);
    } finally {
      await mcp.close();
    }
  });
});
