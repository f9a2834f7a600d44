/** What store.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { StoreBenchResult, WriterStats } from "../../../bench/storeBench.ts";
import { intOption } from "../../args.ts";
import { booleanOption } from "../../command.ts";
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

export async function runBenchStore(ctx: CommandContext): Promise<number> {
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
}

export async function runBenchStoreWriter(ctx: CommandContext): Promise<number> {
  const { runStoreWriter } = await import("../../../bench/storeBench.ts");
  const latencies = await runStoreWriter(ctx.global.eventloomPath, ctx.global.sessionId, intOption(ctx, "writer", 0, 100_000) ?? 0, intOption(ctx, "appends", 1, 1_000_000) ?? 1);
  emit(ctx, "zaxy.bench.store_writer.v1", { latencies_ms: latencies }, () => `${latencies.length} appends`);
  return 0;
}
