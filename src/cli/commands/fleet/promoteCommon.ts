/**
 * What the three promote commands share: the common flags, their validation (by flag name,
 * exit 2) including the check that every --source-event is a sealed event of
 * --origin-session, and the printing of the promotion result (exit 1 when rejected).
 */
import { inputError } from "../../../errors.ts";
import type { PromotionInput } from "../../../fleet/promote.ts";
import type { PromotionKind } from "../../../fleet/vocabulary.ts";
import { booleanOption, type CommandContext, listOption, type OptionSpec, stringOption } from "../../command.ts";
import { actorOption, emitDecision, fleetIdArgument, requiredOption } from "./fleetArgs.ts";

export const promoteCommonOptions: Record<string, OptionSpec> = {
  "origin-session": { type: "string", valueName: "S", description: "Session whose sealed events justify it (required)" },
  "source-event": {
    type: "string",
    multiple: true,
    valueName: "SEQ:HASH",
    description: "A sealed event of the origin session (at least one): SEQ:HASH, SEQ:PREFIX (12+ hex) or its citation",
  },
  confidence: { type: "string", valueName: "X", description: "Confidence 0..1 (required); the gate compares it with the threshold" },
  actor: actorOption,
  "origin-actor": { type: "string", valueName: "A", description: "The agent that learned it (default --actor)" },
  "visibility-scope": { type: "string", valueName: "SCOPE", description: "fleet (default) or global" },
};

export const keystoneOption: OptionSpec = { type: "boolean", description: "Mark as keystone: conflicting auto-applied promotions are held pending" };

export const promoteDescriptionTail =
  "The actor must be enrolled with a tier whose ceiling reaches the scope (untrusted: session,\n" +
  "member: fleet, trusted/steward: global); otherwise exit 1 and nothing is written. The same\n" +
  "evidence promoted twice is one promotion (idempotent: true, nothing written). Otherwise an\n" +
  "evolution.gate.evaluated event (op promote) is appended first, then the promotion citing it;\n" +
  "an auto-applied promotion supersedes conflicting active memories (fleet.memory.superseded),\n" +
  "unless one is a keystone (then it is held pending). A trust refusal is recorded as\n" +
  "fleet.promotion.refused in the proposer's session (--session-id, default --origin-session),\n" +
  "never in the fleet thread. --json prints {fleet_id, kind, promotion_id, rejected, idempotent,\n" +
  "reason, review_status, auto_applied, actor, gate_event, promotion_event, citation,\n" +
  "supersessions[], gate_decision, refusal_event}.";

/** Reads and validates the common flags (the sealed-source check included). */
export async function readPromotionFlags(ctx: CommandContext): Promise<Omit<PromotionInput, "skillId" | "skillVersion" | "outcome" | "summary" | "claimKey" | "rule" | "trigger">> {
  const fleetId = await fleetIdArgument(ctx);
  const originSession = requiredOption(ctx, "origin-session");
  const { validateSessionId } = await import("../../../eventloom/mod.ts");
  try {
    validateSessionId(originSession, "cite");
  } catch {
    throw inputError("invalid_origin_session", `--origin-session ${JSON.stringify(originSession)} is not a session id (1-128 of A-Z a-z 0-9 . _ -)`, { field: "--origin-session" });
  }
  const texts = listOption(ctx, "source-event");
  if (texts.length === 0) throw inputError("missing_source_events", `${ctx.commandPath}: at least one --source-event SEQ:HASH is required`, { field: "--source-event", expected: "SEQ:HASH" });
  const { lookUpSourceEvents, parseSourceEvents } = await import("../../../eventloom/eventTarget.ts");
  const sourceOptions = { field: "--source-event", role: { noun: "the origin session", field: "--origin-session" } };
  const sourceSpecs = parseSourceEvents(texts, originSession, sourceOptions);
  const { parseUnitInterval } = await import("../../../governance/evolutionGate.ts");
  const confidence = parseUnitInterval(requiredOption(ctx, "confidence"), "--confidence");
  const actor = requiredOption(ctx, "actor");
  const { parsePromotionScope } = await import("../../../fleet/vocabulary.ts");
  const scopeText = stringOption(ctx, "visibility-scope");
  const visibilityScope = scopeText === undefined ? undefined : parsePromotionScope(scopeText, "--visibility-scope");
  const { requireSealedSources } = await import("../../../fleet/fleetLog.ts");
  // A citation or a prefix is looked up once the flags are valid; the result is checked like the full form.
  const sourceEvents = await lookUpSourceEvents(ctx.global.eventloomPath, originSession, sourceSpecs, sourceOptions);
  await requireSealedSources(ctx.global.eventloomPath, originSession, sourceEvents, "--source-event", "--origin-session");
  return { fleetId, originSession, sourceEvents, confidence, actor, originActor: stringOption(ctx, "origin-actor"), visibilityScope };
}

export function keystoneFlag(ctx: CommandContext): boolean {
  return booleanOption(ctx, "keystone");
}

/**
 * Where a trust refusal is recorded: the agent's own session, `--session-id` (or
 * EVENTLOOM_THREAD) when given, else the origin session (the library's default).
 */
export function refusalSessionOf(ctx: CommandContext): string | undefined {
  return ctx.global.sessionIdExplicit ? ctx.global.sessionId : undefined;
}

/** Runs the promotion and prints it; exit 1 when the trust check rejected it. */
export async function runPromotion(ctx: CommandContext, kind: PromotionKind, input: PromotionInput): Promise<number> {
  const { promote } = await import("../../../fleet/promote.ts");
  // The sources were checked above, by flag name.
  const doc = await promote(ctx.global.eventloomPath, kind, input, { verifySources: false, refusalSessionId: refusalSessionOf(ctx) });
  return emitDecision(ctx, `zaxy.fleet.promote_${kind}.v1`, doc, () => {
    const lines = [
      `${doc.idempotent ? "Already recorded" : "Promoted"} ${kind} ${doc.promotion_id} into fleet ${doc.fleet_id}: ${doc.review_status}`,
      `  ${doc.reason}`,
    ];
    if (doc.citation !== null) lines.push(`  ${doc.citation}`);
    for (const s of doc.supersessions) lines.push(`  superseded ${s.superseded_promotion_id} (seq ${s.event_seq})`);
    return lines.join("\n");
  });
}
