/** `fleet_status`: the fleet's state by replay of its verified thread (agents, tiers, promotions). */
import * as z from "zod";
import { fleetStatus } from "../../fleet/status.ts";
import { defineTool } from "../tool.ts";
import { fleetIdField } from "./fleetSchemas.ts";

export const fleetStatusTool = defineTool({
  name: "fleet_status",
  description:
    "Fleet brief by pure replay of fleet.<fleet_id>: summary, agents with their latest trust tier, every promotion " +
    "with its review status (active, pending, rejected, deferred, superseded, rolled_back), counts per status and citations.",
  inputSchema: z.strictObject({ fleet_id: fleetIdField }),
  annotations: { readOnlyHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await fleetStatus(ctx.eventloomPath, args.fleet_id);
  },
});
