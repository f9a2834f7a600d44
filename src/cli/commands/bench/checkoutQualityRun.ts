/** What checkoutQuality.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import type { CheckoutQualityBenchResult, Share, SplitChoice, SplitReport } from "../../../bench/checkoutQualityBench.ts";
import { machineLine, renderTargets } from "../../../bench/measure.ts";
import { inputError } from "../../../errors.ts";
import { booleanOption, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";

const splitNames: Record<string, SplitChoice> = { train: "train", "held-out": "held_out", all: "all" };

function shareText(s: Share): string {
  return `${String(s.count).padStart(3)}  (${s.rate === null ? "-" : `${(s.rate * 100).toFixed(1)} %`})`;
}

function facts(served: ReadonlyArray<{ content: string }>): string {
  return served.length === 0 ? "no current facts" : served.map((fact) => `"${fact.content}"`).join("; ");
}

function splitLines(name: string, s: SplitReport): string[] {
  const lines = [
    `${name}: ${s.sessions} sessions, ${s.events} events`,
    `  unrelated questions              ${String(s.unrelated.questions).padStart(3)}`,
    `    answered from memory           ${shareText(s.unrelated.answered_from_memory)}`,
    `    served any current fact        ${shareText(s.unrelated.served_current_facts)}`,
    `    refresh recommended            ${shareText(s.unrelated.refresh_recommended)}`,
    `    ask the user                   ${shareText(s.unrelated.ask_user)}`,
    `  related questions                ${String(s.related.questions).padStart(3)}`,
    `    fact among current facts       ${shareText(s.related.recall_current_facts)}`,
    `    fact in memory query top 10    ${shareText(s.related.recall_query_top10)}`,
    `    answered from memory           ${shareText(s.related.answered_from_memory)}`,
    `    refresh recommended            ${shareText(s.related.refresh_recommended)}`,
    `    ask the user                   ${shareText(s.related.ask_user)}`,
  ];
  for (const miss of s.unrelated.misses) {
    lines.push(`  unrelated, answered from memory: [${miss.session}] "${miss.question}" (confidence ${miss.confidence}) -> ${facts(miss.served_facts)}`);
  }
  for (const miss of s.related.misses) {
    const where = miss.in_current_facts ? "fact served" : miss.in_query_top10 ? "fact NOT served (query found it)" : "fact not served (query missed it too)";
    lines.push(`  related, ${miss.answerability} (${miss.confidence}), ${where}: [${miss.session}] "${miss.question}"`);
  }
  return lines;
}

function render(result: CheckoutQualityBenchResult): string {
  const lines = [machineLine(result.machine)];
  if (result.splits.train !== undefined) lines.push(...splitLines("train", result.splits.train));
  if (result.splits.held_out !== undefined) lines.push(...splitLines("held-out", result.splits.held_out));
  lines.push(...renderTargets(result.targets, 3));
  return lines.join("\n");
}

export async function runBenchCheckoutQuality(ctx: CommandContext): Promise<number> {
  const raw = stringOption(ctx, "split") ?? "all";
  const split = splitNames[raw];
  if (split === undefined) {
    throw inputError("invalid_option", `--split must be one of train, held-out, all; got "${raw}"`, {
      field: "--split",
      expected: "train, held-out or all",
      actual: raw,
    });
  }
  const { runCheckoutQualityBench } = await import("../../../bench/checkoutQualityBench.ts");
  const reporter = benchMessages(ctx, "checkout-quality");
  const result = await runCheckoutQualityBench({ split, progress: reporter.message, semantic: booleanOption(ctx, "semantic") ? true : booleanOption(ctx, "no-semantic") ? false : undefined });
  reporter.done();
  emit(ctx, "zaxy.bench.checkout_quality.v1", { ...result }, () => render(result));
  return 0;
}
