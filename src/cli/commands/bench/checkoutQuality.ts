/**
 * `zaxy bench checkout-quality`: how often Memory Checkout answers an unrelated question from
 * memory, next to recall on related ones, on the committed question set. The benchmark is
 * imported only when the command runs.
 */
import { defineCommand } from "../../command.ts";

export const benchCheckoutQualityCommand = defineCommand({
  name: "checkout-quality",
  store: "self",
  summary: "Checkout answerability: unrelated questions answered from memory (target 0), recall on related ones",
  description:
    "Appends the committed question set's sessions (short agent logs of decisions, tasks,\n" +
    "issues, policies, preferences, documents and handoffs) to a temporary root, then asks each\n" +
    "session's related and unrelated questions through Memory Checkout (the defaults of\n" +
    "`zaxy memory checkout --json`) and memory query (top 10). Reports, per split: unrelated\n" +
    "questions answered from memory (target 0) or served any current fact; related questions\n" +
    "whose fact is among current_facts, against the query's top 10 (target: not below it), and\n" +
    "how many are answered from memory or sent to the user; every miss with the facts served.\n" +
    "The held-out split is reported apart from the train split. Missed targets are marked\n" +
    "NOT MET; the exit status stays 0, as for the other benchmarks.",
  options: {
    split: { type: "string", valueName: "SPLIT", description: "train, held-out or all (default all)" },
    semantic: { type: "boolean", description: "Run every checkout and query with the semantic lane (memory checkout --semantic)" },
    "no-semantic": { type: "boolean", description: "Never run the semantic lane (memory checkout --no-semantic); by default it runs as checkout decides" },
  },
  positionals: [],
  examples: ["zaxy bench checkout-quality", "zaxy bench checkout-quality --split held-out --json"],
  async run(ctx) {
    const { runBenchCheckoutQuality } = await import("./checkoutQualityRun.ts");
    return await runBenchCheckoutQuality(ctx);
  },
});
