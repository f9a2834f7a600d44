/**
 * `memory_invalidate` (reference §6 row 6): close a current fact's validity window at
 * `invalid_at` (src/memory/invalidate.ts); nothing is deleted. Returns `{status: "invalidated", ...}`.
 */
import * as z from "zod";
import { invalidateMemory } from "../../memory/invalidate.ts";
import { actorSchema } from "../eventSchemas.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

const textField = z.string().min(1);

export const memoryInvalidateTool = defineTool({
  name: "memory_invalidate",
  description:
    "Close a current fact's validity window at invalid_at (ISO-8601 with an offset, not in the future): appends " +
    "memory.invalidated; checkout stops serving the fact as current and counts it as superseded. Nothing is deleted; " +
    "stating the fact again makes it current again.",
  inputSchema: z.strictObject({
    entity_name: textField.describe("The fact's entity name (current_facts[].entity_name)"),
    entity_type: textField.describe("Its entity type (current_facts[].entity_type)"),
    invalid_at: textField.describe("When it stopped holding, e.g. 2026-11-27T10:00:00Z"),
    reason: textField.optional().describe("Why it no longer holds"),
    actor: actorSchema.optional().describe("Who invalidates it (default zaxy)"),
    session_id: sessionIdSchema.optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await invalidateMemory(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), {
      entityName: args.entity_name,
      entityType: args.entity_type,
      invalidAt: args.invalid_at,
      reason: args.reason,
      actor: args.actor,
    });
  },
});
