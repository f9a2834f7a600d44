/** `fleet_rollback`: roll back a promotion; whatever it superseded becomes active again. */
import * as z from "zod";
import { rollbackPromotion } from "../../fleet/lifecycle.ts";
import { defineTool } from "../tool.ts";
import { fleetActorField, fleetIdField, fleetTextField, promotionIdField } from "./fleetSchemas.ts";

export const fleetRollbackTool = defineTool({
  name: "fleet_rollback",
  description:
    "Roll back a fleet promotion (a steward or the agent that proposed it): appends fleet.promotion.rolled_back with " +
    "within_rollback_window; memories it superseded are re-activated (reactivated lists them). Nothing is deleted. " +
    "A refusal is refused: true and writes nothing.",
  inputSchema: z.strictObject({
    fleet_id: fleetIdField,
    promotion_id: promotionIdField,
    reason: fleetTextField("Why it is rolled back"),
    actor: fleetActorField("A steward or the promotion's proposer"),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await rollbackPromotion(ctx.eventloomPath, { fleetId: args.fleet_id, promotionId: args.promotion_id, reason: args.reason, actor: args.actor });
  },
});
