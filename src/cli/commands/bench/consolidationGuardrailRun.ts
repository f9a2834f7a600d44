/** What consolidationGuardrail.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import * as path from "node:path";
import type { GuardrailBenchResult } from "../../../bench/consolidationGuardrailBench.ts";
import { machineLine } from "../../../bench/measure.ts";
import { stringOption } from "../../command.ts";
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

export async function runBenchConsolidationGuardrail(ctx: CommandContext): Promise<number> {
  const { defaultGuardrailFixtureDir, runConsolidationGuardrailBench } = await import("../../../bench/consolidationGuardrailBench.ts");
  const fixtureDir = path.resolve(ctx.io.cwd, stringOption(ctx, "fixture") ?? defaultGuardrailFixtureDir);
  const result = await runConsolidationGuardrailBench({ fixtureDir });
  emit(ctx, "zaxy.bench.consolidation_guardrail.v1", { ...result }, () => render(result));
  return 0;
}
