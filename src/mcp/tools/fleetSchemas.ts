/** Input fields the fleet tools share (docs/fleet.md, "MCP tools"; reference §5.4). */
import * as z from "zod";
import { createActorDefault } from "../../fleet/membership.ts";
import { promotionOutcomes } from "../../fleet/promote.ts";
import { promotableScopes, promotionKinds, reviewDecisions, trustTiers } from "../../fleet/vocabulary.ts";
import { actorSchema } from "../eventSchemas.ts";

export const fleetIdField = z.string().regex(/^[A-Za-z0-9_.-]{1,122}$/)
  .describe("Fleet id: 1-122 of A-Z a-z 0-9 . _ - (the fleet's thread is fleet.<id>)");
export const agentIdField = actorSchema.describe("Agent id, as the agent appears as an event actor");
export const fleetActorField = (what: string) => actorSchema.describe(what);
export const optionalCoordinatorField = actorSchema.optional().describe(`Who acts (default ${createActorDefault})`);
export const trustTierField = z.enum(trustTiers).describe("untrusted, member, trusted or steward (max proposable scope session, fleet, global, global)");
export const promotionKindField = z.enum(promotionKinds).describe("skill, outcome or rule");
export const promotionScopeField = z.enum(promotableScopes).describe("fleet (default; member and above) or global (trusted and steward)");
export const promotionOutcomeField = z.enum(promotionOutcomes).describe("Outcome promotions: success, failure or partial");
export const reviewDecisionField = z.enum(reviewDecisions).describe("accepted (makes it active), rejected or deferred");
export const promotionIdField = z.string().regex(/^fleetpromo:[0-9a-f]{24}$/).describe("fleetpromo:<24 lowercase hex>");
export const confidenceField = z.number().min(0).max(1).describe("Confidence 0..1; the evolution gate (op promote) auto-applies at >= its threshold (default 0.85)");
export const fleetSourceEventsField = z
  .array(z.union([
    z.strictObject({
      seq: z.number().int().min(1).describe("Seq of a sealed event of origin_session"),
      hash: z.string().regex(/^[0-9a-f]{12,64}$/).describe("Its hash: 64 lowercase hex, or a unique prefix of at least 12 (a citation's #part)"),
    }),
    z.string().min(1).describe("Or its citation eventloom://<origin_session>/events/<seq>#<hash prefix>"),
  ]))
  .min(1)
  .describe("Sealed events of origin_session that justify the promotion, at least one; each is recorded as {seq, full hash}");
export const fleetTextField = (what: string) => z.string().min(1).describe(what);
