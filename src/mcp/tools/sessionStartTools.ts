/**
 * `memory_verbatim`, `memory_bootstrap` and `context_after_turn` (reference §6 rows 32, 38, 39):
 * thin front doors over src/memory/sessionStart.ts.
 */
import * as z from "zod";
import { contextAfterTurn, sessionBootstrap, verbatimChunks, verbatimLimitMax } from "../../memory/sessionStart.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";
import { limitField, maxRecentEventsField, maxTokensField } from "./memoryArguments.ts";

export const memoryVerbatimTool = defineTool({
  name: "memory_verbatim",
  description:
    "Exact Eventloom chunks for a query: the session's events ranked by BM25 over their raw text (type, actor, payload), " +
    "each as sealed with its citation. Use it when you need what was recorded word for word, not a summary.",
  inputSchema: z.strictObject({
    query: z.string().min(1).describe("Words to find in the recorded events"),
    session_id: sessionIdSchema.optional(),
    limit: z.number().int().min(1).max(verbatimLimitMax).optional().describe(`Events to return (1..${verbatimLimitMax}, default 10)`),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await verbatimChunks(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), { query: args.query, limit: args.limit });
  },
});

export const memoryBootstrapTool = defineTool({
  name: "memory_bootstrap",
  description:
    "The session-start packet: the handoff (goals, open tasks, last actor), the latest events, guidance, and with " +
    "current_task a cited checkout for it. Call it once when a session starts; records memory.bootstrap.shown.",
  inputSchema: z.strictObject({
    session_id: sessionIdSchema.optional(),
    current_task: z.string().min(1).optional().describe("What you are about to work on"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await sessionBootstrap(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), { currentTask: args.current_task, source: "mcp" });
  },
});

export const contextAfterTurnTool = defineTool({
  name: "context_after_turn",
  description:
    "Record a conversation turn (transcript.turn {role, content, source}) and get context assembled for it (or for " +
    "query) in one call: the turn's event and the context_assemble bundle.",
  inputSchema: z.strictObject({
    role: z.string().min(1).describe("Who spoke: user, assistant, tool, ..."),
    content: z.string().min(1).describe("What was said"),
    query: z.string().min(1).optional().describe("What to assemble context for (default: the content)"),
    source: z.string().min(1).optional().describe("Where the turn comes from (default mcp)"),
    session_id: sessionIdSchema.optional(),
    limit: limitField,
    max_recent_events: maxRecentEventsField,
    max_tokens: maxTokensField,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await contextAfterTurn(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      role: args.role,
      content: args.content,
      query: args.query,
      source: args.source,
      limit: args.limit,
      maxRecentEvents: args.max_recent_events,
      maxTokens: args.max_tokens,
    });
  },
});
