/**
 * The read path's shape (docs/read-model.md "Read path"): layers only point down, and the three
 * checkout lanes (projection, long horizon, fleet) go through one merge that answers exactly as
 * the three merges it replaced.
 *
 * The import graph is read from the source: `import`/`export ... from "./x.ts"` (type-only
 * included: a type import is still a dependency of the layout) and dynamic `import("./x.ts")`.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { describe, test } from "node:test";
import type { CheckoutLane, LaneMergeRule } from "../../src/checkout/lane.ts";
import { mergeByScore, mergeLane } from "../../src/checkout/mergeLanes.ts";
import { projectionLane } from "../../src/compaction/projectionLane.ts";
import type { CompactionProjection } from "../../src/retrieval/projectionArtifact.ts";
import { longHorizonMergeRule } from "../../src/consolidation/longHorizonLane.ts";
import { fleetCheckoutLane } from "../../src/fleet/checkoutLane.ts";
import type { RetrievalResult } from "../../src/retrieval/types.ts";

const srcDir = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "../../src");

/** Every .ts file under src/, relative to it, and the files each imports. */
function importGraph(): Map<string, string[]> {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name.endsWith(".ts")) files.push(path.relative(srcDir, full));
    }
  };
  walk(srcDir);
  const known = new Set(files);
  const pattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?\sfrom\s+"(\.[^"]+)"|import\(\s*"(\.[^"]+)"\s*\)|(?:^|\n)\s*import\s+"(\.[^"]+)"/g;
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const text = fs.readFileSync(path.join(srcDir, file), "utf8");
    const deps = new Set<string>();
    for (const match of text.matchAll(pattern)) {
      const target = path.normalize(path.join(path.dirname(file), match[1] ?? match[2] ?? match[3]));
      if (known.has(target)) deps.add(target);
    }
    graph.set(file, [...deps].sort());
  }
  return graph;
}

/** Strongly connected groups of more than one file (Tarjan), each sorted, sorted by first file. */
function importCycles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const groups: string[][] = [];
  const visit = (file: string) => {
    index.set(file, counter);
    low.set(file, counter++);
    stack.push(file);
    onStack.add(file);
    for (const dep of graph.get(file) ?? []) {
      if (!index.has(dep)) {
        visit(dep);
        low.set(file, Math.min(low.get(file)!, low.get(dep)!));
      } else if (onStack.has(dep)) {
        low.set(file, Math.min(low.get(file)!, index.get(dep)!));
      }
    }
    if (low.get(file) !== index.get(file)) return;
    const group: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      group.push(member);
    } while (member !== file);
    if (group.length > 1) groups.push(group.sort());
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  return groups.sort((a, b) => (a[0] < b[0] ? -1 : 1));
}

const readPathAreas = ["memory/", "checkout/", "retrieval/", "causal/", "consolidation/", "fleet/"];

describe("read path layers", () => {
  test("no file-level import cycle runs through memory, checkout, retrieval, causal, consolidation or fleet", () => {
    const touching = importCycles(importGraph()).filter((group) => group.some((file) => readPathAreas.some((area) => file.startsWith(area))));
    // `GeneratedEvent` lives in events/generatedEvent.ts, so the causal edge builders and the
    // projection's inference no longer import each other.
    assert.deepEqual(touching, []);
  });

  test("features and lower layers never import memory/: the append path with the inference producers is recording/record.ts", () => {
    const graph = importGraph();
    const upward: string[] = [];
    for (const [file, deps] of graph) {
      if (!["checkout/", "retrieval/", "causal/", "consolidation/", "fleet/"].some((area) => file.startsWith(area))) continue;
      for (const dep of deps) if (dep.startsWith("memory/")) upward.push(`${file} -> ${dep}`);
    }
    assert.deepEqual(upward, []);
  });

  test("checkout/ imports no feature: lanes and features implement checkout's interfaces, the front lists them", () => {
    const upward: string[] = [];
    for (const [file, deps] of importGraph()) {
      if (!file.startsWith("checkout/")) continue;
      for (const dep of deps) if (["memory/", "causal/", "consolidation/", "fleet/"].some((area) => dep.startsWith(area))) upward.push(`${file} -> ${dep}`);
    }
    assert.deepEqual(upward, []);
  });
});

// The three merges the lanes used before they shared `mergeByScore`, verbatim but for names;
// the one merge must answer exactly as each did for its lane.
type Item = { id: string; score: number; entityName?: string };

function oldProjectionMerge(contexts: readonly Item[], hits: readonly Item[], limit: number): Item[] {
  const merged: Item[] = [];
  let next = 0;
  for (const context of contexts) {
    while (next < hits.length && hits[next].score > context.score) merged.push(hits[next++]);
    merged.push(context);
  }
  while (next < hits.length) merged.push(hits[next++]);
  return merged.slice(0, limit);
}

function oldConsolidatedMerge(retrieved: readonly Item[], remote: readonly Item[]): Item[] {
  const merged: Item[] = [];
  const emitted = new Set<number>();
  const remoteIndexByName = new Map<string, number>();
  remote.forEach((context, index) => {
    if (context.entityName !== undefined) remoteIndexByName.set(context.entityName, index);
  });
  let next = 0;
  const emit = (index: number) => {
    if (emitted.has(index)) return;
    emitted.add(index);
    merged.push(remote[index]);
  };
  for (const context of retrieved) {
    while (next < remote.length && remote[next].score > context.score) emit(next++);
    const same = context.entityName === undefined ? undefined : remoteIndexByName.get(context.entityName);
    if (same !== undefined) emit(same);
    merged.push(context);
  }
  for (; next < remote.length; next++) emit(next);
  return merged;
}

function oldFleetMerge(retrieved: readonly Item[], fleet: readonly Item[]): Item[] {
  const ordered = [...fleet].map((context, order) => ({ context, order })).sort((a, b) => b.context.score - a.context.score || a.order - b.order);
  const merged: Item[] = [];
  let next = 0;
  for (const context of retrieved) {
    while (next < ordered.length && ordered[next].context.score > context.score) merged.push(ordered[next++].context);
    merged.push(context);
  }
  for (; next < ordered.length; next++) merged.push(ordered[next].context);
  return merged;
}

const oneProjection: CompactionProjection = {
  projection_id: "p", strategy: "exemplar", source_event_count: 1, source_identities: [],
  records: [{ kind: "exemplar", event_seq: 1, event_ref: "eventloom://s/events/1#aaaaaaaaaaaa", text: "alpha", identities: [], citations: [], authority_scope: "authoritative", purpose_reasons: [] }],
  audit: new Map(), purpose: new Map(), consolidation_policy: new Map(),
};

function emptyFleetLane(): CheckoutLane {
  return fleetCheckoutLane({ contexts: [], diagnostics: { count: 0, non_authoritative: true, items: [] }, promptLine: "", mandatoryGuidance: [], warnings: [] });
}

describe("one merge for every checkout lane", () => {
  test("mergeByScore answers as the projection, long-horizon and fleet merges it replaced (seed 20261125, 3000 cases each)", () => {
    const seed = 20261125;
    let state = seed;
    const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
    // Few distinct scores and names, so ties and same-entity pairs are common.
    const scores = [0, 0.1, 0.3, 0.5, 0.5, 0.9, 1];
    const names = [undefined, undefined, "a", "b", "c"];
    const list = (prefix: string, sorted: boolean): Item[] => {
      const items: Item[] = Array.from({ length: Math.floor(next() * 8) }, (_, i) => {
        const entityName = names[Math.floor(next() * names.length)];
        return { id: `${prefix}${i}`, score: scores[Math.floor(next() * scores.length)], ...(entityName === undefined ? {} : { entityName }) };
      });
      // Projection hits and remote items come best first (stable) from their producers; fleet items in lane order.
      return sorted ? items.sort((a, b) => b.score - a.score) : items;
    };
    const rules: { [lane: string]: (limit: number) => LaneMergeRule } = {
      projection: (limit) => projectionLane([oneProjection], "alpha", limit)!.merge,
      long_horizon: () => longHorizonMergeRule,
      fleet: () => emptyFleetLane().merge,
    };
    for (let i = 0; i < 3000; i++) {
      const retrieved = list("r", false);
      const limit = 1 + Math.floor(next() * 10);
      const hits = list("p", true);
      const remote = list("c", true);
      const fleet = list("f", false);
      const ids = (items: Item[]) => items.map((item) => item.id);
      const at = `seed ${seed} case ${i}`;
      assert.deepEqual(ids(mergeByScore(retrieved, hits, rules.projection(limit))), ids(oldProjectionMerge(retrieved, hits, limit)), `projection, ${at}`);
      assert.deepEqual(ids(mergeByScore(retrieved, remote, rules.long_horizon(limit))), ids(oldConsolidatedMerge(retrieved, remote)), `long horizon, ${at}`);
      assert.deepEqual(ids(mergeByScore(retrieved, fleet, rules.fleet(limit))), ids(oldFleetMerge(retrieved, fleet)), `fleet, ${at}`);
    }
  });

  test("the lanes differ only where their merges did: a cut for projection, same-entity-first for long horizon", () => {
    const retrieved: Item[] = [{ id: "r1", score: 0.9, entityName: "x" }, { id: "r2", score: 0.5 }];
    const lane: Item[] = [{ id: "l1", score: 0.5 }, { id: "l2", score: 0.1, entityName: "x" }];
    assert.deepEqual(mergeByScore(retrieved, lane, longHorizonMergeRule).map((item) => item.id), ["l2", "r1", "r2", "l1"]);
    assert.deepEqual(mergeByScore(retrieved, lane, emptyFleetLane().merge).map((item) => item.id), ["r1", "r2", "l1", "l2"]);
    assert.deepEqual(mergeByScore(retrieved, lane, projectionLane([oneProjection], "alpha", 3)!.merge).map((item) => item.id), ["r1", "r2", "l1"]);
  });

  test("a lane with nothing to add leaves the result as it was; the projection lane still counts its search", () => {
    const result: RetrievalResult = { contexts: [], laneCounts: { keyword: 0 }, degraded: false };
    assert.equal(mergeLane(result, emptyFleetLane()), result);
    const searched = mergeLane(result, projectionLane([oneProjection], "zzz", 5)!);
    assert.deepEqual(searched, { contexts: [], laneCounts: { keyword: 0, projection: 0 }, degraded: false });
    assert.equal(projectionLane([], "alpha", 5), null);
  });
});
