/** `zaxy memory feeling-of-knowing QUERY [--cue key=value ...]`: the likely / possible / unlikely pre-check. */
import { inputError } from "../../../errors.ts";
import { defineCommand, listOption } from "../../command.ts";
import { emit } from "../../output.ts";

export const memoryFeelingOfKnowingCommand = defineCommand({
  name: "feeling-of-knowing",
  writesRoot: true,
  summary: "Cheap pre-check: is memory likely to answer QUERY? (as MCP memory_feeling_of_knowing)",
  description:
    "Experimental. Runs one small retrieval and predicts likely (a current fact covers at least\n" +
    "60 % of the query's terms and cues), possible (some result shares a term) or unlikely, and\n" +
    "records the prediction as metacognition.fok.predicted. --json prints {session_id, query,\n" +
    "prediction, confidence, signals, event}.",
  options: {
    cue: { type: "string", multiple: true, valueName: "KEY=VALUE", description: "A cue whose words count like the query's (repeatable)" },
  },
  positionals: [{ name: "QUERY", description: "What you want to know", required: true }],
  examples: ["zaxy memory feeling-of-knowing 'which database did we choose?' --json", "zaxy memory feeling-of-knowing 'auth bug' --cue file=src/auth.ts"],
  async run(ctx) {
    const cues: { [key: string]: string } = {};
    for (const cue of listOption(ctx, "cue")) {
      const at = cue.indexOf("=");
      if (at <= 0) throw inputError("invalid_option", `--cue must be KEY=VALUE, got ${JSON.stringify(cue)}`, { field: "--cue", expected: "KEY=VALUE" });
      cues[cue.slice(0, at)] = cue.slice(at + 1);
    }
    const { feelingOfKnowing } = await import("../../../memory/feelingOfKnowing.ts");
    const result = await feelingOfKnowing(ctx.global.eventloomPath, ctx.global.sessionId, { query: ctx.positionals[0], cues: Object.keys(cues).length > 0 ? cues : undefined });
    for (const warning of result.warnings ?? []) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    emit(ctx, "zaxy.memory.feeling_of_knowing.v1", { ...result }, () =>
      `${result.prediction} (confidence ${result.confidence}): coverage ${result.signals.coverage}, ${result.signals.current_results} current of ${result.signals.result_count} results; recorded as seq ${result.event.seq}`);
    return 0;
  },
});
