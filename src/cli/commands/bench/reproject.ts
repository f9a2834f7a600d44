/**
 * `zaxy bench reproject`: full rebuild of a mixed session, per phase, vector index apart, and
 * bulk load vs one statement per row. The benchmark is imported only when the command runs.
 */
import { defineCommand } from "../../command.ts";

export const benchReprojectCommand = defineCommand({
  name: "reproject",
  store: "self",
  summary: "Full reproject of a mixed session (phases, rows/s), vector index build, bulk vs per-row writes",
  description:
    "Generates a seeded mixed agent session (goals, tasks, decisions, preferences, documents,\n" +
    "transcript turns, tool calls, commands, file edits) in a temporary directory, times\n" +
    "projectSession with rebuild end to end and per phase, then the vector index build. The\n" +
    "one-statement-per-row baseline runs on the first --baseline-events events (the whole\n" +
    "session would take tens of minutes) and is compared with the bulk load of the same rows.\n" +
    "Then times `zaxy reproject --reset-projection` in --cli-runs fresh processes (rows, read\n" +
    "model and vector index rebuilt from nothing) against python3 ref_verify.py on the same log.",
  options: {
    events: { type: "string", valueName: "N", description: "Events in the session (default 100000)" },
    "baseline-events": { type: "string", valueName: "N", description: "Prefix for the per-row baseline (default 2000)" },
    "cli-runs": { type: "string", valueName: "N", description: "Fresh zaxy reproject and ref_verify.py runs (default 3)" },
  },
  positionals: [],
  examples: ["zaxy bench reproject --json", "zaxy bench reproject --events 20000 --baseline-events 500"],
  async run(ctx) {
    const { runBenchReproject } = await import("./reprojectRun.ts");
    return await runBenchReproject(ctx);
  },
});
