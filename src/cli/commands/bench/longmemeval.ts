/**
 * `zaxy bench longmemeval --dataset FILE`: the offline LongMemEval runner (bench/longmemevalBench.ts)
 * over a local file in the public LongMemEval JSON format. The report it writes with --output is
 * what `zaxy benchmark-compare` and `zaxy benchmark-guardrail` read.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError } from "../../../errors.ts";
import { longMemEvalDatasetBytesMax } from "../../../limits.ts";
import { intOption, readInputFile, requiredOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { benchMessages } from "../../progress.ts";
import type { LongMemEvalReport } from "../../../bench/longmemevalBench.ts";

function render(report: LongMemEvalReport, output: string | null): string {
  const d = report.dataset;
  const lines = [
    `dataset: ${d.path} (${d.sha256}), ${d.questions} questions, ${d.questions_scored} scored, ${d.questions_skipped_abstention} abstention skipped`,
    "offline retrieval-side proxy: no LLM reader or judge (not LongMemEval QA accuracy)",
    "backend         mean   Answer@5  R@1    R@5    R@10   citation  p50 ms    p95 ms    p99 ms",
  ];
  for (const [name, s] of Object.entries(report.backends)) {
    const cells = [s.mean_score, s.answer_recall_at_5, s.recall_at_1, s.recall_at_5, s.recall_at_10, s.citation_coverage].map((v) => v.toFixed(3).padEnd(6));
    lines.push(`${name.padEnd(15)} ${cells[0]} ${cells[1]}    ${cells[2]} ${cells[3]} ${cells[4]} ${cells[5]}    ${String(s.p50_ms).padEnd(9)} ${String(s.p95_ms).padEnd(9)} ${s.p99_ms}`);
  }
  if (output !== null) lines.push(`report: ${output}`);
  return lines.join("\n");
}

export const benchLongMemEvalCommand = defineCommand({
  name: "longmemeval",
  store: "self",
  summary: "Offline LongMemEval runner over a local dataset file (retrieval-side proxy, no LLM)",
  description:
    "Offline runner: reads a local file in the public LongMemEval JSON format (longmemeval_s.json,\n" +
    "longmemeval_oracle.json, or fixtures/longmemeval/mini.json); no network, no LLM. Per question:\n" +
    "a fresh temporary Eventloom root, every haystack turn appended as a transcript.turn event,\n" +
    "then Memory Checkout for the question (backend zaxy-checkout) and a BM25 baseline (bm25).\n" +
    "Scores: recall_at_1/5/10 (a gold answer session among the top contexts' sessions),\n" +
    "answer_recall_at_5, mean_score (answer terms found in the top-k contexts), citation_coverage,\n" +
    "p50/p95/p99 ms. Abstention questions (_abs) are skipped. Not comparable to LongMemEval's QA\n" +
    "accuracy (there is no reader or judge). --output writes the report (zaxy.bench.longmemeval.v1)\n" +
    "that benchmark-compare and benchmark-guardrail read. Details: 'zaxy help benchmarks-longmemeval' (docs/benchmarks-longmemeval.md).",
  options: {
    dataset: { type: "string", valueName: "FILE", description: "Local LongMemEval JSON file (required)" },
    limit: { type: "string", valueName: "N", description: "Score only the first N questions of the file (>= 1)" },
    output: { type: "string", valueName: "PATH", description: "Write the report JSON here (for benchmark-compare / benchmark-guardrail)" },
    "top-k": { type: "string", valueName: "K", description: "Contexts scored for mean_score (1..100; default 5)" },
  },
  positionals: [],
  examples: [
    "zaxy bench longmemeval --dataset fixtures/longmemeval/mini.json",
    "zaxy bench longmemeval --dataset longmemeval_s.json --limit 100 --output report.json",
  ],
  async run(ctx) {
    const { readLongMemEval } = await import("../../../bench/longmemevalDataset.ts");
    const { datasetSha256, runLongMemEvalBench } = await import("../../../bench/longmemevalBench.ts");
    const datasetPath = path.resolve(ctx.io.cwd, requiredOption(ctx, "dataset"));
    const limit = intOption(ctx, "limit", 1);
    const topK = intOption(ctx, "top-k", 1, 100) ?? 5;
    const outputArg = stringOption(ctx, "output");
    const output = outputArg === undefined ? null : path.resolve(ctx.io.cwd, outputArg);
    if (output !== null && !fs.existsSync(path.dirname(output))) {
      throw inputError("invalid_option", `--output ${JSON.stringify(outputArg)}: directory ${JSON.stringify(path.dirname(output))} does not exist`, { field: "--output" });
    }
    const bytes = readInputFile(datasetPath, "--dataset", {
      maxBytes: longMemEvalDatasetBytesMax,
      why: "a dataset is parsed in memory as one JSON document (longmemeval_s.json is about 265 MB)",
    });
    let raw: unknown;
    try {
      raw = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
    } catch (error) {
      throw inputError("invalid_json", `--dataset ${JSON.stringify(datasetPath)} is not valid JSON: ${(error as Error).message}`, { field: "--dataset" });
    }
    const questions = readLongMemEval(raw, "--dataset");
    const reporter = benchMessages(ctx, "longmemeval");
    const report = await runLongMemEvalBench({
      questions: limit === undefined ? questions : questions.slice(0, limit),
      datasetPath,
      datasetSha256: datasetSha256(bytes),
      topK,
      progress: reporter.message,
    });
    reporter.done();
    if (output !== null) fs.writeFileSync(output, JSON.stringify(report, null, 2) + "\n");
    const { schema: _schema, ...doc } = report;
    emit(ctx, report.schema, doc, () => render(report, output));
    return 0;
  },
});
