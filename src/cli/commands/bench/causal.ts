/**
 * `zaxy bench causal`: score successor and predecessor queries on the committed causal fixture
 * (hit, relation match, citation, authority boundary). The benchmark is imported only when the
 * command runs.
 */
import * as path from "node:path";
import type { CausalBenchResult } from "../../../bench/causalBench.ts";
import { machineLine } from "../../../bench/measure.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

function render(result: CausalBenchResult): string {
  const s = result.summary;
  const warm = result.latency.warm;
  const lines = [
    machineLine(result.machine),
    `fixture: ${result.fixture.dir} (session ${result.fixture.session_id}, ${result.fixture.events} events, ${result.fixture.case_count} cases)`,
    JSON.stringify(s),
    `wrong-direction control (each case against the opposite direction): ${JSON.stringify(result.wrong_direction_control)}`,
    `latency: cold first query ${result.latency.cold_first_query_ms} ms` +
    (warm === null ? "" : `; warm p50 ${warm.p50_ms} / p95 ${warm.p95_ms} / p99 ${warm.p99_ms} ms`),
  ];
  for (const row of result.rows) {
    if (row.score < 1) lines.push(`  ${row.case_id}: score ${row.score} (hit ${row.hit}, relation ${row.relation_match}, citation ${row.citation}, authority ${row.authority_boundary})`);
  }
  return lines.join("\n");
}

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
    const { defaultCausalFixtureDir, runCausalBench } = await import("../../../bench/causalBench.ts");
    const fixtureDir = path.resolve(ctx.io.cwd, stringOption(ctx, "fixture") ?? defaultCausalFixtureDir);
    const result = await runCausalBench({ fixtureDir });
    emit(ctx, "zaxy.bench.causal.v1", { ...result }, () => render(result));
    return 0;
  },
});
