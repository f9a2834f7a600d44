/**
 * The on-disk sentence vectors (src/semantic/vectorStore.ts): the bytes of the file, what survives
 * a reopen, a torn tail, a flipped byte, another model, and a root that cannot be written.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { openVectorStore, quantised, sessionVectorDir, textKey } from "../../src/semantic/vectorStore.ts";

after(removeTempDirs);

const dim = 8;
const headerBytes = 64;
const recordBytes = 32 + 4 + dim + 4;

/** A deterministic vector for `seed`, not normalised, with negative and positive components. */
function vectorOf(seed: number): Float32Array {
  return Float32Array.from({ length: dim }, (_, i) => Math.sin(seed * 7.3 + i * 1.7) * (1 + seed / 10));
}

function entries(seeds: number[]): Array<readonly [string, Float32Array]> {
  return seeds.map((seed) => [textKey(`fact ${seed}`), quantised(vectorOf(seed))] as const);
}

const bits = (vector: Float32Array | undefined) => (vector === undefined ? undefined : [...new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength)]);

test("textKey is the SHA-256 of the text in hex", () => {
  assert.equal(textKey("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
});

test("quantised is idempotent, bit for bit", () => {
  for (let seed = 0; seed < 50; seed++) {
    const once = quantised(vectorOf(seed));
    assert.deepEqual(bits(quantised(once)), bits(once), `seed ${seed}`);
  }
  assert.deepEqual(bits(quantised(new Float32Array(dim))), bits(new Float32Array(dim)), "a zero vector stays zero");
});

test("vectors round trip across two opens; the file is a 64-byte header and fixed-size records", () => {
  const root = makeTempDir("vecstore");
  const store = openVectorStore(root, "s1", "model-a", dim);
  assert.equal(path.dirname(store.file), sessionVectorDir(root, "s1"));
  assert.equal(path.dirname(store.file), path.join(root, "projections", "semantic", "s1"));
  assert.match(path.basename(store.file), /^model-a-[0-9a-f]{12}\.vec$/);
  store.add(entries([1, 2, 3]));
  store.add(entries([3, 4])); // 3 is held already: not written twice
  assert.equal(store.size, 4);
  const bytes = fs.readFileSync(store.file);
  assert.equal(bytes.subarray(0, 8).toString("latin1"), "zaxysvec");
  assert.equal(bytes.readUInt32LE(12), dim);
  assert.equal(bytes.length, headerBytes + 4 * recordBytes);
  assert.equal(bytes.subarray(headerBytes, headerBytes + 32).toString("hex"), textKey("fact 1"));

  const again = openVectorStore(root, "s1", "model-a", dim);
  assert.equal(again.size, 4);
  for (const [key, vector] of entries([1, 2, 3, 4])) assert.deepEqual(bits(again.get(key)), bits(vector), key);
  assert.equal(again.get(textKey("fact 5")), undefined);
});

test("a torn tail is cut on open, and later adds land on record boundaries", () => {
  const root = makeTempDir("vecstore");
  const first = openVectorStore(root, "s1", "model-a", dim);
  first.add(entries([1, 2]));
  fs.appendFileSync(first.file, Buffer.from("0123456789"));
  const reopened = openVectorStore(root, "s1", "model-a", dim);
  assert.equal(reopened.size, 2);
  assert.equal(fs.statSync(first.file).size, headerBytes + 2 * recordBytes, "the torn tail is cut");
  reopened.add(entries([3]));
  assert.equal(fs.statSync(first.file).size, headerBytes + 3 * recordBytes);
  const third = openVectorStore(root, "s1", "model-a", dim);
  assert.equal(third.size, 3);
  for (const [key, vector] of entries([1, 2, 3])) assert.deepEqual(bits(third.get(key)), bits(vector), key);
});

test("a record with a flipped byte is skipped (CRC); the others are kept", () => {
  const root = makeTempDir("vecstore");
  const store = openVectorStore(root, "s1", "model-a", dim);
  store.add(entries([1, 2, 3]));
  const bytes = fs.readFileSync(store.file);
  const at = headerBytes + recordBytes + 32 + 4 + 2; // a component of the second record
  bytes[at] ^= 0x5a;
  fs.writeFileSync(store.file, bytes);
  const reopened = openVectorStore(root, "s1", "model-a", dim);
  assert.equal(reopened.size, 2);
  assert.equal(reopened.get(textKey("fact 2")), undefined);
  assert.deepEqual(bits(reopened.get(textKey("fact 1"))), bits(entries([1])[0][1]));
  assert.deepEqual(bits(reopened.get(textKey("fact 3"))), bits(entries([3])[0][1]));
  // Embedded again, it is appended and read back next time.
  reopened.add(entries([2]));
  assert.equal(openVectorStore(root, "s1", "model-a", dim).size, 3);
});

test("another model id keeps its own file; another session its own directory", () => {
  const root = makeTempDir("vecstore");
  const a = openVectorStore(root, "s1", "model-a", dim);
  const b = openVectorStore(root, "s1", "openai:m", dim);
  const other = openVectorStore(root, "s2", "model-a", dim);
  assert.notEqual(a.file, b.file);
  assert.equal(path.dirname(a.file), path.dirname(b.file));
  assert.notEqual(path.dirname(a.file), path.dirname(other.file));
  a.add(entries([1]));
  b.add(entries([2]));
  assert.equal(openVectorStore(root, "s1", "model-a", dim).get(textKey("fact 2")), undefined);
  assert.equal(openVectorStore(root, "s1", "openai:m", dim).get(textKey("fact 1")), undefined);
  assert.equal(openVectorStore(root, "s1", "openai:m", dim).size, 1);
  assert.equal(openVectorStore(root, "s2", "model-a", dim).size, 0);
  assert.deepEqual(fs.readdirSync(path.dirname(a.file)).sort(), [path.basename(a.file), path.basename(b.file)].sort());
});

test("a file of another dimension is not read, and is replaced on the next add", () => {
  const root = makeTempDir("vecstore");
  openVectorStore(root, "s1", "model-a", dim).add(entries([1]));
  const wider = openVectorStore(root, "s1", "model-a", dim * 2);
  assert.equal(wider.size, 0);
  wider.add([[textKey("x"), quantised(Float32Array.from({ length: dim * 2 }, (_, i) => i - dim))]]);
  assert.equal(fs.statSync(wider.file).size, headerBytes + (32 + 4 + dim * 2 + 4));
  assert.equal(openVectorStore(root, "s1", "model-a", dim * 2).size, 1);
});

const asRoot = process.getuid?.() === 0;

test("a read-only root: add keeps the vectors in memory and does not throw", { skip: asRoot ? "running as root: chmod does not restrict writes" : false }, () => {
  const root = makeTempDir("vecstore");
  fs.chmodSync(root, 0o555);
  try {
    const store = openVectorStore(root, "s1", "model-a", dim);
    store.add(entries([1, 2]));
    store.add(entries([3]));
    assert.equal(store.size, 3);
    assert.deepEqual(bits(store.get(textKey("fact 3"))), bits(entries([3])[0][1]));
    assert.equal(fs.existsSync(store.file), false);
  } finally {
    fs.chmodSync(root, 0o755);
  }
});

test("a root where the store cannot be written (even as root: projections is a file): add keeps the vectors in memory", () => {
  const root = makeTempDir("vecstore");
  fs.writeFileSync(path.join(root, "projections"), "not a directory");
  const store = openVectorStore(root, "s1", "model-a", dim);
  store.add(entries([1, 2]));
  store.add(entries([3]));
  assert.equal(store.size, 3);
  assert.deepEqual(bits(store.get(textKey("fact 1"))), bits(entries([1])[0][1]));
  assert.equal(fs.readFileSync(path.join(root, "projections"), "utf8"), "not a directory");
});

test("a model id longer than the header holds is refused", () => {
  assert.throws(() => openVectorStore(makeTempDir("vecstore"), "s1", "m".repeat(49), dim), /longer than 48 bytes/);
});
