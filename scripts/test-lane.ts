/**
 * `npm test` (`bun scripts/test-lane.ts`): runs a test lane under Bun and ends with one line
 * "N passed, N failed". The quick lane (default) is every test file not marked
 * `// test-lane: full` (scripts/testLanes.ts); `full` is every file, under Bun only (`npm run
 * test:all` and .ci/run add Deno, scripts/deno-test.sh).
 *
 * First it builds dist/zaxy with build.ts when the binary is missing or older than src/, wasm/,
 * build.ts or package.json: the build also writes src/generated/ (the WebAssembly kernels and
 * embedded assets, not in git), which the tests import, so a fresh clone needs it; and CLI tests
 * spawn the binary (faster than `bun src/bin/zaxy.ts`), MCP tests skip without it.
 *
 * The files run in `--jobs` bun test worker processes (default 2: the CLI tests wait on the
 * processes they spawn, so two workers keep two cores busy; each file gets a fresh global).
 * scripts/test-timings.json holds each file's last measured duration: the workers start the
 * slowest files first, so no long file starts last and runs alone while the other worker idles.
 * `--update-timings` rewrites it with this run's durations (the order only; never the outcome).
 * `--junit PATH` keeps the JUnit report (.ci/run counts it).
 *
 * Usage: bun scripts/test-lane.ts [quick|full] [--list] [--jobs N] [--no-build] [--junit PATH] [--update-timings]
 * Exit status: 0 when every test passed, 1 when one failed, 2 on bad usage.
 */
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { type Lane, laneFiles } from "./testLanes.ts";

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..");
const bun = path.join(root, "node_modules", ".bin", "bun");
const binary = path.join(root, "dist", "zaxy");
const testTimeoutMs = 120_000;
const timings = path.join(root, "scripts", "test-timings.json");
const usage = "usage: bun scripts/test-lane.ts [quick|full] [--list] [--jobs N] [--no-build] [--junit PATH] [--update-timings]";

interface Options {
  lane: Lane;
  list: boolean;
  jobs: number;
  build: boolean;
  /** Where to keep the JUnit report; undefined: a temporary file, removed after counting. */
  junit: string | undefined;
  updateTimings: boolean;
}

function usageError(message: string): never {
  process.stderr.write(`test-lane: ${message}\n${usage}\n`);
  process.exit(2);
}

function parseOptions(args: string[]): Options {
  const options: Options = { lane: "quick", list: false, jobs: 2, build: true, junit: undefined, updateTimings: false };
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "quick" || arg === "full") options.lane = arg;
    else if (arg === "--list") options.list = true;
    else if (arg === "--no-build") options.build = false;
    else if (arg === "--update-timings") options.updateTimings = true;
    else if (arg === "--junit") {
      const junit = args[++i];
      if (junit === undefined || junit === "") usageError("--junit needs the path of the JUnit report to write");
      options.junit = path.resolve(junit);
    }    else if (arg === "--jobs") {
      const jobs = Number(args[++i]);
      if (!Number.isInteger(jobs) || jobs < 1) usageError(`--jobs must be a whole number of at least 1 (got ${JSON.stringify(args[i] ?? "")})`);
      options.jobs = jobs;
    } else usageError(`unknown argument ${JSON.stringify(arg)}`);
  }
  return options;
}

function newestMtimeMs(target: string, skip: string[]): number {
  if (skip.includes(target) || !fs.existsSync(target)) return 0;
  const stat = fs.statSync(target);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = 0;
  for (const entry of fs.readdirSync(target)) newest = Math.max(newest, newestMtimeMs(path.join(target, entry), skip));
  return newest;
}

/** Why dist/zaxy must be (re)built, or null when it is newer than everything it is built from. */
function staleBinaryReason(): string | null {
  if (!fs.existsSync(binary)) return "dist/zaxy is missing";
  if (!fs.existsSync(path.join(root, "src", "generated", "buildStamp.ts"))) return "src/generated/ is missing";
  const sources = ["src", "wasm", "build.ts", "package.json"].map((name) => path.join(root, name));
  const generated = [path.join(root, "src", "generated"), path.join(root, "wasm", "build")];
  const newestSourceMs = Math.max(...sources.map((source) => newestMtimeMs(source, generated)));
  return newestSourceMs > fs.statSync(binary).mtimeMs ? "dist/zaxy is older than its sources" : null;
}

/** Passed, failed and skipped test cases in a bun JUnit report (its test cases are leaves). */
function countJunit(xml: string): { passed: number; failed: number; skipped: number } {
  const counts = { passed: 0, failed: 0, skipped: 0 };
  for (const match of xml.matchAll(/<testcase\b[^>]*?(\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const body = match[2] ?? "";
    if (/<failure|<error/.test(body)) counts.failed++;
    else if (/<skipped/.test(body)) counts.skipped++;
    else counts.passed++;
  }
  return counts;
}

function seconds(ms: number): string {
  const total = Math.round(ms / 1000);
  return total >= 60 ? `${Math.floor(total / 60)} min ${total % 60} s` : `${total} s`;
}

function main(): number {
  const options = parseOptions(process.argv.slice(2));
  const files = laneFiles(root, options.lane);
  if (options.list) {
    process.stdout.write(files.map((file) => `${file}\n`).join(""));
    return 0;
  }
  const started = performance.now();
  let buildMs = 0;
  const reason = options.build ? staleBinaryReason() : null;
  if (reason !== null) {
    process.stderr.write(`test-lane: ${reason}: building it (bun build.ts)\n`);
    const build = spawnSync(bun, ["build.ts"], { cwd: root, stdio: "inherit" });
    buildMs = performance.now() - started;
    if (build.status !== 0) {
      process.stdout.write("0 passed, 1 failed\n");
      return 1;
    }
  }
  const report = options.junit ?? path.join(fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-test-lane-")), "bun.xml");
  if (options.junit !== undefined) fs.rmSync(report, { force: true });
  process.stderr.write(`test-lane: ${options.lane} lane: ${files.length} files in ${options.jobs} bun test process${options.jobs === 1 ? "" : "es"}\n`);
  const parallel = options.jobs > 1 ? [`--parallel=${options.jobs}`] : [];
  const order = options.updateTimings || (parallel.length > 0 && fs.existsSync(timings)) ? [`--timings=${timings}`] : [];
  const update = options.updateTimings ? ["--update-timings"] : [];
  const args = ["test", `--timeout=${testTimeoutMs}`, ...parallel, ...order, ...update, "--reporter=junit", `--reporter-outfile=${report}`, ...files.map((file) => `./${file}`)];
  if (options.updateTimings && !fs.existsSync(timings)) fs.writeFileSync(timings, `${JSON.stringify({ version: 1, files: {} }, null, 2)}\n`);
  const run = spawnSync(bun, args, { cwd: root, stdio: "inherit" });
  const counts = fs.existsSync(report) ? countJunit(fs.readFileSync(report, "utf8")) : { passed: 0, failed: 0, skipped: 0 };
  if (options.junit === undefined) fs.rmSync(path.dirname(report), { recursive: true, force: true });
  // A file that fails outside any test case (an import error, a crash) shows only in the status.
  if (run.status !== 0 && counts.failed === 0) counts.failed = 1;
  const wallMs = performance.now() - started;
  const buildNote = buildMs > 0 ? `, of which the build ${seconds(buildMs)}` : "";
  process.stderr.write(`test-lane: ${options.lane} lane took ${seconds(wallMs)}${buildNote}\n`);
  if (counts.skipped > 0) process.stdout.write(`${counts.skipped} skipped\n`);
  process.stdout.write(`${counts.passed} passed, ${counts.failed} failed\n`);
  return counts.failed === 0 ? 0 : 1;
}

process.exit(main());
