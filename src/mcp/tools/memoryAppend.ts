/**
 * `memory_append`: append one typed event to a session's log and return where it landed.
 * The payload is redacted and sealed by the library exactly as `zaxy memory append` does.
 */
import * as z from "zod";
import { fromJs } from "../../canonical/mod.ts";
import { recordInputEvents } from "../../memory/plainInput.ts";
import { actorSchema, eventTypeSchema, payloadSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryAppendTool = defineTool({
  name: "memory_append",
  description:
    "Append one typed event to the session's hash-chained Eventloom log. Returns its seq, hash, event id and a citation " +
    "(eventloom://<session>/events/<seq>#<hash prefix>) that later answers can cite.",
  inputSchema: z.strictObject({
    event_type: eventTypeSchema,
    actor: actorSchema,
    payload: payloadSchema,
    session_id: sessionIdSchema.optional(),
    thread: z.string().optional().describe("Legacy alias of session_id"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const sessionId = resolveSessionId(ctx, args.session_id, args.thread);
    const { events, generated, warnings } = await recordInputEvents(ctx.eventloomPath, sessionId, [
      { type: args.event_type, actor: args.actor, payload: fromJs(args.payload) },
    ]);
    // Python's memory_append result: the appended event without the envelope name.
    const { envelope: _envelope, ...result } = events[0];
    return {
      ...result,
      ...(generated.length > 0 ? { generated_events: generated.map((e) => ({ seq: e.seq, hash: e.hash, event_type: e.event_type, citation: e.citation })) } : {}),
      // Recovering an append a crash interrupted is never silent.
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  },
});
