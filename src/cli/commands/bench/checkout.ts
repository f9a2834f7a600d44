/**
 * `zaxy bench checkout`: Memory Checkout latency, warm over MCP stdio and cold as fresh
 * processes, on a projected mixed session. The benchmark is imported only when the command runs.
 */
import { defineCommand } from "../../command.ts";

export const benchCheckoutCommand = defineCommand({
  name: "checkout",
  store: "self",
  summary: "Memory Checkout latency: warm p50/p95/p99 over MCP stdio, cold fresh-process median",
  description:
    "Generates and projects a seeded mixed session (default 10,000 events), then times\n" +
    "memory_checkout through `zaxy serve` with the MCP SDK stdio client (--queries seeded\n" +
    "queries drawn from the session, after one untimed call), `zaxy memory checkout --json` as\n" +
    "fresh processes (median of 7, peak RSS of each), the same on a --baseline-events session\n" +
    "(default 1,000) for the cold ratio, the agent loop (fresh `memory append` then fresh\n" +
    "`memory checkout`), and fresh checkouts right after an in-process append (catch-up).",
  options: {
    events: { type: "string", valueName: "N", description: "Events in the session (default 10000)" },
    queries: { type: "string", valueName: "N", description: "Warm memory_checkout calls timed (default 200)" },
    "cold-runs": { type: "string", valueName: "N", description: "Fresh-process runs (default 7)" },
    "baseline-events": { type: "string", valueName: "N", description: "Events of the baseline session for the cold ratio (default 1000; 0: none)" },
    feedback: { type: "string", valueName: "N", description: "memory_feedback events on current facts before the warm run (default events/100, at most 1000; 0: none)" },
  },
  positionals: [],
  examples: ["zaxy bench checkout --json", "zaxy bench checkout --events 50000 --queries 500"],
  async run(ctx) {
    const { runBenchCheckout } = await import("./checkoutRun.ts");
    return await runBenchCheckout(ctx);
  },
});
