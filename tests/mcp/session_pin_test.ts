/**
 * Session pins over real HTTP (`zaxy serve --http` on loopback, the zaxy tests/cli/zaxy.ts runs:
 * dist/zaxy, ZAXY_TEST_BIN, or the sources with ZAXY_TEST_FROM_SOURCE=1), through the official
 * SDK's HTTP client. Bob's connection is pinned with `x-zaxy-session-id: bob`; alice has a
 * session of her own. Bob may not list, read or write alice's session through any tool: every
 * argument the pin table (src/mcp/sessionPin.ts) binds is tried with alice's session, and
 * alice's log must stay byte for byte as it was. Bob's own calls are still served.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { sessionPinRules } from "../../src/mcp/sessionPin.ts";
import { childEnv, zaxyInvocation } from "../cli/zaxy.ts";
import { callTimeoutMs, removeTempDirs, resultDocument, tempEventloomRoot } from "./mcpTestClient.ts";
import { type EventRef, pinSamples, samplesFleetId } from "./sessionPinSamples.ts";

after(removeTempDirs);
const slow = { timeout: 180_000 };

interface Outcome {
  isError: boolean;
  // deno-lint-ignore no-explicit-any
  doc: any;
  text: string;
}

async function connect(url: string, headers: Record<string, string> = {}): Promise<Client> {
  const client = new Client({ name: "zaxy-pin-test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }));
  return client;
}

async function call(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome> {
  const result = await client.callTool({ name, arguments: args }, undefined, { timeout: callTimeoutMs });
  const text = (result.content as Array<{ text: string }>)[0].text;
  return { isError: result.isError === true, doc: resultDocument(name, result), text };
}

async function callOk(client: Client, name: string, args: Record<string, unknown>): Promise<Outcome["doc"]> {
  const outcome = await call(client, name, args);
  assert.equal(outcome.isError, false, `${name} failed: ${outcome.text}`);
  return outcome.doc;
}

function citationOf(ref: EventRef, session: string): string {
  return `eventloom://${session}/events/${ref.seq}#${ref.hash.slice(0, 12)}`;
}

const aliceSecret = "alice launches the rocket at dawn";

describe("a connection pinned with x-zaxy-session-id: bob", () => {
  const root = tempEventloomRoot("zaxy-pin");
  let child: ChildProcess;
  let stderr = "";
  let operator: Client;
  let alice: Client;
  let bob: Client;
  let aliceRef: EventRef;
  let bobRef: EventRef;
  const aliceLog = path.join(root, "alice.jsonl");
  const fleetLog = path.join(root, `fleet.${samplesFleetId}.jsonl`);

  before(async () => {
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ fleet_enabled: true }));
    child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, "serve", "--http", "127.0.0.1:0", "--json", "--profile", "full", "--eventloom-path", root], {
      env: childEnv(),
      stdio: ["ignore", "pipe", "pipe"],
    });
    child.stderr!.on("data", (chunk) => void (stderr += chunk));
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on("data", (chunk) => {
        stdout += chunk;
        if (stdout.includes("\n")) resolve(JSON.parse(stdout.split("\n")[0]).url);
      });
      child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    });
    operator = await connect(url);
    alice = await connect(url, { "x-zaxy-session-id": "alice" });
    bob = await connect(url, { "x-zaxy-session-id": "bob" });
    const a = await callOk(alice, "memory_append", { event_type: "decision.made", actor: "alice", payload: { plan: aliceSecret } });
    aliceRef = { seq: a.seq, hash: a.hash };
    const b = await callOk(bob, "memory_append", { event_type: "note.added", actor: "bob", payload: { note: "bob's deploy plan" } });
    bobRef = { seq: b.seq, hash: b.hash };
    await callOk(operator, "fleet_create", { fleet_id: samplesFleetId, summary: "the crew" });
    await callOk(operator, "fleet_enroll", { fleet_id: samplesFleetId, agent_id: "alice" });
    await callOk(operator, "fleet_enroll", { fleet_id: samplesFleetId, agent_id: "bob" });
  });

  after(async () => {
    for (const client of [operator, alice, bob]) await client?.close().catch(() => {});
    if (child !== undefined && child.exitCode === null) {
      const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
      child.kill("SIGTERM");
      await closed;
    }
  });

  test("memory_sessions lists bob's session only; an unscoped connection lists every session", slow, async () => {
    const listed = await callOk(bob, "memory_sessions", {});
    assert.deepEqual(listed.sessions.map((s: { session_id: string }) => s.session_id), ["bob"]);
    assert.equal(listed.session_count, 1);
    assert.equal(listed.sessions[0].last_hash, bobRef.hash);
    const all = await callOk(operator, "memory_sessions", {});
    assert.deepEqual(all.sessions.map((s: { session_id: string }) => s.session_id).sort(), ["alice", "bob", `fleet.${samplesFleetId}`]);
  });

  test("memory_get refuses a citation of alice's session, naming the argument and the pin; bob's own citation resolves", slow, async () => {
    const citation = citationOf(aliceRef, "alice");
    const refused = await call(bob, "memory_get", { citation });
    assert.equal(refused.isError, true, refused.text);
    assert.deepEqual(Object.keys(refused.doc.error), ["code", "message", "remediation"]);
    assert.equal(refused.doc.error.code, "invalid_request");
    assert.equal(refused.doc.error.message, `This connection is scoped to session "bob"; citation ${JSON.stringify(citation)} names session "alice"`);
    assert.ok(!refused.text.includes(aliceSecret));
    const own = await callOk(bob, "memory_get", { citation: citationOf(bobRef, "bob") });
    assert.equal(own.session_id, "bob");
    assert.equal(own.event.hash, bobRef.hash);
    assert.equal(own.event.payload.note, "bob's deploy plan");
    // Alice's own connection still reads her event.
    assert.equal((await callOk(alice, "memory_get", { citation })).event.payload.plan, aliceSecret);
  });

  test("fleet_promote naming alice as origin_session or session_id is refused and writes nothing; bob's own promotion lands", slow, async () => {
    const aliceBefore = fs.readFileSync(aliceLog);
    const fleetBefore = fs.readFileSync(fleetLog);
    const promotion = pinSamples("bob", bobRef).fleet_promote;
    const asAlice = await call(bob, "fleet_promote", { ...promotion, origin_session: "alice", source_events: [aliceRef], session_id: undefined });
    assert.equal(asAlice.isError, true, asAlice.text);
    assert.equal(asAlice.doc.error.message, `This connection is scoped to session "bob"; origin_session may not name session "alice"`);
    const refusalToAlice = await call(bob, "fleet_promote", { ...promotion, session_id: "alice" });
    assert.equal(refusalToAlice.isError, true, refusalToAlice.text);
    assert.equal(refusalToAlice.doc.error.message, `This connection is scoped to session "bob"; session_id may not name session "alice"`);
    assert.deepEqual(fs.readFileSync(aliceLog), aliceBefore);
    assert.deepEqual(fs.readFileSync(fleetLog), fleetBefore);
    const own = await callOk(bob, "fleet_promote", promotion);
    assert.notEqual(own.rejected, true, JSON.stringify(own));
    assert.ok(fs.readFileSync(fleetLog).length > fleetBefore.length, "bob's promotion is in the fleet thread");
    assert.deepEqual(fs.readFileSync(aliceLog), aliceBefore);
  });

  test("every argument the pin binds is refused when it names alice, for every tool, and alice's log is unchanged", slow, async () => {
    const aliceBefore = fs.readFileSync(aliceLog);
    const samples = pinSamples("bob", bobRef);
    const failures: string[] = [];
    let tried = 0;
    for (const [tool, rule] of Object.entries(sessionPinRules)) {
      if (rule.refused !== undefined) {
        tried++;
        const outcome = await call(bob, tool, samples[tool]);
        const expected = `This connection is scoped to session "bob"; ${tool} is not served to a scoped connection: ${rule.refused}`;
        if (!outcome.isError || outcome.doc.error.message !== expected) failures.push(`${tool}: ${outcome.text.slice(0, 200)}`);
        continue;
      }
      for (const [argument, kind] of Object.entries(rule.arguments ?? {})) {
        if (kind !== "session" && kind !== "citation") continue;
        tried++;
        const other = kind === "session" ? "alice" : citationOf(aliceRef, "alice");
        const outcome = await call(bob, tool, { ...samples[tool], [argument]: other });
        const refused = outcome.isError && outcome.doc.error.code === "invalid_request" &&
          outcome.doc.error.message.startsWith(`This connection is scoped to session "bob"; ${argument} `);
        if (!refused || outcome.text.includes(aliceSecret)) failures.push(`${tool}.${argument}: ${outcome.text.slice(0, 200)}`);
      }
    }
    assert.ok(tried >= 30, `only ${tried} arguments tried`);
    assert.deepEqual(failures, [], "these calls were not refused");
    assert.deepEqual(fs.readFileSync(aliceLog), aliceBefore);
  });

  test("bob's own calls are served: no tool refuses bob's own session, and bob's reads see bob's events", slow, async () => {
    const samples = pinSamples("bob", bobRef);
    const refusedForPin: string[] = [];
    for (const [tool, rule] of Object.entries(sessionPinRules)) {
      if (rule.refused !== undefined) continue;
      const outcome = await call(bob, tool, samples[tool]);
      // Other failures (an unknown candidate, forgetting not enabled) are the tool's, not the pin's.
      if (outcome.isError && (/scoped to session/.test(outcome.doc.error.message) || outcome.doc.error.code === "internal_error")) {
        refusedForPin.push(`${tool}: ${outcome.doc.error.message}`);
      }
    }
    assert.deepEqual(refusedForPin, []);
    const replay = await callOk(bob, "memory_replay", {});
    assert.ok(replay.events.every((event: { thread: string }) => event.thread === "bob"));
    assert.equal(replay.events[0].hash, bobRef.hash);
    assert.equal((await callOk(bob, "memory_verify", {})).ok, true);
    const exported = await callOk(bob, "memory_export", {});
    assert.equal(exported.session_id, "bob");
    assert.ok(!JSON.stringify(exported).includes(aliceSecret));
    const checkout = await callOk(bob, "memory_checkout", { query: "deploy plan", fleet_ids: [samplesFleetId], agent_id: "bob" });
    assert.equal(checkout.session_id, "bob");
    assert.ok(!JSON.stringify(checkout).includes(aliceSecret));
  });
});
