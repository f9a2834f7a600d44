/**
 * `zaxy bench store --store URL`: the shared store against the file store, in one
 * run on one machine.
 * - writers: N concurrent processes x M appends to one session, each process on its own root
 *   (as on separate hosts) for the store, all on one root under flock for files; zero lost or
 *   duplicated events and a valid chain are checked, appends/s and p50/p99 latency reported;
 * - verify: `zaxy verify --store` of a thread against `zaxy verify FILE` of the same log
 *   (fresh processes, medians);
 * - import: `zaxy store import` of a large log, MB/s.
 * Everything the bench writes to the store is in threads named `zaxy-bench-<pid>-*`, deleted
 * at the end.
 */
import { spawn } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvents } from "../events/append.ts";
import { readLogLines } from "../eventloom/lines.ts";
import { verifyLog } from "../eventloom/verify.ts";
import { selfCommand, spawnMeasured } from "../platform/process.ts";
import type { StoreClient } from "../store/storeClient.ts";
import { storeReaders } from "../store/parallelVerify.ts";
import { verifyStoreThread } from "../store/transfer.ts";
import { atLeast, type BenchMachine, benchMachine, type BenchTarget, type LatencySummary, latencySummary, median } from "./measure.ts";
import { writeSyntheticLog } from "./syntheticLog.ts";

export interface StoreBenchOptions {
  storeUrl: string;
  client: StoreClient;
  writers: number;
  appends: number;
  verifyEvents: number;
  importEvents: number;
  runs: number;
  workDir?: string;
  keep?: boolean;
  progress?: (message: string) => void;
}

export interface WriterStats {
  backend: "store" | "file";
  writers: number;
  appends_per_writer: number;
  events: number;
  wall_s: number;
  appends_per_s: number;
  latency_ms: LatencySummary | null;
  lost: number;
  duplicated: number;
  chain_ok: boolean;
  failed_writers: number;
}

export interface StoreBenchResult {
  machine: BenchMachine;
  store: string;
  command: string[];
  writers: { store: WriterStats; file: WriterStats; store_to_file_throughput: number };
  verify: { events: number; bytes: number; file: { median_s: number; mb_per_s: number; runs_s: number[] }; store: { median_s: number; mb_per_s: number; runs_s: number[] }; store_to_file: number; store_readers: number; table_settled: { vacuumed: boolean; note: string }; ok: boolean };
  import: { events: number; bytes: number; seconds: number; mb_per_s: number; ok: boolean } | null;
  targets: Record<string, BenchTarget>;
}

/** One writer process (`zaxy bench store-writer`): M appends, one latency per append. */
export async function runStoreWriter(root: string, sessionId: string, writer: number, appends: number): Promise<number[]> {
  const latencies: number[] = [];
  for (let i = 0; i < appends; i++) {
    const started = performance.now();
    await appendEvents(root, sessionId, [{ type: "tool.call.completed", actor: `writer-${writer}`, payload: fromJs({ tool: "bench", writer, i }) }]);
    latencies.push(performance.now() - started);
  }
  return latencies;
}

function runChild(argv: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "pipe", "pipe"], env: process.env });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8");
    child.stderr.setEncoding("utf8");
    child.stdout.on("data", (chunk: string) => void (stdout += chunk));
    child.stderr.on("data", (chunk: string) => void (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Checks the appended payloads: every (writer, i) exactly once. */
function countWrites(lines: Iterable<Uint8Array>, writers: number, appends: number): { lost: number; duplicated: number } {
  const seen = new Map<string, number>();
  const decoder = new TextDecoder();
  for (const bytes of lines) {
    const event = JSON.parse(decoder.decode(bytes));
    const payload = event.payload as { writer?: number; i?: number; tool?: string };
    if (payload?.tool !== "bench") continue;
    const key = `${payload.writer}:${payload.i}`;
    seen.set(key, (seen.get(key) ?? 0) + 1);
  }
  let lost = 0;
  let duplicated = 0;
  for (let w = 0; w < writers; w++) {
    for (let i = 0; i < appends; i++) {
      const times = seen.get(`${w}:${i}`) ?? 0;
      if (times === 0) lost++;
      else duplicated += times - 1;
    }
  }
  return { lost, duplicated };
}

async function benchWriters(backend: "store" | "file", options: StoreBenchOptions, workDir: string, session: string): Promise<WriterStats> {
  const self = selfCommand();
  const started = performance.now();
  const runs = await Promise.all(
    Array.from({ length: options.writers }, (_, writer) => {
      const root = backend === "store" ? path.join(workDir, `host-${writer}`) : path.join(workDir, "files");
      return runChild([
        ...self,
        "bench",
        "store-writer",
        "--eventloom-path",
        root,
        "--session-id",
        session,
        "--writer",
        String(writer),
        "--appends",
        String(options.appends),
        ...(backend === "store" ? ["--store", options.storeUrl] : []),
        "--json",
      ]);
    }),
  );
  const wallS = (performance.now() - started) / 1000;
  const latencies: number[] = [];
  let failed = 0;
  for (const run of runs) {
    if (run.code !== 0) {
      failed++;
      options.progress?.(`a ${backend} writer failed (exit ${run.code}): ${run.stderr.trim().split("\n")[0]}`);
      continue;
    }
    latencies.push(...(JSON.parse(run.stdout).latencies_ms as number[]));
  }
  let lines: Uint8Array[] = [];
  let chainOk: boolean;
  if (backend === "store") {
    const scratch = path.join(workDir, "writers-export.jsonl");
    const verified = await verifyStoreThread(options.client, session);
    chainOk = verified.report.ok;
    const rows = await options.client.run("read the bench's rows", (sql) => sql`SELECT line FROM eventloom_events WHERE thread = ${session} ORDER BY seq`.raw());
    lines = rows.map((row) => row[0] as Uint8Array);
    fs.rmSync(scratch, { force: true });
  } else {
    const file = path.join(workDir, "files", `${session}.jsonl`);
    chainOk = (await verifyLog(file)).ok;
    for (const line of readLogLines(file)) lines.push(new Uint8Array(line.bytes));
  }
  const { lost, duplicated } = countWrites(lines, options.writers, options.appends);
  const events = latencies.length;
  return {
    backend,
    writers: options.writers,
    appends_per_writer: options.appends,
    events,
    wall_s: wallS,
    appends_per_s: events / wallS,
    latency_ms: latencySummary(latencies),
    lost,
    duplicated,
    chain_ok: chainOk,
    failed_writers: failed,
  };
}

/**
 * `runs` timed runs of each command, alternated (a, b, a, b, ...) after one untimed run of each
 * that warms the caches on both sides: background work (the server's, the machine's) falls on
 * both commands alike rather than on whichever ran second.
 */
function alternatedRuns(a: string[], b: string[], runs: number): [{ runs_s: number[]; ok: boolean }, { runs_s: number[]; ok: boolean }] {
  const results = [{ runs_s: [] as number[], ok: true }, { runs_s: [] as number[], ok: true }] as [{ runs_s: number[]; ok: boolean }, { runs_s: number[]; ok: boolean }];
  spawnMeasured(a);
  spawnMeasured(b);
  for (let i = 0; i < runs; i++) {
    for (const [index, argv] of [a, b].entries()) {
      const run = spawnMeasured(argv);
      results[index].ok &&= run.exitCode === 0;
      results[index].runs_s.push(run.wallMs / 1000);
    }
  }
  return results;
}

/**
 * Brings the events table to a steady state before the verify runs: `VACUUM (ANALYZE)` after
 * the bench's own bulk writes, so autovacuum does not start on them in the middle of the store's
 * runs (measured: the server's CPU per verify 0.3 s -> 0.5 s while it ran). Needs the table's
 * owner; otherwise says why it was not done.
 */
async function settleEventsTable(client: StoreClient): Promise<{ vacuumed: boolean; note: string }> {
  const owner = await client.run("check the events table's owner", (sql) =>
    sql`SELECT pg_has_role(current_user, c.relowner, 'USAGE') AS owns FROM pg_class c WHERE c.oid = to_regclass('eventloom_events')`
  ).catch(() => []);
  if (owner[0]?.owns !== true) return { vacuumed: false, note: "not the owner of eventloom_events: autovacuum may run during the verify runs" };
  await client.run("vacuum the events table", (sql) => sql.unsafe("VACUUM (ANALYZE) eventloom_events"), 600_000);
  return { vacuumed: true, note: "VACUUM (ANALYZE) eventloom_events after the bench's writes" };
}

async function deleteThreads(client: StoreClient, prefix: string): Promise<void> {
  await client.run("remove the bench's threads", async (sql) => {
    await sql`DELETE FROM eventloom_events WHERE thread LIKE ${prefix + "%"}`;
    await sql`DELETE FROM eventloom_heads WHERE thread LIKE ${prefix + "%"}`;
    await sql`DELETE FROM eventloom_requests WHERE thread LIKE ${prefix + "%"}`;
  });
}

export async function runStoreBench(options: StoreBenchOptions): Promise<StoreBenchResult> {
  const workDir = options.workDir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-bench-store-"));
  const prefix = `zaxy-bench-${process.pid}-`;
  const self = selfCommand();
  try {
    options.progress?.(`writers: ${options.writers} processes x ${options.appends} appends on the store`);
    const storeWriters = await benchWriters("store", options, workDir, `${prefix}writers`);
    options.progress?.(`writers: ${options.writers} processes x ${options.appends} appends on one file under flock`);
    const fileWriters = await benchWriters("file", options, workDir, `${prefix}writers`);

    options.progress?.(`verify: generating ${options.verifyEvents} events`);
    const verifyFile = path.join(workDir, `${prefix}verify.jsonl`);
    const verifyBytes = writeSyntheticLog({ path: verifyFile, events: options.verifyEvents, style: "python-legacy" });
    const verifyRoot = path.join(workDir, "verify-root");
    const imported = spawnMeasured([...self, "store", "import", verifyFile, "--store", options.storeUrl, "--eventloom-path", verifyRoot]);
    if (imported.exitCode !== 0) throw new Error(`importing the verify log failed: ${imported.stderr}`);
    options.progress?.("verify: vacuuming the events table after the bench's writes");
    const settled = await settleEventsTable(options.client);
    options.progress?.(`verify: zaxy verify FILE vs zaxy verify --store (${options.runs} runs each, alternated)`);
    const [fileRuns, storeRuns] = alternatedRuns(
      [...self, "verify", verifyFile],
      [...self, "verify", "--store", options.storeUrl, "--session-id", `${prefix}verify`, "--eventloom-path", verifyRoot],
      options.runs,
    );
    const mb = verifyBytes / 1e6;
    const fileMedian = median(fileRuns.runs_s);
    const storeMedian = median(storeRuns.runs_s);

    let importResult: StoreBenchResult["import"] = null;
    if (options.importEvents > 0) {
      options.progress?.(`import: generating ${options.importEvents} events`);
      const importFile = path.join(workDir, `${prefix}import.jsonl`);
      const importBytes = writeSyntheticLog({ path: importFile, events: options.importEvents, style: "python-legacy" });
      fs.rmSync(verifyFile, { force: true });
      options.progress?.(`import: zaxy store import (${(importBytes / 1e6).toFixed(0)} MB)`);
      const run = spawnMeasured([...self, "store", "import", importFile, "--store", options.storeUrl, "--eventloom-path", verifyRoot]);
      importResult = { events: options.importEvents, bytes: importBytes, seconds: run.wallMs / 1000, mb_per_s: importBytes / 1e6 / (run.wallMs / 1000), ok: run.exitCode === 0 };
      if (!options.keep) fs.rmSync(importFile, { force: true });
    }
    const storeToFile = fileMedian / storeMedian;
    const writersClean = storeWriters.lost === 0 && storeWriters.duplicated === 0 && storeWriters.chain_ok && storeWriters.failed_writers === 0 ? 1 : 0;
    return {
      machine: benchMachine(),
      store: options.client.url.redacted,
      command: ["zaxy", "bench", "store", "--store", options.client.url.redacted, "--writers", String(options.writers), "--appends", String(options.appends), "--verify-events", String(options.verifyEvents), "--import-events", String(options.importEvents), "--runs", String(options.runs)],
      writers: { store: storeWriters, file: fileWriters, store_to_file_throughput: storeWriters.appends_per_s / fileWriters.appends_per_s },
      verify: {
        events: options.verifyEvents,
        bytes: verifyBytes,
        file: { median_s: fileMedian, mb_per_s: mb / fileMedian, runs_s: fileRuns.runs_s },
        store: { median_s: storeMedian, mb_per_s: mb / storeMedian, runs_s: storeRuns.runs_s },
        store_to_file: storeToFile,
        // Connections each store run read the thread on (src/store/parallelVerify.ts).
        store_readers: storeReaders(options.verifyEvents, process.env),
        table_settled: settled,
        ok: fileRuns.ok && storeRuns.ok,
      },
      import: importResult,
      targets: {
        writers_zero_lost_or_duplicated_valid_chain: atLeast(1, writersClean, "= 1"),
        verify_store_to_file_throughput: atLeast(0.5, storeToFile),
        import_mb_per_s: atLeast(50, importResult?.mb_per_s ?? null),
      },
    };
  } finally {
    await deleteThreads(options.client, prefix).catch(() => {});
    if (options.keep) options.progress?.(`note: kept ${workDir}`);
    else fs.rmSync(workDir, { recursive: true, force: true });
  }
}
