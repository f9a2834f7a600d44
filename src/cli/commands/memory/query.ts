/** `zaxy memory query QUERY`: ranked, cited contexts from the session's projection. */
import { booleanOption, defineCommand } from "../../command.ts";
import { emit, NdjsonWriter } from "../../output.ts";
import { memoryRequest, retrievalOptions, stderrWarn } from "./requestOptions.ts";

export const memoryQueryCommand = defineCommand({
  name: "query",
  summary: "Ranked, cited contexts for a query (exact, vector, keyword, traversal, verbatim lanes; semantic with --semantic)",
  description:
    "Verifies the session's log, brings its graph projection up to the log head, and ranks\n" +
    "entities and raw events for QUERY. Superseded versions are included, marked by valid_to.\n" +
    "A log that fails verification is never projected: exit 1 with the integrity failure.",
  options: {
    ...retrievalOptions,
    ndjson: { type: "boolean", description: "One result per line (JSON: the results[] items of --json); warnings on stderr" },
  },
  positionals: [{ name: "QUERY", description: "What to look for (1..4096 characters)", required: true }],
  examples: ['zaxy memory query "release blockers"', 'zaxy memory query "which editor does alice use?" --limit 5 --json'],
  async run(ctx) {
    const request = memoryRequest(ctx);
    // Loaded on use, so commands that never read memory do not pay for the retrieval stack.
    const { MemoryService } = await import("../../../memory/service.ts");
    const result = await new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) }).query(request);
    const results = result.results;
    if (booleanOption(ctx, "ndjson")) {
      const writer = new NdjsonWriter(ctx.io);
      for (const item of results) await writer.write(item);
      await writer.flush();
      return 0;
    }
    emit(ctx, "zaxy.memory.query.v1", result, () =>
      results.length === 0
        ? "No memory matched."
        : results
          .map((r) => `${r.score.toFixed(3)}  ${r.source_lane.padEnd(9)}  ${r.content}${r.valid_to ? `  [superseded ${r.valid_to}]` : ""}\n       ${r.citation ?? "(uncited)"}`)
          .join("\n"),
    );
    return 0;
  },
});
