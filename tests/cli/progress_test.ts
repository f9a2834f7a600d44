// test-lane: full (log of 10000+ events, slow)
/**
 * The shared progress display (src/cli/progress.ts): what it draws on a terminal, and that
 * pipes, `--json` and `--quiet` never see it. The end-to-end cases run the CLI under a real
 * pseudo-terminal (`script` from util-linux) so stderr really is a TTY.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { mixedSessionItems, writeMixedSession } from "../../src/bench/mixedSession.ts";
import { writeSyntheticLog } from "../../src/bench/syntheticLog.ts";
import type { CommandIo } from "../../src/cli/command.ts";
import { formatDuration, progressQuietStartMs, renderProgressLine, startProgress } from "../../src/cli/progress.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, zaxyInvocation } from "./zaxy.ts";

after(removeTempDirs);

function capturingIo(stderrIsTTY: boolean): { io: CommandIo; err: string[] } {
  const err: string[] = [];
  const io: CommandIo = {
    stdout() {},
    stderr: (text) => void err.push(text),
    readStdin: () => Promise.resolve(new Uint8Array()),
    stdinIsTTY: false,
    stderrIsTTY,
    env: {},
    cwd: process.cwd(),
  };
  return { io, err };
}

test("a line with a total shows a bar, the share, the amounts, the rate and an ETA", () => {
  const line = renderProgressLine({ title: "reproject s1", label: "vector postings", done: 25_000, total: 100_000, unit: "vectors", phaseStartedMs: 0 }, 2_000);
  assert.equal(line, "reproject s1: vector postings [#####---------------] 25.0% 25,000/100,000 vectors 13k vectors/s ETA 0:06");
});

test("bytes are shown in MB with a MB/s rate; no ETA in the first half second", () => {
  const line = renderProgressLine({ title: "verify a.jsonl", label: "hash chain", done: 50e6, total: 200e6, unit: "bytes", phaseStartedMs: 1000 }, 1400);
  assert.equal(line, "verify a.jsonl: hash chain [#####---------------] 25.0% 50.0 MB/200.0 MB 125.0 MB/s");
});

test("a phase without a total shows its elapsed time", () => {
  assert.equal(renderProgressLine({ title: "reproject s1", label: "read model", done: 0, phaseStartedMs: 0 }, 65_000), "reproject s1: read model 1:05");
  assert.equal(formatDuration(3725), "1:02:05");
});

test("on a terminal: nothing in the first quarter second, redraws throttled, the line cleared at the end", () => {
  const { io, err } = capturingIo(true);
  let now = 0;
  const progress = startProgress(io, { json: false }, "verify big.jsonl", () => now);
  progress.phase("hash chain", 1000, "bytes");
  progress.update(10);
  assert.deepEqual(err, [], "nothing before the quiet start");
  now = progressQuietStartMs;
  progress.update(100);
  assert.equal(err.length, 1);
  assert.match(err[0], /^\r\x1b\[Kverify big\.jsonl: hash chain \[##--/);
  now += 10;
  progress.update(200);
  assert.equal(err.length, 1, "a redraw within 100 ms is skipped");
  now += 10;
  progress.update(1000);
  assert.equal(err.length, 2, "completion is always drawn");
  assert.match(err[1], /100\.0%/);
  progress.done();
  assert.equal(err[2], "\r\x1b[K");
});

test("not a terminal, --json or --quiet: nothing is drawn", () => {
  for (const [tty, flags] of [[false, { json: false }], [true, { json: true }], [true, { json: false, quiet: true }]] as const) {
    const { io, err } = capturingIo(tty);
    let now = 0;
    const progress = startProgress(io, flags, "reproject", () => now);
    progress.phase("vectors", 10, "vectors");
    now = 10_000;
    progress.update(10);
    progress.done();
    assert.deepEqual(err, [], JSON.stringify(flags));
  }
});

const scriptAvailable = spawnSync("script", ["--version"], { encoding: "utf8" }).status === 0;

/** Runs zaxy with stderr on a real pseudo-terminal; returns everything the terminal showed. */
function underTerminal(args: string[], cwd: string, env: Record<string, string> = {}): { code: number | null; shown: string } {
  const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;
  // stdout goes to a file, so what the terminal shows is stderr alone.
  const command = [zaxyInvocation.command, ...zaxyInvocation.args, ...args].map(quote).join(" ") + " > stdout.txt";
  const run = spawnSync("script", ["-qec", command, "/dev/null"], { cwd, encoding: "utf8", env: { PATH: process.env.PATH ?? "", HOME: cwd, TMPDIR: cwd, TERM: "dumb", ...env }, timeout: 120_000 });
  return { code: run.status, shown: run.stdout };
}

test("zaxy reproject on a terminal draws its phases and clears the line; piped, --json and --quiet it draws nothing", { timeout: 120_000, skip: scriptAvailable ? false : "no `script` (util-linux) to give the CLI a terminal" }, async () => {
  const dir = makeTempDir("zaxy-progress-reproject");
  const root = path.join(dir, ".eventloom");
  await writeMixedSession(root, "default", mixedSessionItems(6000).items);
  const shown = underTerminal(["reproject"], dir);
  assert.equal(shown.code, 0, shown.shown);
  assert.match(shown.shown, /\r\x1b\[Kreproject default: /);
  assert.match(shown.shown, /reproject default: vector postings \[[#-]{20}\] [0-9.]+% [0-9,]+\/[0-9,]+ vectors/);
  assert.ok(shown.shown.endsWith("\r\x1b[K"), `the line is cleared at the end: ${JSON.stringify(shown.shown.slice(-40))}`);
  assert.match(fs.readFileSync(path.join(dir, "stdout.txt"), "utf8"), /default/);
  for (const flag of ["--json", "--quiet"]) {
    const quiet = underTerminal(["reproject", flag], dir);
    assert.equal(quiet.code, 0, quiet.shown);
    assert.equal(quiet.shown, "", `${flag}: ${JSON.stringify(quiet.shown.slice(0, 200))}`);
  }
  const piped = runZaxy(["reproject"], { cwd: dir });
  assert.equal(piped.code, 0, piped.stderr);
  assert.equal(piped.stderr, "");
});

// The log is small (a few seconds to write even on a loaded machine) and the display starts at
// once (ZAXY_PROGRESS_DELAY_MS=0): what is drawn does not depend on how fast the machine verifies.
test("zaxy verify of a log on a terminal shows MB and a rate, then clears the line", { timeout: 120_000, skip: scriptAvailable ? false : "no `script` (util-linux) to give the CLI a terminal" }, () => {
  const dir = makeTempDir("zaxy-progress-verify");
  const log = path.join(dir, "big.jsonl");
  writeSyntheticLog({ path: log, events: 30_000, style: "zaxy-v1" });
  const shown = underTerminal(["verify", log], dir, { ZAXY_PROGRESS_DELAY_MS: "0" });
  assert.equal(shown.code, 0, shown.shown);
  assert.match(shown.shown, /verify big\.jsonl: hash chain \[[#-]{20}\] [0-9.]+% [0-9.]+ MB\/[0-9.]+ MB [0-9.]+ (MB|GB|kB)\/s/);
  assert.ok(shown.shown.endsWith("\r\x1b[K"));
});

test("ZAXY_PROGRESS_DELAY_MS: the default hides a quick verify; a bad value is refused (exit 2, named) before anything is written", { timeout: 120_000, skip: scriptAvailable ? false : "no `script` (util-linux) to give the CLI a terminal" }, () => {
  const dir = makeTempDir("zaxy-progress-delay");
  const log = path.join(dir, "small.jsonl");
  writeSyntheticLog({ path: log, events: 50, style: "zaxy-v1" });
  assert.equal(underTerminal(["verify", log], dir).shown, "", "a quick command draws nothing by default");
  assert.match(underTerminal(["verify", log], dir, { ZAXY_PROGRESS_DELAY_MS: "0" }).shown, /verify small\.jsonl: hash chain/);
  for (const bad of ["-1", "soon", "1.5", "3600001"]) {
    const run = runZaxy(["init", "--json"], { cwd: dir, env: { ZAXY_PROGRESS_DELAY_MS: bad } });
    assert.equal(run.code, 2, `${bad}: ${run.stderr}`);
    const error = JSON.parse(run.stdout).error;
    assert.equal(error.code, "invalid_option", bad);
    assert.equal(error.field, "ZAXY_PROGRESS_DELAY_MS", bad);
    assert.ok(!fs.existsSync(path.join(dir, ".eventloom")), `${bad}: nothing written`);
  }
});
