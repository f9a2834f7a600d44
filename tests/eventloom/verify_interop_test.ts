// test-lane: full (slow)
/**
 * Logs written by the Python implementation (fixtures/interop, byte-exact copies of
 * /work/shared/interop) verify with zaxy exactly as with the Python reference verifier:
 * same ok, total_events, broken_at_seq and broken_reason, through the library and the CLI.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { readEvents, verifyLog } from "../../src/eventloom/mod.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { interopDir, interopLogs, makeTempDir, refVerify, removeTempDirs, sha256Hex, skipWithoutPython, type Verdict } from "./testkit.ts";

after(removeTempDirs);

interface ReadmeRow {
  name: string;
  format: "legacy" | "v1";
  events: number;
  bytes: number;
  sha256: string;
}

/** The table in fixtures/interop/README.md: name | source | commit | format | events | bytes | verifier | sha256 | features. */
function readmeRows(): ReadmeRow[] {
  const text = fs.readFileSync(path.join(interopDir, "README.md"), "utf8");
  const rows: ReadmeRow[] = [];
  for (const line of text.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    if (cells.length < 10 || !cells[1].endsWith(".jsonl")) continue;
    rows.push({ name: cells[1], format: cells[4] as "legacy" | "v1", events: Number(cells[5]), bytes: Number(cells[6]), sha256: cells[8] });
  }
  return rows;
}

function verdictOf(report: Verdict): Verdict {
  return { ok: report.ok, total_events: report.total_events, broken_at_seq: report.broken_at_seq, broken_reason: report.broken_reason };
}

const skipNoFixtures = interopLogs.length === 0 ? `no interop logs in ${interopDir}` : false;

describe("interop fixtures", { skip: skipNoFixtures }, () => {
  test("fixtures/interop holds the 14 logs of its README, byte-exact (sha256, size)", () => {
    const rows = readmeRows();
    assert.equal(rows.length, 14);
    assert.deepEqual(rows.map((r) => r.name).sort(), interopLogs);
    for (const row of rows) {
      const bytes = fs.readFileSync(path.join(interopDir, row.name));
      assert.equal(bytes.length, row.bytes, row.name);
      assert.equal(sha256Hex(bytes), row.sha256, row.name);
    }
  });

  test("verifyLog accepts every interop log with the README's event count and envelope", async () => {
    for (const row of readmeRows()) {
      const file = path.join(interopDir, row.name);
      const report = await verifyLog(file);
      assert.deepEqual(verdictOf(report), { ok: true, total_events: row.events, broken_at_seq: null, broken_reason: null }, row.name);
      assert.equal(report.torn_tail, false);
      assert.deepEqual(report.errors, []);
      const { events, total } = readEvents(file);
      assert.equal(total, row.events);
      assert.deepEqual(
        [...new Set(events.map((e) => e.envelope))],
        [row.format],
        `${row.name} reads as ${row.format}`,
      );
      assert.deepEqual(events.map((e) => e.seq), Array.from({ length: row.events }, (_, i) => i + 1));
    }
  });

  test("verifyLog streams in small chunks with the same verdicts (lines split across chunks)", async () => {
    for (const name of interopLogs) {
      const file = path.join(interopDir, name);
      const whole = await verifyLog(file);
      for (const chunkBytes of [64, 1000, 4096]) {
        assert.deepEqual(verdictOf(await verifyLog(file, { chunkBytes })), verdictOf(whole), `${name} chunkBytes=${chunkBytes}`);
      }
    }
  });

  test("zaxy verify --json gives ref_verify.py's verdict for every interop log", { skip: skipWithoutPython }, () => {
    const cwd = makeTempDir();
    for (const name of interopLogs) {
      const file = path.join(interopDir, name);
      const ref = refVerify(file);
      assert.equal(ref.code, 0, name);
      const run = runZaxy(["verify", file, "--json"], { cwd });
      assert.equal(run.code, 0, `${name}: ${run.stderr}`);
      assert.equal(run.stderr, "");
      const doc = JSON.parse(run.stdout);
      assert.equal(doc.schema, "zaxy.verify.v1");
      assert.equal(doc.ok, true);
      assert.equal(doc.logs.length, 1);
      assert.equal(doc.logs[0].path, file);
      assert.deepEqual(verdictOf(doc.logs[0]), ref.verdict, name);
    }
  });

  test("zaxy verify takes all 14 interop logs at once and prints one OK line per log", () => {
    const cwd = makeTempDir();
    const files = interopLogs.map((name) => path.join(interopDir, name));
    const run = runZaxy(["verify", ...files], { cwd });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stderr, "");
    const expected = readmeRows()
      .sort((a, b) => (a.name < b.name ? -1 : 1))
      .map((row) => `OK      ${path.join(interopDir, row.name)}  ${row.events} events`);
    assert.deepEqual(run.stdout.trimEnd().split("\n"), expected);
  });

  test("an interop log copied elsewhere still verifies (nothing depends on its path or name)", async () => {
    const dir = makeTempDir();
    const copy = path.join(dir, "copy.jsonl");
    fs.copyFileSync(path.join(interopDir, "legacy-activation-release.jsonl"), copy);
    const report = await verifyLog(copy);
    assert.deepEqual(verdictOf(report), { ok: true, total_events: 2, broken_at_seq: null, broken_reason: null });
  });
});
