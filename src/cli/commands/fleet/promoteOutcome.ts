/** `zaxy fleet promote-outcome ID --outcome --summary [--claim-key] ...`: share an outcome with the fleet. */
import { defineCommand, stringOption } from "../../command.ts";
import { fleetIdPositional, requiredOption } from "./fleetArgs.ts";
import { promoteCommonOptions, promoteDescriptionTail, readPromotionFlags, runPromotion } from "./promoteCommon.ts";

export const fleetPromoteOutcomeCommand = defineCommand({
  name: "promote-outcome",
  writesRoot: true,
  summary: "Propagate an outcome into a fleet (trust-checked, gated, cited)",
  description:
    "Appends fleet.outcome.propagated {promotion_id, outcome, summary, ..., claim_key?} after the\n" +
    "gate event. Outcomes with the same --claim-key and a different --outcome conflict.\n" + promoteDescriptionTail,
  options: {
    outcome: { type: "string", valueName: "O", description: "success, failure or partial (required)" },
    summary: { type: "string", valueName: "TEXT", description: "What was learned (required)" },
    "claim-key": { type: "string", valueName: "KEY", description: "The claim it settles (conflict key)" },
    ...promoteCommonOptions,
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet promote-outcome alpha --outcome failure --summary 'JWKS cache expiry' --claim-key auth.failure.cause --origin-session worker-1 --source-event 1:<64 hex> --confidence 0.95 --actor worker-1"],
  async run(ctx) {
    const outcome = requiredOption(ctx, "outcome");
    const { promotionOutcomes } = await import("../../../fleet/promote.ts");
    if (!(promotionOutcomes as readonly string[]).includes(outcome)) {
      const { inputError } = await import("../../../errors.ts");
      throw inputError("invalid_option", `--outcome must be one of ${promotionOutcomes.join(", ")}, got ${JSON.stringify(outcome)}`, { field: "--outcome" });
    }
    const summary = requiredOption(ctx, "summary");
    const common = await readPromotionFlags(ctx);
    return runPromotion(ctx, "outcome", { ...common, outcome, summary, claimKey: stringOption(ctx, "claim-key") });
  },
});
