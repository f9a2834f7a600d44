/**
 * `zaxy bench consolidation-guardrail`: score the candidates `propose-from-log` produces on
 * the committed fixture session (type match, source-event fidelity, authority boundary, review
 * gate). The benchmark is imported only when the command runs.
 */
import * as path from "node:path";
import type { GuardrailBenchResult } from "../../../bench/consolidationGuardrailBench.ts";
import { machineLine } from "../../../bench/measure.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

function render(result: GuardrailBenchResult): string {
  const s = result.summary;
  const lowest = [...result.rows].sort((a, b) => a.score - b.score)[0];
  return [
    machineLine(result.machine),
    `fixture: ${result.fixture.dir} (session ${result.fixture.session_id}, ${result.fixture.events} events, window ${result.fixture.window_size}, ${result.fixture.case_count} cases)`,
    `propose-from-log: ${result.propose.candidate_count} candidates from ${result.propose.segment_count} segments in ${result.propose.elapsed_ms} ms; ` +
    `re-run created ${result.propose.rerun_candidate_count}, skipped ${result.propose.rerun_skipped_existing_count}`,
    `cases ${s.case_count}: type_match ${s.mean_type_match}, source_event_fidelity ${s.mean_source_event_fidelity}, ` +
    `authority_boundary ${s.mean_authority_boundary}, review_gate ${s.mean_review_gate}, score ${s.mean_score}`,
    ...(lowest === undefined ? [] : [`lowest case: ${lowest.case_id} (score ${lowest.score})`]),
  ].join("\n");
}

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
    const { defaultGuardrailFixtureDir, runConsolidationGuardrailBench } = await import("../../../bench/consolidationGuardrailBench.ts");
    const fixtureDir = path.resolve(ctx.io.cwd, stringOption(ctx, "fixture") ?? defaultGuardrailFixtureDir);
    const result = await runConsolidationGuardrailBench({ fixtureDir });
    emit(ctx, "zaxy.bench.consolidation_guardrail.v1", { ...result }, () => render(result));
    return 0;
  },
});
