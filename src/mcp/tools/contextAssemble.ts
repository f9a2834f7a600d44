/** `context_assemble`: recent-events replay plus retrieved context as one prompt bundle. */
import { defineTool } from "../tool.ts";
import { assemblyInputSchema, memoryRequestOf, serverMemoryService } from "./memoryArguments.ts";

export const contextAssembleTool = defineTool({
  name: "context_assemble",
  description:
    "Assemble a prompt from the session's recent events (# Recent Events) and retrieved, cited context " +
    "(# Retrieved Context), with warnings for uncited or truncated context. The result's text is the prompt; " +
    "structuredContent is the whole assembly document.",
  inputSchema: assemblyInputSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  contentText: (document) => String(document.prompt),
  async run(args, ctx) {
    return await serverMemoryService(ctx).assemble(memoryRequestOf(args, ctx));
  },
});
