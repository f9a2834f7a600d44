/**
 * `zaxy memory consolidation propose`: append one manual, review-pending candidate citing
 * events of the session (`--source-event SEQ:HASH`, repeatable).
 */
import { inputError } from "../../../../errors.ts";
import { parseSourceEventRef } from "../../../../eventloom/citation.ts";
import { requiredOption } from "../../../args.ts";
import { type CommandContext, defineCommand, listOption, stringOption } from "../../../command.ts";
import { proposeActorDefault } from "../../../../consolidation/actors.ts";
import { emit } from "../../../output.ts";

/** The design's defaults (seed 001, `memory consolidation propose`): both flags are optional. */
const confidenceDefault = 0.7;
const methodDefault = "manual_cli_v1";

/** A decimal number as the flag's text; "abc", "", "0x1" and friends are refused by name. */
function confidenceOption(ctx: CommandContext): number {
  const text = stringOption(ctx, "confidence");
  if (text === undefined) return confidenceDefault;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text.trim())) {
    throw inputError("invalid_option", `--confidence must be a number between 0.0 and 1.0, got ${JSON.stringify(text)}`, {
      field: "--confidence",
      expected: "a number in 0..1",
    });
  }
  return Number(text);
}

export const memoryConsolidationProposeCommand = defineCommand({
  name: "propose",
  writesRoot: true,
  summary: "Append a manual consolidation candidate (review-pending, non-authoritative, cited)",
  description:
    "Appends consolidation.candidate.created with review_status pending and authority_status\n" +
    "non_authoritative. The candidate id is consolidation:<type>:<16 hex of sha256 over the\n" +
    "canonical {candidate_type, title, source_events}>. Every --source-event must be an event\n" +
    "of this session (SEQ:HASH, full 64-hex hash). --json prints {session_id, event_type, seq,\n" +
    "hash, citation, candidate_id, candidate_type, review_status, authority_status, payload}.",
  options: {
    "candidate-type": { type: "string", valueName: "TYPE", description: "episode, claim or procedure (required)" },
    title: { type: "string", valueName: "TEXT", description: "Title (required; part of the candidate id)" },
    summary: { type: "string", valueName: "TEXT", description: "Summary (required)" },
    "source-event": { type: "string", multiple: true, valueName: "SEQ:HASH", description: "A cited source event (required, repeatable)" },
    confidence: { type: "string", valueName: "X", description: `Confidence 0..1 (default ${confidenceDefault})` },
    method: { type: "string", valueName: "NAME", description: `How the candidate was derived (default ${methodDefault})` },
    purpose: { type: "string", valueName: "TEXT", description: "What the candidate is for" },
    actor: { type: "string", valueName: "A", description: `Who proposes it (default ${proposeActorDefault})` },
  },
  positionals: [],
  examples: [
    "zaxy memory consolidation propose --candidate-type claim --title 'Tests pass after the fix' \\\n" +
    "    --summary 'pytest passed after editing app.py' --source-event 3:<hash> --source-event 4:<hash> \\\n" +
    "    --json",
  ],
  async run(ctx) {
    const candidateType = requiredOption(ctx, "candidate-type");
    const title = requiredOption(ctx, "title");
    const summary = requiredOption(ctx, "summary");
    const refs = listOption(ctx, "source-event");
    if (refs.length === 0) throw inputError("usage", `${ctx.commandPath}: at least one --source-event SEQ:HASH is required`, { field: "--source-event" });
    const sourceEvents = refs.map((text) => parseSourceEventRef(text));
    const confidence = confidenceOption(ctx);
    const method = stringOption(ctx, "method") ?? methodDefault;
    const { proposeCandidate } = await import("../../../../consolidation/operations.ts");
    const doc = await proposeCandidate(
      ctx.global.eventloomPath,
      ctx.global.sessionId,
      { candidateType, title, summary, sourceEvents, confidence, method, purpose: stringOption(ctx, "purpose") },
      stringOption(ctx, "actor") ?? proposeActorDefault,
    );
    emit(ctx, "zaxy.memory.consolidation.propose.v1", doc, () => `Proposed ${doc.candidate_id} (pending review) as seq ${doc.seq}  ${doc.citation}`);
    return 0;
  },
});
