/**
 * Entity texts kept in a scratch file (src/projection/scratchTexts.ts, scratchEntityRow.ts): every
 * string reads back as the same code units (ASCII, Latin-1, other planes, a lone surrogate,
 * values longer than the write and read blocks), in order and out of order, before and after it
 * reached the file; equality by hash never mistakes one text for another; the file leaves nothing
 * behind; and a fold keeping its texts there gives the rows of a fold keeping them as strings.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import { plainEntityRow, ScratchEntityRow } from "../../src/projection/scratchEntityRow.ts";
import { inlineCharsMax, ScratchTexts } from "../../src/projection/scratchTexts.ts";
import { fakeEventRecord } from "../testkit/eventRecord.ts";
import { Rng } from "../testkit/rng.ts";

const root = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-scratch-texts-test-"));
after(() => fs.rmSync(root, { recursive: true, force: true }));
let dirs = 0;
const freshDir = () => path.join(root, `d${++dirs}`, "readmodel");

const samples: (string | null)[] = [
  null,
  "",
  "{}",
  "x".repeat(inlineCharsMax),
  "y".repeat(inlineCharsMax + 1),
  `café crème, naïve façade, ÿ and \u00a0 ${"é".repeat(80)}`,
  `emoji 😀 and 漢字 and Ω: ${"😀漢".repeat(50)}`,
  `a lone surrogate \ud800 in the middle ${"z".repeat(70)} and a trailing one \udfff`,
  `"quoted" \\ back\nslash\ttab\u0000nul ${"q".repeat(70)}`,
  // Longer than the 1 MiB write block and read window, one byte and two bytes a unit.
  "L".repeat((1 << 20) + 3),
  `${"Ž".repeat(600_000)}end`,
];

describe("scratch texts", () => {
  test("every string reads back as the same code units, in order, out of order, pending and written", () => {
    const texts = new ScratchTexts(freshDir());
    try {
      const ids = samples.map((text) => texts.add(text));
      // Before anything forced a flush, and again after, in reverse and in order.
      samples.forEach((text, i) => assert.equal(texts.text(ids[i]), text, `sample ${i}`));
      for (let i = samples.length - 1; i >= 0; i--) assert.equal(texts.text(ids[i]), samples[i], `sample ${i} out of order`);
      const more = samples.map((text) => texts.add(text));
      samples.forEach((text, i) => assert.equal(texts.text(more[i]), text, `sample ${i} added again`));
      assert.equal(texts.length, 2 * samples.length);
    } finally {
      texts.close();
    }
  });

  test("many texts interleaved with reads come back exactly (the window and the pending block)", () => {
    const texts = new ScratchTexts(freshDir());
    const rng = new Rng(0x7e57);
    try {
      const kept: string[] = [];
      const ids: number[] = [];
      for (let i = 0; i < 5000; i++) {
        const text = `${i}:${"abcdéfg😀 ".repeat(rng.range(7, 200))}`.slice(0, rng.range(inlineCharsMax + 1, 1500));
        kept.push(text);
        ids.push(texts.add(text));
        if (rng.chance(0.05)) {
          const j = rng.int(i + 1);
          assert.equal(texts.text(ids[j]), kept[j], `text ${j} read while adding ${i}`);
        }
      }
      kept.forEach((text, i) => assert.equal(texts.text(ids[i]), text, `text ${i} in order`));
    } finally {
      texts.close();
    }
  });

  test("holds tells equal texts from different ones of the same length, null and the empty string", () => {
    const texts = new ScratchTexts(freshDir());
    try {
      const long = `${"m".repeat(100)}é`;
      const id = texts.add(long);
      assert.equal(texts.holds(id, long), true);
      assert.equal(texts.holds(id, `${"m".repeat(100)}e`), false, "one unit differs");
      assert.equal(texts.holds(id, `${"m".repeat(99)}éé`.slice(0, long.length)), false, "same length, other text");
      assert.equal(texts.holds(id, `${"m".repeat(100)}\u0169`), false, "a wide unit of the same low byte");
      assert.equal(texts.holds(id, null), false);
      assert.equal(texts.holds(id, ""), false);
      const nullId = texts.add(null);
      const emptyId = texts.add("");
      assert.equal(texts.holds(nullId, null), true);
      assert.equal(texts.holds(nullId, ""), false);
      assert.equal(texts.holds(emptyId, ""), true);
      assert.equal(texts.holds(emptyId, null), false);
      // Distinct texts of equal length all over: none holds another.
      const variants = Array.from({ length: 300 }, (_, i) => `${String(i).padStart(3, "0")}${"v".repeat(90)}`);
      const variantIds = variants.map((text) => texts.add(text));
      variants.forEach((text, i) => {
        assert.equal(texts.holds(variantIds[i], text), true);
        assert.equal(texts.holds(variantIds[i], variants[(i + 1) % variants.length]), false);
      });
    } finally {
      texts.close();
    }
  });

  test("the file is made only for a long text, and nothing is left in its directory once closed", () => {
    const shortDir = freshDir();
    const short = new ScratchTexts(shortDir);
    short.add("{}");
    short.add(null);
    short.close();
    assert.equal(fs.existsSync(shortDir), false, "no directory for short texts only");

    const dir = freshDir();
    let checked = 0;
    const texts = new ScratchTexts(dir, () => checked++);
    const id = texts.add("w".repeat(500));
    texts.text(id);
    assert.equal(checked, 1, "the directory is checked once, before the file is made");
    texts.close();
    assert.deepEqual(fs.readdirSync(dir), []);
    assert.throws(() => texts.add("w".repeat(500)), /closed/);
  });

  test("the file has no name while it is written (a killed process leaves nothing), and a reader opening what share gives reads its bytes after close", () => {
    const dir = freshDir();
    const texts = new ScratchTexts(dir);
    const placed = "s".repeat(300) + "é".repeat(40);
    texts.add(placed);
    const shared = texts.share();
    assert.deepEqual(fs.readdirSync(dir), [], "unlinked as soon as it is made");
    const fd = fs.openSync(shared, "r");
    try {
      texts.close();
      const bytes = Buffer.alloc(300);
      assert.equal(fs.readSync(fd, bytes, 0, 300, 0), 300);
      assert.equal(bytes.toString("latin1"), "s".repeat(300));
    } finally {
      fs.closeSync(fd);
    }
    assert.deepEqual(fs.readdirSync(dir), []);
  });
});

describe("a fold keeping its texts in a scratch file", () => {
  const session = "sess-scratch";
  const record = (seq: number, type: string, payload: Record<string, unknown>, actor = "agent-a"): EventRecord =>
    fakeEventRecord(seq, type, payload, { actor, thread: session });

  /** Long summaries and contents (some past Latin-1), restated, changed, merged within an event, retired. */
  function log(seed: number): EventRecord[] {
    const rng = new Rng(seed);
    const long = (word: string) => `${word} ${rng.pick(["détail", "naïve", "漢字 😀", "plain"])} ${"lorem ipsum ".repeat(rng.range(6, 40))}`;
    const tasks = ["T1", "T2", "T3", "T4"];
    const summaries = Array.from({ length: 6 }, (_, i) => long(`s${i}`));
    const records: EventRecord[] = [];
    for (let seq = 1; seq <= 400; seq++) {
      switch (rng.int(6)) {
        case 0:
          records.push(record(seq, "task.proposed", { taskId: rng.pick(tasks), summary: rng.pick(summaries) }));
          break;
        case 1:
          records.push(record(seq, "task.completed", { taskId: rng.pick(tasks), summary: rng.pick(summaries) }));
          break;
        case 2:
          records.push(record(seq, "decision.made", { decision: rng.pick(["D1", "D2"]), summary: rng.pick(summaries), rationale: long("why") }));
          break;
        case 3:
          records.push(record(seq, "document.indexed", { path: rng.pick(["a.md", "b.md"]), start_line: 1, end_line: 20, content: rng.pick(summaries) }));
          break;
        case 4:
          records.push(record(seq, "transcript.turn", { source: "chat", turn_index: rng.range(1, 4), role: "user", content: rng.pick(summaries) }));
          break;
        default:
          records.push(record(seq, "task.claimed", { taskId: rng.pick(tasks) }, rng.pick(["agent-a", "agent-b"])));
      }
    }
    return records;
  }

  for (const seed of [11, 0x5eed]) {
    test(`gives the rows of a fold keeping strings (seed ${seed})`, () => {
      const records = log(seed);
      const plain = new GraphFold(session);
      const texts = new ScratchTexts(freshDir());
      try {
        const scratch = new GraphFold(session, undefined, { keepEventRows: false, scratchTexts: texts });
        for (const r of records) {
          plain.apply(r, extractEvent(r));
          scratch.apply(r, extractEvent(r));
        }
        const expected = plain.rows();
        assert.ok(expected.entities.some((e) => (e.summary?.length ?? 0) > inlineCharsMax), "some summary goes to the file");
        assert.ok(expected.entities.some((e) => e.validTo !== null), "some version was superseded");
        const packed = scratch.packedRows();
        assert.ok(packed.entities.every((e) => e instanceof ScratchEntityRow));
        assert.deepEqual(packed.entities.map(plainEntityRow), expected.entities);
        assert.deepEqual(scratch.rows(), expected);
        assert.equal(packed.head?.entityCount, expected.head?.entityCount);
      } finally {
        texts.close();
      }
    });
  }
});
