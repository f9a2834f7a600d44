/** `zaxy memory embed`: every current fact the semantic lane compares, embedded and stored now. */
import { semanticEmbedPerReadCharsMax, semanticEmbedPerReadMax, semanticPoolEntitiesMax } from "../../../limits.ts";
import { defineCommand } from "../../command.ts";
import { emit } from "../../output.ts";
import { stderrWarn } from "./requestOptions.ts";

export const memoryEmbedCommand = defineCommand({
  name: "embed",
  summary: "Embed the session's current facts for the semantic lane now, rather than a few per read",
  description:
    `Reads cover the semantic lane step by step: each embeds at most ${semanticEmbedPerReadMax} current facts that have\n` +
    `no stored vector yet and ${semanticEmbedPerReadCharsMax} characters of their text, newest first, and says how many it\n` +
    "could not compare; `zaxy serve` embeds the rest while it is idle. This embeds all of them (the\n" +
    `newest ${semanticPoolEntitiesMax} current facts) now, with the configured model (embedding.provider; the bundled\n` +
    "one by default), and stores them under <root>/projections/semantic/, where later reads,\n" +
    "rebuilds and reprojects find them. A model server that fails is exit 3 with its error (reads\n" +
    "fall back to the bundled model instead); a log that changes while the facts are embedded (an\n" +
    "append, a forget) is exit 3 log_changed, with nothing stored.\n" +
    "--json prints {session_id, semantic{model_id, weights_sha256, facts_compared, facts_not_embedded,\n" +
    "embedded_now, ...}, vectors_file}.",
  options: {},
  positionals: [],
  examples: ["zaxy memory embed", "zaxy memory embed --session-id s1 --json"],
  async run(ctx) {
    const { MemoryService } = await import("../../../memory/service.ts");
    const sessionId = ctx.global.sessionId;
    const { receipt, file } = await new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) }).embedSession(sessionId);
    emit(ctx, "zaxy.memory.embed.v1", { session_id: sessionId, semantic: receipt, vectors_file: file }, () =>
      `${receipt.facts_compared} current facts have vectors (${receipt.embedded_now} embedded now) with ${receipt.model_id}\n${file}`);
    return 0;
  },
});
