/** `zaxy bench verify`: verify throughput vs python3 ref_verify.py and one-shot SHA-256. */
import { defineCommand } from "../../command.ts";

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
    const { runBenchVerify } = await import("./verifyRun.ts");
    return await runBenchVerify(ctx);
  },
});
