/**
 * Bidirectional overrides and other invisible formatting characters (Unicode Cf: U+202A-202E,
 * U+2066-2069, U+200B-200F, U+FEFF, …) in an event type, actor or session id make one name
 * display as another (`note.\u202eadded` prints reversed). Every write path refuses them with
 * exit 2 (MCP invalid_request) naming the field and spelling the character out; nothing is
 * written. A log that already holds one still verifies.
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

describe("invisible formatting characters in names", () => {
  test("memory append and ingest refuse bidi and zero-width characters in type, actor and session id", () => {
    const dir = makeTempDir("invisible-chars");
    const z = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });
    refused(z(["memory", "append", "note.\u202eadded", "--actor", "a"]), /event_type "note\.\\u202eadded" contains the invisible formatting character U\+202E/, "type RLO");
    refused(z(["memory", "append", "note.added", "--actor", "ali\u200bce"]), /actor "ali\\u200bce" contains the invisible formatting character U\+200B/, "actor ZWSP");
    refused(z(["memory", "append", "note.added", "--actor", "\ufeffbob"]), /actor .* U\+FEFF/, "actor BOM");
    refused(z(["memory", "append", "note.added", "--actor", "a\u2066b"]), /actor .* U\+2066/, "actor isolate");
    refused(z(["memory", "append", "note.added", "--actor", "a", "--session-id", "s\u202e1"]), /session/i, "session id");
    refused(z(["memory", "ingest", "-"], JSON.stringify({ event_type: "note.added", actor: "m\u202dx", payload: {} }) + "\n"), /line 1: actor "m\\u202dx" contains the invisible formatting character U\+202D/, "ingest");
    assert.equal(fs.existsSync(path.join(dir, ".eventloom")) && fs.readdirSync(path.join(dir, ".eventloom")).some((f) => f.endsWith(".jsonl")), false, "nothing was written");
  });

  test("MCP memory_append refuses a bidi override in the event type", async () => {
    const root = path.join(makeTempDir("invisible-chars-mcp"), ".eventloom");
    const server = await startMcpServer(root);
    try {
      const error = await server.callError("memory_append", { event_type: "note.\u202eadded", actor: "a", payload: {} }, "invalid_request");
      assert.match(error.message, /U\+202E|event_type/);
      const actor = await server.callError("memory_append", { event_type: "note.added", actor: "a\u200fb", payload: {} }, "invalid_request");
      assert.match(actor.message, /actor "a\\u200fb" contains the invisible formatting character U\+200F/);
      assert.equal(fs.existsSync(path.join(root, "default.jsonl")), false, "nothing was written");
    } finally {
      await server.close();
    }
  });

  test("a log that already holds a bidi override in an event type still verifies", () => {
    const dir = makeTempDir("invisible-chars-existing");
    writeSealedLog(path.join(dir, ".eventloom"), "default", [{ type: "note.\u202eadded", actor: "a", payload: { text: "old" } }]);
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stderr);
  });
});
