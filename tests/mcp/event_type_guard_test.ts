/**
 * MCP `memory_append` and `memory_ingest` (stdio and HTTP, the BUILT binary) refuse a misspelt
 * known event type unless `allow_new_type: true`, and a switch of a v1 session to legacy lines
 * unless `allow_envelope_switch: true`, as `invalid_request` naming the field, writing nothing;
 * and they report the paths of redacted secrets in `redacted_paths`.
 * Skipped when dist/zaxy has not been built (`npm run build`).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { serveHttp } from "./httpServe.ts";
import { type McpServer, removeTempDirs, resultDocument, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "./mcpTestClient.ts";

if (skip) console.error(`skipping MCP event type guard tests: ${skip}`);

const slow = { timeout: 60_000 };
const secret = "sk-" + "abcdef1234567890abcdef";

after(removeTempDirs);

describe("MCP memory_append and memory_ingest: event type and envelope guards, redactions", { skip }, () => {
  let mcp: McpServer;
  const logBytes = (session: string) => fs.readFileSync(path.join(mcp.root, `${session}.jsonl`));

  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-guard"));
  }, slow);
  after(async () => await mcp?.close());

  test("Decision.Made is refused naming event_type and the type meant; allow_new_type: true appends it", slow, async () => {
    await mcp.callOk("memory_append", { session_id: "case", event_type: "goal.created", actor: "a", payload: { title: "Ship" } });
    const bytes = logBytes("case");
    const refused = await mcp.callError("memory_append", { session_id: "case", event_type: "decision.mdae", actor: "a", payload: { decision: "x" } }, "invalid_request");
    assert.match(refused.message, /unknown event type "decision\.mdae" in event_type; did you mean "decision\.made"\?.*pass allow_new_type: true/);
    assert.match(refused.remediation, /"event_type"/);
    const capitals = await mcp.callError("memory_append", { session_id: "case", event_type: "Decision.Made", actor: "a", payload: { decision: "x" } }, "invalid_request");
    assert.match(capitals.message, /did you mean "decision\.made"\? \(it differs only in capitals\)/);
    assert.deepEqual(logBytes("case"), bytes, "nothing written");

    const allowed = await mcp.callOk("memory_append", { session_id: "case", event_type: "decision.mdae", actor: "a", payload: { decision: "x" }, allow_new_type: true });
    assert.equal(allowed.event_type, "decision.mdae");
    assert.equal(allowed.seq, 2);
  });

  test("user.preference_changed on a v1 session is refused naming allow_envelope_switch; with it the session switches and says so", slow, async () => {
    await mcp.callOk("memory_append", { session_id: "switch", event_type: "goal.created", actor: "a", payload: { title: "Ship" } });
    const bytes = logBytes("switch");
    const payload = { user: "a", key: "editor", value: "vim" };
    const refused = await mcp.callError("memory_append", { session_id: "switch", event_type: "user.preference_changed", actor: "a", payload }, "invalid_request");
    assert.match(refused.message, /event_type "user\.preference_changed" cannot be written in the eventloom\.v1 envelope.*pass allow_envelope_switch: true/);
    assert.deepEqual(logBytes("switch"), bytes, "nothing written");

    const allowed = await mcp.callOk("memory_append", { session_id: "switch", event_type: "user.preference_changed", actor: "a", payload, allow_envelope_switch: true });
    assert.equal(allowed.seq, 2);
    assert.match(allowed.warnings[0], /session "switch" is written in legacy lines from seq 2 on/);
  });

  test("memory_ingest: one misspelt item refuses the whole batch naming it; nothing is written", slow, async () => {
    await mcp.callOk("memory_append", { session_id: "batch", event_type: "goal.created", actor: "a", payload: { title: "Ship" } });
    const bytes = logBytes("batch");
    const events = [
      { event_type: "goal.created", actor: "a", payload: { title: "one" } },
      { event_type: "task.complted", actor: "a", payload: { taskId: "t" } },
    ];
    const refused = await mcp.callError("memory_ingest", { session_id: "batch", events }, "invalid_request");
    assert.match(refused.message, /event 1: unknown event type "task\.complted" in event_type; did you mean "task\.completed"\?/);
    assert.deepEqual(logBytes("batch"), bytes, "nothing written");
    const switching = await mcp.callError("memory_ingest", { session_id: "batch", events: [{ event_type: "skill.outcome_recorded", actor: "a" }] }, "invalid_request");
    assert.match(switching.message, /allow_envelope_switch: true/);
    assert.deepEqual(logBytes("batch"), bytes, "nothing written");

    const allowed = await mcp.callOk("memory_ingest", { session_id: "batch", events, allow_new_type: true });
    assert.equal(allowed.imported, 2);
  });

  test("redacted secrets are reported by path: redacted_paths on memory_append, on each memory_ingest event", slow, async () => {
    const appended = await mcp.callOk("memory_append", { session_id: "secrets", event_type: "note.added", actor: "a", payload: { api_key: secret, text: "kept" } });
    assert.deepEqual(appended.redacted_paths, ["api_key"]);
    assert.ok(!JSON.stringify(appended).includes(secret));
    const plain = await mcp.callOk("memory_append", { session_id: "secrets", event_type: "note.added", actor: "a", payload: { text: "plain" } });
    assert.equal(plain.redacted_paths, undefined);

    const ingested = await mcp.callOk("memory_ingest", {
      session_id: "secrets",
      events: [
        { event_type: "note.added", actor: "a", payload: { text: "plain" } },
        { event_type: "note.added", actor: "a", payload: { nested: { password: "hunter2" } } },
      ],
    });
    assert.equal(ingested.events[0].redacted_paths, undefined);
    assert.deepEqual(ingested.events[1].redacted_paths, ["nested.password"]);
  });
});

describe("HTTP memory_append: the same guards", { skip }, () => {
  test("a misspelt type and a switch to legacy lines are refused over HTTP; allowed with the arguments", slow, async () => {
    const server = await serveHttp(tempEventloomRoot("zaxy-http-guard"));
    try {
      const client = new Client({ name: "zaxy-test", version: "0.0.0" });
      await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
      const call = async (args: Record<string, unknown>) => {
        const result = await client.callTool({ name: "memory_append", arguments: { actor: "a", payload: { user: "a", key: "k", value: "v" }, ...args } });
        return { isError: result.isError === true, doc: resultDocument("memory_append", result) };
      };
      assert.equal((await call({ event_type: "goal.created" })).isError, false);
      const log = path.join(server.root, "default.jsonl");
      const bytes = fs.readFileSync(log);
      const mistyped = await call({ event_type: "Goal.Created" });
      assert.equal(mistyped.isError, true);
      assert.equal(mistyped.doc.error.code, "invalid_request");
      assert.match(mistyped.doc.error.message, /did you mean "goal\.created"\?/);
      const switching = await call({ event_type: "user.preference_changed" });
      assert.equal(switching.isError, true);
      assert.match(switching.doc.error.message, /allow_envelope_switch: true/);
      assert.deepEqual(fs.readFileSync(log), bytes, "nothing written");
      const allowed = await call({ event_type: "user.preference_changed", allow_envelope_switch: true });
      assert.equal(allowed.isError, false, JSON.stringify(allowed.doc));
      assert.equal(allowed.doc.seq, 2);
      await client.close();
    } finally {
      await server.stop();
    }
  });
});
