/** The retrieval lanes, fusion, de-duplication and the degraded read, over an in-memory fold. */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { fromJs } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { citationUri } from "../../src/eventloom/root.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import { exactCandidates, laneHitsMax, retrieve, retrieveDegraded } from "../../src/retrieval/engine.ts";
import { buildSessionIndex, type SessionIndex } from "../../src/retrieval/sessionIndex.ts";

function hashOf(seq: number): string {
  return seq.toString(16).padStart(64, "a");
}

function events(specs: Array<[string, Record<string, unknown>]>): EventRecord[] {
  return specs.map(([type, payload], i) => ({
    seq: i + 1,
    timestamp: `2026-11-22T00:00:${String(i).padStart(2, "0")}.000000Z`,
    type,
    actor: "agent",
    thread: "s",
    payload: fromJs(payload) as EventRecord["payload"],
    security: null,
    prevHash: i === 0 ? null : hashOf(i),
    hash: hashOf(i + 1),
    id: null,
    parentEventId: null,
    causedBy: [],
    envelope: "legacy",
  }));
}

function indexOf(records: EventRecord[]): SessionIndex {
  const fold = new GraphFold("s");
  for (const record of records) fold.apply(record, extractEvent(record));
  return buildSessionIndex("s", fold.rows(), records, null);
}

describe("retrieval lanes", () => {
  const docs = Array.from({ length: 40 }, (_, i) => [
    "document.indexed",
    { path: `docs/r${i}.md`, start_line: 1, end_line: 3, content: `Runbook for the billing service. This source records identity-code-${1000 + i}.` },
  ] as [string, Record<string, unknown>]);
  const index = indexOf(events(docs));

  test("keyword scores tell near-duplicates apart by one identifier", () => {
    for (let i = 0; i < 40; i++) {
      const result = retrieve(index, `Which source records identity-code-${1000 + i}?`, { limit: 5 });
      assert.equal(result.contexts[0].eventSeq, i + 1, `query ${i}: ${result.contexts[0].content}`);
      assert.equal(result.contexts[0].citation, citationUri("s", i + 1, hashOf(i + 1)));
    }
  });

  test("an exact entity name is found by the exact lane", () => {
    const result = retrieve(index, "docs/r7.md:1-3", { limit: 3 });
    assert.equal(result.contexts[0].entityName, "docs/r7.md:1-3");
    assert.ok(result.laneCounts.exact >= 1);
    assert.equal(result.contexts[0].scoreExplanation.lanes && (result.contexts[0].scoreExplanation.lanes as Record<string, number>).exact, 1);
  });

  test("exact candidates are the query, its words and runs of up to four words, lowercased", () => {
    assert.deepEqual(exactCandidates("  Use Kuzu? "), ["use kuzu?", "use", "kuzu", "use kuzu"]);
  });
});

describe("versions, traversal, verbatim and de-duplication", () => {
  const records = events([
    ["user.preference_changed", { user: "alice", key: "editor", value: "vim" }],
    ["user.preference_changed", { user: "alice", key: "editor", value: "emacs" }],
    ["decision.made", { decision: "Adopt Kuzu", rationale: "embedded graph store" }],
    ["note.unusual", { details: { nested: "zebra-crossing mentioned only here" } }],
  ]);
  const index = indexOf(records);

  test("superseded versions come back with their window closed", () => {
    const contexts = retrieve(index, "alice editor", { limit: 10 }).contexts.filter((c) => c.entityType === "preference");
    assert.deepEqual(contexts.map((c) => [c.content, c.validTo]).sort(), [
      ["alice:editor (preference): editor=emacs", null],
      ["alice:editor (preference): editor=vim", records[1].timestamp],
    ]);
  });

  test("traversal reaches neighbours of the best hits, within the depth", () => {
    const deep = retrieve(index, "alice", { limit: 10, depth: 2 });
    const preference = deep.contexts.find((c) => c.entityType === "preference" && c.validTo === null);
    assert.ok(preference, "the current preference is reached from the user");
    assert.ok((preference.scoreExplanation.lanes as Record<string, number>).traversal > 0);
    assert.ok(deep.laneCounts.traversal > 0);
  });

  test("a raw event is found by the verbatim lane when the projection does not state its words", () => {
    const result = retrieve(index, "zebra-crossing", { limit: 5 });
    const verbatim = result.contexts.find((c) => c.source === "verbatim");
    assert.ok(verbatim, JSON.stringify(result.contexts.map((c) => c.content)));
    assert.equal(verbatim.eventSeq, 4);
    assert.equal(verbatim.citation, citationUri("s", 4, hashOf(4)));
  });

  test("no two contexts share a citation and an entity; raw events cited by the graph are dropped", () => {
    const result = retrieve(index, "Adopt Kuzu embedded graph store decision", { limit: 10 });
    const keys = result.contexts.map((c) => `${c.citation}|${c.entityType}|${c.entityName}`);
    assert.equal(new Set(keys).size, keys.length);
    const graphCitations = new Set(result.contexts.filter((c) => c.source === "graph").map((c) => c.citation));
    assert.ok(!result.contexts.some((c) => c.source === "verbatim" && graphCitations.has(c.citation)));
  });

  test("retrieveDegraded answers like retrieve over the same rows, every context marked degraded and cited", () => {
    const normal = retrieve(index, "Adopt Kuzu", { limit: 5 });
    const result = retrieveDegraded(index, "Adopt Kuzu", { limit: 5 }, "store busy");
    assert.equal(result.degraded, true);
    assert.equal(result.degradedReason, "store busy");
    assert.deepEqual(result.laneCounts, normal.laneCounts);
    assert.ok(result.contexts.length > 0);
    assert.deepEqual(result.contexts.map((c) => ({ ...c, metadata: { ...c.metadata, degraded: true } })), result.contexts);
    assert.deepEqual(result.contexts.map((c) => c.citation), normal.contexts.map((c) => c.citation));
    for (const context of result.contexts) {
      assert.equal(context.metadata.degraded, true);
      assert.equal(context.citation, citationUri("s", context.eventSeq!, hashOf(context.eventSeq!)));
    }
  });
});

describe("a vector-lane answer passed in", () => {
  const index = indexOf(events([["decision.made", { decision: "Adopt Kuzu", rationale: "embedded graph store" }]]));
  const decision = [...Array(index.entityCount).keys()].find((position) => index.entity(position).entityType === "decision")!;
  const hits = [{ position: decision, similarity: 0.5 }];

  test("ranks with the given hits when they answer this query with the lane's limit", () => {
    const result = retrieve(index, "zebra", { limit: 5, vectorLane: { query: "zebra", limit: laneHitsMax, hits } });
    assert.equal(result.laneCounts.vector, 1);
    assert.equal(result.contexts[0].entityType, "decision");
    assert.deepEqual(result.contexts[0].scoreExplanation.lanes, { vector: 0.475 });
  });

  test("is ignored for another query or limit: the lane is scanned (this index has no vectors)", () => {
    for (const vectorLane of [{ query: "giraffe", limit: laneHitsMax, hits }, { query: "zebra", limit: laneHitsMax - 1, hits }]) {
      const result = retrieve(index, "zebra", { limit: 5, vectorLane });
      assert.equal(result.laneCounts.vector, 0);
      assert.deepEqual(result.contexts, []);
    }
  });
});

describe("inflected keyword matching", () => {
  const records = events([
    ["decision.made", { decision: "Write the spec before the code", rationale: "reviewers read it first" }],
    ["decision.made", { decision: "Adopt Kuzu", rationale: "embedded graph store" }],
    ["note.unusual", { details: "the migration of the billing tables ran overnight" }],
    ["decision.made", { decision: "Keep specs short", rationale: "one page each" }],
  ]);
  const index = indexOf(records);

  test("a plural query word finds a memory that uses the singular, in the keyword lane", () => {
    const single = indexOf(records.slice(0, 3));
    const result = retrieve(single, "specs", { limit: 3 });
    assert.equal(result.contexts[0].eventSeq, 1, result.contexts[0].content);
    const lanes = result.contexts[0].scoreExplanation.lanes as Record<string, number>;
    assert.ok(lanes.keyword > 0, JSON.stringify(lanes));
  });

  test("the form the query wrote ranks above another form of it", () => {
    const result = retrieve(index, "specs", { limit: 3 }).contexts.filter((c) => c.source === "graph" && c.entityType === "decision");
    assert.deepEqual(result.map((c) => c.eventSeq), [4, 1]);
  });

  test("migrated finds migration in the raw event text", () => {
    const result = retrieve(index, "billing tables migrated", { limit: 5 });
    assert.ok(result.contexts.some((c) => c.eventSeq === 3), JSON.stringify(result.contexts.map((c) => c.content)));
  });
});
