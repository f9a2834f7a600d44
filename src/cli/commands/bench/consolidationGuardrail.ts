/**
 * `zaxy bench consolidation-guardrail`: score the candidates `propose-from-log` produces on
 * the committed fixture session (type match, source-event fidelity, authority boundary, review
 * gate). The benchmark is imported only when the command runs.
 */
import { defineCommand } from "../../command.ts";

export const benchConsolidationGuardrailCommand = defineCommand({
  name: "consolidation-guardrail",
  store: "self",
  summary: "Consolidation guardrail: type, source-event fidelity, authority boundary, review gate",
  description:
    "Copies the fixture session (default fixtures/consolidation, relative to the current\n" +
    "directory) to a temporary root, runs propose-from-log on it twice (the second run must\n" +
    "create nothing), and scores every case of cases.json against the best-fitting candidate\n" +
    "read back from the log. --json prints {machine, fixture, propose, rows, summary}.",
  options: {
    fixture: { type: "string", valueName: "DIR", description: "Fixture directory with cases.json and the session log" },
  },
  positionals: [],
  examples: ["zaxy bench consolidation-guardrail --json"],
  async run(ctx) {
    const { runBenchConsolidationGuardrail } = await import("./consolidationGuardrailRun.ts");
    return await runBenchConsolidationGuardrail(ctx);
  },
});
