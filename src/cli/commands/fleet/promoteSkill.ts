/** `zaxy fleet promote-skill ID --skill-id --skill-version ...`: share a skill version with the fleet. */
import { defineCommand } from "../../command.ts";
import { fleetIdPositional, requiredOption } from "./fleetArgs.ts";
import { keystoneFlag, keystoneOption, promoteCommonOptions, promoteDescriptionTail, readPromotionFlags, runPromotion } from "./promoteCommon.ts";

export const fleetPromoteSkillCommand = defineCommand({
  name: "promote-skill",
  writesRoot: true,
  summary: "Promote a skill version into a fleet (trust-checked, gated, cited)",
  description: "Appends fleet.skill.promoted {promotion_id, skill_id, skill_version, ...} after the gate event.\n" + promoteDescriptionTail,
  options: {
    "skill-id": { type: "string", valueName: "ID", description: "Skill id (required)" },
    "skill-version": { type: "string", valueName: "V", description: "Skill version (required)" },
    ...promoteCommonOptions,
    keystone: keystoneOption,
  },
  positionals: fleetIdPositional,
  examples: ["zaxy fleet promote-skill alpha --skill-id jwks-refresh --skill-version 2 --origin-session worker-1 --source-event 4:<64 hex> --confidence 0.9 --actor worker-1"],
  async run(ctx) {
    const skillId = requiredOption(ctx, "skill-id");
    const skillVersion = requiredOption(ctx, "skill-version");
    const common = await readPromotionFlags(ctx);
    return runPromotion(ctx, "skill", { ...common, skillId, skillVersion, keystone: keystoneFlag(ctx) });
  },
});
