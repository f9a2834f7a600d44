/**
 * `zaxy bench reproject`: a full rebuild of a realistic mixed session (see `mixedSession.ts`)
 * through `projectSession(..., { rebuild: true, graphStore: "sync" })`, end to end and per
 * phase, then the vector index build on its own, then the graph store's write method against
 * the naive one; then the command users run, `zaxy reproject --reset-projection` in fresh
 * processes (everything derived rebuilt from nothing: rows, read model, vector index), against
 * `ref_verify.py` on the same log in the same run.
 *
 * The naive write (one prepared CREATE per row, `KuzuStore.insertPerRowBaseline`) runs at a few
 * hundred rows/s, so over a 100k-event session (several hundred thousand rows) it would take
 * tens of minutes. It is therefore measured on a prefix of the session (`baselineEvents`),
 * folded into one diff and written once per method into fresh stores; the bulk path
 * (`applyDiff`, CSV COPY) is timed on that same diff too, so the small-scale ratio is measured
 * like for like. The headline ratio compares the full run's write phase with the per-row rate.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { extractEvent } from "../projection/extract/mod.ts";
import { GraphFold } from "../projection/graphFold.ts";
import { KuzuStore } from "../projection/kuzuStore.ts";
import { projectSession } from "../projection/projector.ts";
import type { GraphDiff } from "../projection/types.ts";
import { syncVectorIndex } from "../projection/vectorIndex.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { selfCommand, spawnMeasured } from "../platform/process.ts";
import { atLeast, atMost, type BenchMachine, benchMachine, type BenchTarget, median, round } from "./measure.ts";
import { mixedSessionItems, writeMixedSession } from "./mixedSession.ts";
import { refVerifyScript } from "./refVerifyScript.ts";

const sessionId = "reproject-bench";

export interface ReprojectBenchOptions {
  events: number;
  baselineEvents: number;
  seed?: number;
  workDir?: string;
  progress?: (message: string) => void;
  /** Fresh `zaxy reproject` processes timed, and `ref_verify.py` runs (default 3 each). */
  cliRuns?: number;
  /** How to run zaxy (default: this process's own command). */
  zaxyCommand?: string[];
}

/** `zaxy reproject --reset-projection --json` in fresh processes against `ref_verify.py`. */
export interface CliReprojectMeasurement {
  command: string[];
  runs_s: number[];
  median_s: number | null;
  peak_rss_mib: number[];
  max_peak_rss_mib: number | null;
  failures: string[];
  /** Seconds of each phase in the median run, as the command reports them. */
  phases_ms: Record<string, number> | null;
  vector_seconds: number | null;
  ref_verify: { runs_s: number[]; median_s: number | null; error: string | null };
  /** zaxy's median over ref_verify's median, same run. */
  ratio_to_ref_verify: number | null;
}

export interface RowCounts {
  entities: number;
  relations: number;
  events: number;
  total: number;
}

export interface WriteMeasurement {
  rows: number;
  seconds: number;
  rows_per_s: number;
}

export interface ReprojectBenchResult {
  machine: BenchMachine;
  command: string[];
  events: number;
  seed: number;
  event_types: Record<string, number>;
  append: { seconds: number; events_per_s: number; log_bytes: number };
  reproject: {
    seconds: number;
    phases_ms: Record<string, number>;
    rows_written: RowCounts;
    end_to_end_rows_per_s: number;
    write_rows_per_s: number;
    source: string;
  };
  vector_index: { seconds: number; vectors: number; dim: number; action: string };
  baseline: {
    note: string;
    prefix_events: number;
    rows: RowCounts;
    per_row: WriteMeasurement;
    bulk_same_diff: WriteMeasurement;
    bulk_vs_per_row_same_diff: number;
  };
  cli: CliReprojectMeasurement;
  ratios: {
    /** The full run's write phase (rows/s) over the per-row rate: the write method alone. */
    bulk_write_vs_per_row: number;
    /** The full run end to end (verify, fold, write, cache) over the per-row write rate. */
    end_to_end_vs_per_row: number;
  };
  targets: Record<string, BenchTarget>;
}

function rowCounts(diff: GraphDiff): RowCounts {
  const entities = diff.newEntities.length;
  const relations = diff.newRelations.length;
  const events = diff.newEvents.length;
  return { entities, relations, events, total: entities + relations + events };
}

function measurement(rows: number, ms: number): WriteMeasurement {
  return { rows, seconds: round(ms / 1000, 3), rows_per_s: round(rows / (ms / 1000), 1) };
}

async function timeWrite(dbPath: string, write: (store: KuzuStore) => Promise<void>): Promise<number> {
  const store = await KuzuStore.open(dbPath);
  try {
    const started = performance.now();
    await write(store);
    return performance.now() - started;
  } finally {
    store.close();
  }
}

function mib(bytes: number | null): number | null {
  return bytes === null ? null : round(bytes / 2 ** 20, 1);
}

/** The command users run, from nothing derived, `runs` times; then `ref_verify.py` as often. */
function measureCli(zaxy: string[], root: string, logPath: string, workDir: string, runs: number, progress: (message: string) => void): CliReprojectMeasurement {
  const argv = [...zaxy, "reproject", "--reset-projection", "--json", "--eventloom-path", root, "--session-id", sessionId];
  const runsS: number[] = [];
  const rss: number[] = [];
  const failures: string[] = [];
  const reports: Array<{ seconds: number; phases: Record<string, number>; vectorSeconds: number }> = [];
  for (let i = 0; i < runs; i++) {
    progress(`zaxy reproject --reset-projection, fresh process ${i + 1}/${runs}`);
    const run = spawnMeasured(argv);
    if (run.exitCode !== 0) {
      failures.push(`exit ${run.exitCode}: ${run.stderr.trim().slice(0, 300)}`);
      continue;
    }
    runsS.push(round(run.wallMs / 1000, 3));
    const peak = mib(run.maxRssBytes);
    if (peak !== null) rss.push(peak);
    const session = JSON.parse(run.stdout).sessions[0];
    reports.push({ seconds: run.wallMs / 1000, phases: session.phases_ms, vectorSeconds: session.vector_seconds });
  }
  const script = path.join(workDir, "ref_verify.py");
  fs.writeFileSync(script, refVerifyScript);
  const refRuns: number[] = [];
  let refError: string | null = null;
  for (let i = 0; i < runs && refError === null; i++) {
    progress(`python3 ref_verify.py ${i + 1}/${runs}`);
    try {
      const run = spawnMeasured(["python3", script, logPath]);
      if (run.exitCode === 0) refRuns.push(round(run.wallMs / 1000, 3));
      else refError = `exit ${run.exitCode}: ${(run.stdout + run.stderr).trim().slice(0, 300)}`;
    } catch (error) {
      refError = `python3 cannot run: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const medianS = runsS.length === 0 ? null : round(median(runsS), 3);
  const refMedian = refRuns.length === 0 ? null : round(median(refRuns), 3);
  const medianReport = reports.slice().sort((a, b) => a.seconds - b.seconds)[Math.floor((reports.length - 1) / 2)];
  return {
    command: ["zaxy", ...argv.slice(zaxy.length)],
    runs_s: runsS,
    median_s: medianS,
    peak_rss_mib: rss,
    max_peak_rss_mib: rss.length === 0 ? null : Math.max(...rss),
    failures,
    phases_ms: medianReport?.phases ?? null,
    vector_seconds: medianReport?.vectorSeconds ?? null,
    ref_verify: { runs_s: refRuns, median_s: refMedian, error: refError },
    ratio_to_ref_verify: medianS === null || refMedian === null ? null : round(medianS / refMedian, 2),
  };
}

export async function runReprojectBench(options: ReprojectBenchOptions): Promise<ReprojectBenchResult> {
  const seed = options.seed ?? 7;
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-reproject-"));
  const root = path.join(workDir, ".eventloom");
  const progress = options.progress ?? (() => {});
  try {
    progress(`generating ${options.events} mixed events (seed ${seed})`);
    const session = mixedSessionItems(options.events, seed);
    const appendStarted = performance.now();
    const logPath = await writeMixedSession(root, sessionId, session.items);
    const appendMs = performance.now() - appendStarted;
    session.items.length = 0;

    progress("projectSession(rebuild: true)");
    let lastReported = 0;
    const projectStarted = performance.now();
    const projected = await projectSession(root, sessionId, {
      rebuild: true,
      graphStore: "sync",
      onStoreFailure: "throw",
      warn: (message) => progress(`warning: ${message}`),
      onProgress: (_phase, done, total) => {
        if (done - lastReported >= 100_000 || done === total) {
          lastReported = done;
          progress(`  rows written ${done}`);
        }
      },
    });
    const projectMs = performance.now() - projectStarted;
    const rows = projected.rows!;
    const written: RowCounts = {
      entities: rows.entities.length,
      relations: rows.relations.length,
      events: projected.eventsApplied,
      total: rows.entities.length + rows.relations.length + projected.eventsApplied,
    };
    const writeMs = projected.timingsMs.write_store ?? Number.NaN;

    progress("vector index build (postings)");
    const vectorStarted = performance.now();
    const vectors = await syncVectorIndex(root, sessionId, rows, projected.events, defaultEmbeddingDim);
    const vectorMs = performance.now() - vectorStarted;

    const prefixEvents = Math.min(options.baselineEvents, projected.events.length);
    progress(`per-row baseline on the first ${prefixEvents} events`);
    const fold = new GraphFold(sessionId);
    for (const event of projected.events.slice(0, prefixEvents)) fold.apply(event, extractEvent(event));
    const diff = fold.diff()!;
    const prefixRows = rowCounts(diff);
    const perRowMs = await timeWrite(path.join(workDir, "per-row", "embedded.kuzu"), (store) =>
      store.insertPerRowBaseline(diff, (done, total) => {
        if (done % 2000 === 0 || done === total) progress(`  per-row ${done}/${total}`);
      }));
    const bulkMs = await timeWrite(path.join(workDir, "bulk", "embedded.kuzu"), (store) => store.applyDiff(diff));

    const cli = measureCli(options.zaxyCommand ?? selfCommand(), root, logPath, workDir, options.cliRuns ?? 3, progress);

    const perRow = measurement(prefixRows.total, perRowMs);
    const bulkSame = measurement(prefixRows.total, bulkMs);
    const writeRowsPerS = written.total / (writeMs / 1000);
    const endToEndRowsPerS = written.total / (projectMs / 1000);
    const bulkWriteRatio = writeRowsPerS / perRow.rows_per_s;
    return {
      machine: benchMachine(),
      command: ["zaxy", "bench", "reproject", "--events", String(options.events), "--baseline-events", String(options.baselineEvents)],
      events: options.events,
      seed,
      event_types: session.typeCounts,
      append: { seconds: round(appendMs / 1000, 3), events_per_s: round(options.events / (appendMs / 1000), 1), log_bytes: fs.statSync(logPath).size },
      reproject: {
        seconds: round(projectMs / 1000, 3),
        phases_ms: projected.timingsMs,
        rows_written: written,
        end_to_end_rows_per_s: round(endToEndRowsPerS, 1),
        write_rows_per_s: round(writeRowsPerS, 1),
        source: projected.source,
      },
      vector_index: { seconds: round(vectorMs / 1000, 3), vectors: vectors.count, dim: vectors.dim, action: vectors.action },
      baseline: {
        note: `measured on the first ${prefixEvents} events: one statement per row for the whole session would take tens of minutes`,
        prefix_events: prefixEvents,
        rows: prefixRows,
        per_row: perRow,
        bulk_same_diff: bulkSame,
        bulk_vs_per_row_same_diff: round(bulkSame.rows_per_s / perRow.rows_per_s, 2),
      },
      cli,
      ratios: {
        bulk_write_vs_per_row: round(bulkWriteRatio, 2),
        end_to_end_vs_per_row: round(endToEndRowsPerS / perRow.rows_per_s, 2),
      },
      targets: {
        reproject_seconds: atMost(30, projectMs / 1000, "<= 30 s"),
        bulk_write_vs_per_row: atLeast(20, bulkWriteRatio, ">= 20x"),
        cli_reproject_vs_ref_verify: atMost(10, cli.ratio_to_ref_verify, "<= 10x ref_verify.py on the same log"),
        cli_reproject_peak_rss_mib: atMost(1536, cli.max_peak_rss_mib, "<= 1.5 GiB"),
      },
    };
  } finally {
    if (options.workDir === undefined) fs.rmSync(workDir, { recursive: true, force: true });
    else progress(`note: session kept in ${root}`);
  }
}
