/** `zaxy memory append TYPE --actor A [--payload-json J | --payload-file F | stdin]`. */
import { inputError } from "../../../errors.ts";
import { isBlankLine } from "../../../eventloom/blank.ts";
import { payloadBytesMax, payloadDocumentBytesMax } from "../../../limits.ts";
import { parseJsonInput, readInputFile, requiredActor } from "../../args.ts";
import { type CommandContext, defineCommand, stringOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { cliInputPermissions, inputPermissionOptions } from "./inputPermissions.ts";
import type { JsonValue } from "../../../canonical/mod.ts";

/** Reading stops here: past it, no document can hold a valid payload (see limits.ts). */
const payloadDocumentBounds = {
  maxBytes: payloadDocumentBytesMax,
  why: `a payload is at most ${payloadBytesMax} bytes (1 MiB) as compact JSON`,
};

/** A text line names this many redacted paths at most; the rest are counted (--json lists all). */
const redactedPathsShownMax = 5;

/**
 * What the text output says about redaction: how many values, and where, never what they were;
 * without it a person would not know the log holds `[REDACTED]` instead of what they typed.
 *
 * @example
 * redactedLine(["api_key"]) // "  redacted: 1 value (payload.api_key)"
 */
function redactedLine(paths: readonly string[]): string {
  const shown = paths.slice(0, redactedPathsShownMax).map((path) => `payload.${path}`);
  const more = paths.length > shown.length ? `, and ${paths.length - shown.length} more` : "";
  return `  redacted: ${paths.length} ${paths.length === 1 ? "value" : "values"} (${shown.join(", ")}${more})`;
}

async function readPayload(ctx: CommandContext): Promise<JsonValue> {
  const json = stringOption(ctx, "payload-json");
  const file = stringOption(ctx, "payload-file");
  if (json !== undefined && file !== undefined) {
    throw inputError("usage", "zaxy memory append: give --payload-json or --payload-file, not both", { field: "--payload-json" });
  }
  if (json !== undefined) return parseJsonInput(new TextEncoder().encode(json), "--payload-json");
  if (file !== undefined) return parseJsonInput(readInputFile(file, "--payload-file", payloadDocumentBounds), "--payload-file");
  if (ctx.io.stdinIsTTY) return new Map();
  const bytes = await ctx.io.readStdin(payloadDocumentBounds);
  if (isBlankLine(bytes, 0, bytes.length)) return new Map();
  return parseJsonInput(bytes, "stdin payload");
}

export const memoryAppendCommand = defineCommand({
  name: "append",
  writesRoot: true,
  summary: "Append one event to the session's log",
  description:
    "Seals and appends one event. The payload (a JSON object, at most 1 MiB) comes from\n" +
    "--payload-json, --payload-file, or stdin (empty payload when stdin is a terminal).\n" +
    "Secrets in the payload are redacted before sealing; the output names the paths redacted\n" +
    "(never the values). --json prints {seq, hash, event_id, session_id, event_type, citation},\n" +
    "with redacted_paths when something was redacted.\n" +
    "A type that differs from a known one only in capitals or by a typo (Decision.Made) is\n" +
    "refused with the type it most likely meant; --allow-new-type appends it as a new type.\n" +
    "A type v1 lines cannot carry (user.preference_changed: an underscore) would switch a v1\n" +
    "session to legacy lines for this and every later append; that is refused unless\n" +
    "--allow-envelope-switch is given ('zaxy help events', \"Envelopes\").",
  options: {
    actor: { type: "string", valueName: "A", description: "Who did it (required; env ZAXY_ACTOR)" },
    "payload-json": { type: "string", valueName: "JSON", description: "Payload as a JSON object" },
    "payload-file": { type: "string", valueName: "FILE", description: "Read the payload from a file" },
    ...inputPermissionOptions,
  },
  positionals: [{ name: "TYPE", description: "Event type, e.g. goal.created", required: true }],
  examples: [
    `zaxy memory append goal.created --actor agent --payload-json '{"title":"Ship the release"}'`,
    `echo '{"command":"npm test","exit_code":0}' | zaxy memory append command.completed --actor agent --json`,
  ],
  async run(ctx) {
    const actor = requiredActor(ctx);
    const payload = await readPayload(ctx);
    const { recordInputEvents } = await import("../../../memory/plainInput.ts");
    const { redactedPathsOf } = await import("../../../eventloom/redact.ts");
    const { events, records, generated, warnings } = await recordInputEvents(ctx.global.eventloomPath, ctx.global.sessionId, [{ type: ctx.positionals[0], actor, payload }], {}, cliInputPermissions(ctx));
    const event = events[0];
    const redactedPaths = redactedPathsOf(records[0].security);
    // Recovering an append a crash interrupted is never silent: stderr, and `warnings` in JSON.
    for (const warning of warnings) ctx.io.stderr(`zaxy: warning: ${warning}\n`);
    // {seq, hash, event_id, session_id, event_type, citation, envelope[, redacted_paths][, generated_events][, warnings]}
    const doc = {
      ...event,
      ...(redactedPaths.length > 0 ? { redacted_paths: redactedPaths } : {}),
      ...(generated.length > 0 ? { generated_events: generated.map((e) => ({ seq: e.seq, hash: e.hash, event_type: e.event_type, citation: e.citation })) } : {}),
      ...(warnings.length > 0 ? { warnings } : {}),
    };
    emit(ctx, "zaxy.memory.append.v1", doc, () =>
      [
        `appended ${event.event_type} as seq ${event.seq} (${event.envelope})  ${event.citation}`,
        ...(redactedPaths.length > 0 ? [redactedLine(redactedPaths)] : []),
        ...generated.map((e) => `  inferred ${e.event_type} as seq ${e.seq}  ${e.citation}`),
      ].join("\n"));
    return 0;
  },
});
