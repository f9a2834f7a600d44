/**
 * `memory_capabilities` (reference §6 row 7): the manifest of what this server can do, built
 * from the tool registry (src/mcp/capabilities.ts): every tool with its fields, which the
 * server's profile lists, Python's core profile and which of it is served, the root's features.
 */
import * as z from "zod";
import { capabilitiesManifest } from "../capabilities.ts";
import { resolveSessionId, sessionIdSchema } from "../sessionArgument.ts";
import { defineTool } from "../tool.ts";

export const memoryCapabilitiesTool = defineTool({
  name: "memory_capabilities",
  description:
    "What this memory server can do: every tool (name, description, fields, required fields, read-only, listed by the " +
    "current profile), the profile, which of Python Zaxy's core tools are served, and the root's features (envelope, " +
    "fleet, long-horizon, files or shared store). Generated from the tool registry.",
  inputSchema: z.strictObject({
    session_id: sessionIdSchema.optional(),
    current_task: z.string().min(1).optional().describe("What you are about to do (echoed back)"),
  }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await capabilitiesManifest(ctx.eventloomPath, resolveSessionId(ctx, args.session_id), { profile: ctx.profile, currentTask: args.current_task });
  },
});
