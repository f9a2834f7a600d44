/**
 * The citation `memory append --json` hands out names an event everywhere an event is cited:
 * `zaxy memory evolution-gate --candidate`, `zaxy fleet promote-rule --source-event` and
 * `zaxy memory consolidation propose --source-event` (real CLI processes), and the MCP tools
 * memory_evolution_gate, memory_consolidation_candidate and fleet_promote. A citation or a hash
 * prefix of at least 12 hex records exactly what the full hash records (the roots are copies, so
 * the appended payloads are compared byte for byte); every refusal exits 2 naming the field and
 * leaves the logs byte-identical.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { runZaxy, stackTraceLines } from "./zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);
const slow = { timeout: 300_000 };

interface Cited {
  seq: number;
  hash: string;
  citation: string;
}

/** A root with fleet alpha (w1 enrolled) and three events in session w1; copies share its bytes. */
function baseRoot(): string {
  const dir = makeTempDir("zaxy-source-cite");
  const root = path.join(dir, ".eventloom");
  zaxyOk(root, ["init", "--fleet"]);
  zaxyOk(root, ["fleet", "create", "alpha", "--summary", "Auth workers"]);
  zaxyOk(root, ["fleet", "enroll", "alpha", "--agent", "w1", "--actor", "coordinator"]);
  return root;
}

function copyRoot(root: string): string {
  const dir = makeTempDir("zaxy-source-cite-copy");
  fs.cpSync(root, path.join(dir, ".eventloom"), { recursive: true });
  return path.join(dir, ".eventloom");
}

// deno-lint-ignore no-explicit-any
function zaxyOk(root: string, args: string[]): any {
  const run = runZaxy([...args, "--eventloom-path", root, "--json"], { cwd: path.dirname(root) });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  return JSON.parse(run.stdout);
}

function append(root: string, title: string): Cited {
  return zaxyOk(root, ["memory", "append", "task.completed", "--actor", "w1", "--session-id", "w1", "--payload-json", JSON.stringify({ title })]);
}

function logBytes(root: string): Map<string, Buffer> {
  return new Map(fs.readdirSync(root).filter((name) => name.endsWith(".jsonl")).map((name) => [name, fs.readFileSync(path.join(root, name))]));
}

/** The payloads of a log's last `count` events, as written (key order kept). */
function lastPayloads(root: string, log: string, count: number): Record<string, unknown>[] {
  const lines = fs.readFileSync(path.join(root, log), "utf8").trim().split("\n");
  return lines.slice(-count).map((line) => JSON.parse(line).payload);
}

/** Exit 2, one error document naming `field`, no stack trace, every log byte-identical. */
function refused(root: string, args: string[], field: string, message: RegExp): void {
  const before = logBytes(root);
  const run = runZaxy([...args, "--eventloom-path", root, "--json"], { cwd: path.dirname(root) });
  assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.error.field, field, run.stdout);
  assert.match(doc.error.message, message);
  assert.deepEqual(logBytes(root), before, "logs unchanged");
}

function unknownPrefix(events: Cited[]): string {
  return ["ffffffffffff", "000000000000", "aaaaaaaaaaaa"].find((p) => events.every((e) => !e.hash.startsWith(p)))!;
}

describe("a citation or a 12-hex prefix names the cited event", () => {
  let root = "";
  let events: Cited[] = [];
  before(() => {
    root = baseRoot();
    events = ["a", "b", "c"].map((title) => append(root, title));
    zaxyOk(root, ["memory", "append", "task.completed", "--actor", "w2", "--session-id", "w2", "--payload-json", "{\"title\":\"x\"}"]);
  }, slow);

  test("memory evolution-gate --candidate CITATION records what --candidate-seq/--candidate-hash record", slow, () => {
    const gate = ["memory", "evolution-gate", "update", "--confidence", "0.9", "--session-id", "w1"];
    const byFull = copyRoot(root);
    const byCitation = copyRoot(root);
    const cited = zaxyOk(byCitation, [...gate, "--candidate", events[1].citation]);
    assert.deepEqual(cited.candidate_ref, { seq: events[1].seq, hash: events[1].hash });
    zaxyOk(byFull, [...gate, "--candidate-seq", String(events[1].seq), "--candidate-hash", events[1].hash]);
    assert.equal(JSON.stringify(lastPayloads(byCitation, "w1.jsonl", 1)), JSON.stringify(lastPayloads(byFull, "w1.jsonl", 1)));
    const byPrefix = copyRoot(root);
    zaxyOk(byPrefix, [...gate, "--candidate-hash", events[1].hash.slice(0, 12)]);
    assert.equal(JSON.stringify(lastPayloads(byPrefix, "w1.jsonl", 1)), JSON.stringify(lastPayloads(byFull, "w1.jsonl", 1)));

    refused(root, [...gate, "--candidate-hash", events[1].hash.slice(0, 11)], "--candidate-hash", /has 11 hex characters; at least 12 are needed/);
    refused(root, [...gate, "--candidate", events[1].citation.replace("//w1/", "//w2/")], "--candidate", /cites session "w2", but this call acts on session "w1"/);
    refused(root, [...gate, "--candidate-seq", "1"], "--candidate-hash", /^--candidate-hash is required with --candidate-seq \(or --candidate CITATION\)$/);
    refused(root, [...gate, "--candidate-hash", unknownPrefix(events)], "--candidate-hash", /^No event in session "w1" has a hash starting with/);
  });

  test("fleet promote-rule --source-event CITATION or SEQ:PREFIX records what SEQ:HASH records", slow, () => {
    const promote = ["fleet", "promote-rule", "alpha", "--rule", "refresh JWKS early", "--trigger", "401 spike", "--origin-session", "w1", "--confidence", "0.95", "--actor", "w1"];
    const byFull = copyRoot(root);
    const byCitation = copyRoot(root);
    const byPrefix = copyRoot(root);
    const full = zaxyOk(byFull, [...promote, "--source-event", `${events[0].seq}:${events[0].hash}`, "--source-event", `${events[2].seq}:${events[2].hash}`]);
    const cited = zaxyOk(byCitation, [...promote, "--source-event", events[0].citation, "--source-event", events[2].citation]);
    const prefixed = zaxyOk(byPrefix, [...promote, "--source-event", `${events[0].seq}:${events[0].hash.slice(0, 12)}`, "--source-event", `${events[2].seq}:${events[2].hash.slice(0, 16)}`]);
    assert.equal(cited.promotion_id, full.promotion_id);
    assert.equal(prefixed.promotion_id, full.promotion_id);
    // The gate event and the promotion: identical but for the gate event's own hash (its timestamp).
    const expected = lastPayloads(byFull, "fleet.alpha.jsonl", 2);
    for (const copy of [byCitation, byPrefix]) {
      const [gate, promotion] = lastPayloads(copy, "fleet.alpha.jsonl", 2);
      assert.equal(JSON.stringify(gate), JSON.stringify(expected[0]));
      assert.deepEqual(promotion.source_events, [{ seq: events[0].seq, hash: events[0].hash }, { seq: events[2].seq, hash: events[2].hash }]);
      assert.equal(JSON.stringify({ ...promotion, gate_event: null }), JSON.stringify({ ...expected[1], gate_event: null }));
    }

    refused(root, [...promote, "--source-event", `1:${events[0].hash.slice(0, 11)}`], "--source-event", /^--source-event "1:[0-9a-f]{11}" is not SEQ:HASH \(seq >= 1, 64 lowercase hex or a prefix of at least 12\)/);
    refused(root, [...promote, "--source-event", events[0].citation.replace(/#.*/, `#${events[0].hash.slice(0, 8)}`)], "--source-event", /carries 8 hex characters of the hash; 12 to 64 are needed/);
    refused(root, [...promote, "--source-event", events[0].citation.replace("//w1/", "//w2/")], "--source-event", /^--source-event "eventloom:\/\/w2\/events\/1#[0-9a-f]{12}" cites session "w2", but it must cite an event of the origin session "w1" \(--origin-session\)$/);
    refused(root, [...promote, "--source-event", `2:${unknownPrefix(events)}`], "--source-event", /^No event in session "w1" has a hash starting with/);
    refused(root, [...promote, "--source-event", `2:${events[0].hash.slice(0, 12)}`], "--source-event", /disagree: in session "w1" the event whose hash starts with [0-9a-f]{12} is seq 1$/);
    // The full form keeps its own check and message.
    refused(root, [...promote, "--source-event", `2:${events[0].hash}`], "--source-event[0]", /^--source-event 2:[0-9a-f]{64} is not a sealed event of origin session "w1"/);
  });

  test("memory consolidation propose --source-event CITATION or SEQ:PREFIX records what SEQ:HASH records", slow, () => {
    const propose = ["memory", "consolidation", "propose", "--candidate-type", "claim", "--title", "Tests pass", "--summary", "pytest passed", "--session-id", "w1"];
    const byFull = copyRoot(root);
    const byCitation = copyRoot(root);
    const byPrefix = copyRoot(root);
    const full = zaxyOk(byFull, [...propose, "--source-event", `${events[1].seq}:${events[1].hash}`]);
    const cited = zaxyOk(byCitation, [...propose, "--source-event", events[1].citation]);
    zaxyOk(byPrefix, [...propose, "--source-event", `${events[1].seq}:${events[1].hash.slice(0, 12)}`]);
    assert.equal(cited.candidate_id, full.candidate_id);
    const expected = JSON.stringify(lastPayloads(byFull, "w1.jsonl", 1));
    assert.equal(JSON.stringify(lastPayloads(byCitation, "w1.jsonl", 1)), expected);
    assert.equal(JSON.stringify(lastPayloads(byPrefix, "w1.jsonl", 1)), expected);

    refused(root, [...propose, "--source-event", `2:${events[1].hash.slice(0, 5)}`], "--source-event", /is not SEQ:HASH/);
    refused(root, [...propose, "--source-event", events[1].citation.replace("//w1/", "//w2/")], "--source-event", /cites session "w2", but this call acts on session "w1"/);
    refused(root, [...propose, "--source-event", `2:${unknownPrefix(events)}`], "--source-event", /^No event in session "w1" has a hash starting with/);
  });
});

describe("MCP tools take the citation too", () => {
  let mcp: McpServer;
  let root = "";
  before(async () => {
    root = tempEventloomRoot("zaxy-mcp-source-cite");
    fs.mkdirSync(root, { recursive: true });
    fs.writeFileSync(path.join(root, "config.json"), JSON.stringify({ fleet_enabled: true }));
    mcp = await startMcpServer(root, { profile: "full", clientName: "zaxy-source-cite-test" });
  }, slow);
  after(async () => await mcp?.close());

  test("memory_evolution_gate candidate, memory_consolidation_candidate and fleet_promote source_events: citation and prefix", slow, async () => {
    const stated = await mcp.callOk("memory_append", { event_type: "task.completed", actor: "w1", payload: { title: "a" }, session_id: "w1" });
    const full = { seq: stated.seq, hash: stated.hash };
    const gate = await mcp.callOk("memory_evolution_gate", { op: "update", confidence: 0.9, candidate: stated.citation, session_id: "w1" });
    assert.deepEqual(gate.candidate_ref, full);
    const gateByPrefix = await mcp.callOk("memory_evolution_gate", { op: "update", confidence: 0.9, candidate_ref: { hash: stated.hash.slice(0, 12) }, session_id: "w1" });
    assert.deepEqual(gateByPrefix.candidate_ref, full);
    const candidate = await mcp.callOk("memory_consolidation_candidate", {
      candidate_type: "claim", title: "t", summary: "s", confidence: 0.7, method: "manual", session_id: "w1",
      source_events: [stated.citation],
    });
    assert.deepEqual(candidate.payload.source_events, [full]);
    const again = await mcp.callOk("memory_consolidation_candidate", {
      candidate_type: "claim", title: "t", summary: "s", confidence: 0.7, method: "manual", session_id: "w1",
      source_events: [{ seq: stated.seq, hash: stated.hash.slice(0, 12) }],
    });
    assert.equal(again.candidate_id, candidate.candidate_id);

    await mcp.callOk("fleet_create", { fleet_id: "alpha", summary: "crew" });
    await mcp.callOk("fleet_enroll", { fleet_id: "alpha", agent_id: "w1" });
    const promoted = await mcp.callOk("fleet_promote", {
      fleet_id: "alpha", kind: "rule", actor: "w1", origin_session: "w1", rule: "r", trigger: "t", confidence: 0.95,
      source_events: [stated.citation],
    });
    assert.equal(promoted.rejected, false);
    const status = await mcp.callOk("fleet_status", { fleet_id: "alpha" });
    assert.deepEqual(status.promotions[0].source_events, [full]);

    const before = logBytes(root);
    const other = await mcp.callError("fleet_promote", {
      fleet_id: "alpha", kind: "rule", actor: "w1", origin_session: "w1", rule: "r2", trigger: "t2", confidence: 0.95,
      source_events: [stated.citation.replace("//w1/", "//w2/")],
    }, "invalid_request");
    assert.match(other.message, /^source_events\[0\] "eventloom:\/\/w2\/events\/1#[0-9a-f]{12}" cites session "w2", but it must cite an event of the origin session "w1" \(origin_session\)$/);
    const short = await mcp.callError("memory_consolidation_candidate", {
      candidate_type: "claim", title: "t2", summary: "s", confidence: 0.7, method: "manual", session_id: "w1",
      source_events: [`eventloom://w1/events/1#${stated.hash.slice(0, 8)}`],
    }, "invalid_request");
    assert.match(short.message, /^source_events\[0\] .* carries 8 hex characters of the hash; 12 to 64 are needed$/);
    const otherGate = await mcp.callError("memory_evolution_gate", { op: "update", confidence: 0.9, candidate: stated.citation.replace("//w1/", "//w2/"), session_id: "w1" }, "invalid_request");
    assert.match(otherGate.message, /^candidate "eventloom:\/\/w2\/.*" cites session "w2", but this call acts on session "w1"$/);
    assert.deepEqual(logBytes(root), before, "refusals write nothing");
  });
});
