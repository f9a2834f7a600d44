/**
 * Additive supersession (DESIGN invariant 4): a conflict is resolved by a
 * `fleet.memory.superseded` event that cites both promotion events; the older memory is kept
 * and comes back when the winner is rolled back.
 */
import type { AppendItem } from "../eventloom/append.ts";
import type { SourceEventRef } from "../eventloom/root.ts";
import { memorySupersededPayload } from "./payloads.ts";
import type { FleetPromotion } from "./replay.ts";
import { fleetEventTypes, type PromotionKind } from "./vocabulary.ts";

export interface SupersedingPromotion {
  promotionId: string;
  kind: PromotionKind;
  conflictKey: string;
  /** The winner's promotion event. */
  event: SourceEventRef;
}

/** The supersession of `loser` by `winner`, citing the loser's promotion event then the winner's event. */
export function supersessionItem(fleetId: string, actor: string, loser: FleetPromotion, winner: SupersedingPromotion): AppendItem {
  const subject = loser.kind === "skill" && loser.fields.skill_id !== undefined ? { skillId: loser.fields.skill_id } : { claimKey: winner.conflictKey };
  const reason = `conflicting ${winner.kind} on ${JSON.stringify(winner.conflictKey)}: ${loser.promotionId} (${JSON.stringify(loser.conflictValue)}) superseded by ${winner.promotionId}`;
  return {
    type: fleetEventTypes.memorySuperseded,
    actor,
    payload: memorySupersededPayload(fleetId, loser.promotionId, winner.promotionId, reason, [
      { seq: loser.event.seq, hash: loser.event.hash },
      { seq: winner.event.seq, hash: winner.event.hash },
    ], subject),
  };
}
