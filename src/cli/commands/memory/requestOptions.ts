/** The options query, checkout and context commands share, read into a validated request. */
import { depthMax, limitMax, maxRecentEventsMax, type MemoryRequest, validateMemoryRequest } from "../../../memory/request.ts";
import { inputError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { booleanOption, type CommandContext, type OptionSpec } from "../../command.ts";

export const retrievalOptions: Record<string, OptionSpec> = {
  limit: { type: "string", valueName: "N", description: `Contexts to return (1..${limitMax}, default 10)` },
  depth: { type: "string", valueName: "D", description: `Graph traversal depth (1..${depthMax}, default 2)` },
  semantic: { type: "boolean", description: "Always run the semantic lane (facts near the query in meaning); by default it runs when no current fact holds 70 % of the query's content words" },
  "no-semantic": { type: "boolean", description: "Never run the semantic lane (no model is loaded)" },
};

export const assemblyOptions: Record<string, OptionSpec> = {
  ...retrievalOptions,
  "replay-from-seq": { type: "string", valueName: "SEQ", description: "First event of the recent-events replay (default 1)" },
  "max-recent-events": { type: "string", valueName: "N", description: `Recent events in the prompt (0..${maxRecentEventsMax}, default 20)` },
  "max-tokens": { type: "string", valueName: "N", description: "Pack the prompt into about N tokens (chars / 4); reports what was elided" },
};

/** `--semantic` → true, `--no-semantic` → false, neither → undefined (the lane decides per query). */
function semanticChoice(ctx: CommandContext): boolean | undefined {
  const on = booleanOption(ctx, "semantic");
  const off = booleanOption(ctx, "no-semantic");
  if (on && off) throw inputError("usage", "--semantic and --no-semantic exclude each other", { field: "--semantic", expected: "at most one of --semantic, --no-semantic" });
  return on ? true : off ? false : undefined;
}

export function memoryRequest(ctx: CommandContext): MemoryRequest {
  return validateMemoryRequest(
    {
      sessionId: ctx.global.sessionId,
      query: ctx.positionals[0],
      limit: intOption(ctx, "limit", 1, limitMax),
      depth: intOption(ctx, "depth", 1, depthMax),
      replayFromSeq: intOption(ctx, "replay-from-seq", 1),
      maxRecentEvents: intOption(ctx, "max-recent-events", 0, maxRecentEventsMax),
      maxTokens: intOption(ctx, "max-tokens", 0),
      semantic: semanticChoice(ctx),
    },
    { query: "QUERY" },
  );
}

/** Projection warnings (rebuilds, degraded reads) go to stderr, never into the JSON document. */
export function stderrWarn(ctx: CommandContext): (message: string) => void {
  return (message) => ctx.io.stderr(`zaxy: warning: ${message}\n`);
}
