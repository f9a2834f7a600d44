/**
 * The one place that prints documents and errors. stdout carries data only; in `--json` mode it
 * carries exactly one JSON document (an error is `{"error": {code, message, hint}}`).
 */
import { displayJson } from "../canonical/displayJson.ts";
import { ExitCode, isZaxyError } from "../errors.ts";
import type { CommandContext, CommandIo } from "./command.ts";

/** Prints `doc` as JSON (with `schema` first) in --json mode, else the text rendering. */
export function emit(ctx: CommandContext, schema: string, doc: Record<string, unknown>, text: () => string): void {
  if (ctx.global.json) {
    ctx.io.stdout(displayJson({ schema, ...doc }) + "\n");
  } else {
    const rendered = text();
    if (rendered.length > 0) ctx.io.stdout(rendered.endsWith("\n") ? rendered : rendered + "\n");
  }
}

/** Reports an error and returns its exit code. Never prints a stack trace for expected errors. */
export function reportError(io: CommandIo, json: boolean, error: unknown): number {
  if (isZaxyError(error)) {
    if (json) {
      io.stdout(JSON.stringify({ error: error.toJSON() }) + "\n");
    } else {
      io.stderr(`${error.message.startsWith("zaxy") ? "" : "zaxy: "}${error.message}\n`);
      if (error.hint) io.stderr(`hint: ${error.hint}\n`);
    }
    return error.exitCode;
  }
  const message = error instanceof Error ? error.message : String(error);
  if (json) {
    io.stdout(JSON.stringify({ error: { code: "internal_error", message } }) + "\n");
  } else {
    io.stderr(`zaxy: internal error: ${message}\n`);
    if (io.env.ZAXY_DEBUG && error instanceof Error && error.stack) io.stderr(error.stack + "\n");
  }
  return ExitCode.ioError;
}
