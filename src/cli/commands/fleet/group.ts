/**
 * `zaxy fleet ...`: the governed fleet memory plane (DESIGN §10, docs/fleet.md). The plane is
 * off unless config.json sets `fleet_enabled: true`: every child refuses first (exit 2,
 * `fleet_disabled`), before reading or writing anything.
 */
import { type Command, defineGroup } from "../../command.ts";
import { fleetAssignTrustCommand } from "./assignTrust.ts";
import { fleetAuditCommand } from "./audit.ts";
import { fleetCreateCommand } from "./create.ts";
import { fleetEnrollCommand } from "./enroll.ts";
import { fleetEscalateFindingCommand } from "./escalateFinding.ts";
import { fleetPromoteOutcomeCommand } from "./promoteOutcome.ts";
import { fleetPromoteRuleCommand } from "./promoteRule.ts";
import { fleetPromoteSkillCommand } from "./promoteSkill.ts";
import { fleetReviewCommand } from "./review.ts";
import { fleetRollbackCommand } from "./rollback.ts";
import { fleetStatusCommand } from "./status.ts";

export const fleetGroup = defineGroup({
  name: "fleet",
  summary: "Fleet memory: create, enroll, assign-trust, promote-*, review, rollback, status, audit",
  description:
    "Agents share skills, outcomes and rules through a fleet thread fleet.<ID>. Trust tiers cap\n" +
    "what each agent may propose; every promotion passes the evolution gate, cites sealed source\n" +
    "events and stays non_authoritative. Exit 1 when the check said no (rejected or refused).\n" +
    "The plane is off by default: every fleet command refuses (exit 2) unless the root's\n" +
    "config.json sets \"fleet_enabled\": true (`zaxy init --fleet` adds it).",
  children: ([
    fleetCreateCommand,
    fleetEnrollCommand,
    fleetAssignTrustCommand,
    fleetPromoteSkillCommand,
    fleetPromoteOutcomeCommand,
    fleetPromoteRuleCommand,
    fleetReviewCommand,
    fleetRollbackCommand,
    fleetStatusCommand,
    fleetAuditCommand,
    fleetEscalateFindingCommand,
  ] as Command[]).map(gatedByFleetEnabled),
});

/** The command, refusing first when the root's config.json does not enable the fleet plane. */
function gatedByFleetEnabled(command: Command): Command {
  return {
    ...command,
    async run(ctx) {
      const { requireFleetEnabled } = await import("../../../fleet/fleetConfig.ts");
      requireFleetEnabled(ctx.global.eventloomPath, `run ${ctx.commandPath}`);
      return await command.run(ctx);
    },
  };
}
