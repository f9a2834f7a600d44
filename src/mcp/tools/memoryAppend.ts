/**
 * `memory_append`: append one typed event to a session's log and return where it landed.
 * The payload is redacted and sealed by the library exactly as `zaxy memory append` does.
 */
import * as z from "zod";
import { fromJs } from "../../canonical/mod.ts";
import { recordInputEvents } from "../../memory/plainInput.ts";
import { redactedPathsOf } from "../../eventloom/redact.ts";
import { actorSchema, allowEnvelopeSwitchSchema, allowNewTypeSchema, eventTypeSchema, mcpInputPermissions, payloadSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryAppendTool = defineTool({
  name: "memory_append",
  description:
    "Append one typed event to the session's hash-chained Eventloom log. Returns its seq, hash, event id and a citation " +
    "(eventloom://<session>/events/<seq>#<hash prefix>) that later answers can cite, and redacted_paths when secrets in the payload " +
    "were redacted. A type that differs from a known one only in capitals or by a typo is refused (allow_new_type overrides), " +
    "and so is a type that would switch a v1 session to legacy lines for good (allow_envelope_switch overrides).",
  inputSchema: z.strictObject({
    event_type: eventTypeSchema,
    actor: actorSchema,
    payload: payloadSchema,
    session_id: sessionIdSchema.optional(),
    thread: z.string().optional().describe("Legacy alias of session_id"),
    allow_new_type: allowNewTypeSchema,
    allow_envelope_switch: allowEnvelopeSwitchSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const sessionId = resolveSessionId(ctx, args.session_id, args.thread);
    const { events, records, generated, warnings } = await recordInputEvents(
      ctx.eventloomPath,
      sessionId,
      [{ type: args.event_type, actor: args.actor, payload: fromJs(args.payload) }],
      {},
      mcpInputPermissions(args),
    );
    // Python's memory_append result: the appended event without the envelope name.
    const { envelope: _envelope, ...result } = events[0];
    // Where secrets were redacted (never what they were), so the caller knows the log holds `[REDACTED]` there.
    const redactedPaths = redactedPathsOf(records[0].security);
    return {
      ...result,
      ...(redactedPaths.length > 0 ? { redacted_paths: redactedPaths } : {}),
      ...(generated.length > 0 ? { generated_events: generated.map((e) => ({ seq: e.seq, hash: e.hash, event_type: e.event_type, citation: e.citation })) } : {}),
      // Recovering an append a crash interrupted is never silent.
      ...(warnings.length > 0 ? { warnings } : {}),
    };
  },
});
