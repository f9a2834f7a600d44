/** Input schemas shared by the tools that append events, so they advertise the same rules. */
import * as z from "zod";
import { eventTextCharsMax, payloadDepthMax } from "../limits.ts";
import type { InputPermissions } from "../memory/plainInput.ts";
import { plainJsonDepthExceeds } from "./plainJsonDepth.ts";

export const eventTypeSchema = z
  .string()
  .min(1)
  .max(eventTextCharsMax)
  .describe("Event type, e.g. goal.created or task.completed (lowercase dotted types use the eventloom.v1 envelope)");

export const actorSchema = z.string().min(1).max(eventTextCharsMax).describe("Who acted, e.g. an agent or user name");

/**
 * The depth bound is checked here, before the payload is converted for the log: the library
 * reports it too, but only after a recursive conversion that a 10,000-level payload overflows.
 */
export const payloadSchema = z
  .record(z.string(), z.unknown())
  .refine((payload) => !plainJsonDepthExceeds(payload, payloadDepthMax), {
    message: `nests more than ${payloadDepthMax} levels deep; at most ${payloadDepthMax} are allowed`,
  })
  .describe(`Event data: a JSON object of at most 1 MiB and ${payloadDepthMax} levels; secrets are redacted before sealing`);

/** A v1 event id or producer key. */
export const eventIdSchema = z.string().min(1).max(eventTextCharsMax);

export const allowNewTypeSchema = z
  .boolean()
  .optional()
  .describe("Append a type that differs from a known type only in capitals or by a typo as a new type of its own; without it such a type is refused with the type it most likely meant");

export const allowEnvelopeSwitchSchema = z
  .boolean()
  .optional()
  .describe(
    "Let a type the eventloom.v1 envelope cannot carry (an underscore, dash or capital, e.g. user.preference_changed) switch a v1 session to legacy lines for this and every later append; without it such an append is refused",
  );

/** The permissions a call gives (the two `allow_*` arguments), spelt as arguments for the refusals. */
export function mcpInputPermissions(args: { allow_new_type?: boolean; allow_envelope_switch?: boolean }): InputPermissions {
  return {
    allowNewType: args.allow_new_type === true,
    allowEnvelopeSwitch: args.allow_envelope_switch === true,
    spelling: { newType: "allow_new_type: true", envelopeSwitch: "allow_envelope_switch: true" },
  };
}
