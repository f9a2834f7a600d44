/** What repair.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../command.ts";
import { sessionLogPath, truncateTornTail } from "../../eventloom/mod.ts";
import { inputError } from "../../errors.ts";
import { booleanOption } from "../command.ts";
import { emit } from "../output.ts";

export async function runRepair(ctx: CommandContext): Promise<number> {
  if (!booleanOption(ctx, "truncate-torn-tail")) {
    throw inputError("usage", "zaxy repair: say what to repair: --truncate-torn-tail is the only repair", { field: "--truncate-torn-tail" });
  }
  const file = ctx.positionals[0] ?? sessionLogPath(ctx.global.eventloomPath, ctx.global.sessionId, "repair");
  const result = await truncateTornTail(file);
  emit(ctx, "zaxy.repair.v1", { ...result }, () => {
    const lines = [result.message];
    if (result.removed_preview !== null) lines.push(`removed: ${JSON.stringify(result.removed_preview)}`);
    if (result.repaired || result.interrupted_append !== undefined) lines.push(`${result.events_kept} events kept`);
    return lines.join("\n");
  });
  return 0;
}
