/**
 * `memory_ingest`: append a batch of external events atomically (all or nothing). Items with a
 * `producer_ref` already in the session (or earlier in the batch) are skipped and counted as
 * deduped, so a producer can resend a batch safely.
 */
import * as z from "zod";
import { fromJs } from "../../canonical/mod.ts";
import { ingestedEventJson } from "../../eventloom/append.ts";
import { recordInputEvents } from "../../memory/plainInput.ts";
import { batchEventsMax, eventTextCharsMax } from "../../limits.ts";
import { actorSchema, allowEnvelopeSwitchSchema, allowNewTypeSchema, eventIdSchema, eventTypeSchema, mcpInputPermissions, payloadSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

const ingestItemSchema = z.strictObject({
  event_type: eventTypeSchema,
  actor: actorSchema,
  payload: payloadSchema.optional(),
  producer_ref: z.string().min(1).max(eventTextCharsMax).optional().describe("Producer's idempotency key; dedups per session"),
  parent_event_id: eventIdSchema.optional().describe("Parent event id (hashed in eventloom.v1 envelopes only)"),
  caused_by: z.array(eventIdSchema).optional().describe("Ids of the events that caused this one (v1 envelopes only)"),
  id: eventIdSchema.optional().describe("Producer-supplied event id (v1 envelopes only)"),
});

export const memoryIngestTool = defineTool({
  name: "memory_ingest",
  description:
    "Atomically append a batch of external events to one session: every item is validated first and nothing is written " +
    "unless all are valid. Items whose producer_ref is already in the session are skipped (deduped). An event whose payload " +
    "had secrets redacted lists their paths in redacted_paths. A type that differs from a known one only in capitals or by a " +
    "typo refuses the batch (allow_new_type overrides), and so does a type that would switch a v1 session to legacy lines for " +
    "good (allow_envelope_switch overrides).",
  inputSchema: z.strictObject({
    events: z.array(ingestItemSchema).min(1).max(batchEventsMax).describe("Events to append, in order"),
    session_id: sessionIdSchema.optional(),
    allow_new_type: allowNewTypeSchema,
    allow_envelope_switch: allowEnvelopeSwitchSchema,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    const sessionId = resolveSessionId(ctx, args.session_id);
    const items = args.events.map((item) => ({
      type: item.event_type,
      actor: item.actor,
      payload: item.payload === undefined ? undefined : fromJs(item.payload),
      producerRef: item.producer_ref,
      parentEventId: item.parent_event_id,
      causedBy: item.caused_by,
      id: item.id,
    }));
    const result = await recordInputEvents(ctx.eventloomPath, sessionId, items, { dedupProducerRefs: true }, mcpInputPermissions(args));
    return {
      imported: result.events.length,
      deduped: result.deduped,
      session_id: sessionId,
      events: result.events.map((event, index) => ingestedEventJson(event, result.records[index])),
      ...(result.generated.length > 0 ? { generated_events: result.generated.map((e) => ({ seq: e.seq, hash: e.hash, event_type: e.event_type, citation: e.citation })) } : {}),
      // Recovering an append a crash interrupted is never silent.
      ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
    };
  },
});
