/** `memory_checkout`: the front door — cited, prompt-ready memory state (docs/checkout.md). */
import { defineTool } from "../tool.ts";
import { assemblyInputSchema, memoryRequestOf, serverMemoryService } from "./memoryArguments.ts";

export const memoryCheckoutTool = defineTool({
  name: "memory_checkout",
  description:
    "Check out memory for a task: current facts (superseded versions excluded and counted), cited evidence, " +
    "provenance, quality.answerability (answer_from_memory | refresh_recommended | ask_user), guidance, " +
    "per-lane diagnostics and a prompt. Every fact carries an eventloom:// citation. Call this first.",
  inputSchema: assemblyInputSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await serverMemoryService(ctx).checkout(memoryRequestOf(args, ctx));
  },
});
