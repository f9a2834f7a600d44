/** What checkout.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import { inputError } from "../../../errors.ts";
import { intOption } from "../../args.ts";
import { booleanOption, type CommandContext, listOption, stringOption } from "../../command.ts";
import { validateMemoryRequest } from "../../../memory/request.ts";
import { emit } from "../../output.ts";
import { memoryRequest, stderrWarn } from "./requestOptions.ts";

/** The per-call long-horizon switch: true, false, or undefined for the root's setting. */
function longHorizonFlag(ctx: CommandContext): boolean | undefined {
  const on = booleanOption(ctx, "long-horizon");
  const off = booleanOption(ctx, "no-long-horizon");
  if (on && off) {
    throw inputError("invalid_option", "--long-horizon and --no-long-horizon contradict each other; pass at most one", {
      field: "--long-horizon",
    });
  }
  return on ? true : off ? false : undefined;
}

export async function runMemoryCheckout(ctx: CommandContext): Promise<number> {
  const request = memoryRequest(ctx);
  const longHorizon = longHorizonFlag(ctx);
  const recentWindow = intOption(ctx, "recent-window", 1);
  if (longHorizon !== undefined) request.longHorizon = longHorizon;
  if (recentWindow !== undefined) request.longHorizonRecentWindow = recentWindow;
  const fleet = validateMemoryRequest(
    { sessionId: request.sessionId, query: request.query, fleetIds: listOption(ctx, "fleet-id"), agentId: stringOption(ctx, "agent-id") },
    { fleet_ids: "--fleet-id", agent_id: "--agent-id" },
  );
  if (fleet.fleetIds !== undefined) request.fleetIds = fleet.fleetIds;
  if (fleet.agentId !== undefined) request.agentId = fleet.agentId;
  // Loaded on use, so commands that never read memory do not pay for the retrieval stack.
  const { MemoryService } = await import("../../../memory/service.ts");
  const checkout = await new MemoryService(ctx.global.eventloomPath, { warn: stderrWarn(ctx) }).checkout(request);
  emit(ctx, "zaxy.memory.checkout.v1", checkout, () => checkout.prompt);
  return 0;
}
