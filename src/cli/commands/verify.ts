/** `zaxy verify [LOG ... | --all] [--all-errors]`: check hash chains; exit 1 if any is broken. */
import { defineCommand } from "../command.ts";

export const verifyCommand = defineCommand({
  name: "verify",
  summary: "Verify the hash chain of logs (exit 1 when one is broken)",
  description:
    "Verifies Eventloom logs: every event's seal, the seq order of legacy lines, and every link\n" +
    "to the previous hash. Without LOG, verifies the current session's log; --all verifies every\n" +
    "*.jsonl under the Eventloom root. Memory stays bounded whatever the log size.",
  options: {
    all: { type: "boolean", description: "Verify every log under the Eventloom root" },
    "all-errors": { type: "boolean", description: "List every failure, not just the first" },
  },
  positionals: [{ name: "LOG", description: "Log file(s) to verify", variadic: true }],
  examples: ["zaxy verify", "zaxy verify .eventloom/agent-1.jsonl --json", "zaxy verify --all --all-errors"],
  store: "self",
  async run(ctx) {
    const { runVerify } = await import("./verifyRun.ts");
    return await runVerify(ctx);
  },
});
