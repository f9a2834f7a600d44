/**
 * `zaxy memory consolidation merge (--memory NAME[@TYPE] | --source-id ID) ...`: propose merging
 * memories as one review-pending `claim` candidate (the merged concept, `target_id`) citing their
 * source events; the memories themselves are never changed (DESIGN §8, design 004,
 * docs/trigger-consolidation.md).
 */
import type { MergeMemoryRef, MergeResult } from "../../../../consolidation/mergeConcepts.ts";
import { inputError } from "../../../../errors.ts";
import { type CommandContext, defineCommand, listOption, stringOption } from "../../../command.ts";
import { emit } from "../../../output.ts";
import { stderrWarn } from "../requestOptions.ts";

/** The suffix `NAME@TYPE` splits off: an entity type is a lowercase word (`goal`, `user_preference`). */
const typeSuffixPattern = /^(.+)@([a-z][a-z0-9_]*)$/;

/**
 * `--memory` values as references. With `--entity-type` every name is taken whole with that
 * type; without it `NAME@TYPE` is split at the last `@` when TYPE is a lowercase word, so
 * `alice@example.com` stays a name.
 */
function memoryRefs(ctx: CommandContext): MergeMemoryRef[] {
  const values = listOption(ctx, "memory");
  const entityType = stringOption(ctx, "entity-type");
  return values.map((value) => {
    if (entityType !== undefined) return { name: value, entityType };
    const match = typeSuffixPattern.exec(value);
    return match === null ? { name: value } : { name: match[1], entityType: match[2] };
  });
}

/** At least two memories in all, by --memory or --source-id (usage error otherwise). */
function requireTwo(ctx: CommandContext, refs: readonly MergeMemoryRef[], sourceIds: readonly string[]): void {
  const total = refs.length + sourceIds.length;
  if (total < 2) {
    throw inputError("usage", `${ctx.commandPath}: give at least two memories with --memory NAME[@TYPE] or --source-id ID (got ${total})`, {
      field: "--memory",
      expected: "two or more current memories, NAME, NAME@TYPE or a memory id from trigger's source_ids",
    });
  }
}

function render(result: MergeResult): string {
  const verb = result.status === "created" ? `Proposed ${result.candidate_id} (pending review) as seq ${result.candidate_event.seq}` :
    `${result.candidate_id} already exists as seq ${result.candidate_event.seq}; nothing appended`;
  return [
    `${verb}  ${result.candidate_event.citation}`,
    `  merged concept ${result.target_id}; confidence ${result.confidence} (${result.method}); sources unchanged:`,
    ...result.memories.map((m) => `    ${m.id}  ${m.name} (${m.entity_type})  ${m.citation}`),
  ].join("\n");
}

export const memoryConsolidationMergeCommand = defineCommand({
  name: "merge",
  writesRoot: true,
  summary: "Propose merging memories: one review-pending claim candidate citing their sources",
  description:
    "Appends one consolidation.candidate.created of type claim (review_status pending,\n" +
    "authority_status non_authoritative): the merged concept, with target_id (the same for the\n" +
    "same sources, as trigger reports it) and source_ids, citing the source event of each memory\n" +
    "(a current entity of the session, named by --memory or by its id from trigger's source_ids\n" +
    "with --source-id; at least two distinct). The memories and their events are never changed.\n" +
    "Confidence is the exact cosine of the two memories (the lowest pairwise one for more).\n" +
    "Merging the same sources again appends nothing and reports the existing candidate.",
  options: {
    memory: { type: "string", multiple: true, valueName: "NAME[@TYPE]", description: "A memory to merge, by name (at least two memories in all)" },
    "source-id": { type: "string", multiple: true, valueName: "ID", description: "A memory to merge, by id (memory:<24 hex>, from trigger's source_ids)" },
    "entity-type": { type: "string", valueName: "TYPE", description: "Entity type of every --memory (names are then taken whole)" },
    title: { type: "string", valueName: "TEXT", description: "Candidate title (default: Merge <memories>; part of the id)" },
    summary: { type: "string", valueName: "TEXT", description: "Candidate summary (default: names the memories and their cosine)" },
    actor: { type: "string", valueName: "A", description: "Who proposes it (default zaxy-consolidation)" },
  },
  positionals: [],
  examples: [
    "zaxy memory consolidation merge --memory 'Use Kuzu@decision' --memory 'Use Kuzu for the graph@decision'",
    "zaxy memory consolidation merge --entity-type note --memory deploy-notes --memory deploy-notes-v2 --json",
    "zaxy memory consolidation merge --source-id memory:3f0c9a41b2d87e6612aa0b1c --source-id memory:9a41e0c3b7d2f1a8c6e5d4b3",
  ],
  async run(ctx) {
    const memories = memoryRefs(ctx);
    const sourceIds = listOption(ctx, "source-id");
    requireTwo(ctx, memories, sourceIds);
    const { MemoryService } = await import("../../../../memory/service.ts");
    const { mergeConcepts } = await import("../../../../consolidation/mergeConcepts.ts");
    const service = new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) });
    const result = await mergeConcepts(service, {
      sessionId: ctx.global.sessionId,
      memories,
      sourceIds,
      title: stringOption(ctx, "title"),
      summary: stringOption(ctx, "summary"),
      actor: stringOption(ctx, "actor"),
    });
    emit(ctx, "zaxy.memory.consolidation.merge.v1", { ...result }, () => render(result));
    return 0;
  },
});
