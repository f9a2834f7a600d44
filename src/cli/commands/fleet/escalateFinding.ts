/**
 * `zaxy fleet escalate-finding ID --mission M --finding-id F --actor A`: the coordination
 * bridge (docs/fleet.md, "Coordination bridge"): an accepted, promoted mission finding becomes a
 * fleet promotion citing its `coordination.finding.promoted` event.
 */
import { inputError } from "../../../errors.ts";
import { booleanOption, defineCommand, stringOption } from "../../command.ts";
import { actorOption, emitDecision, fleetIdArgument, fleetIdPositional, requiredOption } from "./fleetArgs.ts";
import { refusalSessionOf } from "./promoteCommon.ts";

export const fleetEscalateFindingCommand = defineCommand({
  name: "escalate-finding",
  writesRoot: true,
  summary: "Escalate an accepted mission finding to a fleet as an outcome (or skill) promotion",
  description:
    "Finds the finding's coordination.finding.promoted event in the mission's thread (the mission id)\n" +
    "and promotes it to the fleet, citing that event as the only source: origin session = the\n" +
    "mission, origin actor = the finding's worker. Default kind outcome (success; summary and\n" +
    "claim_key from the finding); --as-skill promotes skill finding:<F> version 1. Confidence:\n" +
    "--confidence, else the finding's, else 1.0. A finding without an accepted promotion is bad\n" +
    "input (exit 2). The promotion is trust-checked and gated like promote-outcome: exit 1 and\n" +
    "nothing written when the actor's tier may not propose the scope. --json prints the promotion\n" +
    "result plus mission_id, finding_id and finding_event {seq, hash, citation}.",
  options: {
    mission: { type: "string", valueName: "M", description: "Mission id (its thread holds the finding; required)" },
    "finding-id": { type: "string", valueName: "F", description: "The finding to escalate (required)" },
    actor: actorOption,
    confidence: { type: "string", valueName: "X", description: "Confidence 0..1 (default: the finding's, else 1.0)" },
    "visibility-scope": { type: "string", valueName: "SCOPE", description: "fleet (default) or global" },
    "as-skill": { type: "boolean", description: "Promote as skill finding:<F> (version 1) instead of an outcome" },
  },
  positionals: fleetIdPositional,
  examples: [
    "zaxy fleet escalate-finding platform --mission release-42 --finding-id worker-api:finding:1 --actor coordinator --json",
    "zaxy fleet escalate-finding platform --mission release-42 --finding-id worker-api:finding:1 --actor coordinator --as-skill",
  ],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const missionId = requiredOption(ctx, "mission");
    const { validateSessionId } = await import("../../../eventloom/root.ts");
    try {
      validateSessionId(missionId, "read");
    } catch {
      throw inputError("invalid_mission", `--mission ${JSON.stringify(missionId)} is not a mission id (a session id: 1-128 of A-Z a-z 0-9 . _ -)`, { field: "--mission" });
    }
    const findingId = requiredOption(ctx, "finding-id");
    const actor = requiredOption(ctx, "actor");
    const { parseUnitInterval } = await import("../../../governance/evolutionGate.ts");
    const confidenceText = stringOption(ctx, "confidence");
    const confidence = confidenceText === undefined ? undefined : parseUnitInterval(confidenceText, "--confidence");
    const { parsePromotionScope } = await import("../../../fleet/vocabulary.ts");
    const scopeText = stringOption(ctx, "visibility-scope");
    const visibilityScope = scopeText === undefined ? undefined : parsePromotionScope(scopeText, "--visibility-scope");
    const { escalateFindingToFleet } = await import("../../../fleet/coordinationBridge.ts");
    const doc = await escalateFindingToFleet(ctx.global.eventloomPath, {
      fleetId,
      missionId,
      findingId,
      actor,
      confidence,
      visibilityScope,
      asSkill: booleanOption(ctx, "as-skill"),
    }, { refusalSessionId: refusalSessionOf(ctx) });
    return emitDecision(ctx, "zaxy.fleet.escalate_finding.v1", doc, () => {
      const lines = [
        `${doc.idempotent ? "Already recorded" : "Escalated"} finding ${doc.finding_id} of mission ${doc.mission_id} as ${doc.kind} ${doc.promotion_id} into fleet ${doc.fleet_id}: ${doc.review_status}`,
        `  ${doc.reason}`,
        `  source ${doc.finding_event.citation}`,
      ];
      if (doc.citation !== null) lines.push(`  ${doc.citation}`);
      for (const s of doc.supersessions) lines.push(`  superseded ${s.superseded_promotion_id} (seq ${s.event_seq})`);
      return lines.join("\n");
    });
  },
});
