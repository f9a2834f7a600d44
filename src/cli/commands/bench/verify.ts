/** `zaxy bench verify`: verify throughput vs python3 ref_verify.py and one-shot SHA-256. */
import { runVerifyBench, type VerifyBenchResult } from "../../../bench/verifyBench.ts";
import { intOption } from "../../args.ts";
import { booleanOption, defineCommand, listOption } from "../../command.ts";
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

export const benchVerifyCommand = defineCommand({
  name: "verify",
  store: "self",
  summary: "Verify throughput vs python3 ref_verify.py and one-shot SHA-256; peak RSS; cold start",
  description:
    "Generates a Python-style legacy log and a zaxy-written v1 log (default 1,000,000 events,\n" +
    "about 700 MB each) in a temporary directory, then times `zaxy verify` in fresh processes\n" +
    "(median of --runs), one-shot SHA-256 of the same bytes, and python3 ref_verify.py once.\n" +
    "Also times the cold start of `zaxy verify` on a 10-event log.",
  options: {
    events: { type: "string", valueName: "N", description: "Events per generated log (default 1000000)" },
    runs: { type: "string", valueName: "R", description: "Runs per zaxy/SHA-256 measurement (default 5)" },
    log: { type: "string", multiple: true, valueName: "PATH", description: "Benchmark this log instead of generating" },
    "no-python": { type: "boolean", description: "Skip the python3 ref_verify.py baseline" },
    "cold-start-runs": { type: "string", valueName: "N", description: "Cold start samples (default 21; 0 skips)" },
    keep: { type: "boolean", description: "Keep the generated logs (path printed on stderr)" },
  },
  positionals: [],
  examples: ["zaxy bench verify --json", "zaxy bench verify --events 100000 --runs 3"],
  async run(ctx) {
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
  },
});
