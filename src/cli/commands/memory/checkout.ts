/** `zaxy memory checkout QUERY`: the cited, prompt-ready memory state (docs/checkout.md). */
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { assemblyOptions, memoryRequest, stderrWarn } from "./requestOptions.ts";

export const memoryCheckoutCommand = defineCommand({
  name: "checkout",
  summary: "Memory Checkout: current facts, evidence, quality and guidance, with citations",
  description:
    "Verifies the log, catches the projection up, retrieves, and assembles the checkout:\n" +
    "current facts only (superseded versions are counted in retention), evidence with\n" +
    "eventloom:// citations, quality.answerability, guidance, per-lane diagnostics and the\n" +
    "prompt. Without --json the prompt is printed. Contract: docs/checkout.md.",
  options: assemblyOptions,
  positionals: [{ name: "QUERY", description: "What the agent is about to work on (1..4096 characters)", required: true }],
  examples: ['zaxy memory checkout "next steps for the release"', 'zaxy memory checkout "editor preference" --max-tokens 400 --json'],
  async run(ctx) {
    const request = memoryRequest(ctx);
    // Loaded on use, so commands that never read memory do not pay for the retrieval stack.
    const { MemoryService } = await import("../../../memory/service.ts");
    const checkout = await new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) }).checkout(request);
    emit(ctx, "zaxy.memory.checkout.v1", checkout as unknown as Record<string, unknown>, () => checkout.prompt);
    return 0;
  },
});
