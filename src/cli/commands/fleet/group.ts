/** `zaxy fleet ...`: the governed fleet memory plane (DESIGN §10, docs/fleet.md). */
import { defineGroup } from "../../command.ts";
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
    "events and stays non_authoritative. Exit 1 when the check said no (rejected or refused).",
  children: [
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
  ],
});
