/**
 * `zaxy bench causal`: score successor and predecessor queries on the committed causal fixture
 * (hit, relation match, citation, authority boundary). The benchmark is imported only when the
 * command runs.
 */
import { defineCommand } from "../../command.ts";

export const benchCausalCommand = defineCommand({
  name: "causal",
  store: "self",
  summary: "Causal lane: successors and predecessors scored for hit, relation, citation, authority boundary",
  description:
    "Copies the fixture session (default fixtures/causal, relative to the current directory)\n" +
    "to a temporary root, checks it against the sha256 in cases.json, runs every case's\n" +
    "successor or predecessor query through the memory service and scores the results\n" +
    "(hit, relation_match, citation, authority_boundary; score = fraction of the four).\n" +
    "A control scores each case against the opposite direction's results (it must be low).\n" +
    "--json prints {machine, fixture, summary, wrong_direction_control, latency, rows}; summary is\n" +
    "{case_count, mean, hit_rate, citation_coverage, authority_boundary}.",
  options: {
    fixture: { type: "string", valueName: "DIR", description: "Fixture directory with cases.json and the session log" },
  },
  positionals: [],
  examples: ["zaxy bench causal", "zaxy bench causal --json"],
  async run(ctx) {
    const { runBenchCausal } = await import("./causalRun.ts");
    return await runBenchCausal(ctx);
  },
});
