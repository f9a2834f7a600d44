/** `zaxy fleet rollback ID --promotion P --reason R --actor A`: additive reversal of a promotion. */
import { defineCommand } from "../../command.ts";
import { actorOption, emitDecision, fleetIdArgument, fleetIdPositional, requiredOption } from "./fleetArgs.ts";

export const fleetRollbackCommand = defineCommand({
  name: "rollback",
  writesRoot: true,
  summary: "Roll back a promotion (steward or its proposer); re-activates what it superseded",
  description:
    "Appends fleet.promotion.rolled_back {promotion_id, reason, within_rollback_window,\n" +
    "source_events[promotion event], gate_event?}. Replay marks it rolled_back and re-activates\n" +
    "every memory it had superseded. Anyone but a steward or the promotion's own actor, or an\n" +
    "already rolled-back promotion, is refused (exit 1). --json prints {fleet_id, promotion_id,\n" +
    "refused, reason, review_status, within_rollback_window, reactivated[], actor, events}.",
  options: {
    promotion: { type: "string", valueName: "P", description: "fleetpromo:<24 hex> (required)" },
    reason: { type: "string", valueName: "TEXT", description: "Why (required)" },
    actor: actorOption,
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet rollback alpha --promotion fleetpromo:<24 hex> --reason 'wrong root cause' --actor coordinator"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const promotionId = requiredOption(ctx, "promotion");
    const reason = requiredOption(ctx, "reason");
    const actor = requiredOption(ctx, "actor");
    const { promotionIdPattern } = await import("../../../fleet/ids.ts");
    if (!promotionIdPattern.test(promotionId)) {
      const { inputError } = await import("../../../errors.ts");
      throw inputError("invalid_promotion_id", `--promotion ${JSON.stringify(promotionId)} is not a promotion id (fleetpromo:<24 lowercase hex>)`, { field: "--promotion" });
    }
    const { rollbackPromotion } = await import("../../../fleet/lifecycle.ts");
    const doc = await rollbackPromotion(ctx.global.eventloomPath, { fleetId, promotionId, reason, actor });
    const reactivated = doc.reactivated as string[];
    return emitDecision(ctx, "zaxy.fleet.rollback.v1", doc, () =>
      `Rolled back ${promotionId}${doc.within_rollback_window ? "" : " (outside the rollback window)"}` + (reactivated.length > 0 ? `; re-activated ${reactivated.join(", ")}` : ""));
  },
});
