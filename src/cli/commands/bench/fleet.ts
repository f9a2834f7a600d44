/**
 * `zaxy bench fleet`: cross-agent transfer through a fleet, the negative control, and
 * governance, over fresh scenario roots (docs/fleet.md, "Benchmark"). The benchmark is imported
 * only when it runs.
 */
import { defineCommand } from "../../command.ts";

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
    const { runBenchFleet } = await import("./fleetRun.ts");
    return await runBenchFleet(ctx);
  },
});
