/**
 * `StdioLineTransport` in process, on in-memory streams: how bytes become lines whatever the
 * chunking (a line split anywhere, even inside a UTF-8 character; CRLF), and that an oversized
 * line is answered once and skipped without losing the line after it.
 */
import assert from "node:assert/strict";
import { PassThrough } from "node:stream";
import { describe, test } from "node:test";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { StdioLineTransport } from "../../src/mcp/stdioTransport.ts";

function harness(messageBytesMax = 1024) {
  const input = new PassThrough();
  const output = new PassThrough();
  const transport = new StdioLineTransport(input, output, { messageBytesMax });
  const messages: JSONRPCMessage[] = [];
  const diagnostics: string[] = [];
  let written = "";
  output.on("data", (chunk: Uint8Array) => (written += new TextDecoder().decode(chunk)));
  transport.onmessage = (message) => messages.push(message);
  transport.onerror = (error) => diagnostics.push(error.message);
  const ended = new Promise<void>((resolve) => (transport.onend = resolve));
  return {
    input,
    transport,
    messages,
    diagnostics,
    // deno-lint-ignore no-explicit-any
    replies: (): any[] => written.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)),
    ended,
  };
}

describe("StdioLineTransport", () => {
  test("a request split across chunks, inside a UTF-8 character and before a CRLF, arrives once and intact", async () => {
    const h = harness();
    await h.transport.start();
    const bytes = new TextEncoder().encode(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { note: "café ✓" } } }) + "\r\n");
    const split = bytes.indexOf(0xc3) + 1; // between the two bytes of "é"
    h.input.write(bytes.subarray(0, 5));
    h.input.write(bytes.subarray(5, split));
    h.input.write(bytes.subarray(split));
    h.input.end();
    await h.ended;
    assert.deepEqual(h.messages, [{ jsonrpc: "2.0", id: 1, method: "ping", params: { _meta: { note: "café ✓" } } }]);
    assert.deepEqual(h.replies(), []);
    assert.deepEqual(h.diagnostics, []);
  });

  test("a line over messageBytesMax is answered -32600 once, its rest skipped, and the next line read", async () => {
    const h = harness(100);
    await h.transport.start();
    h.input.write('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"_meta":{"pad":"');
    h.input.write("x".repeat(80));
    h.input.write("x".repeat(500) + '"}}}\n{"jsonrpc":"2.0","id":2,"method":"ping"}');
    h.input.end();
    await h.ended;
    assert.deepEqual(h.replies(), [
      { jsonrpc: "2.0", id: null, error: { code: -32600, message: "Invalid Request: the message is longer than 100 bytes; it was skipped" } },
    ]);
    // The last line had no "\n": it is still read when the input ends.
    assert.deepEqual(h.messages, [{ jsonrpc: "2.0", id: 2, method: "ping" }]);
    assert.deepEqual(h.diagnostics, ["answered -32600 (id null): Invalid Request: the message is longer than 100 bytes; it was skipped"]);
  });

  test("a line of exactly messageBytesMax bytes is read", async () => {
    const head = '{"jsonrpc":"2.0","id":3,"method":"ping","params":{"_meta":{"pad":"';
    const tail = '"}}}';
    const h = harness(100);
    await h.transport.start();
    h.input.end(head + "y".repeat(100 - head.length - tail.length) + tail + "\n");
    await h.ended;
    assert.equal(h.messages.length, 1);
    assert.deepEqual(h.replies(), []);
  });
});
