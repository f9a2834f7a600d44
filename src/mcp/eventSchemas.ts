/** Input schemas shared by the tools that append events, so they advertise the same rules. */
import * as z from "zod";
import { eventTextCharsMax } from "../limits.ts";

export const eventTypeSchema = z
  .string()
  .min(1)
  .max(eventTextCharsMax)
  .describe("Event type, e.g. goal.created or task.completed (lowercase dotted types use the eventloom.v1 envelope)");

export const actorSchema = z.string().min(1).max(eventTextCharsMax).describe("Who acted, e.g. an agent or user name");

export const payloadSchema = z
  .record(z.string(), z.unknown())
  .describe("Event data: a JSON object of at most 1 MiB; secrets are redacted before sealing");

/** A v1 event id or producer key. */
export const eventIdSchema = z.string().min(1).max(eventTextCharsMax);
