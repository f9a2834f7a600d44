/** What fleet.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { FleetBenchResult } from "../../../bench/fleetBench.ts";
import { intOption } from "../../args.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

function timing(label: string, summary: FleetBenchResult["timings_ms"]["promote"]): string {
  if (summary === null) return `  ${label.padEnd(24)} -`;
  return `  ${label.padEnd(24)} p50 ${summary.p50_ms} ms, p95 ${summary.p95_ms} ms, max ${summary.max_ms} ms (${summary.count} samples)`;
}

function render(r: FleetBenchResult): string {
  const g = r.governance;
  const lines = [
    machineLine(r.machine),
    `${r.scenarios} scenarios (fresh roots), ${r.scenario_plan.receivers_min}..${r.scenario_plan.receivers_max} receivers each; kinds ` +
    Object.entries(r.scenario_plan.kinds).map(([kind, n]) => `${kind} ${n}`).join(", ") + "; scopes " +
    Object.entries(r.scenario_plan.scopes).map(([scope, n]) => `${scope} ${n}`).join(", "),
    `  transfer rate            ${r.transfer.rate.toFixed(4)}  (${r.transfer.hits}/${r.transfer.receivers} receivers cite the promotion)`,
    `  negative control rate    ${r.negative_control.rate.toFixed(4)}  (${r.negative_control.leaks}/${r.negative_control.checkouts} control checkouts leaked: ` +
    `stranger ${r.negative_control.stranger_leaks}, untrusted ${r.negative_control.untrusted_leaks}, lane off ${r.negative_control.lane_off_leaks})`,
    `  governance rate          ${g.rate.toFixed(4)}  (${g.scenarios_held}/${r.scenarios} scenarios: rejections append nothing ${g.rejection_appends_nothing_rate}, ` +
    `gate cited ${g.gate_event_cited_rate}, keystone hold ${g.keystone_hold_pending_rate}, pending until review ${g.pending_excluded_until_review_rate}, ` +
    `rollback re-activates ${g.rollback_reactivates_rate})`,
    timing("promote", r.timings_ms.promote),
    timing("checkout (fleet lane)", r.timings_ms.checkout_fleet_lane),
    timing("fleet lane alone", r.timings_ms.fleet_lane_build),
    timing("scenario", r.timings_ms.scenario),
    `  total ${(r.timings_ms.total_ms / 1000).toFixed(1)} s`,
    ...r.failures.map((f) => `  FAILED scenario ${f.scenario} ${f.check}: ${f.detail}`),
    ...renderTargets(r.targets, 4),
  ];
  return lines.join("\n");
}

export async function runBenchFleet(ctx: CommandContext): Promise<number> {
  const { fleetBenchDefaults, fleetBenchScenariosMax, runFleetBench } = await import("../../../bench/fleetBench.ts");
  const reporter = benchMessages(ctx, "fleet");
  const result = await runFleetBench({
    scenarios: intOption(ctx, "scenarios", 1, fleetBenchScenariosMax) ?? fleetBenchDefaults.scenarios,
    progress: reporter.message,
  });
  reporter.done();
  emit(ctx, "zaxy.bench.fleet.v1", { ...result }, () => render(result));
  return 0;
}
