/** `zaxy fleet review ID --promotion P --decision accepted|rejected|deferred --actor S [--rationale R]`. */
import { defineCommand, stringOption } from "../../command.ts";
import { actorOption, emitDecision, fleetIdArgument, fleetIdPositional, requiredOption } from "./fleetArgs.ts";

export const fleetReviewCommand = defineCommand({
  name: "review",
  writesRoot: true,
  summary: "Review a pending or deferred promotion (steward only)",
  description:
    "Appends fleet.promotion.reviewed {promotion_id, decision, source_events[promotion event],\n" +
    "rationale?}; accepted → active (superseding conflicting active non-keystone memories),\n" +
    "rejected, deferred. A review is a disposition: the memory stays non_authoritative. A\n" +
    "non-steward, or a promotion that is not pending/deferred, is refused (exit 1, nothing\n" +
    "written). --json prints {fleet_id, promotion_id, refused, reason, decision, review_status,\n" +
    "actor, events}.",
  options: {
    promotion: { type: "string", valueName: "P", description: "fleetpromo:<24 hex> (required)" },
    decision: { type: "string", valueName: "D", description: "accepted, rejected or deferred (required)" },
    actor: actorOption,
    rationale: { type: "string", valueName: "TEXT", description: "Why" },
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet review alpha --promotion fleetpromo:<24 hex> --decision accepted --actor coordinator"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const promotionId = requiredOption(ctx, "promotion");
    const { parseReviewDecision } = await import("../../../fleet/vocabulary.ts");
    const decision = parseReviewDecision(requiredOption(ctx, "decision"), "--decision");
    const actor = requiredOption(ctx, "actor");
    const { promotionIdPattern } = await import("../../../fleet/ids.ts");
    if (!promotionIdPattern.test(promotionId)) {
      const { inputError } = await import("../../../errors.ts");
      throw inputError("invalid_promotion_id", `--promotion ${JSON.stringify(promotionId)} is not a promotion id (fleetpromo:<24 lowercase hex>)`, { field: "--promotion" });
    }
    const { reviewPromotion } = await import("../../../fleet/lifecycle.ts");
    const doc = await reviewPromotion(ctx.global.eventloomPath, { fleetId, promotionId, decision, actor, rationale: stringOption(ctx, "rationale") });
    return emitDecision(ctx, "zaxy.fleet.review.v1", doc, () => `Reviewed ${promotionId}: ${decision} → ${doc.review_status}`);
  },
});
