/**
 * The one place that prints documents and errors. stdout carries data only; in `--json` mode it
 * carries exactly one JSON document (an error is `{"error": {code, message, hint}}`).
 */
import { displayJson } from "../canonical/displayJson.ts";
import { type JsonValue, writeJsonString } from "../canonical/mod.ts";
import { fileSystemErrorCode, fileSystemReason } from "../eventloom/root.ts";
import { ExitCode, ioError, isZaxyError } from "../errors.ts";
import { requestGarbageCollection } from "../platform/mod.ts";
import type { CommandContext, CommandIo } from "./command.ts";

/** Prints `doc` as JSON (with `schema` first) in --json mode, else the text rendering. */
export function emit(ctx: CommandContext, schema: string, doc: object, text: () => string): void {
  if (ctx.global.json) {
    ctx.io.stdout(displayJson({ schema, ...doc }) + "\n");
  } else {
    const rendered = text();
    if (rendered.length > 0) ctx.io.stdout(rendered.endsWith("\n") ? rendered : rendered + "\n");
  }
}

const syscallVerbs: Record<string, string> = {
  open: "open",
  read: "read",
  write: "write to",
  mkdir: "create the directory",
  rename: "rename",
  unlink: "remove",
  rmdir: "remove",
  fsync: "flush",
  scandir: "list",
  stat: "inspect",
};

/**
 * A file-system fault no command anticipated (a read-only root, a full disk) is an I/O error
 * (exit 3) with the path and a readable reason, not "internal error" with a syscall dump.
 */
function fileSystemError(error: unknown): ReturnType<typeof ioError> | undefined {
  const code = fileSystemErrorCode(error);
  if (code === undefined) return undefined;
  const { syscall, path } = error as { syscall?: unknown; path?: unknown };
  const verb = typeof syscall === "string" ? syscallVerbs[syscall] ?? "access" : "access";
  const target = typeof path === "string" ? ` ${path}` : "";
  return ioError("io_error", `Cannot ${verb}${target}: ${fileSystemReason(error)}`);
}

/** Reports an error and returns its exit code. Never prints a stack trace for expected errors. */
export function reportError(io: CommandIo, json: boolean, error: unknown): number {
  const systemError = isZaxyError(error) ? undefined : fileSystemError(error);
  if (systemError !== undefined) return reportError(io, json, systemError);
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

/**
 * `--ndjson` output: one JSON document per line, written in chunks of about 64 KiB as they come,
 * waiting while stdout's reader catches up, so a stream of any length runs in constant memory.
 */
export class NdjsonWriter {
  private pending: string[] = [];
  private pendingChars = 0;
  lines = 0;

  constructor(private readonly io: CommandIo) {}

  async write(value: unknown): Promise<void> {
    const line = displayJson(value as JsonValue) + "\n";
    this.pending.push(line);
    this.pendingChars += line.length;
    this.lines++;
    if (this.pendingChars >= 1 << 16) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.pending.length === 0) return;
    const text = this.pending.join("");
    this.pending = [];
    this.pendingChars = 0;
    if (this.io.stdoutFlowing !== undefined) await this.io.stdoutFlowing(text);
    else this.io.stdout(text);
  }
}

/**
 * `emit` for a document too large to hold as one string (a million-event audit report is
 * ~180 MB of JSON, and `displayJson` builds it from tens of millions of parts): the same bytes,
 * written a top-level key at a time, an array's elements in chunks of about 64 KiB.
 */
export function emitStreamed(ctx: CommandContext, schema: string, doc: Record<string, unknown>, text: () => string): void {
  if (!ctx.global.json) {
    emit(ctx, schema, doc, text);
    return;
  }
  const out = new ChunkedStdout(ctx.io);
  let first = true;
  out.write("{");
  for (const [key, value] of Object.entries({ schema, ...doc })) {
    if (value === undefined) continue;
    out.write(`${first ? "" : ","}${displayJson(key)}:`);
    first = false;
    if (!Array.isArray(value)) {
      out.write(displayJson(value));
      continue;
    }
    out.write("[");
    for (let i = 0; i < value.length; i++) {
      if (i > 0) out.write(",");
      // A string (a long list of identities) straight to its JSON text: no pieces to join per item.
      const item = value[i];
      out.write(typeof item === "string" ? writeJsonString(item, false) : displayJson(item));
    }
    out.write("]");
  }
  out.write("}\n");
  out.flush();
}

/** Characters written between garbage-collection requests (see `ChunkedStdout.flush`). */
const gcEveryChars = 1 << 20;

/** Text for stdout, passed on in chunks of about 64 KiB. */
class ChunkedStdout {
  private pending: string[] = [];
  private pendingChars = 0;
  private charsSinceCollection = 0;

  constructor(private readonly io: CommandIo) {}

  write(text: string): void {
    this.pending.push(text);
    this.pendingChars += text.length;
    if (this.pendingChars >= 1 << 16) this.flush();
  }

  flush(): void {
    if (this.pending.length === 0) return;
    const text = this.pending.join("");
    this.pending = [];
    this.charsSinceCollection += this.pendingChars;
    this.pendingChars = 0;
    // Each chunk leaves its pieces, its text and its encoded bytes (outside the collector's heap
    // accounting): a document of a few hundred MB piled up as much garbage again before a collection.
    if (this.charsSinceCollection >= gcEveryChars) {
      this.charsSinceCollection = 0;
      requestGarbageCollection();
    }
    // Written as `emit` writes (straight to fd 1): a runtime's stdout stream may queue chunks
    // for a file without pushing back, holding the whole document after all.
    this.io.stdout(text);
  }
}
