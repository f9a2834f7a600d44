/**
 * The projection lane: discovery of `*.compaction.json` under the root, the merge into retrieval
 * results (graph and degraded log paths) as `source: "projection"` items with projection_id,
 * event_ref and citations, and the `# Context Warnings` line for an uncited projection item.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { assembleContext } from "../../src/checkout/mod.ts";
import { buildProjection } from "../../src/compaction/projection.ts";
import { type CompactionProjection, writeProjectionArtifact } from "../../src/retrieval/projectionArtifact.ts";
import { purposeProfile } from "../../src/compaction/purpose.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import { mergeProjectionContexts, discoverProjectionArtifacts, loadRootProjections } from "../../src/compaction/projectionLane.ts";
import { markDegraded, retrieve } from "../../src/retrieval/engine.ts";
import { buildSessionIndex, type SessionIndex } from "../../src/retrieval/sessionIndex.ts";
import type { RetrievalResult } from "../../src/retrieval/types.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { writeLog } from "../compaction/projection_testkit.ts";

after(removeTempDirs);

function indexOf(records: EventRecord[]): SessionIndex {
  const fold = new GraphFold("default");
  for (const record of records) fold.apply(record, extractEvent(record));
  return buildSessionIndex("default", fold.rows(), records, null);
}

async function fixture() {
  const root = makeTempDir("zaxy-lane");
  const { events } = await writeLog(root, [
    { type: "document.indexed", payload: { path: "docs/cache.md", start_line: 2, end_line: 6, content: "Cache routing note records identity-code-0001." } },
    { type: "document.indexed", payload: { path: "docs/auth.md", start_line: 4, end_line: 8, content: "Auth routing note records identity-code-0002." } },
  ]);
  const projection = buildProjection(events, new Map(), { strategy: "exemplar", maxRecords: 2, purpose: purposeProfile("general"), embeddingDim: 64 });
  return { root, events, projection, index: indexOf(events) };
}

describe("discoverProjectionArtifacts", () => {
  test("finds *.compaction.json anywhere under the root, sorted, de-duplicated by resolved path", async () => {
    const { root, projection } = await fixture();
    writeProjectionArtifact(projection, path.join(root, "projections", "b.compaction.json"));
    writeProjectionArtifact(projection, path.join(root, "projections", "a.compaction.json"));
    writeProjectionArtifact(projection, path.join(root, "deep", "x", "y", "c.compaction.json"));
    fs.writeFileSync(path.join(root, "projections", "notes.json"), "{}");
    fs.symlinkSync(path.join(root, "projections", "a.compaction.json"), path.join(root, "z-link.compaction.json"));
    const found = discoverProjectionArtifacts(root).map((file) => path.relative(root, file));
    assert.deepEqual(found, [path.join("deep", "x", "y", "c.compaction.json"), path.join("projections", "a.compaction.json"), path.join("projections", "b.compaction.json")]);
    assert.deepEqual(discoverProjectionArtifacts(path.join(root, "missing")), []);
  });

  test("loadRootProjections skips a malformed artifact with a warning and keeps the others", async () => {
    const { root, projection } = await fixture();
    writeProjectionArtifact(projection, path.join(root, "projections", "good.compaction.json"));
    fs.writeFileSync(path.join(root, "projections", "bad.compaction.json"), '{"records": 3}');
    const warnings: string[] = [];
    const loaded = loadRootProjections(root, (message) => warnings.push(message));
    assert.equal(loaded.length, 1);
    assert.equal(loaded[0].projection_id, projection.projection_id);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0], /^compaction projection skipped: Cannot load compaction projection .*bad\.compaction\.json: /);
  });
});

describe("mergeProjectionContexts", () => {
  test("without projections the result is returned unchanged (no projection lane count)", async () => {
    const { index } = await fixture();
    const plain = retrieve(index, "cache identity-code-0001", { limit: 5 });
    const withNone = mergeProjectionContexts(retrieve(index, "cache identity-code-0001", { limit: 5 }), "cache identity-code-0001", 5, []);
    assert.deepEqual(withNone, plain);
    assert.equal("projection" in plain.laneCounts, false);
  });

  test("adds source 'projection' items with projection_id, event_ref and citations, ranked by overlap score", async () => {
    const { index, projection, events } = await fixture();
    const result = mergeProjectionContexts(retrieve(index, "cache identity-code-0001", { limit: 10 }), "cache identity-code-0001", 10, [projection]);
    const items = result.contexts.filter((c) => c.source === "projection");
    assert.ok(items.length >= 1);
    const top = items[0];
    assert.equal(top.sourceLane, "projection");
    assert.equal(top.score, 1);
    assert.equal(top.eventSeq, 1);
    assert.equal(top.metadata.projection_id, projection.projection_id);
    assert.equal(top.metadata.projection_strategy, "exemplar");
    assert.equal(top.metadata.event_ref, projection.records.find((r) => r.event_seq === 1)!.event_ref);
    assert.ok((top.metadata.citations as string[]).includes("docs/cache.md:2-6"));
    assert.equal(top.citation, `eventloom://default/events/1#${events[0].hash.slice(0, 12)}`);
    assert.equal(result.laneCounts.projection, items.length);
    assert.ok(result.contexts.length <= 10);
    // Scores never increase down the list where a projection item was placed.
    const i = result.contexts.indexOf(top);
    if (i > 0) assert.ok(result.contexts[i - 1].score >= top.score);
  });

  test("keeps the other contexts in order and cuts the merged list to the limit", () => {
    const base = (score: number, n: number) => ({
      content: `c${n}`, source: "graph" as const, sourceLane: "keyword" as const, score, validFrom: null, validTo: null,
      citation: `eventloom://default/events/${n}#aaaaaaaaaaaa`, eventSeq: n, eventHash: null, scoreExplanation: {}, metadata: {},
    });
    const result: RetrievalResult = { contexts: [base(0.9, 1), base(0.95, 2), base(0.2, 3)], laneCounts: { keyword: 3 }, degraded: false };
    const projection: CompactionProjection = {
      projection_id: "p", strategy: "exemplar", source_event_count: 1, source_identities: [],
      records: [{ kind: "exemplar", event_seq: 9, event_ref: "eventloom://default/events/9#bbbbbbbbbbbb", text: "alpha beta", identities: [], citations: ["eventloom://default/events/9#bbbbbbbbbbbb"], authority_scope: "authoritative", purpose_reasons: [] }],
      audit: new Map(), purpose: new Map(), consolidation_policy: new Map(),
    };
    const merged = mergeProjectionContexts(result, "alpha zzz", 3, [projection]);
    assert.deepEqual(merged.contexts.map((c) => c.content), ["c1", "c2", "alpha beta"]);
    assert.deepEqual(merged.laneCounts, { keyword: 3, projection: 1 });
  });

  test("a degraded read merges projection items too", async () => {
    const { index, projection } = await fixture();
    // As memory/service.ts reads a degraded session: lanes merged first, then the result marked.
    const result = markDegraded(mergeProjectionContexts(retrieve(index, "auth identity-code-0002", { limit: 5 }), "auth identity-code-0002", 5, [projection]), "graph unavailable");
    assert.equal(result.degraded, true);
    const item = result.contexts.find((c) => c.source === "projection");
    assert.ok(item);
    assert.ok((item.metadata.citations as string[]).includes("docs/auth.md:4-8"));
    assert.equal(item.metadata.degraded, true);
    assert.equal(result.laneCounts.projection, 1);
  });
});

describe("# Context Warnings", () => {
  const assemble = (retrieval: RetrievalResult) =>
    assembleContext({ sessionId: "default", query: "alpha", retrieval, recentEvents: [], withheldRuleSeqs: new Set(), replayEventCount: 0, compacted: false, limit: 5 });

  test("a projection item without a source-level citation adds a warning line; a cited one does not", () => {
    const projection = (citations: string[], eventRef: string): CompactionProjection => ({
      projection_id: "p", strategy: "medoid", source_event_count: 1, source_identities: [],
      records: [{ kind: "medoid", event_seq: 1, event_ref: eventRef, text: "alpha  summary   from an old artifact " + "x".repeat(100), identities: [], citations, authority_scope: "authoritative", purpose_reasons: [] }],
      audit: new Map(), purpose: new Map(), consolidation_policy: new Map(),
    });
    const empty: RetrievalResult = { contexts: [], laneCounts: {}, degraded: false };
    const uncited = assemble(mergeProjectionContexts(empty, "alpha", 5, [projection([], "")]));
    const label = ("alpha summary from an old artifact " + "x".repeat(100)).slice(0, 77) + "...";
    assert.deepEqual(uncited.warnings, [`projection context '${label}' lacks source-level citation`]);
    assert.ok(uncited.prompt.endsWith(`# Context Warnings\n- projection context '${label}' lacks source-level citation`), uncited.prompt);
    const cited = assemble(mergeProjectionContexts(empty, "alpha", 5, [projection(["docs/a.md:1-2"], "eventloom://default/events/1#aaaaaaaaaaaa")]));
    assert.deepEqual(cited.warnings, []);
    assert.equal(cited.prompt.includes("# Context Warnings"), false);
    assert.ok(cited.prompt.includes("(eventloom://default/events/1#aaaaaaaaaaaa)"));
  });

  test("with no projection artifacts the assembled prompt is byte-identical", async () => {
    const { index } = await fixture();
    const without = assemble(retrieve(index, "cache identity-code-0001", { limit: 5 }));
    const withEmpty = assemble(mergeProjectionContexts(retrieve(index, "cache identity-code-0001", { limit: 5 }), "cache identity-code-0001", 5, []));
    assert.equal(withEmpty.prompt, without.prompt);
    assert.deepEqual(withEmpty, without);
  });
});
