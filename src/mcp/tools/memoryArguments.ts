/** Schemas of the arguments memory_checkout, memory_query and context_assemble share. */
import * as z from "zod";
import { depthMax, limitMax, maxRecentEventsMax, type MemoryRequest, queryCharsMax, validateMemoryRequest } from "../../memory/request.ts";
import { sharedMemoryService, type MemoryService } from "../../memory/service.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import type { ToolContext } from "../tool.ts";

export const queryField = z.string().describe(`What to retrieve memory for (1..${queryCharsMax} characters)`);
export const limitField = z.number().int().min(1).max(limitMax).optional().describe(`Contexts to retrieve (1..${limitMax}, default 10)`);
export const depthField = z.number().int().min(1).max(depthMax).optional().describe(`Graph traversal depth (1..${depthMax}, default 2)`);
export const sessionField = sessionIdSchema.optional();
export const replayFromSeqField = z.number().int().min(1).optional().describe("First event of the recent-events replay (default 1)");
export const maxRecentEventsField = z.number().int().min(0).max(maxRecentEventsMax).optional()
  .describe(`Recent events in the prompt (0..${maxRecentEventsMax}, default 20)`);
export const semanticField = z.boolean().optional()
  .describe("The semantic lane (facts near the query in meaning): true always runs it, false never; absent, it runs when no current fact holds 70 % of the question's content words");
export const maxTokensField = z.number().int().min(0).optional().describe("Pack the prompt into about this many tokens (chars / 4)");

/** The input of memory_checkout and context_assemble (memory_query takes the first four). */
export const assemblyInputSchema = z.strictObject({
  query: queryField,
  session_id: sessionField,
  limit: limitField,
  depth: depthField,
  replay_from_seq: replayFromSeqField,
  max_recent_events: maxRecentEventsField,
  max_tokens: maxTokensField,
  semantic: semanticField,
});

export interface MemoryArguments {
  query: string;
  session_id?: string;
  limit?: number;
  depth?: number;
  replay_from_seq?: number;
  max_recent_events?: number;
  max_tokens?: number;
  semantic?: boolean;
}

export function memoryRequestOf(args: MemoryArguments, ctx: ToolContext): MemoryRequest {
  return validateMemoryRequest({
    sessionId: resolveSessionId(ctx, args.session_id),
    query: args.query,
    limit: args.limit,
    depth: args.depth,
    replayFromSeq: args.replay_from_seq,
    maxRecentEvents: args.max_recent_events,
    maxTokens: args.max_tokens,
    semantic: args.semantic,
  });
}

/**
 * The server's warm service; projection warnings go to stderr (stdout carries MCP only). A server
 * lives long, so facts its reads could not compare yet are embedded while it is idle.
 */
export function serverMemoryService(ctx: ToolContext): MemoryService {
  const service = sharedMemoryService(ctx.root ?? ctx.eventloomPath, { warn: (message) => process.stderr.write(`zaxy serve: warning: ${message}\n`) });
  service.embedFactsWhileIdle();
  return service;
}
