/** What verify.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { runVerifyBench, type VerifyBenchResult } from "../../../bench/verifyBench.ts";
import { intOption } from "../../args.ts";
import { booleanOption, listOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function fixed(value: number | null | undefined, digits = 1): string {
  return value === null || value === undefined ? "-" : value.toFixed(digits);
}

function render(result: VerifyBenchResult): string {
  const m = result.machine;
  const lines = [`machine: ${m.cpu}, ${m.cores} cores, ${m.memory_gb} GiB, ${m.os}, ${m.runtime}`];
  for (const log of result.logs) {
    lines.push(
      `${log.name}: ${log.events ?? "?"} events, ${fixed(log.bytes / 1e6)} MB`,
      `  zaxy verify      ${fixed(log.zaxy_verify.median_s, 2)} s  ${fixed(log.zaxy_verify.mb_per_s)} MB/s  peak RSS ${fixed(log.zaxy_verify.peak_rss_mb)} MB  (median of ${log.zaxy_verify.runs_s.length})`,
      `  SHA-256 one-shot ${fixed(log.sha256_one_shot.median_s, 2)} s  ${fixed(log.sha256_one_shot.mb_per_s)} MB/s  -> zaxy at ${fixed(log.ratio_to_sha256 * 100)} % of it`,
    );
    if (log.python_ref_verify) {
      lines.push(`  ref_verify.py    ${fixed(log.python_ref_verify.seconds, 2)} s  ${fixed(log.python_ref_verify.mb_per_s)} MB/s  -> zaxy ${fixed(log.speedup_vs_python)}x faster`);
    }
  }
  if (result.cold_start) lines.push(`cold start (verify, 10 events): median ${fixed(result.cold_start.median_ms)} ms over ${result.cold_start.runs_ms.length} runs`);
  lines.push("targets:");
  for (const [name, t] of Object.entries(result.targets)) {
    lines.push(`  ${name.padEnd(28)} ${t.target.padEnd(8)} ${fixed(t.value, 2).padStart(8)}  ${t.met === null ? "n/a" : t.met ? "met" : "NOT MET"}`);
  }
  return lines.join("\n");
}

export async function runBenchVerify(ctx: CommandContext): Promise<number> {
  const reporter = benchMessages(ctx, "verify");
  const result = await runVerifyBench({
    events: intOption(ctx, "events", 1, 50_000_000) ?? 1_000_000,
    runs: intOption(ctx, "runs", 1, 100) ?? 5,
    python: !booleanOption(ctx, "no-python"),
    logs: listOption(ctx, "log"),
    keep: booleanOption(ctx, "keep"),
    coldStartRuns: intOption(ctx, "cold-start-runs", 0, 1000) ?? 21,
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.verify.v1", { ...result }, () => render(result));
  return 0;
}
