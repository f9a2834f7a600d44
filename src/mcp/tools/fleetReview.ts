/** `fleet_review`: a steward's disposition of a pending or deferred promotion. */
import * as z from "zod";
import { reviewPromotion } from "../../fleet/lifecycle.ts";
import { defineTool } from "../tool.ts";
import { fleetActorField, fleetIdField, fleetTextField, promotionIdField, reviewDecisionField } from "./fleetSchemas.ts";

export const fleetReviewTool = defineTool({
  name: "fleet_review",
  description:
    "Review a pending or deferred fleet promotion (steward only): accepted makes it active and supersedes conflicting " +
    "active non-keystone memories additively; rejected or deferred. It stays non-authoritative. A refusal is refused: true and writes nothing.",
  inputSchema: z.strictObject({
    fleet_id: fleetIdField,
    promotion_id: promotionIdField,
    decision: reviewDecisionField,
    actor: fleetActorField("The reviewing steward"),
    rationale: fleetTextField("Why").optional(),
  }),
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  async run(args, ctx) {
    return await reviewPromotion(ctx.eventloomPath, {
      fleetId: args.fleet_id,
      promotionId: args.promotion_id,
      decision: args.decision,
      actor: args.actor,
      rationale: args.rationale,
    });
  },
});
