/**
 * `zaxy bench fleet`: cross-agent transfer through a fleet, the negative control, and
 * governance, over fresh scenario roots (docs/fleet.md, "Benchmark"). The benchmark is imported
 * only when it runs.
 */
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import type { FleetBenchResult } from "../../../bench/fleetBench.ts";
import { intOption } from "../../args.ts";
import { defineCommand } from "../../command.ts";
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

export const benchFleetCommand = defineCommand({
  name: "fleet",
  store: "self",
  summary: "Fleet transfer, negative control and governance over fresh scenario roots; rates and timings",
  description:
    "Runs --scenarios scenarios, each in a fresh temporary root with fleet_enabled: agent A promotes\n" +
    "what it learned (kind rotating skill/outcome/rule, every fourth scope global) and 3..10 receivers\n" +
    "check out with the fleet lane. transfer rate = receivers whose checkout cites the sealed\n" +
    "promotion event; negative control rate = stranger, untrusted and lane-off checkouts that got any\n" +
    "fleet item (target 0); governance rate = scenarios where rejections append nothing, the gate\n" +
    "event is cited, a keystone holds a conflict pending, a pending promotion stays out of checkouts\n" +
    "until accepted, and a rollback re-activates what it superseded. Timings are reported with the\n" +
    "machine; they are not part of any rate.",
  options: {
    scenarios: { type: "string", valueName: "N", description: "Scenarios (1..1000, default 24)" },
  },
  positionals: [],
  examples: ["zaxy bench fleet", "zaxy bench fleet --scenarios 4 --json"],
  async run(ctx) {
    const { fleetBenchDefaults, fleetBenchScenariosMax, runFleetBench } = await import("../../../bench/fleetBench.ts");
    const reporter = benchMessages(ctx, "fleet");
    const result = await runFleetBench({
      scenarios: intOption(ctx, "scenarios", 1, fleetBenchScenariosMax) ?? fleetBenchDefaults.scenarios,
      progress: reporter.message,
    });
    reporter.done();
    emit(ctx, "zaxy.bench.fleet.v1", { ...result }, () => render(result));
    return 0;
  },
});
