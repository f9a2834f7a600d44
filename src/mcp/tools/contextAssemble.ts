/** `context_assemble`: recent-events replay plus retrieved context as one prompt bundle. */
import * as z from "zod";
import { defineTool } from "../tool.ts";
import {
  depthField, limitField, maxRecentEventsField, maxTokensField, memoryRequestOf, queryField, replayFromSeqField, serverMemoryService, sessionField,
} from "./memoryArguments.ts";

export const contextAssembleTool = defineTool({
  name: "context_assemble",
  description:
    "Assemble a prompt from the session's recent events (# Recent Events) and retrieved, cited context " +
    "(# Retrieved Context), with warnings for uncited or truncated context.",
  inputSchema: z.strictObject({
    query: queryField,
    session_id: sessionField,
    limit: limitField,
    depth: depthField,
    replay_from_seq: replayFromSeqField,
    max_recent_events: maxRecentEventsField,
    max_tokens: maxTokensField,
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await serverMemoryService(ctx).assemble(memoryRequestOf(args, ctx));
  },
});
