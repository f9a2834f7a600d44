/**
 * Payload keys starting with `__zaxy_` are the engine's own (`__zaxy_forgotten`, `__zaxy_cipher`,
 * `__zaxy_producer_ref`, `__zaxy_security`); a payload carrying one at its top level would make
 * every reader show a plain event as `[FORGOTTEN]`. Every input path refuses it with exit 2 (MCP
 * invalid_request) naming the key, and writes nothing. A log that already holds one still verifies.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { refused } from "./refusedRun.ts";
import { startMcpServer } from "../mcp/mcpTestClient.ts";
import { writeSealedLog } from "./sealedLogFixture.ts";

after(removeTempDirs);

function bytes(file: string): string {
  return fs.existsSync(file) ? fs.readFileSync(file, "utf8") : "<absent>";
}

describe("reserved __zaxy_ payload keys", () => {
  test("memory append and ingest refuse __zaxy_forgotten and a fake __zaxy_cipher, naming the key", () => {
    const dir = makeTempDir("reserved-keys");
    const z = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });
    const seeded = z(["memory", "append", "decision.made", "--actor", "agent", "--payload-json", '{"decision":"use postgres"}']);
    assert.equal(seeded.code, 0, seeded.stderr);
    const log = path.join(dir, ".eventloom", "default.jsonl");
    const before = bytes(log);
    refused(
      z(["memory", "append", "decision.made", "--actor", "mallory", "--payload-json", '{"content":"[FORGOTTEN]","__zaxy_forgotten":true}']),
      /payload key "__zaxy_forgotten" is reserved: keys starting with "__zaxy_" are written by zaxy itself/,
      "__zaxy_forgotten",
    );
    refused(
      z(["memory", "append", "decision.made", "--actor", "mallory", "--payload-json", JSON.stringify({ __zaxy_cipher: { v: 1, alg: "AES-256-GCM", cell_id: "0".repeat(32), nonce: "AAAA", ct: "AAAA" } })]),
      /payload key "__zaxy_cipher" is reserved/,
      "__zaxy_cipher",
    );
    refused(
      z(["memory", "ingest", "-"], JSON.stringify({ event_type: "note.added", actor: "mallory", payload: { __zaxy_forgotten: true } }) + "\n"),
      /line 1: payload key "__zaxy_forgotten" is reserved/,
      "ingest",
    );
    assert.equal(bytes(log), before, "nothing was written");
    // An event as zaxy prints it shows its producer ref in the payload: ingesting it again takes
    // that back as the producer_ref (and deduplicates), never as a payload key.
    const printed = JSON.stringify({ type: "note.added", actor: "agent", payload: { text: "t", __zaxy_producer_ref: "run-1" }, seq: 9 }) + "\n";
    assert.equal(z(["memory", "ingest", "-", "--json"], printed).code, 0);
    const again = z(["memory", "ingest", "-", "--json"], printed);
    assert.equal(JSON.parse(again.stdout).deduped, 1, again.stderr);
    // Nested keys are the producer's data: the engine reads its own keys only at the top level.
    const nested = z(["memory", "append", "note.added", "--actor", "agent", "--payload-json", '{"meta":{"__zaxy_note":"kept"}}']);
    assert.equal(nested.code, 0, nested.stderr);
  });

  test("MCP memory_append and memory_ingest refuse a reserved key with invalid_request", async () => {
    const root = path.join(makeTempDir("reserved-keys-mcp"), ".eventloom");
    const server = await startMcpServer(root);
    try {
      const error = await server.callError("memory_append", { event_type: "decision.made", actor: "mallory", payload: { __zaxy_forgotten: true } }, "invalid_request");
      assert.match(error.message, /payload key "__zaxy_forgotten" is reserved/);
      const ingest = await server.callError("memory_ingest", { events: [{ event_type: "note.added", actor: "m", payload: { __zaxy_security: {} } }] }, "invalid_request");
      assert.match(ingest.message, /payload key "__zaxy_security" is reserved/);
      assert.equal(fs.existsSync(path.join(root, "default.jsonl")), false, "nothing was written");
    } finally {
      await server.close();
    }
  });

  test("a log that already holds a __zaxy_forgotten payload still verifies", () => {
    const dir = makeTempDir("reserved-keys-existing");
    writeSealedLog(path.join(dir, ".eventloom"), "default", [
      { type: "decision.made", actor: "mallory", payload: { content: "[FORGOTTEN]", __zaxy_forgotten: true } },
    ]);
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stderr);
    assert.equal(JSON.parse(verify.stdout).ok, true);
  });
});
