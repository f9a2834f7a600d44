/** `zaxy memory checkout QUERY`: the cited, prompt-ready memory state (docs/checkout.md). */
import { defineCommand } from "../../command.ts";
import { assemblyOptions } from "./requestOptions.ts";

export const memoryCheckoutCommand = defineCommand({
  name: "checkout",
  summary: "Memory Checkout: current facts, evidence, quality and guidance, with citations",
  description:
    "Verifies the log, catches the projection up, retrieves, and assembles the checkout:\n" +
    "current facts only (superseded versions are counted in retention), evidence with\n" +
    "eventloom:// citations, quality.answerability, guidance, per-lane diagnostics and the\n" +
    "prompt. Without --json the prompt is printed. Contract: 'zaxy help checkout' (docs/checkout.md).",
  options: {
    ...assemblyOptions,
    "long-horizon": {
      type: "boolean",
      description: "Two-tier checkout: recent window plus accepted consolidation candidates older than it (zaxy help long-horizon; docs/long-horizon.md)",
    },
    "no-long-horizon": { type: "boolean", description: "Single-tier checkout even when config.json sets long_horizon_enabled" },
    "recent-window": {
      type: "string",
      valueName: "N",
      description: "Long-horizon recent window in events, shown as Recent Events (>= 1; default long_horizon_recent_window, else 50; --max-recent-events caps what is shown)",
    },
    "fleet-id": {
      type: "string",
      multiple: true,
      valueName: "ID",
      description: "Add this fleet's active promotions as cited, non-authoritative items (needs fleet_enabled in config.json; zaxy help --topic fleet; docs/fleet.md)",
    },
    "agent-id": { type: "string", valueName: "A", description: "Who asks the fleet lane: an enrolled, not untrusted agent (default: the session id)" },
  },
  positionals: [{ name: "QUERY", description: "What the agent is about to work on (1..4096 characters)", required: true }],
  examples: [
    'zaxy memory checkout "next steps for the release"',
    'zaxy memory checkout "editor preference" --max-tokens 400 --json',
    'zaxy memory checkout "what did we decide about caching" --long-horizon --recent-window 200 --json',
    'zaxy memory checkout "flaky deploy" --fleet-id platform --agent-id agent-b --json',
  ],
  async run(ctx) {
    const { runMemoryCheckout } = await import("./checkoutRun.ts");
    return await runMemoryCheckout(ctx);
  },
});
