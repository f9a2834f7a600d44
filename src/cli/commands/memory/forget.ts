/**
 * `zaxy memory forget --target CITATION --reason R` (or `--target-hash H` with or without
 * `--target-seq N`): as MCP memory_forget (docs/forgetting.md).
 */
import { intOption } from "../../args.ts";
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryForgetCommand = defineCommand({
  name: "forget",
  writesRoot: true,
  summary: "Forget an event's content for good: destroy its key, append memory.forgotten (as MCP memory_forget)",
  description:
    "Needs \"forgetting_enabled\": true in config.json (zaxy init --forgetting) when the event was\n" +
    "appended. The evolution gate decides op forget (--confidence, default 1.0) and is recorded;\n" +
    "then the keys of the event's cell and of the copies other events made of its content\n" +
    "(corrections, rollbacks) are destroyed, memory.forgotten {forget_id, target, cell_id, reason}\n" +
    "is appended and every derived copy under <root>/projections is deleted. From then on every\n" +
    "reader shows [FORGOTTEN]; the hash chain stays valid (zaxy verify, ref_verify.py). If a\n" +
    "forget was stopped after destroying the key, running it again writes its record. --json\n" +
    "prints {session_id, status, forget_id, target, target_citation, cell_id, gate, event_type,\n" +
    "seq, hash, citation[, copy_cell_ids][, completed_earlier_forget]}.",
  options: {
    target: { type: "string", valueName: "CITATION", description: "The event to forget, as its citation eventloom://<session>/events/<seq>#<hash>" },
    "target-seq": { type: "string", valueName: "N", description: "Or its seq (optional with --target-hash)" },
    "target-hash": { type: "string", valueName: "H", description: "Or its hash: 64 hex, or a unique prefix of at least 12" },
    reason: { type: "string", valueName: "TEXT", description: "Why (required)" },
    actor: { type: "string", valueName: "A", description: "Who forgets it (default zaxy-forgetter)" },
    confidence: { type: "string", valueName: "C", description: "The gate's confidence, 0..1 (default 1.0)" },
  },
  positionals: [],
  examples: [
    "zaxy memory forget --target eventloom://default/events/4#0ab1c2d3e4f5 --reason 'user asked to delete it' --json",
    "zaxy memory forget --target-seq 4 --target-hash <64 hex> --reason 'user asked to delete it'",
  ],
  async run(ctx) {
    const { forgetMemory } = await import("../../../memory/forget.ts");
    const confidence = stringOption(ctx, "confidence");
    const result = await forgetMemory(ctx.global.eventloomPath, ctx.global.sessionId, {
      targetSeq: intOption(ctx, "target-seq", 1),
      targetHash: stringOption(ctx, "target-hash"),
      target: stringOption(ctx, "target"),
      reason: stringOption(ctx, "reason"),
      actor: stringOption(ctx, "actor"),
      confidence: confidence === undefined ? undefined : Number(confidence),
      env: ctx.io.env,
      fieldNames: { target_seq: "--target-seq", target_hash: "--target-hash", target: "--target", reason: "--reason", confidence: "--confidence" },
    });
    emit(ctx, "zaxy.memory.forget.v1", result, () =>
      result.status === "forgotten" ? `forgot event ${(result.target as { seq: number }).seq} (${result.target_citation}); tombstone seq ${result.seq}` : `held for review by the gate: nothing destroyed`);
    return result.status === "forgotten" ? 0 : 1;
  },
});
