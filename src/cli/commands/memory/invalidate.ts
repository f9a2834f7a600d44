/** `zaxy memory invalidate ENTITY --entity-type T --invalid-at ISO [--reason R] [--actor A]`: as MCP memory_invalidate. */
import { defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryInvalidateCommand = defineCommand({
  name: "invalidate",
  writesRoot: true,
  summary: "Close a current fact's validity window at --invalid-at (nothing deleted; as MCP memory_invalidate)",
  description:
    "Appends memory.invalidated {entity_name, entity_type, invalid_at[, reason]}: checkout stops\n" +
    "serving the fact as current and counts it as superseded; the fact and its history stay in the\n" +
    "graph and the log, and stating it again makes it current again. --invalid-at is ISO-8601 with\n" +
    "an offset, not in the future, not before the fact became current. A fact that is not current\n" +
    "is unknown_memory (exit 2). --json prints {session_id, status: \"invalidated\", entity_name,\n" +
    "entity_type, invalid_at, event_type, seq, hash, citation, closed_citation}.",
  options: {
    "entity-type": { type: "string", valueName: "T", description: "The fact's entity type (required)" },
    "invalid-at": { type: "string", valueName: "ISO", description: "When it stopped holding, e.g. 2026-11-27T10:00:00Z (required)" },
    reason: { type: "string", valueName: "TEXT", description: "Why it no longer holds" },
    actor: { type: "string", valueName: "A", description: "Who invalidates it (default zaxy)" },
  },
  positionals: [{ name: "ENTITY", description: "The fact's entity name", required: true }],
  examples: ["zaxy memory invalidate editor --entity-type preference --invalid-at 2026-11-27T10:00:00Z --reason 'switched to helix' --json"],
  async run(ctx) {
    const { invalidateMemory } = await import("../../../memory/invalidate.ts");
    const result = await invalidateMemory(ctx.global.eventloomPath, ctx.global.sessionId, {
      entityName: ctx.positionals[0],
      entityType: stringOption(ctx, "entity-type"),
      invalidAt: stringOption(ctx, "invalid-at"),
      reason: stringOption(ctx, "reason"),
      actor: stringOption(ctx, "actor"),
      fieldNames: { entity_name: "ENTITY", entity_type: "--entity-type", invalid_at: "--invalid-at", reason: "--reason", actor: "--actor" },
    });
    for (const warning of result.warnings ?? []) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    emit(ctx, "zaxy.memory.invalidate.v1", { ...result }, () => `invalidated ${result.entity_type} ${JSON.stringify(result.entity_name)} at ${result.invalid_at} (seq ${result.seq}, ${result.citation})`);
    return 0;
  },
});
