/**
 * A read-model section is read range by range at first and whole after enough reads
 * (src/platform/binaryFile.ts `FileSection`): both ways give the same values, the switch happens
 * after the documented number of reads, and a range outside the section, or a count damaged to
 * ask for more than the file holds, is refused as corruption before anything is allocated.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { BinaryFile, byteSection, f64Bytes, f64Section, fileHeader, headerBytes, u32Bytes, u32Section } from "../../src/platform/binaryFile.ts";
import { ReadModelCorruptError } from "../../src/platform/readModelError.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const magic = "ZXTEST01";

/** A file of `count` u32 values (i * 7), then `count` f64 values (i / 4), then a byte heap. */
function sectionFile(count: number): { file: BinaryFile; u32At: number; f64At: number; heapAt: number; heap: Buffer } {
  const u32 = Uint32Array.from({ length: count }, (_, i) => i * 7);
  const f64 = Float64Array.from({ length: count }, (_, i) => i / 4);
  const heap = Buffer.from("alpha beta gamma delta", "utf8");
  const chunks = [fileHeader(magic), u32Bytes(u32), f64Bytes(f64), heap];
  const name = path.join(makeTempDir("zaxy-file-section"), "section.bin");
  fs.writeFileSync(name, Buffer.concat(chunks));
  const file = BinaryFile.open(name, magic, fs.statSync(name).size);
  return { file, u32At: headerBytes, f64At: headerBytes + 4 * count, heapAt: headerBytes + 12 * count, heap };
}

test("range reads, then whole: the same values on both sides of the switch, which comes after max(16, bytes / 8 KiB) reads", () => {
  const count = 100_000; // 400 KB of u32: 49 range reads, then whole
  const { file, u32At, f64At } = sectionFile(count);
  const u32 = u32Section(file, u32At, count);
  const f64 = f64Section(file, f64At, count);
  const readsBeforeWhole = Math.ceil((count * 4) / 8192);
  const readSpy: number[] = [];
  const original = file.u32Array.bind(file);
  file.u32Array = (offset: number, n: number) => {
    readSpy.push(n);
    return original(offset, n);
  };
  for (let read = 0; read < readsBeforeWhole + 5; read++) {
    const at = (read * 997) % (count - 2);
    assert.deepEqual([...u32.range(at, at + 2)], [at * 7, (at + 1) * 7]);
    assert.deepEqual([...f64.range(at, at + 2)], [at / 4, (at + 1) / 4]);
  }
  assert.deepEqual(readSpy.slice(0, readsBeforeWhole), new Array(readsBeforeWhole).fill(2), "range reads read two values each");
  assert.deepEqual(readSpy.slice(readsBeforeWhole), [count], "then one whole read, and none after");
  assert.deepEqual([...u32.range(count - 1, count)], [(count - 1) * 7]);
  assert.deepEqual([...u32.range(5, 5)], []);
  file.close();
});

test("a small section still reads range by range for 16 reads", () => {
  const { file, heapAt, heap } = sectionFile(4);
  const bytes = byteSection(file, heapAt, heap.length);
  const calls: number[] = [];
  const original = file.bytes.bind(file);
  file.bytes = (offset: number, n: number) => {
    calls.push(n);
    return original(offset, n);
  };
  for (let read = 0; read < 17; read++) assert.equal(bytes.range(6, 10).toString("utf8"), "beta");
  assert.deepEqual(calls, [...new Array(16).fill(4), heap.length]);
  file.close();
});

test("a range outside the section, or a count larger than the file, is read-model corruption and allocates nothing", () => {
  const { file, u32At } = sectionFile(10);
  const u32 = u32Section(file, u32At, 10);
  for (const [from, to] of [[-1, 2], [3, 2], [9, 11], [0.5, 2]]) {
    assert.throws(() => u32.range(from, to), (error: unknown) => error instanceof ReadModelCorruptError && /has no values/.test(error.message), `${from}..${to}`);
  }
  // A damaged count that would ask for 16 GiB: refused by the size check, before any allocation.
  const damaged = u32Section(file, u32At, 4_000_000_000);
  assert.throws(() => damaged.range(0, 4_000_000_000), (error: unknown) => error instanceof ReadModelCorruptError && /has no bytes/.test(error.message));
  assert.throws(() => file.u32Array(u32At, 2 ** 31), (error: unknown) => error instanceof ReadModelCorruptError && /has no bytes/.test(error.message));
  file.close();
});
