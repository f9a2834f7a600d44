/** `zaxy fleet promote-rule ID --rule --trigger ... [--keystone]`: share a rule with the fleet. */
import { defineCommand } from "../../command.ts";
import { fleetIdPositional, requiredOption } from "./fleetArgs.ts";
import { keystoneFlag, keystoneOption, promoteCommonOptions, promoteDescriptionTail, readPromotionFlags, runPromotion } from "./promoteCommon.ts";

export const fleetPromoteRuleCommand = defineCommand({
  name: "promote-rule",
  writesRoot: true,
  summary: "Propagate a rule into a fleet (trust-checked, gated, cited)",
  description:
    "Appends fleet.rule.propagated {promotion_id, rule_id (rule:<24 hex>), rule, trigger, ...}\n" +
    "after the gate event. Rules with the same --trigger and different text conflict.\n" + promoteDescriptionTail,
  options: {
    rule: { type: "string", valueName: "TEXT", description: "The rule (required)" },
    trigger: { type: "string", valueName: "TEXT", description: "When it applies (required; the conflict key)" },
    ...promoteCommonOptions,
    keystone: keystoneOption,
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet promote-rule alpha --rule 'refresh JWKS before expiry' --trigger 'auth 401 spike' --origin-session worker-1 --source-event 3:<64 hex> --confidence 0.9 --actor worker-1 --keystone"],
  async run(ctx) {
    const rule = requiredOption(ctx, "rule");
    const trigger = requiredOption(ctx, "trigger");
    const common = await readPromotionFlags(ctx);
    return runPromotion(ctx, "rule", { ...common, rule, trigger, keystone: keystoneFlag(ctx) });
  },
});
