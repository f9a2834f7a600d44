/**
 * Flag readers shared by the `zaxy fleet` commands. Every flag is validated here, before the
 * library is called, so a bad value is reported by its flag name (exit 2) and nothing is
 * written.
 */
import { inputError } from "../../../errors.ts";
import type { PlainJson } from "../../../fleet/replay.ts";
import { requiredActor, requiredOption as requiredArgsOption } from "../../args.ts";
import type { CommandContext, OptionSpec } from "../../command.ts";
import { emit } from "../../output.ts";

/** As `requiredOption` of cli/args.ts, and an empty value counts as absent. */
export function requiredOption(ctx: CommandContext, name: string): string {
  const value = name === "actor" ? requiredActor(ctx) : requiredArgsOption(ctx, name);
  if (value.length === 0) throw inputError("usage", `${ctx.commandPath}: --${name} is required`, { field: `--${name}` });
  return value;
}

/** The fleet id positional, validated as `ID`. */
export async function fleetIdArgument(ctx: CommandContext): Promise<string> {
  if (ctx.positionals.length > 1) throw inputError("usage", `${ctx.commandPath}: one fleet ID at a time, got ${ctx.positionals.length}`, { field: "ID" });
  const { validateFleetId } = await import("../../../fleet/ids.ts");
  return validateFleetId(ctx.positionals[0], "ID");
}

export const fleetIdPositional = [{ name: "ID", description: "Fleet id (thread fleet.<ID>)", required: true }];

export const actorOption: OptionSpec = { type: "string", valueName: "A", description: "The acting agent (required; env ZAXY_ACTOR)" };

/**
 * Prints the result and returns the exit code: 0, or 1 when the check said no (`refused` or
 * `rejected`), with the reason on stderr in text mode.
 */
export function emitDecision(ctx: CommandContext, schema: string, doc: { [key: string]: PlainJson }, text: () => string): number {
  const refused = doc.refused === true || doc.rejected === true;
  if (refused) {
    if (ctx.global.json) emit(ctx, schema, doc, () => "");
    else {
      ctx.io.stderr(`zaxy: ${ctx.commandPath}: ${doc.rejected === true ? "rejected" : "refused"}: ${doc.reason}\n`);
      const audit = doc.refusal_event as { session_id: string; citation: string } | null | undefined;
      if (audit) ctx.io.stderr(`zaxy: ${ctx.commandPath}: refusal recorded in session ${audit.session_id} (${audit.citation}); the fleet thread is unchanged\n`);
    }
    return 1;
  }
  emit(ctx, schema, doc, text);
  return 0;
}
