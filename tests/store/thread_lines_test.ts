/**
 * Issue 15 (verify from the store): a thread's lines come out of PostgreSQL as one binary COPY
 * on a pool, as `string_agg` pages in a transaction or where COPY is refused. Both must hand on
 * exactly the rows' bytes, in seq order, each with its newline, and count the rows; the COPY
 * parser must not depend on how the stream is cut into messages, and must refuse what is not a
 * one-column binary COPY of lines.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { BinaryCopyRows, copySignature, streamThreadLines } from "../../src/store/threadLines.ts";
import { freshDatabase, pgServer, sqlOn, stopPgServer } from "./pgTestkit.ts";

/** A one-column binary COPY payload of `values` (null: a NULL), with an optional header extension. */
function binaryCopy(values: Array<Buffer | null>, extension = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(8);
  header.writeUInt32BE(0, 0);
  header.writeUInt32BE(extension.length, 4);
  const parts: Buffer[] = [copySignature, header, extension];
  for (const value of values) {
    const row = Buffer.alloc(6);
    row.writeInt16BE(1, 0);
    row.writeInt32BE(value === null ? -1 : value.length, 2);
    parts.push(row);
    if (value !== null) parts.push(value);
  }
  const trailer = Buffer.alloc(2);
  trailer.writeInt16BE(-1, 0);
  parts.push(trailer);
  return Buffer.concat(parts);
}

function readAll(payload: Buffer, cuts: number[]): string[] {
  const reader = new BinaryCopyRows();
  const rows: string[] = [];
  let from = 0;
  for (const cut of [...cuts, payload.length]) {
    reader.read(payload.subarray(from, cut), (value) => rows.push(value.toString("utf8")));
    from = cut;
  }
  reader.finish();
  return rows;
}

describe("the binary COPY reader", () => {
  const lines = ['{"seq":1,"a":"x"}', "", '{"seq":3,"b":"\\\\ \\"quoted\\" ü €"}', "z".repeat(300)];
  const payload = binaryCopy(lines.map((line) => Buffer.from(line, "utf8")), Buffer.from("ext"));

  test("gives the same rows however the stream is cut (every single cut, and every byte apart)", () => {
    assert.deepEqual(readAll(payload, []), lines);
    for (let cut = 1; cut < payload.length; cut++) assert.deepEqual(readAll(payload, [cut]), lines, `cut at ${cut}`);
    assert.deepEqual(readAll(payload, Array.from({ length: payload.length - 1 }, (_, i) => i + 1)), lines);
  });

  const bad: Array<[string, Buffer, RegExp]> = [
    ["another format", Buffer.concat([Buffer.from("NOTCOPY\n\xff\r\n\0", "latin1"), payload.subarray(11)]), /is not PostgreSQL's binary format/],
    ["a NULL line", binaryCopy([Buffer.from("a"), null]), /has a NULL line/],
    ["a row of two fields", (() => { const p = Buffer.from(payload); p.writeInt16BE(2, 11 + 8 + 3); return p; })(), /has a row of 2 fields, not 1/],
    ["no trailer", payload.subarray(0, payload.length - 2), /ended before its trailer/],
    ["bytes after the trailer", Buffer.concat([payload, Buffer.from([0, 1])]), /goes on after its trailer/],
  ];
  for (const [what, input, message] of bad) {
    test(`refuses ${what}`, () => {
      assert.throws(() => readAll(input, [Math.floor(input.length / 2)]), message);
    });
  }
});

const server = pgServer();
after(() => stopPgServer(server));

describe("thread lines from a real server: COPY and pages agree", { skip: server === undefined ? "no PostgreSQL server programs" : false }, () => {
  test("every range of a thread (a 5 MB line, an empty line, quotes, backslashes, non-ASCII; a thread name with a quote) comes out byte for byte the same both ways", { timeout: 120_000 }, async () => {
    const url = await freshDatabase(server!, "lines");
    const lines = Array.from({ length: 3000 }, (_, i) =>
      i === 1000 ? "" : i === 2000 ? `{"seq":${i + 1},"big":"${"b".repeat(5 << 20)}"}` : `{"seq":${i + 1},"text":"l\\\\ine \\"${i}\\" ü€ 𝄞 ${"x".repeat(i % 700)}"}`
    );
    await sqlOn(url, async (sql) => {
      await sql`CREATE TABLE eventloom_events (thread text NOT NULL, seq bigint NOT NULL, line text NOT NULL, PRIMARY KEY (thread, seq))`;
      for (const thread of ["t", "o'brien"]) {
        for (let start = 0; start < lines.length; start += 500) {
          const batch = lines.slice(start, start + 500).map((line, i) => ({ thread, seq: start + i + 1, line }));
          await sql`INSERT INTO eventloom_events ${sql(batch, "thread", "seq", "line")}`;
        }
      }
      const read = async (thread: string, after: number, upto: number, prefetch: boolean) => {
        const chunks: Buffer[] = [];
        let counted = 0;
        const rows = await streamThreadLines(sql, thread, after, upto, (chunk, n) => {
          chunks.push(Buffer.from(chunk));
          counted += n;
        }, prefetch);
        return { bytes: Buffer.concat(chunks), rows, counted, chunks: chunks.length };
      };
      for (const thread of ["t", "o'brien"]) {
        for (const [after, upto] of [[0, 3000], [0, 1], [999, 1001], [1999, 2001], [2500, 4000], [3000, 3000]]) {
          const expected = Buffer.from(lines.slice(after, Math.min(upto, lines.length)).map((line) => `${line}\n`).join(""), "utf8");
          const copied = await read(thread, after, upto, true);
          const paged = await read(thread, after, upto, false);
          assert.equal(copied.bytes.equals(expected), true, `COPY ${thread} ${after}..${upto}`);
          assert.equal(paged.bytes.equals(expected), true, `pages ${thread} ${after}..${upto}`);
          const rows = Math.max(0, Math.min(upto, lines.length) - after);
          assert.deepEqual([copied.rows, copied.counted, paged.rows, paged.counted], [rows, rows, rows, rows], `${thread} ${after}..${upto}`);
        }
      }
      // Chunks are line-aligned and about 4 MiB: the 3,000 rows (~6.3 MB) came in more than one.
      assert.ok((await read("t", 0, 3000, true)).chunks >= 2);
    });
  });
});
