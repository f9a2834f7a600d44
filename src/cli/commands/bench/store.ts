/**
 * `zaxy bench store --store URL`: concurrent writers, verify and import throughput of the shared
 * store against the file store, in one run (docs/store.md, README table). The hidden
 * `bench store-writer` is one writer process of that benchmark.
 */
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { StoreBenchResult, WriterStats } from "../../../bench/storeBench.ts";
import { intOption } from "../../args.ts";
import { booleanOption, defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";
import { withStoreClient } from "../store/storeArgs.ts";

function fixed(value: number | null, digits = 1): string {
  return value === null ? "-" : value.toFixed(digits);
}

function writerLine(stats: WriterStats): string {
  const latency = stats.latency_ms;
  return `  ${stats.backend.padEnd(5)}  ${stats.events} events in ${fixed(stats.wall_s, 2)} s = ${fixed(stats.appends_per_s, 0)} appends/s, latency p50 ${fixed(latency?.p50_ms ?? null, 1)} ms p99 ${fixed(latency?.p99_ms ?? null, 1)} ms; lost ${stats.lost}, duplicated ${stats.duplicated}, chain ${stats.chain_ok ? "valid" : "BROKEN"}`;
}

function render(result: StoreBenchResult): string {
  const v = result.verify;
  const lines = [
    machineLine(result.machine),
    `store ${result.store}`,
    `writers (${result.writers.store.writers} processes x ${result.writers.store.appends_per_writer} appends, one session):`,
    writerLine(result.writers.store),
    writerLine(result.writers.file),
    `verify ${v.events} events (${fixed(v.bytes / 1e6, 1)} MB): file ${fixed(v.file.median_s, 3)} s (${fixed(v.file.mb_per_s, 0)} MB/s), store ${fixed(v.store.median_s, 3)} s (${fixed(v.store.mb_per_s, 0)} MB/s) -> store at ${fixed(v.store_to_file * 100, 0)} % of file (${v.store_readers} ${v.store_readers === 1 ? "connection" : "connections"})`,
    `  (${v.table_settled.note})`,
  ];
  if (result.import !== null) {
    lines.push(`import ${result.import.events} events (${fixed(result.import.bytes / 1e6, 0)} MB): ${fixed(result.import.seconds, 2)} s = ${fixed(result.import.mb_per_s, 0)} MB/s`);
  }
  lines.push(...renderTargets(result.targets));
  return lines.join("\n");
}

export const benchStoreCommand = defineCommand({
  name: "store",
  store: "self",
  summary: "Shared store vs file store: concurrent writers, verify and import throughput",
  description:
    "Needs --store (or ZAXY_STORE) naming an initialised store; writes only threads named\n" +
    "zaxy-bench-<pid>-*, deleted at the end. Writers: --writers processes x --appends appends to\n" +
    "one session, each process on its own root (as on separate hosts), then the same on one file\n" +
    "under flock; lost or duplicated events and the chain are checked. Verify: `zaxy verify\n" +
    "--store` of a --verify-events log against `zaxy verify FILE` (medians of --runs fresh\n" +
    "processes). Import: `zaxy store import` of a --import-events log (0 skips).",
  options: {
    writers: { type: "string", valueName: "N", description: "Concurrent writer processes (default 32)" },
    appends: { type: "string", valueName: "M", description: "Appends per writer (default 200)" },
    "verify-events": { type: "string", valueName: "N", description: "Events of the verify log (default 200000)" },
    "import-events": { type: "string", valueName: "N", description: "Events of the import log (default 1000000; 0 skips)" },
    runs: { type: "string", valueName: "R", description: "Fresh-process runs per verify measurement (default 5)" },
    keep: { type: "boolean", description: "Keep the generated files (path printed on stderr)" },
  },
  positionals: [],
  examples: ["zaxy bench store --store postgres://zaxy@127.0.0.1/zaxy --json", "zaxy bench store --store $ZAXY_STORE --writers 8 --appends 50 --import-events 0"],
  async run(ctx) {
    const result = await withStoreClient(ctx, async (client) => {
      const { runStoreBench } = await import("../../../bench/storeBench.ts");
      const reporter = benchMessages(ctx, "store");
      return await runStoreBench({
        storeUrl: client.url.url,
        client,
        writers: intOption(ctx, "writers", 1, 256) ?? 32,
        appends: intOption(ctx, "appends", 1, 100_000) ?? 200,
        verifyEvents: intOption(ctx, "verify-events", 1, 50_000_000) ?? 200_000,
        importEvents: intOption(ctx, "import-events", 0, 50_000_000) ?? 1_000_000,
        runs: intOption(ctx, "runs", 1, 100) ?? 5,
        keep: booleanOption(ctx, "keep"),
        progress: reporter.message,
      }).finally(() => reporter.done());
    });
    emit(ctx, "zaxy.bench.store.v1", { ...result }, () => render(result));
    return 0;
  },
});

export const benchStoreWriterCommand = defineCommand({
  name: "store-writer",
  hidden: true,
  writesRoot: true,
  summary: "One writer process of `zaxy bench store`",
  description: "Appends --appends events to the session (through the store with --store) and prints {latencies_ms}.",
  options: {
    writer: { type: "string", valueName: "N", description: "This writer's number" },
    appends: { type: "string", valueName: "M", description: "Appends to make" },
  },
  positionals: [],
  async run(ctx) {
    const { runStoreWriter } = await import("../../../bench/storeBench.ts");
    const latencies = await runStoreWriter(ctx.global.eventloomPath, ctx.global.sessionId, intOption(ctx, "writer", 0, 100_000) ?? 0, intOption(ctx, "appends", 1, 1_000_000) ?? 1);
    emit(ctx, "zaxy.bench.store_writer.v1", { latencies_ms: latencies }, () => `${latencies.length} appends`);
    return 0;
  },
});
