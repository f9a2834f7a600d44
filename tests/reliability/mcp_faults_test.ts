// test-lane: full (slow)
/**
 * `zaxy serve` under hostile input (issue 12 item 15), against the BUILT binary on raw stdio:
 * every malformed line gets its JSON-RPC error (-32700 / -32600 / -32602) and the connection
 * keeps answering; a 10,000-level payload is `invalid_request` naming the depth limit; a log
 * that fails verification is `integrity_failure`, not `internal_error`; and a server answering
 * a pipelined stream of checkouts stays within a memory bound.
 * Skipped when dist/zaxy has not been built (`node_modules/.bin/bun build.ts`).
 */
import assert from "node:assert/strict";
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { mixedSessionItems, sampleQueries, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { mcpMessageBytesMax, payloadDepthMax } from "../../src/limits.ts";
import { builtBinary, removeTempDirs, skipWithoutBinary as skip, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

if (skip) console.error(`skipping MCP fault tests: ${skip}`);
after(removeTempDirs);

const initialize = {
  jsonrpc: "2.0",
  id: "init",
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } },
};
const initialized = { jsonrpc: "2.0", method: "notifications/initialized" };

// deno-lint-ignore no-explicit-any
type Reply = any;

/** `zaxy serve` on raw pipes: what it wrote, line by line, and its exit. */
interface RawServer {
  child: ChildProcessWithoutNullStreams;
  replies: Reply[];
  stderr(): string;
  /** Bytes of stdout that were not a JSON line (must stay empty). */
  strayStdout(): string[];
  waitFor(condition: () => boolean, what: string, timeoutMs?: number): Promise<void>;
  exited: Promise<number | null>;
}

function startRaw(root: string, args: string[] = []): RawServer {
  const child = spawn(builtBinary, ["serve", "--profile", "full", "--eventloom-path", root, ...args], {
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: os.tmpdir() },
    stdio: ["pipe", "pipe", "pipe"],
  });
  const replies: Reply[] = [];
  const stray: string[] = [];
  let pending = "";
  let stderr = "";
  const decoder = new TextDecoder();
  child.stdout.on("data", (chunk: Uint8Array) => {
    pending += decoder.decode(chunk, { stream: true });
    let newline: number;
    while ((newline = pending.indexOf("\n")) >= 0) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      try {
        replies.push(JSON.parse(line));
      } catch {
        stray.push(line);
      }
    }
  });
  child.stderr.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
  async function waitFor(condition: () => boolean, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; replies so far: ${JSON.stringify(replies).slice(0, 2000)}; stderr: ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  return { child, replies, stderr: () => stderr, strayStdout: () => [...stray, ...(pending === "" ? [] : [pending])], waitFor, exited };
}

function line(message: unknown): string {
  return JSON.stringify(message) + "\n";
}

function byId(replies: Reply[], id: unknown): Reply {
  const found = replies.filter((r) => r.id === id);
  assert.equal(found.length, 1, `exactly one reply with id ${JSON.stringify(id)}: ${JSON.stringify(replies)}`);
  return found[0];
}

function assertError(reply: Reply, id: unknown, code: number, message: RegExp): void {
  assert.deepEqual(Object.keys(reply).sort(), ["error", "id", "jsonrpc"], JSON.stringify(reply));
  assert.equal(reply.jsonrpc, "2.0");
  assert.equal(reply.id, id);
  assert.equal(reply.error.code, code, JSON.stringify(reply));
  assert.match(reply.error.message, message);
  // A readable sentence, never a zod dump.
  assert.ok(!reply.error.message.includes("\n") && !reply.error.message.includes('"code"'), reply.error.message);
}

/** A JSON object nested `depth` levels deep: {"a":{"a":...{"a":1}}}. */
function nestedPayload(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = { a: 1 };
  for (let level = 1; level < depth; level++) value = { a: value };
  return value;
}

function vmKib(pid: number, field: "VmRSS" | "VmHWM"): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const match = status.match(new RegExp(`${field}:\\s+(\\d+) kB`));
  assert.ok(match, `${field} in /proc/${pid}/status`);
  return Number(match[1]);
}

describe("zaxy serve answers every malformed line and keeps serving", { skip }, () => {
  test("invalid JSON, a truncated line, invalid UTF-8, [], a batch, jsonrpc 1.0 or missing, bad method or id: each gets its JSON-RPC error", async () => {
    const server = startRaw(tempEventloomRoot("zaxy-mcp-faults"));
    const utf8 = new TextEncoder();
    const bad = [
      "this line is not JSON\n",
      '{"jsonrpc":"2.0","id":2,"method":"tools/li\n',
      "\n",
      "[]\n",
      line([{ jsonrpc: "2.0", id: 3, method: "tools/list" }]),
      line({ jsonrpc: "1.0", id: 4, method: "tools/list" }),
      line({ id: 5, method: "tools/list" }),
      line({ jsonrpc: "2.0", id: 6, method: 5 }),
      line({ jsonrpc: "2.0", id: { a: 1 }, method: "tools/list" }),
      "5\n",
      line({ jsonrpc: "2.0", id: 7, method: "tools/list", extra: true }),
      line({ jsonrpc: "2.0", id: 8, method: "tools/call", params: 5 }),
    ];
    server.child.stdin.write(line(initialize) + line(initialized));
    server.child.stdin.write(utf8.encode(bad[0]));
    server.child.stdin.write(utf8.encode(bad[1]));
    // Invalid UTF-8 (a lone continuation byte and 0xff) inside an otherwise valid request.
    server.child.stdin.write(new Uint8Array([...utf8.encode('{"jsonrpc":"2.0","id":9,"method":"'), 0x80, 0xff, ...utf8.encode('"}\n')]));
    for (const text of bad.slice(2)) server.child.stdin.write(utf8.encode(text));
    // The same connection still answers a valid call afterwards; the last line has no "\n".
    server.child.stdin.write(line({ jsonrpc: "2.0", id: 10, method: "tools/call", params: { name: "memory_append", arguments: { event_type: "goal.created", actor: "a", payload: { title: "after the noise" } } } }));
    server.child.stdin.end(JSON.stringify({ jsonrpc: "2.0", id: 11, method: "tools/list" }));
    const code = await server.exited;

    assert.equal(code, 0, server.stderr());
    assert.deepEqual(server.strayStdout(), []);
    const replies = server.replies;
    assert.equal(byId(replies, "init").result.serverInfo.name, "zaxy");
    const anonymous = replies.filter((r) => r.id === null);
    assert.equal(anonymous.length, 7, JSON.stringify(anonymous));
    assertError(anonymous[0], null, -32700, /^Parse error: the line is not valid JSON/);
    assertError(anonymous[1], null, -32700, /^Parse error: the line is not valid JSON/);
    assertError(anonymous[2], null, -32700, /^Parse error: the line is not valid UTF-8$/);
    assertError(anonymous[3], null, -32600, /^Invalid Request: an empty array is not a request$/);
    assertError(anonymous[4], null, -32600, /^Invalid Request: batches \(JSON arrays\) are not supported; send one JSON-RPC message per line$/);
    assertError(anonymous[5], null, -32600, /^Invalid Request: "id" must be a string or an integer, got an object$/);
    assertError(anonymous[6], null, -32600, /^Invalid Request: a JSON-RPC message must be an object, got 5$/);
    assertError(byId(replies, 4), 4, -32600, /^Invalid Request: "jsonrpc" must be "2.0", got "1.0"$/);
    assertError(byId(replies, 5), 5, -32600, /^Invalid Request: "jsonrpc" is required and must be "2.0"$/);
    assertError(byId(replies, 6), 6, -32600, /^Invalid Request: "method" must be a string, got 5$/);
    assertError(byId(replies, 7), 7, -32600, /^Invalid Request: unknown member "extra"$/);
    assertError(byId(replies, 8), 8, -32600, /^Invalid Request: "params" must be an object, got 5$/);
    // The blank line is not a message: nothing answers it; no id was invented for anything.
    assert.deepEqual(replies.map((r) => r.id).filter((id) => id !== null).sort(), [10, 11, 4, 5, 6, 7, 8, "init"].sort());
    const appended = JSON.parse(byId(replies, 10).result.content[0].text);
    assert.equal(appended.seq, 1);
    assert.equal(byId(replies, 11).result.tools.length > 0, true);
    // Each answered line is also one diagnostic line on stderr.
    assert.equal(server.stderr().split("\n").filter((l) => l.startsWith("zaxy serve: answered -32")).length, 12, server.stderr());
  });

  test("tools/call whose arguments is not an object is -32602 Invalid params naming arguments", async () => {
    const server = startRaw(tempEventloomRoot("zaxy-mcp-faults"));
    const call = (id: number, params: unknown) => line({ jsonrpc: "2.0", id, method: "tools/call", params });
    server.child.stdin.write(line(initialize) + line(initialized));
    server.child.stdin.write(call(1, { name: "memory_append", arguments: 5 }));
    server.child.stdin.write(call(2, { name: "memory_append", arguments: [] }));
    server.child.stdin.write(call(3, { name: "memory_append", arguments: null }));
    server.child.stdin.write(call(4, { arguments: {} }));
    server.child.stdin.write(call(5, { name: "memory_replay", arguments: { session_id: "default", from_seq: "one" } }));
    server.child.stdin.end();
    assert.equal(await server.exited, 0, server.stderr());

    const replies = server.replies;
    assertError(byId(replies, 1), 1, -32602, /^Invalid params for "tools\/call": params\.arguments must be an object, got 5$/);
    assertError(byId(replies, 2), 2, -32602, /^Invalid params for "tools\/call": params\.arguments must be an object, got an array$/);
    assertError(byId(replies, 3), 3, -32602, /^Invalid params for "tools\/call": params\.arguments must be an object, got null$/);
    assertError(byId(replies, 4), 4, -32602, /^Invalid params for "tools\/call": params\.name is required \(a string\)$/);
    // Arguments that are an object but fail the tool's schema stay a readable tool error.
    const replay = byId(replies, 5).result;
    assert.equal(replay.isError, true);
    const error = JSON.parse(replay.content[0].text).error;
    assert.equal(error.code, "invalid_request");
    assert.equal(error.message, 'Invalid arguments for memory_replay: from_seq must be a number, got the string "one"');
  });

  test("a tools/call that gives a payload key twice is -32602 naming the key, and nothing is written", async () => {
    const root = tempEventloomRoot("zaxy-mcp-faults");
    const server = startRaw(root);
    server.child.stdin.write(line(initialize) + line(initialized));
    // Raw text: JSON.stringify cannot repeat a key.
    server.child.stdin.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_append","arguments":{"event_type":"note.added","actor":"a","payload":{"n":1,"n":2}}}}\n');
    server.child.stdin.write('{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"memory_append","arguments":{"event_type":"note.added","event_type":"goal.created","actor":"a","payload":{}}}}\n');
    server.child.stdin.end(line({ jsonrpc: "2.0", id: 3, method: "ping" }));
    assert.equal(await server.exited, 0, server.stderr());
    assertError(byId(server.replies, 1), 1, -32602, /^Invalid params for "tools\/call": key "n" appears twice in one object; each key may appear once$/);
    assertError(byId(server.replies, 2), 2, -32602, /key "event_type" appears twice/);
    assert.deepEqual(byId(server.replies, 3).result, {});
    assert.equal(fs.existsSync(path.join(root, "default.jsonl")), false, "nothing was written");
  });

  test("malformed responses and notifications are not answered, and each is one readable diagnostic line", async () => {
    const server = startRaw(tempEventloomRoot("zaxy-mcp-faults"));
    server.child.stdin.write(line(initialize) + line(initialized));
    server.child.stdin.write(line({ jsonrpc: "2.0", id: 7, result: 5 }));
    server.child.stdin.write(line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: {} } }));
    server.child.stdin.end(line({ jsonrpc: "2.0", id: 1, method: "ping" }));
    assert.equal(await server.exited, 0, server.stderr());

    assert.deepEqual(server.replies.map((r) => r.id), ["init", 1]);
    assert.deepEqual(server.stderr().split("\n").filter((l) => l !== ""), [
      "zaxy serve: ignored a malformed response: result must be an object, got 5",
      'zaxy serve: ignored notification "notifications/cancelled": params.requestId: Invalid input',
    ]);
  });

  test("a line longer than mcpMessageBytesMax is answered -32600 and skipped; the next request is answered", async () => {
    const server = startRaw(tempEventloomRoot("zaxy-mcp-faults"));
    server.child.stdin.write(line(initialize) + line(initialized));
    const filler = "x".repeat(1024 * 1024);
    const big = '{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"memory_append","arguments":{"event_type":"a.b","actor":"a","payload":{"k":"';
    server.child.stdin.write(big);
    for (let written = big.length; written <= mcpMessageBytesMax; written += filler.length) server.child.stdin.write(filler);
    server.child.stdin.write('"}}}}\n');
    server.child.stdin.end(line({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "memory_replay", arguments: { session_id: "default" } } }));
    assert.equal(await server.exited, 0, server.stderr());

    assertError(byId(server.replies, null), null, -32600, new RegExp(`^Invalid Request: the message is longer than ${mcpMessageBytesMax} bytes; it was skipped$`));
    // Nothing of the oversized call was appended, and the connection still answers.
    const replay = byId(server.replies, 2).result;
    assert.equal(replay.isError, true, JSON.stringify(replay));
    assert.match(JSON.parse(replay.content[0].text).error.message, /^Cannot replay session "default": it has no log/);
  });
});

describe("zaxy serve: tool errors keep their meaning", { skip }, () => {
  test(`a 10,000-level payload is invalid_request naming the ${payloadDepthMax}-level limit; ${payloadDepthMax} levels are accepted`, async () => {
    const root = tempEventloomRoot("zaxy-mcp-faults");
    const mcp = await startMcpServer(root);
    try {
      const deep = await mcp.callError("memory_append", { event_type: "goal.created", actor: "a", payload: nestedPayload(10_000) }, "invalid_request");
      assert.equal(deep.message, `Invalid arguments for memory_append: payload nests more than ${payloadDepthMax} levels deep; at most ${payloadDepthMax} are allowed`);
      const justOver = await mcp.callError("memory_append", { event_type: "goal.created", actor: "a", payload: nestedPayload(payloadDepthMax + 1) }, "invalid_request");
      assert.equal(justOver.message, deep.message);
      const ingest = await mcp.callError(
        "memory_ingest",
        { events: [{ event_type: "a.b", actor: "a", payload: {} }, { event_type: "a.b", actor: "a", payload: nestedPayload(10_000) }] },
        "invalid_request",
      );
      assert.equal(ingest.message, `Invalid arguments for memory_ingest: events[1].payload nests more than ${payloadDepthMax} levels deep; at most ${payloadDepthMax} are allowed`);
      assert.equal(fs.existsSync(path.join(root, "default.jsonl")), false, "nothing was written");
      const atLimit = await mcp.callOk("memory_append", { event_type: "goal.created", actor: "a", payload: nestedPayload(payloadDepthMax) });
      assert.equal(atLimit.seq, 1);
      assert.equal(mcp.stderr(), "", "bad input is not logged as a failure");
    } finally {
      await mcp.close();
    }
  });

  test("a log that fails verification is integrity_failure with the verifier's message in checkout, query and context_assemble", async () => {
    const root = tempEventloomRoot("zaxy-mcp-faults");
    const mcp = await startMcpServer(root);
    try {
      for (const title of ["first", "second", "third"]) await mcp.callOk("memory_append", { event_type: "goal.created", actor: "a", payload: { title } });
      const logPath = path.join(root, "default.jsonl");
      const original = fs.readFileSync(logPath, "utf8");
      const tampered = original.replace('"title":"second"', '"title":"SECOND"');
      assert.notEqual(tampered, original);
      fs.writeFileSync(logPath, tampered);
      for (const tool of ["memory_checkout", "memory_query", "context_assemble"]) {
        const error = await mcp.callError(tool, { query: "second goal" }, "integrity_failure");
        assert.equal(error.message, 'The log of session "default" fails verification at seq 2 (Event 2 hash mismatch); it will not be projected', tool);
        assert.equal(error.remediation, `run \`zaxy verify ${logPath}\` for the full report`);
      }
      // Reported to the operator too, as what it is (not "a bug in zaxy").
      assert.match(mcp.stderr(), /^zaxy serve: memory_checkout: The log of session "default" fails verification at seq 2/);
      assert.ok(!mcp.stderr().includes("bug"), mcp.stderr());
    } finally {
      await mcp.close();
    }
  });
});

describe("zaxy serve: memory stays bounded under a stream of checkouts", { skip: skip || (!fs.existsSync("/proc/self/status") && "needs /proc") }, () => {
  test("600 pipelined checkouts of a 1.7k-event session grow the resident set by less than 100 MB after the 50th", async () => {
    const root = tempEventloomRoot("zaxy-mcp-rss");
    const session = mixedSessionItems(1700, 7);
    await writeMixedSession(root, "bench", session.items);
    const queries = sampleQueries(session, 600, 11);
    const server = startRaw(root, ["--session-id", "bench"]);
    let answered = 0;
    let rssAfter50Kib = 0;
    server.child.stdout.on("data", () => {
      const calls = server.replies.filter((r) => typeof r.id === "number").length;
      if (calls >= 50 && rssAfter50Kib === 0) rssAfter50Kib = vmKib(server.child.pid!, "VmRSS");
      answered = calls;
    });
    const lines = [line(initialize), line(initialized)];
    queries.forEach((query, i) => lines.push(line({ jsonrpc: "2.0", id: i + 1, method: "tools/call", params: { name: "memory_checkout", arguments: { query } } })));
    // All at once, as a busy client pipelines them: the server is never idle between calls.
    server.child.stdin.write(lines.join(""));
    await server.waitFor(() => answered >= queries.length, `${queries.length} checkouts`, 120_000);
    const peakKib = vmKib(server.child.pid!, "VmHWM");
    const finalKib = vmKib(server.child.pid!, "VmRSS");
    server.child.stdin.end();
    assert.equal(await server.exited, 0, server.stderr());

    const failed = server.replies.filter((r) => r.error !== undefined || r.result?.isError === true);
    assert.deepEqual(failed, []);
    const growthMb = (finalKib - rssAfter50Kib) / 1024;
    console.error(`rss after 50 checkouts ${(rssAfter50Kib / 1024).toFixed(0)} MB, after ${queries.length} ${(finalKib / 1024).toFixed(0)} MB, peak ${(peakKib / 1024).toFixed(0)} MB`);
    // Before the fix this grew by 300+ MB (garbage the collector let pile up: 933 MB peak after 1,000 calls).
    assert.ok(growthMb < 100, `resident set grew by ${growthMb.toFixed(0)} MB between the 50th and the ${queries.length}th checkout`);
  });
});
