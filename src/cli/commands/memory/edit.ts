/**
 * `zaxy memory edit --target CITATION --content TEXT --reason R` (or `--target-hash H` with or
 * without `--target-seq N`): as MCP memory_edit. The target forms are resolved by
 * eventloom/eventTarget.ts; the correction records the event's full hash.
 */
import { inputError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryEditCommand = defineCommand({
  name: "edit",
  writesRoot: true,
  summary: "Correct what an event stated (memory.corrected; the event is never changed; as MCP memory_edit)",
  description:
    "Appends memory.corrected {correction_id, target{seq, hash}, content, reason, entity_name,\n" +
    "entity_type, previous_content, authority_status} citing the event; checkout serves the new\n" +
    "content as the fact's current content. `zaxy memory rollback` of the correction restores the\n" +
    "earlier content while the correction is the fact's latest statement. --json prints\n" +
    "{session_id, status: \"corrected\", correction_id, entity_name, entity_type, content,\n" +
    "previous_content, corrected_citation, event_type, seq, hash, citation}.",
  options: {
    target: { type: "string", valueName: "CITATION", description: "The event whose statement is wrong, as its citation eventloom://<session>/events/<seq>#<hash>" },
    "target-seq": { type: "string", valueName: "N", description: "Or its seq (optional with --target-hash)" },
    "target-hash": { type: "string", valueName: "H", description: "Or its hash: 64 hex, or a unique prefix of at least 12" },
    content: { type: "string", valueName: "TEXT", description: "What it should say (required)" },
    reason: { type: "string", valueName: "TEXT", description: "Why it is corrected (required)" },
    actor: { type: "string", valueName: "A", description: "Who corrects it (default zaxy-editor)" },
    confidence: { type: "string", valueName: "C", description: "How sure, 0..1 (recorded)" },
  },
  positionals: [],
  examples: [
    "zaxy memory edit --target eventloom://default/events/3#de8003d03709 --content 'We use Postgres 16' --reason 'version was wrong' --json",
    "zaxy memory edit --target-seq 3 --target-hash de8003d03709 --content 'We use Postgres 16' --reason 'version was wrong'",
  ],
  async run(ctx) {
    const rawConfidence = stringOption(ctx, "confidence");
    const confidence = rawConfidence === undefined ? undefined : Number(rawConfidence);
    if (rawConfidence !== undefined && !(Number.isFinite(confidence) && rawConfidence.trim() !== "")) {
      throw inputError("invalid_option", `--confidence must be a number 0..1, got ${JSON.stringify(rawConfidence)}`, { field: "--confidence" });
    }
    const { editMemory } = await import("../../../memory/edit.ts");
    const result = await editMemory(ctx.global.eventloomPath, ctx.global.sessionId, {
      targetSeq: intOption(ctx, "target-seq", 1) ?? undefined,
      targetHash: stringOption(ctx, "target-hash"),
      target: stringOption(ctx, "target"),
      newContent: stringOption(ctx, "content"),
      reason: stringOption(ctx, "reason"),
      actor: stringOption(ctx, "actor"),
      confidence,
      fieldNames: { target_seq: "--target-seq", target_hash: "--target-hash", target: "--target", new_content: "--content", reason: "--reason", actor: "--actor", confidence: "--confidence" },
    });
    for (const warning of result.warnings ?? []) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    emit(ctx, "zaxy.memory.edit.v1", { ...result }, () => `corrected ${result.entity_type} ${JSON.stringify(result.entity_name)} (${result.corrected_citation}) -> seq ${result.seq} ${result.citation}`);
    return 0;
  },
});
