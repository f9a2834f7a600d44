// test-lane: full (kill -9, slow)
/**
 * BM25 segments on disk (src/readmodel/bm25Segment.ts) against the in-memory Bm25Index
 * (src/retrieval/bm25.ts): the same hits (ids, doubles, order) from many segments, one segment
 * and a merged segment, over seeded corpora; corrupt and truncated files refused with the typed
 * error; a query on a large corpus reads a small part of the files; atomic writes. Seeds fixed
 * and printed; `ZAXY_PROPERTY_SEED=<n>` overrides them.
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { pathToFileURL } from "node:url";
import { runtimeName } from "../../src/platform/mod.ts";
import { crc32, crc32Table } from "../../src/platform/binaryFile.ts";
import { ReadModelCorruptError } from "../../src/platform/readModelError.ts";
import {
  Bm25SegmentSet,
  mergeBm25Segments,
  writeBm25Segment,
  type Bm25SegmentSource,
} from "../../src/readmodel/bm25Segment.ts";
import { Bm25Index } from "../../src/retrieval/bm25.ts";
import { keywordTerms } from "../../src/vector/textAnalysis.ts";
import { makeTempDir, removeTempDirs, sha256Hex } from "../eventloom/testkit.ts";
import { propertySeed, Rng } from "../testkit/rng.ts";
import { canMountTmpfs, mountTmpfs, unmount } from "../reliability/fsFaults.ts";

after(removeTempDirs);

const slow = { timeout: 300_000 };

/** Words that exercise case folding (ß, ﬁ, final sigma, dotted İ, titlecase ǅ), one-char tokens and digits. */
const textWords = [
  "Postgres", "audit", "LOG", "migration", "retry", "cache", "the", "a", "x", "I", "café", "Straße", "ΣΊΣΥΦΟΣ",
  "ﬁle", "İstanbul", "ǅemal", "naïve", "über", "k8s", "v2", "2024", "don't", "e-mail", "日本語", "STRASSE",
];
/** Raw terms for `termsPerDoc`: multibyte UTF-8 whose byte order differs from UTF-16 order. */
const rawTerms = ["é", "日本", "😀", "z", "ａ", "a", "ab", "\u00ff", "\u0100", "ÿz", "𝔘", "\uffff", "ﬀ", "Ab"];

function randomWord(rng: Rng): string {
  const letters = "abcdefghijklmnop";
  let word = "";
  for (let i = rng.range(1, 5); i > 0; i--) word += letters[rng.int(letters.length)];
  return word;
}

/** Zipf-like: early entries of `pool` are common, late ones rare. */
function zipfPick<T>(rng: Rng, pool: readonly T[]): T {
  const r = rng.u32() / 4294967296;
  return pool[Math.floor(pool.length * r * r * r)];
}

function randomTexts(rng: Rng, count: number): string[] {
  const pool = [...textWords, ...Array.from({ length: 400 }, () => randomWord(rng))];
  const separators = [" ", " ", " ", ", ", "-", "\n", "! ", "'", "_"];
  const texts: string[] = [];
  for (let d = 0; d < count; d++) {
    if (rng.chance(0.08)) {
      texts.push(rng.chance(0.5) ? "" : "!! - ,");
      continue;
    }
    const parts: string[] = [];
    for (let w = rng.range(1, 30); w > 0; w--) parts.push(zipfPick(rng, pool), rng.pick(separators));
    texts.push(parts.join(""));
  }
  return texts;
}

function randomTermLists(rng: Rng, count: number): string[][] {
  const pool = [...rawTerms, ...Array.from({ length: 200 }, () => randomWord(rng))];
  return Array.from({ length: count }, () =>
    rng.chance(0.08) ? [] : Array.from({ length: rng.range(1, 20) }, () => zipfPick(rng, pool)),
  );
}

/** Queries of known terms, with repeats, unknown terms and a term no UTF-8 spells. */
function randomQueries(rng: Rng, vocabulary: readonly string[], count: number): string[][] {
  const queries: string[][] = [[], ["nosuchterm"], [...vocabulary]];
  for (let q = 0; q < count; q++) {
    const terms = Array.from({ length: rng.range(1, 6) }, () => zipfPick(rng, vocabulary));
    if (rng.chance(0.3)) terms.push(terms[0]);
    if (rng.chance(0.2)) terms.splice(rng.int(terms.length), 0, "zzqunknown");
    if (rng.chance(0.05)) terms.push(rng.pick(["\ud800", "\ufffd"]));
    queries.push(terms);
  }
  return queries;
}

const limits = [1, 2, 5, 20, 100_000];

/** Cut [0, n) at random points (repeats allowed, so some segments are empty). */
function randomCuts(rng: Rng, n: number): number[] {
  const cuts = Array.from({ length: rng.range(1, 10) }, () => rng.int(n + 1));
  return [0, ...cuts.sort((a, b) => a - b), n];
}

function writeSegments<T>(
  dir: string,
  label: string,
  items: readonly T[],
  cuts: readonly number[],
  source: (docBase: number, slice: readonly T[]) => Bm25SegmentSource,
): string[] {
  const files: string[] = [];
  for (let i = 0; i + 1 < cuts.length; i++) {
    const file = path.join(dir, `${label}.${i}.bm25`);
    writeBm25Segment(file, source(cuts[i], items.slice(cuts[i], cuts[i + 1])));
    files.push(file);
  }
  return files;
}

function assertSameAnswers(index: Bm25Index, set: Bm25SegmentSet, vocabulary: readonly string[], queries: readonly string[][], what: string): void {
  assert.equal(set.size, index.size, `${what}: size`);
  for (const term of vocabulary) assert.equal(set.documentFrequency(term), index.documentFrequency(term), `${what}: df of ${term}`);
  for (const query of queries) {
    for (const limit of limits) {
      assert.deepEqual(set.search(query, limit), index.search(query, limit), `${what}: ${JSON.stringify(query)} limit ${limit}`);
    }
  }
}

function corruptError(action: () => unknown): ReadModelCorruptError | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (error instanceof ReadModelCorruptError) return error;
    throw error;
  }
}

describe("BM25 segments on disk", () => {
  for (const averageLengthFloor of [0, 1]) {
    const seed = propertySeed(0xb25 + averageLengthFloor);
    test(`read model: a segment set over texts scores exactly as Bm25Index, split, whole and merged (floor ${averageLengthFloor}, seed ${seed})`, slow, () => {
      const rng = new Rng(seed);
      const dir = makeTempDir("zaxy-bm25seg");
      const texts = randomTexts(rng, 1500);
      const index = new Bm25Index({ averageLengthFloor });
      for (const text of texts) index.add(text);
      const vocabulary = [...new Set(texts.flatMap(keywordTerms))];
      const queries = randomQueries(rng, vocabulary, 120);
      const source = (docBase: number, slice: readonly string[]) => ({ docBase, averageLengthFloor, texts: slice });

      const split = writeSegments(dir, "split", texts, randomCuts(rng, texts.length), source);
      const whole = writeSegments(dir, "whole", texts, [0, texts.length], source);
      const merged = path.join(dir, "merged.bm25");
      mergeBm25Segments(split, merged);
      for (const [what, files] of [["split", split], ["whole", whole], ["merged", [merged]]] as const) {
        const set = Bm25SegmentSet.open(files, { averageLengthFloor });
        try {
          assertSameAnswers(index, set, vocabulary, queries, `${what} (${files.length} files)`);
        } finally {
          set.close();
        }
      }
      assert.deepEqual(fs.readFileSync(merged), fs.readFileSync(whole[0]), "merging the split segments gives the bytes of the whole segment");
    });
  }

  const termSeed = propertySeed(0x7e5);
  test(`read model: a segment set over raw multibyte terms finds every term by UTF-8 byte order and scores as Bm25Index.addTerms (seed ${termSeed})`, slow, () => {
    const rng = new Rng(termSeed);
    const dir = makeTempDir("zaxy-bm25seg-terms");
    const lists = randomTermLists(rng, 700);
    const index = new Bm25Index({ averageLengthFloor: 1 });
    for (const terms of lists) index.addTerms(terms);
    const vocabulary = [...new Set(lists.flat())];
    const queries = randomQueries(rng, vocabulary, 120);
    const split = writeSegments(dir, "split", lists, randomCuts(rng, lists.length), (docBase, slice) => ({
      docBase,
      averageLengthFloor: 1,
      termsPerDoc: slice,
    }));
    const merged = path.join(dir, "merged.bm25");
    mergeBm25Segments(split, merged);
    for (const files of [split, [merged]]) {
      const set = Bm25SegmentSet.open(files, { averageLengthFloor: 1 });
      try {
        assertSameAnswers(index, set, vocabulary, queries, `${files.length} files`);
      } finally {
        set.close();
      }
    }
  });

  test("read model: segments starting at docBase 5000 give Bm25Index's hits with ids shifted by 5000; an index source writes the same bytes", () => {
    const dir = makeTempDir("zaxy-bm25seg-base");
    const texts = randomTexts(new Rng(5), 300);
    const index = new Bm25Index({ averageLengthFloor: 1 });
    for (const text of texts) index.add(text);
    const files = writeSegments(dir, "base", texts, [0, 120, 300], (docBase, slice) => ({ docBase: 5000 + docBase, averageLengthFloor: 1, texts: slice }));
    const fromIndex = path.join(dir, "from-index.bm25");
    writeBm25Segment(fromIndex, { docBase: 5000, index });
    const whole = path.join(dir, "whole.bm25");
    writeBm25Segment(whole, { docBase: 5000, averageLengthFloor: 1, texts });
    assert.deepEqual(fs.readFileSync(fromIndex), fs.readFileSync(whole));
    const set = Bm25SegmentSet.open(files, { averageLengthFloor: 1 });
    try {
      const query = keywordTerms("postgres audit retry strasse file");
      const expected = index.search(query, 50).map((hit) => ({ docId: hit.docId + 5000, score: hit.score }));
      assert.ok(expected.length > 5);
      assert.deepEqual(set.search(query, 50), expected);
    } finally {
      set.close();
    }
  });

  test("read model: writeBm25Segment refuses a term UTF-8 cannot spell (a lone surrogate) and writes nothing", () => {
    const dir = makeTempDir("zaxy-bm25seg-surrogate");
    const file = path.join(dir, "s.bm25");
    assert.throws(() => writeBm25Segment(file, { docBase: 0, averageLengthFloor: 0, termsPerDoc: [["ok"], ["bad\ud800"]] }), /lone surrogate/);
    assert.deepEqual(fs.readdirSync(dir), []);
  });

  test("read model: a segment path that is missing, a FIFO or a directory is refused as read_model_unreadable without blocking", () => {
    const dir = makeTempDir("zaxy-bm25seg-special");
    const fifo = path.join(dir, "fifo.bm25");
    assert.equal(spawnSync("mkfifo", [fifo]).status, 0, "mkfifo");
    for (const [file, reason] of [[path.join(dir, "missing.bm25"), "no such file"], [fifo, "it is not a regular file (FIFO)"], [dir, "it is a directory"]]) {
      assert.throws(
        () => Bm25SegmentSet.open([file], { averageLengthFloor: 1 }),
        (error: unknown) => (error as { code?: string }).code === "read_model_unreadable" && (error as Error).message === `Cannot open read-model file "${file}": ${reason}`,
      );
    }
  });

  test("read model: the segment format is frozen (if this hash changes, old segment files no longer read)", () => {
    const dir = makeTempDir("zaxy-bm25seg-frozen");
    const file = path.join(dir, "frozen.bm25");
    const written = writeBm25Segment(file, {
      docBase: 7,
      averageLengthFloor: 1,
      texts: ["Decision: use Postgres for audit logs", "Task: write the migration", "", "postgres postgres tuning Straße"],
    });
    const bytes = fs.readFileSync(file);
    assert.equal(written.bytes, bytes.length);
    assert.equal(written.sha256, sha256Hex(bytes));
    assert.equal(bytes.subarray(0, 8).toString("latin1"), "ZXBM25S1");
    assert.equal(bytes.length, 624);
    assert.equal(written.sha256, "99f3e8555e30a74ee655243c4fff5977306b7db3869d80525da9706e9218c0f2");
    assert.deepEqual(fs.readdirSync(dir), ["frozen.bm25"], "no temp file left");
  });

  test("read model: crc32 is the zlib CRC-32, native and table alike, and chains", () => {
    const digits = new TextEncoder().encode("123456789");
    assert.equal(crc32(digits), 0xcbf43926);
    assert.equal(crc32Table(digits), 0xcbf43926);
    const rng = new Rng(9);
    const bytes = Uint8Array.from({ length: 5000 }, () => rng.int(256));
    assert.equal(crc32(bytes), crc32Table(bytes));
    assert.equal(crc32(bytes, crc32(bytes, 0, 0, 1234), 1234), crc32(bytes));
    assert.equal(crc32Table(bytes.subarray(77), crc32Table(bytes.subarray(0, 77))), crc32(bytes));
  });

  describe("corrupt files", () => {
    const dir = makeTempDir("zaxy-bm25seg-corrupt");
    const texts = randomTexts(new Rng(11), 16);
    const file = path.join(dir, "small.bm25");
    writeBm25Segment(file, { docBase: 0, averageLengthFloor: 1, texts });
    const good = fs.readFileSync(file);
    const vocabulary = [...new Set(texts.flatMap(keywordTerms))];
    const expected = new Bm25Index({ averageLengthFloor: 1 });
    for (const text of texts) expected.add(text);
    const readAll = (target: string) => {
      const set = Bm25SegmentSet.open([target], { averageLengthFloor: 1 });
      try {
        // Looks up every term, so every dictionary entry, key and posting list is read.
        return set.search(vocabulary, 1000);
      } finally {
        set.close();
      }
    };

    test("read model: every single flipped byte of a segment is refused with read_model_corrupt naming the file", slow, () => {
      assert.deepEqual(readAll(file), expected.search(vocabulary, 1000));
      const damaged = path.join(dir, "flipped.bm25");
      fs.writeFileSync(damaged, good);
      const accepted: number[] = [];
      const fd = fs.openSync(damaged, "r+");
      const flip = (at: number) => fs.writeSync(fd, Uint8Array.of(good[at] ^ 0x10), 0, 1, at);
      for (let at = 0; at < good.length; at++) {
        flip(at);
        const error = corruptError(() => readAll(damaged));
        fs.writeSync(fd, good, at, 1, at);
        if (error === undefined) accepted.push(at);
        else {
          assert.equal(error.code, "read_model_corrupt");
          assert.equal(error.file, damaged);
          assert.match(error.message, /^Cannot read read-model file ".*flipped\.bm25": /);
        }
      }
      fs.closeSync(fd);
      assert.ok(good.length > 1000, `a segment of ${good.length} bytes is too small to cover every section well`);
      assert.deepEqual(accepted, [], `flipped bytes at these offsets of ${good.length} were read without complaint`);
    });

    test("read model: a segment truncated at any length is refused on open", () => {
      const damaged = path.join(dir, "truncated.bm25");
      // Every length through the header and a little past it, then every 7th, then the last few.
      const lengths = [...Array(good.length).keys()].filter((n) => n < 100 || n % 7 === 0 || n > good.length - 4);
      for (const length of lengths) {
        fs.writeFileSync(damaged, good.subarray(0, length));
        const error = corruptError(() => Bm25SegmentSet.open([damaged], { averageLengthFloor: 1 }));
        assert.ok(error !== undefined, `a file cut to ${length} of ${good.length} bytes was opened`);
        assert.equal(error.file, damaged);
      }
    });

    test("read model: a segment truncated after it was opened is refused by search, not scored", () => {
      const damaged = path.join(dir, "shrinking.bm25");
      fs.writeFileSync(damaged, good);
      const set = Bm25SegmentSet.open([damaged], { averageLengthFloor: 1 });
      try {
        fs.truncateSync(damaged, 200);
        const error = corruptError(() => set.search(vocabulary, 10));
        assert.ok(error !== undefined);
        assert.equal(error.file, damaged);
      } finally {
        set.close();
      }
    });

    test("read model: segments out of order, with a gap, or written with another averageLengthFloor are refused", () => {
      const texts = randomTexts(new Rng(12), 30);
      const a = path.join(dir, "a.bm25");
      const b = path.join(dir, "b.bm25");
      const gap = path.join(dir, "gap.bm25");
      writeBm25Segment(a, { docBase: 0, averageLengthFloor: 1, texts: texts.slice(0, 10) });
      writeBm25Segment(b, { docBase: 10, averageLengthFloor: 1, texts: texts.slice(10) });
      writeBm25Segment(gap, { docBase: 11, averageLengthFloor: 1, texts: texts.slice(10) });
      Bm25SegmentSet.open([a, b], { averageLengthFloor: 1 }).close();
      assert.match(corruptError(() => Bm25SegmentSet.open([b, a], { averageLengthFloor: 1 }))?.message ?? "", /a\.bm25": it starts at document 0, but the segment before it ends at 30/);
      assert.equal(corruptError(() => Bm25SegmentSet.open([a, gap], { averageLengthFloor: 1 }))?.file, gap);
      assert.match(corruptError(() => Bm25SegmentSet.open([a, b], { averageLengthFloor: 0 }))?.message ?? "", /averageLengthFloor 1, expected 0/);
      assert.equal(corruptError(() => mergeBm25Segments([a, gap], path.join(dir, "never.bm25")))?.file, gap);
      assert.equal(fs.existsSync(path.join(dir, "never.bm25")), false);
    });

    test("read model: merging a segment with a flipped posting byte is refused and writes nothing", () => {
      const damaged = path.join(dir, "merge-input.bm25");
      const bytes = Buffer.from(good);
      bytes[bytes.length - 3] ^= 0x01; // a term count in the last posting list
      fs.writeFileSync(damaged, bytes);
      const out = path.join(dir, "merge-output.bm25");
      assert.equal(corruptError(() => mergeBm25Segments([damaged], out))?.file, damaged);
      assert.equal(fs.existsSync(out), false);
      assert.deepEqual(fs.readdirSync(dir).filter((name) => name.endsWith(".tmp")), []);
    });
  });

  test("read model: a query on a 200k-document segment set reads a small fraction of the files and matches Bm25Index", slow, () => {
    const rng = new Rng(propertySeed(200_000));
    const dir = makeTempDir("zaxy-bm25seg-large");
    const pool = Array.from({ length: 20_000 }, (_, i) => `w${i.toString(36)}`);
    const texts = Array.from({ length: 200_000 }, () => Array.from({ length: 8 }, () => zipfPick(rng, pool)).join(" "));
    const index = new Bm25Index({ averageLengthFloor: 1 });
    for (const text of texts) index.add(text);
    const step = 50_000;
    const files = writeSegments(dir, "large", texts, [0, step, 2 * step, 3 * step, 4 * step], (docBase, slice) => ({ docBase, averageLengthFloor: 1, texts: slice }));
    const fileBytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0);
    const set = Bm25SegmentSet.open(files, { averageLengthFloor: 1 });
    try {
      const query = [pool[40], pool[900], pool[5000], pool[12_000], pool[19_999]];
      const hits = set.search(query, 10);
      assert.deepEqual(hits, index.search(query, 10));
      assert.equal(hits.length, 10);
      console.log(`200k documents: ${fileBytes} bytes in ${files.length} segments, a 5-term query read ${set.bytesRead}`);
      assert.ok(set.bytesRead * 100 < fileBytes, `read ${set.bytesRead} of ${fileBytes} bytes`);
    } finally {
      set.close();
    }
  });

  test("read model: a segment writer killed with SIGKILL as its temp file grows leaves the previous segment, which still opens and answers", slow, async () => {
    const dir = makeTempDir("zaxy-bm25seg-kill");
    const file = path.join(dir, "verbatim.bm25");
    const oldTexts = ["Decision: use Postgres for audit logs", "Task: write the migration"];
    writeBm25Segment(file, { docBase: 0, averageLengthFloor: 1, texts: oldTexts });
    const before = fs.readFileSync(file);
    const script = path.join(dir, "writer.ts");
    fs.writeFileSync(
      script,
      `import { writeBm25Segment } from ${JSON.stringify(pathToFileURL(path.resolve("src/readmodel/bm25Segment.ts")).href)};
const texts = Array.from({ length: 300000 }, (_, i) => "doc " + i + " postgres w" + (i % 997) + " v" + (i % 7919));
writeBm25Segment(${JSON.stringify(file)}, { docBase: 0, averageLengthFloor: 1, texts });
`,
    );
    const args = runtimeName === "deno" ? ["run", "-A", "--no-check", script] : [script];
    const pauseMs = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
    let killedMidWrite = 0;
    for (let attempt = 0; attempt < 5 && killedMidWrite === 0; attempt++) {
      const child = spawn(process.execPath, args, { stdio: "ignore" });
      const exited = new Promise<number | null>((resolve) => child.on("close", (code) => resolve(code)));
      let exitCode: number | null | undefined;
      void exited.then((code) => (exitCode = code));
      const deadline = Date.now() + 120_000;
      for (;;) {
        const temp = fs.readdirSync(dir).find((name) => name.endsWith(".tmp"));
        if (temp !== undefined && (fs.statSync(path.join(dir, temp), { throwIfNoEntry: false })?.size ?? 0) > 0) {
          child.kill("SIGKILL");
          break;
        }
        if (exitCode !== undefined || Date.now() > deadline) break;
        pauseMs(1);
        await new Promise((resolve) => setImmediate(resolve));
      }
      const code = await exited;
      if (code === 0) {
        // The write finished before the kill landed: restore the old segment and try again.
        fs.writeFileSync(file, before);
        continue;
      }
      killedMidWrite++;
      assert.deepEqual(fs.readFileSync(file), before, "the target is the previous segment, byte for byte");
      const set = Bm25SegmentSet.open([file], { averageLengthFloor: 1 });
      try {
        const index = new Bm25Index({ averageLengthFloor: 1 });
        for (const text of oldTexts) index.add(text);
        assert.deepEqual(set.search(["postgres", "migration"], 10), index.search(["postgres", "migration"], 10));
      } finally {
        set.close();
      }
    }
    assert.equal(killedMidWrite, 1, "no attempt was killed while its temp file grew");
  });

  test("read model: a segment write that fills the disk fails with read_model_write_failed and leaves the old file and no temp file", { ...slow, skip: !canMountTmpfs && "cannot mount a tmpfs here" }, () => {
    const mountDir = path.join(makeTempDir("zaxy-bm25seg-full"), "segments");
    assert.ok(mountTmpfs(mountDir), "mount tmpfs");
    try {
      const file = path.join(mountDir, "verbatim.bm25");
      writeBm25Segment(file, { docBase: 0, averageLengthFloor: 1, texts: ["a small first version"] });
      const before = fs.readFileSync(file);
      const rng = new Rng(3);
      const big = Array.from({ length: 40_000 }, () => Array.from({ length: 10 }, () => randomWord(rng) + randomWord(rng)).join(" "));
      assert.throws(
        () => writeBm25Segment(file, { docBase: 0, averageLengthFloor: 1, texts: big }),
        (error: unknown) => (error as { code?: string }).code === "read_model_write_failed" && /Cannot write BM25 segment ".*verbatim\.bm25": /.test((error as Error).message),
      );
      assert.deepEqual(fs.readFileSync(file), before);
      assert.deepEqual(fs.readdirSync(mountDir), ["verbatim.bm25"]);
    } finally {
      unmount(mountDir);
    }
  });
});
