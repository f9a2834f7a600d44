/**
 * How the audit stores and builds its rows, against the plain definitions:
 * - a row built from `auditContext` (runs cut out of long string values, counted twice) equals
 *   the row of the whole `eventContext`, bucket for bucket and band key for band key;
 * - rows spread over many chunks, and rows with more than 256 distinct values (two-byte palette
 *   codes), read back as the vector kernel's rows;
 * - `BandKeyTable` answers as a Map from key to newest row, also when every key collides.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type JsonObject, parseJson } from "../../src/canonical/mod.ts";
import { seededRandom } from "../../src/bench/measure.ts";
import { AuditVectors, bandCount } from "../../src/compaction/auditVectors.ts";
import { BandKeyTable } from "../../src/compaction/clustering.ts";
import { auditContext, eventContext } from "../../src/compaction/eventContext.ts";
import { hashEmbedMany } from "../../src/vector/hashEmbedding.ts";

const dim = 1536;
const seed = 20261129;

function words(rand: () => number, count: number): string {
  const vocabulary = ["cache", "Cache", "ALPHA", "beta", "a=b", "x", "identity-code-0001", "path/to/file.md:1-5", "{k}", "[1]", "'q'", "end."];
  return Array.from({ length: count }, () => vocabulary[Math.floor(rand() * vocabulary.length)]).join(rand() < 0.2 ? "  " : " ");
}

function event(payload: string) {
  return { timestamp: "2026-11-29T10:00:00Z", type: "document.indexed", actor: "indexer", payload: parseJson(payload) as JsonObject };
}

test(`auditContext rows equal the whole context's rows (seed ${seed})`, () => {
  const rand = seededRandom(seed);
  const long = words(rand, 60);
  const payloads = [
    // Long plain values: cut; a first line, quotes, backslashes, control and non-ASCII characters
    // bound the run json.dumps leaves as it is.
    JSON.stringify({ content: long, summary: `# Title\n${long}` }),
    JSON.stringify({ content: `${long} "quoted" ${long}\\${long}`, note: `é ${long} ü` }),
    JSON.stringify({ content: ` ${long} `, other: `\t${long}\t`, dels: `${long}\x7f${long}` }),
    // key and value appear a third time (`key=value`): left whole, the others still cut.
    JSON.stringify({ key: long, value: long, content: long }),
    JSON.stringify({ key: "k", content: long }),
    // Short values, runs without two spaces, nested values: nothing to cut.
    JSON.stringify({ content: "short text", n: 1, f: 2.5, nested: { content: long }, list: [long] }),
    JSON.stringify({ content: "x".repeat(200), spaced: `${"y".repeat(100)} ${"z".repeat(100)}` }),
    JSON.stringify({ content: " ".repeat(100), tabs: "a" + " ".repeat(80) + "b" }),
    JSON.stringify({}),
    ...Array.from({ length: 60 }, () => JSON.stringify({ content: words(rand, 1 + Math.floor(rand() * 150)), title: words(rand, 5), summary: words(rand, Math.floor(rand() * 90)) + (rand() < 0.3 ? "\n" + words(rand, 40) : "") })),
  ];
  const events = payloads.map(event);
  const whole = new AuditVectors(dim);
  const cut = new AuditVectors(dim);
  let cutRuns = 0;
  for (const record of events) {
    whole.addText(eventContext(record));
    const context = auditContext(record);
    cutRuns += context.repeated.length;
    for (const run of context.repeated) assert.ok(run.startsWith(" ") && run.endsWith(" ") && /^[\x20\x21\x23-\x5b\x5d-\x7e]+$/.test(run), JSON.stringify(run));
    cut.addContext(context.text, context.repeated);
  }
  assert.ok(cutRuns > events.length, `runs were cut (${cutRuns})`);
  events.forEach((record, row) => {
    assert.deepEqual(cut.dense([row]), whole.dense([row]), `row ${row}: ${JSON.stringify(record.payload)}`);
    for (let b = 0; b < bandCount; b++) assert.equal(cut.bandKey(row, b), whole.bandKey(row, b), `row ${row} band ${b}`);
  });
  // Cut runs leave the context shorter, and the example's keys kept whole.
  const first = auditContext(events[0]);
  assert.ok(first.text.length + 2 * first.repeated.reduce((sum, run) => sum + run.length, 0) - 2 * first.repeated.length === eventContext(events[0]).length);
  assert.deepEqual(auditContext(events[3]).repeated.length, 1);
});

test("rows over many chunks and with wide palettes read back as the kernel's rows", () => {
  const rand = seededRandom(seed + 1);
  // ~150 words a row: several hundred rows fill the first chunks (16 Ki words, doubling).
  const texts = Array.from({ length: 1200 }, (_, i) => `row${i} ` + Array.from({ length: 150 }, () => `w${Math.floor(rand() * 5000)}`).join(" "));
  // Token i repeated i times: hundreds of distinct bucket sums in one row (two-byte codes).
  texts.splice(350, 0, Array.from({ length: 320 }, (_, i) => Array(i + 1).fill(`tok${i}`).join(" ")).join(" "));
  texts.push("", "   ");
  const vectors = new AuditVectors(dim);
  for (const text of texts) vectors.addText(text);
  const kernelRows = hashEmbedMany(texts, dim);
  const distinct = new Set(kernelRows[350].filter((v) => v !== 0)).size;
  assert.ok(distinct > 256, `the wide row has ${distinct} distinct values`);
  assert.ok((vectors as unknown as { chunkFloats: unknown[] }).chunkFloats.length >= 4, "rows span several chunks");
  texts.forEach((_, row) => assert.deepEqual(vectors.dense([row]), Float32Array.from(kernelRows[row]), `row ${row}`));
  // Several rows at once, out of order, as the geometry reads a cluster.
  const picked = [texts.length - 1, 0, 350, 351, 1199];
  const dense = vectors.dense(picked);
  picked.forEach((row, i) => assert.deepEqual(dense.subarray(i * dim, (i + 1) * dim), Float32Array.from(kernelRows[row]), `picked row ${row}`));
  // A cosine through `scatter` equals the one of the dense rows (f64 sums in index order).
  const scattered = new Float64Array(dim);
  vectors.scatter(350, scattered);
  for (const other of [0, 351, 1200, texts.length - 1]) {
    let dot = 0;
    let na = 0;
    let nb = 0;
    const a = Float32Array.from(kernelRows[350]);
    const b = Float32Array.from(kernelRows[other]);
    for (let d = 0; d < dim; d++) {
      if (a[d] !== 0) na += a[d] * a[d];
      if (b[d] !== 0) nb += b[d] * b[d];
      if (b[d] !== 0) dot += a[d] * b[d];
    }
    assert.equal(vectors.cosineScattered(350, scattered, other), dot / (Math.fround(Math.sqrt(na)) * Math.fround(Math.sqrt(nb))), `cosine with ${other}`);
  }
  vectors.clear(350, scattered);
  assert.ok(scattered.every((v) => v === 0));
  vectors.release();
  assert.equal(vectors.count, 0);
  // Rows added after a release are numbered from 0 again and read back as the kernel's.
  const again = [350, 0, 351, 350, 1];
  for (const row of again) vectors.addText(texts[row]);
  again.forEach((from, row) => assert.deepEqual(vectors.dense([row]), Float32Array.from(kernelRows[from]), `row ${row} after release`));
});

test("BandKeyTable answers as a Map from key to newest row, colliding keys included", () => {
  const rand = seededRandom(seed + 2);
  // 64 rows: 128 slots. Keys from a small range collide on their home slots often; equal keys
  // chain rows; the table is filled to half.
  const rowCount = 64;
  const table = new BandKeyTable(rowCount);
  const reference = new Map<number, number>();
  const keys = Array.from({ length: rowCount }, () => (rand() < 0.5 ? Math.floor(rand() * 8) : (Math.floor(rand() * 0xffffffff) >>> 0)));
  keys[10] = 0xffffffff;
  keys[11] = 0xffffffff;
  keys.forEach((key, row) => {
    assert.equal(table.swapNewest(key, row), reference.get(key) ?? -1, `row ${row} key ${key}`);
    reference.set(key, row);
  });
  // Keys chosen to share one home slot (the top 7 bits of key × 0x9e3779b1): all still kept apart.
  const sameHome: number[] = [];
  for (let key = 1; sameHome.length < 40; key++) if (Math.imul(key, 0x9e3779b1) >>> 25 === 3) sameHome.push(key);
  table.clear();
  sameHome.forEach((key, row) => assert.equal(table.swapNewest(key, row), -1));
  sameHome.forEach((key, row) => assert.equal(table.swapNewest(key, 100 + row), row));
});
