/** What startup.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { runStartupBench, type StartupBenchResult, type StartupSample } from "../../../bench/startupBench.ts";
import { intOption } from "../../args.ts";
import type { CommandContext } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

/** Default measured runs of each command. */
const startupRunsDefault = 50;

function sampleLine(label: string, sample: StartupSample): string {
  return `  ${label.padEnd(26)} median ${sample.median_ms.toFixed(1).padStart(7)} ms  p90 ${sample.p90_ms.toFixed(1).padStart(7)} ms`;
}

function render(result: StartupBenchResult): string {
  const what = result.measured === "binary" ? `the binary ${result.command[0]}` : `the source run (${result.command.join(" ")})`;
  return [
    `start-up of ${what}: ${result.runs} runs after ${result.warmup_runs} warm-ups`,
    sampleLine("zaxy --version", result.version),
    sampleLine(`zaxy verify (${result.verify.events} events)`, result.verify),
    ...renderTargets(result.targets, 1),
    machineLine(result.machine),
  ].join("\n");
}

export async function runBenchStartup(ctx: CommandContext): Promise<number> {
  const runs = intOption(ctx, "runs", 1, 10_000) ?? startupRunsDefault;
  const reporter = benchMessages(ctx, "startup");
  let result: StartupBenchResult;
  try {
    result = await runStartupBench({ runs, progress: reporter.message });
  } finally {
    reporter.done();
  }
  emit(ctx, "zaxy.bench.startup.v1", { ...result }, () => render(result));
  return 0;
}
