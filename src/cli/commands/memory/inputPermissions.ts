/**
 * `--allow-new-type` and `--allow-envelope-switch` of `memory append` and `memory ingest`: the
 * two refusals of the plain write paths (src/memory/plainInput.ts) that a user can override
 * when the input is meant as it is.
 */
import type { InputPermissions } from "../../../memory/plainInput.ts";
import { booleanOption, type CommandContext, type OptionSpec } from "../../command.ts";

const newTypeFlag = "--allow-new-type";
const envelopeSwitchFlag = "--allow-envelope-switch";

export const inputPermissionOptions: Record<string, OptionSpec> = {
  "allow-new-type": {
    type: "boolean",
    description: "Append a type that differs from a known one only in capitals or by a typo, as a new type of its own",
  },
  "allow-envelope-switch": {
    type: "boolean",
    description: "Let a type v1 lines cannot carry (e.g. user.preference_changed) switch a v1 session to legacy lines for good",
  },
};

/** The permissions the command line gives, spelt as its flags for the refusals. */
export function cliInputPermissions(ctx: CommandContext): InputPermissions {
  return {
    allowNewType: booleanOption(ctx, "allow-new-type"),
    allowEnvelopeSwitch: booleanOption(ctx, "allow-envelope-switch"),
    spelling: { newType: newTypeFlag, envelopeSwitch: envelopeSwitchFlag },
  };
}
