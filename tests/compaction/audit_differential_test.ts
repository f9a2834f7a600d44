/**
 * The optimised audit against a straightforward computation of the same definitions:
 * - AuditVectors rows (cached per-token buckets, one-scan tokenising) equal the vector kernel's
 *   `hashEmbedMany` rows stored as f32, and the band keys equal a MinHash over `contextTokens`;
 * - auditLog's clusters, nearest neighbours and recalls equal a plain re-implementation (dense
 *   rows from the kernel, a Map of row lists per band key, every cosine recomputed, every
 *   cluster including single events measured) on a seeded log with planted families.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { writeAuditBenchLog } from "../../src/bench/compactionAuditBench.ts";
import { seededRandom } from "../../src/bench/measure.ts";
import { isJsonObject, parseJsonBytes } from "../../src/canonical/mod.ts";
import { auditLog } from "../../src/compaction/audit.ts";
import { AuditVectors, bandCount, binsPerBand, sketchBins, tokenHash32 } from "../../src/compaction/auditVectors.ts";
import { bandScanMax } from "../../src/compaction/clustering.ts";
import { TokenBuckets } from "../../src/vector/tokenBuckets.ts";
import { contextTokens, eventContext } from "../../src/compaction/eventContext.ts";
import { eventIdentities } from "../../src/compaction/identities.ts";
import { type EventRecord, readLogLines, recordFromLine } from "../../src/eventloom/mod.ts";
import { pythonCaseFold } from "../../src/vector/textAnalysis.ts";
import { centroidOf, cosineDistancesTo, farthestPointExemplars, medoidIndex } from "../../src/vector/geometry.ts";
import { hashEmbedMany } from "../../src/vector/hashEmbedding.ts";

const seed = 20261123;
const dim = 1536;
const threshold = 0.2;

/** The band keys of a token list, as the audit defines them (auditVectors.ts). */
function referenceBandKeys(tokens: string[]): number[] {
  const mins = new Uint32Array(sketchBins).fill(0xffffffff);
  for (const token of tokens) {
    const h = tokenHash32(token);
    if (h >>> 6 < mins[h & (sketchBins - 1)]) mins[h & (sketchBins - 1)] = h >>> 6;
  }
  const keys: number[] = [];
  for (let b = 0; b < bandCount; b++) {
    let key = 0x9e3779b9 ^ b;
    for (let j = 0; j < binsPerBand; j++) {
      key = Math.imul(key ^ mins[b * binsPerBand + j], 0x01000193);
      key ^= key >>> 15;
    }
    keys.push(key >>> 0);
  }
  return keys;
}

function randomText(rand: () => number): string {
  const pieces = ["cache", "CACHE", "Straße", "ﬁle", "naïve", "Σίσυφος", "a=b", "{\"k\": 1}", "", "x", "identity-code-0001", "日本語"];
  const spaces = [" ", "  ", "\t", "\n", "\u00a0", "\u3000", "\x1c"];
  let text = "";
  const count = Math.floor(rand() * 40);
  for (let i = 0; i < count; i++) text += pieces[Math.floor(rand() * pieces.length)] + spaces[Math.floor(rand() * spaces.length)];
  return rand() < 0.5 ? text : text.replace(/[^\x00-\x7f]/g, "");
}

test(`AuditVectors rows equal the kernel's hash embedding as f32 (also with a tiny token cache), band keys equal MinHash over contextTokens (seed ${seed})`, () => {
  const rand = seededRandom(seed);
  const texts = [
    "", "   ", "\t\n", "\u0085\u3000", "a a", "a A", "Straße STRASSE", "a\u2028b\u00a0c\u200bd", "ǅemal İstanbul ΣΊΣΥΦΟΣ", "😀 x😀",
    ...Array.from({ length: 400 }, () => randomText(rand)),
  ];
  // A text whose tokens cancel in one bucket: the same token with both signs cannot happen, so
  // repeat tokens to build sums of many sizes instead.
  texts.push(Array.from({ length: 300 }, (_, i) => `t${i % 17}`).join(" "));
  const vectors = new AuditVectors(dim);
  for (const text of texts) vectors.addText(text);
  const kernelRows = hashEmbedMany(texts, dim);
  texts.forEach((text, row) => {
    assert.deepEqual(vectors.dense([row]), Float32Array.from(kernelRows[row]), `row ${row}: ${JSON.stringify(text)}`);
    const keys = referenceBandKeys(contextTokens(text));
    for (let b = 0; b < bandCount; b++) assert.equal(vectors.bandKey(row, b), keys[b], `row ${row} band ${b}`);
  });
  // A tiny token cache (5 tokens, 40 code units) is emptied and refilled constantly: same rows.
  const refilled = new AuditVectors(dim, new TokenBuckets(dim, 5, 40));
  for (const text of texts) refilled.addText(text);
  texts.forEach((_, row) => assert.deepEqual(refilled.dense([row]), vectors.dense([row]), `refilled row ${row}`));
  // The token-list entry gives the same rows.
  const fromTokens = new AuditVectors(dim);
  for (const text of texts) fromTokens.add(contextTokens(text));
  texts.forEach((_, row) => assert.deepEqual(fromTokens.dense([row]), vectors.dense([row])));
});

interface ReferenceCluster {
  rows: number[];
  centroidRep: number;
  medoid: number;
  exemplars: number[];
}

/** The audit's definitions, computed the plain way. */
function referenceAudit(records: EventRecord[]) {
  const texts = records.map(eventContext);
  const rows = hashEmbedMany(texts, dim).map((row) => Float32Array.from(row));
  const norms = rows.map((row) => Math.fround(Math.sqrt(row.reduce((sum, v) => sum + v * v, 0))));
  const cosine = (a: number, b: number): number => {
    if (norms[a] === 0 || norms[b] === 0) return 0;
    let dot = 0;
    for (let d = 0; d < dim; d++) if (rows[a][d] !== 0 && rows[b][d] !== 0) dot += rows[a][d] * rows[b][d];
    return dot / (norms[a] * norms[b]);
  };
  const bandKeys = texts.map((text) => referenceBandKeys(contextTokens(text)));
  const n = records.length;
  const clusterOf: number[] = [];
  const nearest: number[] = new Array(n).fill(-1);
  const nearestCos: number[] = new Array(n).fill(0);
  const leaderLists = Array.from({ length: bandCount }, () => new Map<number, number[]>());
  const everyoneLists = Array.from({ length: bandCount }, () => new Map<number, number[]>());
  const matesOf = (lists: Array<Map<number, number[]>>, row: number): number[] => {
    const mates: number[] = [];
    for (let b = 0; b < bandCount; b++) {
      const list = lists[b].get(bandKeys[row][b]) ?? [];
      for (let k = list.length - 1; k >= Math.max(0, list.length - bandScanMax); k--) if (!mates.includes(list[k])) mates.push(list[k]);
    }
    return mates;
  };
  const nearer = (c: number, i: number, cc: number, ci: number) => ci < 0 || c > cc + 1e-12 || (c >= cc - 1e-12 && i < ci);
  let clusterCount = 0;
  for (let row = 0; row < n; row++) {
    let best = -1;
    let bestCos = -Infinity;
    if (norms[row] !== 0) {
      for (const leader of matesOf(leaderLists, row)) {
        const c = cosine(row, leader);
        if (1 - c > threshold) continue;
        if (c > bestCos + 1e-12 || (c >= bestCos - 1e-12 && clusterOf[leader] < clusterOf[best])) { best = leader; bestCos = c; }
      }
      for (const mate of matesOf(everyoneLists, row)) {
        const c = cosine(row, mate);
        if (c <= 0) continue;
        if (nearer(c, mate, nearestCos[row], nearest[row])) { nearest[row] = mate; nearestCos[row] = c; }
        if (nearer(c, row, nearestCos[mate], nearest[mate])) { nearest[mate] = row; nearestCos[mate] = c; }
      }
      for (let b = 0; b < bandCount; b++) {
        const list = everyoneLists[b].get(bandKeys[row][b]);
        if (list === undefined) everyoneLists[b].set(bandKeys[row][b], [row]); else list.push(row);
      }
    }
    if (best >= 0) clusterOf.push(clusterOf[best]);
    else {
      clusterOf.push(clusterCount++);
      if (norms[row] !== 0) for (let b = 0; b < bandCount; b++) {
        const list = leaderLists[b].get(bandKeys[row][b]);
        if (list === undefined) leaderLists[b].set(bandKeys[row][b], [row]); else list.push(row);
      }
    }
  }
  const withinThreshold = nearest.map((mate, row) => (mate >= 0 && 1 - nearestCos[row] <= threshold ? mate : -1));
  const clusters: ReferenceCluster[] = Array.from({ length: clusterCount }, () => ({ rows: [], centroidRep: -1, medoid: -1, exemplars: [] }));
  records.forEach((_, row) => clusters[clusterOf[row]].rows.push(row));
  for (const cluster of clusters) {
    const dense = new Float32Array(cluster.rows.length * dim);
    cluster.rows.forEach((row, i) => dense.set(rows[row], i * dim));
    const toCentroid = cosineDistancesTo(dense, cluster.rows.length, dim, centroidOf(dense, cluster.rows.length, dim));
    let nearestToCentroid = 0;
    for (let i = 1; i < cluster.rows.length; i++) if (toCentroid[i] < toCentroid[nearestToCentroid]) nearestToCentroid = i;
    const medoid = medoidIndex(dense, cluster.rows.length, dim);
    cluster.centroidRep = cluster.rows[nearestToCentroid];
    cluster.medoid = cluster.rows[medoid];
    cluster.exemplars = farthestPointExemplars(dense, cluster.rows.length, dim, 5, medoid).map((i) => cluster.rows[i]);
  }
  const ids = records.map(eventIdentities);
  const haystack = (row: number) => pythonCaseFold([texts[row], ids[row].eventRef, ...ids[row].content].join("\n"));
  const recovered = (cluster: ReferenceCluster, reps: number[]) => {
    const content = [...new Set(cluster.rows.flatMap((row) => ids[row].content))];
    const stacks = reps.map(haystack);
    return content.filter((id) => stacks.some((s) => s.includes(pythonCaseFold(id))));
  };
  return { clusters, clusterOf, nearest: withinThreshold, ids, recovered };
}

test(`auditLog equals the plain computation on a seeded log with planted families (seed ${seed})`, async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-audit-diff-"));
  const log = path.join(dir, "planted.jsonl");
  const written = writeAuditBenchLog({ path: log, events: 1500, seed, eventsPerFamily: 100 });
  const records: EventRecord[] = [];
  for (const { bytes, position } of readLogLines(log)) {
    const parsed = parseJsonBytes(bytes);
    if (isJsonObject(parsed)) records.push(recordFromLine(parsed, position));
  }
  const report = await auditLog(log);
  const ref = referenceAudit(records);

  const multi = ref.clusters.filter((c) => c.rows.length > 1);
  assert.equal(report.cluster_count, ref.clusters.length);
  assert.equal(report.singleton_cluster_count, ref.clusters.length - multi.length);
  assert.deepEqual(report.clusters.map((c) => c.event_seqs), multi.map((c) => c.rows.map((row) => records[row].seq)));
  const ratio = (hits: number, total: number) => Math.round((total === 0 ? 1 : hits / total) * 10_000) / 10_000;
  report.clusters.forEach((cluster, i) => {
    const r = multi[i];
    const content = [...new Set(r.rows.flatMap((row) => ref.ids[row].content))];
    assert.equal(cluster.medoid_seq, records[r.medoid].seq);
    assert.equal(cluster.centroid_representative_seq, records[r.centroidRep].seq);
    assert.deepEqual(cluster.exemplar_seqs, r.exemplars.map((row) => records[row].seq));
    assert.equal(cluster.identity_recall_centroid, ratio(ref.recovered(r, [r.centroidRep]).length, content.length));
    assert.equal(cluster.identity_recall_medoid, ratio(ref.recovered(r, [r.medoid]).length, content.length));
    assert.equal(cluster.identity_recall_exemplars, ratio(ref.recovered(r, r.exemplars).length, content.length));
    const kept = new Set(ref.recovered(r, [r.medoid]));
    assert.deepEqual(cluster.missing_identities, content.filter((id) => !kept.has(id)));
  });
  // Overall: an identity counts once, recovered if any cluster holding it keeps it.
  const overall = (pick: (c: ReferenceCluster) => number[]) => {
    const hit = new Set(ref.clusters.flatMap((c) => ref.recovered(c, pick(c))));
    const all = new Set(ref.ids.flatMap((i) => i.content));
    return { recall: ratio(hit.size, all.size), missing: [...all].filter((id) => !hit.has(id)) };
  };
  assert.equal(report.identity_recall_centroid, overall((c) => [c.centroidRep]).recall);
  assert.equal(report.identity_recall_medoid, overall((c) => [c.medoid]).recall);
  assert.equal(report.identity_recall_exemplars, overall((c) => c.exemplars).recall);
  assert.equal(report.identity_recall, overall((c) => [c.medoid]).recall);
  assert.deepEqual(report.missing_identities, overall((c) => [c.medoid]).missing);
  const nnEvents = ref.nearest.filter((mate) => mate >= 0).length;
  const nnKept = ref.nearest.filter((mate, row) => mate >= 0 && ref.clusterOf[mate] === ref.clusterOf[row]).length;
  assert.equal(report.nearest_neighbour_events, nnEvents);
  assert.equal(report.nearest_neighbour_preservation, ratio(nnKept, nnEvents));

  // The planted families are what the audit exists to catch: every unsafe family is one cluster
  // losing identities, every safe family one cluster keeping them all.
  assert.equal(report.safe, false);
  for (const family of written.families) {
    const cluster = report.clusters.find((c) => c.event_seqs.includes(family.seqs[0]));
    assert.ok(cluster !== undefined && family.seqs.every((seq) => cluster.event_seqs.includes(seq)), `family ${family.kind} ${family.seqs}`);
    assert.equal(cluster.missing_identities.length > 0, family.kind === "unsafe", `family ${family.kind} ${family.seqs}`);
  }
  fs.rmSync(dir, { recursive: true, force: true });
});
