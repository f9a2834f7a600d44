/**
 * `zaxy memory reasoning explain-outcome OUTCOME`: the causal predecessors of an outcome, or the
 * cited evidence of a checkout for it when it has none (reference §3.4). JSON: the
 * `explain_outcome` document (docs/causal.md); text: `explain_outcome for <session>:
 * result_count=N` then one line per result.
 */
import type { ExplainOutcomeResult } from "../../../../memory/explainOutcome.ts";
import { defineCommand } from "../../../command.ts";
import { emit } from "../../../output.ts";
import { stderrWarn } from "../requestOptions.ts";

function resultLine(result: ExplainOutcomeResult): string {
  if (result.source === "checkout") return `- ${result.content} (${result.citation})`;
  return `- ${result.source.name} -> ${result.target.name} [${result.relation_type}] (${result.citation})`;
}

export const memoryReasoningExplainOutcomeCommand = defineCommand({
  name: "explain-outcome",
  summary: "Explain an outcome by its causal predecessors, falling back to cited checkout evidence",
  description:
    "Walks the current causal edges backwards from every current version of OUTCOME (up to\n" +
    "--depth hops). When it has no causal predecessors, runs a Memory Checkout for OUTCOME\n" +
    "(limit max(1, min(100, 2 x depth))) and returns its cited evidence instead, with\n" +
    "fallback_used: true. Reads only: nothing is appended. Contract: 'zaxy help causal' (docs/causal.md).",
  options: {
    phase: { type: "string", valueName: "PHASE", description: "Reasoning phase: planning (default), execution, review or reflection" },
    depth: { type: "string", valueName: "D", description: "Hops to follow (1..5, default 2)" },
  },
  positionals: [{ name: "OUTCOME", description: "The outcome's entity name (1..4096 characters)", required: true }],
  examples: ['zaxy memory reasoning explain-outcome "deploy failed"', 'zaxy memory reasoning explain-outcome "deploy failed" --phase review --depth 3 --json'],
  async run(ctx) {
    const { MemoryService } = await import("../../../../memory/service.ts");
    const { explainOutcome, validateExplainOutcome } = await import("../../../../memory/explainOutcome.ts");
    const request = validateExplainOutcome(
      { sessionId: ctx.global.sessionId, outcome: ctx.positionals[0], phase: ctx.values.phase, depth: ctx.values.depth },
      { outcome: "OUTCOME", phase: "--phase", depth: "--depth" },
    );
    const doc = await explainOutcome(new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) }), request);
    const results = doc.results;
    emit(ctx, "zaxy.memory.reasoning.explain_outcome.v1", doc, () =>
      [`explain_outcome for ${request.sessionId}: result_count=${results.length}${doc.fallback_used ? " (checkout fallback)" : ""}`, ...results.map(resultLine)].join("\n"));
    return 0;
  },
});
