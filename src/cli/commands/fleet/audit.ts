/** `zaxy fleet audit ID`: which agent taught the fleet each memory, from which sealed event. */
import type { PlainJson } from "../../../fleet/replay.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { fleetIdArgument, fleetIdPositional } from "./fleetArgs.ts";

export const fleetAuditCommand = defineCommand({
  name: "audit",
  summary: "Trace every promotion to its agent, origin session, sealed source events and gate event",
  description:
    "For every promotion: actor, origin_actor, origin_session, the eventloom:// citations of its\n" +
    "source events in <root>/<origin_session>.jsonl and of its gate event, each checked to resolve\n" +
    "to a sealed event with exactly that hash, and every fleet event whose actor lacked the authority\n" +
    "the fleet commands require (not applied to the fleet's state). Exit 1 when any ref does not\n" +
    "resolve or any such event exists. --json prints\n" +
    "{fleet_id, thread, ok, promotion_count, ref_count, unresolved_count, promotions[{promotion_id,\n" +
    "kind, review_status, summary, actor, origin_actor, origin_session, promotion_event, gate_event,\n" +
    "source_refs[{seq, hash, citation, resolved, event_type, event_actor}]}], unresolved[{promotion_id,\n" +
    "ref, citation, seq, hash, problem}], unauthorised_governance_event_count,\n" +
    "unauthorised_governance_events[{seq, hash, event_type, actor, reason, citation}]}.",
  options: {},
  positionals: fleetIdPositional,
  examples: ["zaxy fleet audit alpha --json"],
  async run(ctx) {
    const fleetId = await fleetIdArgument(ctx);
    const { fleetAudit } = await import("../../../fleet/audit.ts");
    const doc = await fleetAudit(ctx.global.eventloomPath, fleetId);
    emit(ctx, "zaxy.fleet.audit.v1", doc, () => {
      const lines = [`Fleet ${fleetId}: ${doc.promotion_count} promotions, ${doc.ref_count} refs, ${doc.unresolved_count} unresolved`];
      for (const p of doc.promotions as Array<{ [key: string]: PlainJson }>) {
        const gate = p.gate_event as { citation: string } | null;
        lines.push(`${p.promotion_id} ${p.kind} ${p.review_status}: taught by ${p.origin_actor} (proposed by ${p.actor}) from session ${p.origin_session}`);
        for (const ref of p.source_refs as Array<{ citation: string; resolved: boolean }>) lines.push(`  source ${ref.citation} ${ref.resolved ? "ok" : "UNRESOLVED"}`);
        lines.push(`  gate   ${gate === null ? "-" : gate.citation}`);
      }
      for (const u of doc.unresolved as Array<{ [key: string]: PlainJson }>) lines.push(`UNRESOLVED ${u.promotion_id} ${u.ref} ${u.citation ?? ""}: ${u.problem}`);
      for (const u of doc.unauthorised_governance_events as Array<{ [key: string]: PlainJson }>) {
        lines.push(`UNAUTHORISED ${u.event_type} by ${u.actor} ${u.citation}: ${u.reason} (not applied to the fleet's state)`);
      }
      return lines.join("\n");
    });
    return doc.ok ? 0 : 1;
  },
});
