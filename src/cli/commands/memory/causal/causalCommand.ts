/**
 * `zaxy memory causal successors|predecessors ENTITY`: the two directions share everything but
 * the direction (reference §3.4). JSON: `{schema, direction, entity: {name, entity_type},
 * results: [...]}`; text: one `source -> target [relation, confidence=0.900, path_length=1,
 * citation=eventloom://...]` line per result, or `No causal <direction> found for <ENTITY>.`
 */
import type { CausalDirection, CausalQueryResult } from "../../../../causal/mod.ts";
import { type Command, defineCommand } from "../../../command.ts";
import { emit } from "../../../output.ts";
import { stderrWarn } from "../requestOptions.ts";

export function causalResultLines(direction: CausalDirection, entityName: string, results: readonly CausalQueryResult[]): string {
  if (results.length === 0) return `No causal ${direction} found for ${entityName}.`;
  return results
    .map((r) => `${r.source.name} -> ${r.target.name} [${r.relation_type}, confidence=${r.confidence.toFixed(3)}, path_length=${r.path_length}, citation=${r.citation}]`)
    .join("\n");
}

export function causalCommand(direction: CausalDirection, summary: string, description: string): Command {
  return defineCommand({
    name: direction,
    summary,
    description,
    options: {
      "entity-type": { type: "string", valueName: "TYPE", description: "Start only from versions of this entity type (default: any type)" },
      "relation-type": {
        type: "string",
        valueName: "TYPE",
        description: "Follow only this relation: caused, enabled, blocked, prevented, regressed, fixed or explained",
      },
      depth: { type: "string", valueName: "D", description: "Hops to follow (1..5, default 2)" },
    },
    positionals: [{ name: "ENTITY", description: "Entity name to start from (exact, 1..4096 characters)", required: true }],
    examples: [
      `zaxy memory causal ${direction} "deploy failed" --depth 3`,
      `zaxy memory causal ${direction} "missing index" --relation-type caused --json`,
    ],
    async run(ctx) {
      const { MemoryService } = await import("../../../../memory/service.ts");
      const { queryCausal, validateCausalQuery } = await import("../../../../causal/mod.ts");
      const query = validateCausalQuery(
        {
          sessionId: ctx.global.sessionId,
          direction,
          entityName: ctx.positionals[0],
          entityType: ctx.values["entity-type"],
          relationType: ctx.values["relation-type"],
          depth: ctx.values.depth,
        },
        { entity_name: "ENTITY", entity_type: "--entity-type", relation_type: "--relation-type", depth: "--depth" },
      );
      const results = await queryCausal(new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) }), query);
      const doc = { direction, entity: { name: query.entityName, entity_type: query.entityType ?? null }, results };
      emit(ctx, "zaxy.memory.causal.v1", doc, () => causalResultLines(direction, query.entityName, results));
      return 0;
    },
  });
}
