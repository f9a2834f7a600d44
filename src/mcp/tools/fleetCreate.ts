/** `fleet_create`: create a fleet; its creator is enrolled as the first steward. */
import * as z from "zod";
import { createActorDefault, createFleet } from "../../fleet/membership.ts";
import { defineTool } from "../tool.ts";
import { fleetIdField, fleetTextField, optionalCoordinatorField } from "./fleetSchemas.ts";

export const fleetCreateTool = defineTool({
  name: "fleet_create",
  description:
    "Create a fleet (thread fleet.<fleet_id>): appends fleet.created and enrolls the creator as steward. " +
    "An existing fleet is refused (refused: true, nothing written).",
  inputSchema: z.strictObject({
    fleet_id: fleetIdField,
    summary: fleetTextField("What the fleet is for"),
    actor: optionalCoordinatorField,
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  async run(args, ctx) {
    return await createFleet(ctx.eventloomPath, { fleetId: args.fleet_id, summary: args.summary, actor: args.actor ?? createActorDefault });
  },
});
