/** `memory_checkout`: the front door — cited, prompt-ready memory state (docs/checkout.md). */
import * as z from "zod";
import { checkoutFleetIdsMax, validateMemoryRequest } from "../../memory/request.ts";
import { defineTool } from "../tool.ts";
import { assemblyInputSchema, memoryRequestOf, serverMemoryService } from "./memoryArguments.ts";

/** memory_checkout takes the assembly arguments plus the long-horizon switches (docs/long-horizon.md). */
const checkoutInputSchema = assemblyInputSchema.extend({
  long_horizon: z.boolean().optional()
    .describe("Two-tier long-horizon checkout on (true) or off (false) for this call; absent uses config.json long_horizon_enabled"),
  long_horizon_recent_window: z.number().int().min(1).optional()
    .describe("Events in the long-horizon recent window, shown as recent events (>= 1); absent uses config.json long_horizon_recent_window, else 50; max_recent_events caps what is shown"),
  fleet_ids: z.array(z.string()).max(checkoutFleetIdsMax).optional()
    .describe("Fleets whose active fleet/global promotions join the checkout as cited, non-authoritative items; needs fleet_enabled in config.json"),
  agent_id: z.string().optional()
    .describe("Who asks the fleet lane: an enrolled agent that is not untrusted (default: the session id)"),
});

export const memoryCheckoutTool = defineTool({
  name: "memory_checkout",
  description:
    "Check out memory for a task: current facts (superseded versions excluded and counted), cited evidence, " +
    "provenance, quality.answerability (answer_from_memory | refresh_recommended | ask_user), guidance, " +
    "per-lane diagnostics and a prompt. Every fact carries an eventloom:// citation. Call this first. " +
    "long_horizon adds accepted consolidation candidates older than the recent window as cited, non-authoritative items; " +
    "fleet_ids (with fleet_enabled) adds the named fleets' active promotions the same way. " +
    "The result's text is the prompt; structuredContent is the whole checkout document.",
  inputSchema: checkoutInputSchema,
  annotations: { readOnlyHint: true, openWorldHint: false },
  contentText: (document) => String(document.prompt),
  async run(args, ctx) {
    const request = memoryRequestOf(args, ctx);
    if (args.long_horizon !== undefined) request.longHorizon = args.long_horizon;
    if (args.long_horizon_recent_window !== undefined) request.longHorizonRecentWindow = args.long_horizon_recent_window;
    const fleet = validateMemoryRequest({ sessionId: request.sessionId, query: request.query, fleetIds: args.fleet_ids, agentId: args.agent_id });
    if (fleet.fleetIds !== undefined) request.fleetIds = fleet.fleetIds;
    if (fleet.agentId !== undefined) request.agentId = fleet.agentId;
    return await serverMemoryService(ctx).checkout(request);
  },
});
