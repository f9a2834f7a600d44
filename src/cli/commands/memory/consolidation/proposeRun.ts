/** What propose.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import { inputError } from "../../../../errors.ts";
import { lookUpSourceEvents, parseSourceEvents } from "../../../../eventloom/eventTarget.ts";
import { requiredOption } from "../../../args.ts";
import { type CommandContext, listOption, stringOption } from "../../../command.ts";
import { proposeActorDefault } from "../../../../consolidation/actors.ts";
import { emit } from "../../../output.ts";
import { confidenceDefault, methodDefault } from "./propose.ts";

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

export async function runMemoryConsolidationPropose(ctx: CommandContext): Promise<number> {
  const candidateType = requiredOption(ctx, "candidate-type");
  const title = requiredOption(ctx, "title");
  const summary = requiredOption(ctx, "summary");
  const refs = listOption(ctx, "source-event");
  if (refs.length === 0) throw inputError("usage", `${ctx.commandPath}: at least one --source-event SEQ:HASH is required`, { field: "--source-event" });
  const sourceOptions = { field: "--source-event" };
  const sourceSpecs = parseSourceEvents(refs, ctx.global.sessionId, sourceOptions);
  const confidence = confidenceOption(ctx);
  const method = stringOption(ctx, "method") ?? methodDefault;
  const sourceEvents = await lookUpSourceEvents(ctx.global.eventloomPath, ctx.global.sessionId, sourceSpecs, sourceOptions);
  const { proposeCandidate } = await import("../../../../consolidation/operations.ts");
  const doc = await proposeCandidate(
    ctx.global.eventloomPath,
    ctx.global.sessionId,
    { candidateType, title, summary, sourceEvents, confidence, method, purpose: stringOption(ctx, "purpose") },
    stringOption(ctx, "actor") ?? proposeActorDefault,
  );
  emit(ctx, "zaxy.memory.consolidation.propose.v1", doc, () => `Proposed ${doc.candidate_id} (pending review) as seq ${doc.seq}  ${doc.citation}`);
  return 0;
}
