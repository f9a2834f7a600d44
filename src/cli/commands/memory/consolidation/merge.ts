/**
 * `zaxy memory consolidation merge --memory NAME[@TYPE] --memory NAME[@TYPE] ...`: propose
 * merging memories as one review-pending `claim` candidate citing their source events; the
 * memories themselves are never changed (DESIGN §8, docs/trigger-consolidation.md).
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
  if (values.length < 2) {
    throw inputError("usage", `${ctx.commandPath}: give at least two --memory NAME (got ${values.length})`, {
      field: "--memory",
      expected: "two or more current memories, NAME or NAME@TYPE",
    });
  }
  const entityType = stringOption(ctx, "entity-type");
  return values.map((value) => {
    if (entityType !== undefined) return { name: value, entityType };
    const match = typeSuffixPattern.exec(value);
    return match === null ? { name: value } : { name: match[1], entityType: match[2] };
  });
}

function render(result: MergeResult): string {
  const verb = result.status === "created" ? `Proposed ${result.candidate_id} (pending review) as seq ${result.candidate_event.seq}` :
    `${result.candidate_id} already exists as seq ${result.candidate_event.seq}; nothing appended`;
  return [
    `${verb}  ${result.candidate_event.citation}`,
    `  confidence ${result.confidence} (${result.method}); sources unchanged:`,
    ...result.memories.map((m) => `    ${m.name} (${m.entity_type})  ${m.citation}`),
  ].join("\n");
}

export const memoryConsolidationMergeCommand = defineCommand({
  name: "merge",
  writesRoot: true,
  summary: "Propose merging memories: one review-pending claim candidate citing their sources",
  description:
    "Appends one consolidation.candidate.created of type claim (review_status pending,\n" +
    "authority_status non_authoritative) citing the source event of each named memory (a\n" +
    "current entity of the session; at least two distinct). The memories and their events are\n" +
    "never changed. Confidence is the exact cosine of the two memories (the lowest pairwise one\n" +
    "for more). Running the same merge again appends nothing and reports the existing candidate.",
  options: {
    memory: { type: "string", multiple: true, valueName: "NAME[@TYPE]", description: "A memory to merge (at least two)" },
    "entity-type": { type: "string", valueName: "TYPE", description: "Entity type of every --memory (names are then taken whole)" },
    title: { type: "string", valueName: "TEXT", description: "Candidate title (default: Merge <memories>; part of the id)" },
    summary: { type: "string", valueName: "TEXT", description: "Candidate summary (default: names the memories and their cosine)" },
    actor: { type: "string", valueName: "A", description: "Who proposes it (default zaxy-consolidation)" },
  },
  positionals: [],
  examples: [
    "zaxy memory consolidation merge --memory 'Use Kuzu@decision' --memory 'Use Kuzu for the graph@decision'",
    "zaxy memory consolidation merge --entity-type note --memory deploy-notes --memory deploy-notes-v2 --json",
  ],
  async run(ctx) {
    const memories = memoryRefs(ctx);
    const { MemoryService } = await import("../../../../memory/service.ts");
    const { mergeConcepts } = await import("../../../../consolidation/mergeConcepts.ts");
    const service = new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) });
    const result = await mergeConcepts(service, {
      sessionId: ctx.global.sessionId,
      memories,
      title: stringOption(ctx, "title"),
      summary: stringOption(ctx, "summary"),
      actor: stringOption(ctx, "actor"),
    });
    emit(ctx, "zaxy.memory.consolidation.merge.v1", { ...result }, () => render(result));
    return 0;
  },
});
