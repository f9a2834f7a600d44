/** `zaxy bench startup`: wall time of fresh `zaxy --version` and `zaxy verify` processes. */
import { defineCommand } from "../../command.ts";

export const benchStartupCommand = defineCommand({
  name: "startup",
  store: "self",
  usesRoot: false,
  summary: "Start-up time: fresh `zaxy --version` and `zaxy verify` of a 3-event log (median, p90)",
  description:
    "Runs this program in fresh processes: `zaxy --version`, and `zaxy verify` of a 3-event log\n" +
    "written to a temporary directory. Each is run 3 times first, then --runs times; prints the\n" +
    "median and p90 wall time in ms. From the binary it measures the binary; run from source\n" +
    "(bun or deno src/bin/zaxy.ts) it measures the source run, which is much slower.",
  options: {
    runs: { type: "string", valueName: "N", description: "Measured runs of each command (default 50)" },
  },
  positionals: [],
  examples: ["zaxy bench startup", "zaxy bench startup --runs 200 --json"],
  async run(ctx) {
    const { runBenchStartup } = await import("./startupRun.ts");
    return await runBenchStartup(ctx);
  },
});
