/** What get.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import { displayJson } from "../../../canonical/mod.ts";
import { emit } from "../../output.ts";

export async function runMemoryGet(ctx: CommandContext): Promise<number> {
  const { getByCitation } = await import("../../../memory/getByCitation.ts");
  const result = await getByCitation(ctx.global.eventloomPath, ctx.positionals[0], "CITATION");
  emit(ctx, "zaxy.memory.get.v1", result, () => {
    const e = result.event;
    return `${e.citation}  (session ${result.session_id}, verified)\n${e.seq}  ${e.timestamp}  ${e.type}  ${e.actor}  ${displayJson(e.payload)}`;
  });
  return 0;
}
