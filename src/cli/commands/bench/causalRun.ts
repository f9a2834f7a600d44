/** What causal.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import * as path from "node:path";
import type { CausalBenchResult } from "../../../bench/causalBench.ts";
import { machineLine } from "../../../bench/measure.ts";
import { stringOption } from "../../command.ts";
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

export async function runBenchCausal(ctx: CommandContext): Promise<number> {
  const { defaultCausalFixtureDir, runCausalBench } = await import("../../../bench/causalBench.ts");
  const fixtureDir = path.resolve(ctx.io.cwd, stringOption(ctx, "fixture") ?? defaultCausalFixtureDir);
  const result = await runCausalBench({ fixtureDir });
  emit(ctx, "zaxy.bench.causal.v1", { ...result }, () => render(result));
  return 0;
}
