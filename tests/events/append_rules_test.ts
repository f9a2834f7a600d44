/**
 * The log knows no event schema: it takes the derived-event rules as an argument (`eventAppender`
 * in src/eventloom/append.ts), and every writer appends through the one appender holding zaxy's
 * rules (src/events/append.ts). Here an invalid `causal.edge.generated` is refused, with the same
 * error and nothing written, on every write path reachable in-process: the appender's appends,
 * ingest's item checks, recording (CLI append and ingest), the MCP append and ingest tools (stdio
 * and HTTP run the same tools) and a root bound to a shared store. The binary's `memory append`
 * and `memory ingest` are covered by tests/seeds/governance_integrity_test.ts.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fromJs, type JsonObject } from "../../src/canonical/mod.ts";
import { isZaxyError, type ZaxyError } from "../../src/errors.ts";
import * as eventloom from "../../src/eventloom/mod.ts";
import { eventAppender } from "../../src/eventloom/append.ts";
import type { ThreadStore } from "../../src/eventloom/threadStore.ts";
import { Root } from "../../src/eventloom/rootHandle.ts";
import { appendEvent, appendEvents, appendPlanned, checkItems, validateItems, zaxyEventRules } from "../../src/events/append.ts";
import { derivedEventHint, derivedEventRule } from "../../src/events/derivedEventRules.ts";
import { recordInputEvents } from "../../src/memory/plainInput.ts";
import { memoryAppendTool } from "../../src/mcp/tools/memoryAppend.ts";
import { memoryIngestTool } from "../../src/mcp/tools/memoryIngest.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const repoDir = path.resolve(path.dirname(new URL(import.meta.url).pathname), "..", "..");

/** A causal edge as the producer writes it, citing event 1 of the session. */
function validEdge(citedHash: string): Record<string, unknown> {
  return {
    source: { name: "missing index", entity_type: "cause" },
    target: { name: "slow deploy", entity_type: "outcome" },
    relation_type: "caused",
    graph_relation_type: "causal_caused",
    confidence: 0.8,
    causal_method: "explicit_outcome_explanation_v1",
    review_status: "proposed",
    authority_status: "non_authoritative",
    evidence: { source_event_seq: 1, source_event_hash: citedHash },
  };
}

const edgeType = "causal.edge.generated";
const expectedMessage = 'Cannot append: causal.edge.generated payload.confidence must be a number between 0.0 and 1.0. Nothing was written.';

/** A session holding one observed outcome, and an edge citing it whose confidence its producer would never write. */
async function sessionWithInvalidEdge(label: string): Promise<{ root: string; logPath: string; before: Buffer; plain: Record<string, unknown>; payload: JsonObject }> {
  const root = path.join(makeTempDir(label), ".eventloom");
  const [cited] = (await appendEvents(root, "default", [{ type: "outcome.observed", actor: "agent", payload: fromJs({ summary: "deploy took 40 minutes" }) }])).events;
  const logPath = path.join(root, "default.jsonl");
  const plain = { ...validEdge(cited.hash), confidence: 1.5 };
  return { root, logPath, before: fs.readFileSync(logPath), plain, payload: fromJs(plain) as JsonObject };
}

async function refusal(write: () => Promise<unknown>): Promise<ZaxyError> {
  try {
    await write();
  } catch (error) {
    if (isZaxyError(error)) return error;
    throw error;
  }
  assert.fail("the invalid causal edge was appended");
}

function assertRefused(error: ZaxyError, message = expectedMessage): void {
  assert.equal(error.code, "invalid_event");
  assert.equal(error.exitCode, 2);
  assert.equal(error.message, message);
  assert.equal(error.details.field, "payload.confidence");
  assert.equal(error.hint, derivedEventHint);
}

describe("every write path refuses a derived event its producer would never write", () => {
  test("the appender's appendEvents, appendEvent and appendPlanned refuse it and leave the log byte-identical", async () => {
    const { root, logPath, before, payload } = await sessionWithInvalidEdge("zaxy-rules-appender");
    assertRefused(await refusal(() => appendEvents(root, "default", [{ type: edgeType, actor: "agent", payload }])));
    assertRefused(await refusal(() => appendEvent(root, "default", { type: edgeType, actor: "agent", payload })));
    assertRefused(await refusal(() => appendPlanned(root, "default", () => [{ type: edgeType, actor: "agent", payload }])));
    assertRefused(await refusal(() => appendPlanned(root, "default", () => [() => ({ type: edgeType, actor: "agent", payload })])));
    assert.deepEqual(fs.readFileSync(logPath), before);
    // The producer's own edge passes the same rules.
    const cited = JSON.parse(before.toString("utf8").trimEnd()).integrity.hash.replace(/^sha256:/, "");
    const accepted = await appendEvents(root, "default", [{ type: edgeType, actor: "zaxy-causal", payload: fromJs(validEdge(cited)) }]);
    assert.equal(accepted.events[0].seq, 2);
  });

  test("ingest's item checks and validateItems report it among the batch's other problems, in item order", () => {
    const payload = fromJs({ ...validEdge("a".repeat(64)), confidence: 1.5 }) as JsonObject;
    const items = [
      { type: "note.added", actor: "agent", payload: fromJs({ text: "fine" }), origin: "line 1" },
      { type: edgeType, actor: "agent", payload, origin: "line 2" },
      { type: "note.added", actor: "", payload: fromJs({ text: "no actor" }), origin: "line 3" },
    ];
    const { valid, issues } = checkItems(items);
    assert.deepEqual(valid.map((item) => item.origin), ["line 1"]);
    assert.deepEqual(issues.map((issue) => [issue.index, issue.field, issue.message]), [
      [1, "payload.confidence", "causal.edge.generated payload.confidence must be a number between 0.0 and 1.0"],
      [2, "actor", "actor must be a non-empty string"],
    ]);
    assert.throws(() => validateItems(items), (error: ZaxyError) => {
      assert.equal(error.message, "Cannot append: line 2: causal.edge.generated payload.confidence must be a number between 0.0 and 1.0; line 3: actor must be a non-empty string. Nothing was written.");
      assert.equal(error.hint, derivedEventHint);
      return true;
    });
  });

  test("recording (CLI append and ingest) and the MCP append and ingest tools refuse it", async () => {
    const { root, logPath, before, plain, payload } = await sessionWithInvalidEdge("zaxy-rules-front-doors");
    assertRefused(await refusal(() => recordEvents(root, "default", [{ type: edgeType, actor: "agent", payload }])));
    const permissions = { allowNewType: false, allowEnvelopeSwitch: false, spelling: { newType: "--allow-new-type", envelopeSwitch: "--allow-envelope-switch" } };
    assertRefused(await refusal(() => recordInputEvents(root, "default", [{ type: edgeType, actor: "agent", payload }], { dedupProducerRefs: true }, permissions)));
    const ctx = { eventloomPath: root, sessionId: "default" };
    assertRefused(await refusal(() => memoryAppendTool.run(memoryAppendTool.inputSchema.parse({ event_type: edgeType, actor: "agent", payload: plain }), ctx)));
    assertRefused(
      await refusal(() => memoryIngestTool.run(memoryIngestTool.inputSchema.parse({ events: [{ event_type: edgeType, actor: "agent", payload: plain }] }), ctx)),
    );
    assert.deepEqual(fs.readFileSync(logPath), before);
  });

  test("a root bound to a shared store refuses it before the store is asked for its lock", async () => {
    const { payload } = await sessionWithInvalidEdge("zaxy-rules-store");
    const root = path.join(makeTempDir("zaxy-rules-store-root"), ".eventloom");
    let storeCalls = 0;
    const store: ThreadStore = {
      appendLocked() {
        storeCalls++;
        return Promise.reject(new Error("the store was asked to append an event its rules refuse"));
      },
    } as unknown as ThreadStore;
    Root.open(root).bindThreadStore(store);
    try {
      assertRefused(await refusal(() => appendEvents(root, "default", [{ type: edgeType, actor: "agent", payload }])));
      assertRefused(await refusal(() => recordEvents(root, "default", [{ type: edgeType, actor: "agent", payload }])));
    } finally {
      Root.open(root).unbindThreadStore();
    }
    assert.equal(storeCalls, 0);
  });
});

describe("no write path can leave the rules out", () => {
  test("the log exports no append without rules, and zaxy's appender holds the derived-event rule", () => {
    for (const name of ["appendEvents", "appendEvent", "appendPlanned", "checkItems", "validateItems"]) {
      assert.equal(name in eventloom, false, `src/eventloom/mod.ts exports ${name}`);
    }
    assert.deepEqual(zaxyEventRules, [derivedEventRule]);
    assert.equal(eventAppender([]).rules.length, 0);
  });

  test("only src/events/append.ts makes an appender in src/", () => {
    const makers: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.name.endsWith(".ts") && /\beventAppender\s*\(/.test(fs.readFileSync(full, "utf8"))) makers.push(path.relative(repoDir, full));
      }
    };
    walk(path.join(repoDir, "src"));
    assert.deepEqual(makers.sort(), ["src/eventloom/append.ts", "src/events/append.ts"]);
  });
});
