/** Typed option readers shared by commands; every failure names the option and the expectation. */
import * as fs from "node:fs";
import { type JsonValue, JsonSyntaxError, parseJsonBytes } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { openRegularFile } from "../platform/mod.ts";
import { BoundedInput, type InputBounds } from "./boundedInput.ts";
import { type CommandContext, stringOption } from "./command.ts";

/** A string option the command cannot run without (usage error naming it when absent). */
export function requiredOption(ctx: CommandContext, name: string): string {
  const value = stringOption(ctx, name);
  if (value === undefined) throw inputError("usage", `${ctx.commandPath}: --${name} is required`, { field: `--${name}` });
  return value;
}

/**
 * The actor an event is attributed to where it must be named: `--actor`, else the environment
 * variable `ZAXY_ACTOR` (an agent sets it once), else a usage error (README conventions).
 */
export function requiredActor(ctx: CommandContext): string {
  // A flag given empty is the append's to refuse (actor must be a non-empty string).
  const flag = stringOption(ctx, "actor");
  if (flag !== undefined) return flag;
  const value = ctx.io.env.ZAXY_ACTOR;
  if (value === undefined || value.length === 0) {
    throw inputError("usage", `${ctx.commandPath}: --actor is required (or set ZAXY_ACTOR)`, { field: "--actor" });
  }
  return value;
}

/** An integer option within [min, max]; undefined when absent. */
export function intOption(ctx: CommandContext, name: string, min: number, max = Number.MAX_SAFE_INTEGER): number | undefined {
  const raw = ctx.values[name];
  if (raw === undefined) return undefined;
  const text = String(raw);
  if (!/^-?[0-9]+$/.test(text) || Number(text) < min || Number(text) > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `${min}..${max}`;
    throw inputError("invalid_option", `--${name} must be an integer ${range}, got ${JSON.stringify(text)}`, { field: `--${name}` });
  }
  return Number(text);
}

/** A choice option; undefined when absent. */
export function choiceOption<T extends string>(ctx: CommandContext, name: string, choices: readonly T[]): T | undefined {
  const raw = ctx.values[name];
  if (raw === undefined) return undefined;
  if (!choices.includes(raw as T)) {
    throw inputError("invalid_option", `--${name} must be one of ${choices.join(", ")}, got ${JSON.stringify(String(raw))}`, {
      field: `--${name}`,
    });
  }
  return raw as T;
}

/**
 * Reads a file given on the command line within `bounds`. Anything but a regular file (a FIFO,
 * `/dev/zero`, a directory, a socket) is refused before a byte is read, and reading stops once
 * the file is longer than the bound; both are bad input (exit 2).
 */
export function readInputFile(file: string, field: string, bounds: InputBounds): Uint8Array {
  const label = `${field} ${JSON.stringify(file)}`;
  const opened = openRegularFile(file);
  if (!opened.ok) throw inputError("unreadable_file", `Cannot read ${label}: ${opened.reason}`, { field, expected: "a regular file" });
  const input = new BoundedInput(bounds);
  try {
    // The size is known up front: refuse an oversized file without reading it.
    if (opened.sizeBytes > bounds.maxBytes) input.refuseAsTooLong();
    const chunkBytes = 1 << 20;
    while (!input.refused) {
      const chunk = new Uint8Array(chunkBytes);
      const read = fs.readSync(opened.fd, chunk, 0, chunkBytes, null);
      if (read === 0 || !input.push(chunk.subarray(0, read))) break;
    }
  } catch (error) {
    throw inputError("unreadable_file", `Cannot read ${label}: ${(error as Error).message}`, { field });
  } finally {
    fs.closeSync(opened.fd);
  }
  return input.bytes(label, field);
}

/** Parses JSON bytes losslessly; a syntax error is bad input naming `field`. */
export function parseJsonInput(bytes: Uint8Array, field: string): JsonValue {
  try {
    // A key given twice is refused, not read as its last value: one of the two is a mistake.
    return parseJsonBytes(bytes, undefined, { duplicateKeys: "reject" });
  } catch (error) {
    if (error instanceof JsonSyntaxError && error.code === "duplicate_key") {
      throw inputError("duplicate_key", `${field} gives key ${JSON.stringify(error.key)} twice in one object; each key may appear once`, {
        field,
        expected: "each key at most once per object",
      });
    }
    if (error instanceof JsonSyntaxError) {
      throw inputError(error.code === "depth_limit" ? "depth_limit" : "invalid_json", `${field} is not valid JSON: ${error.message}`, { field });
    }
    throw error;
  }
}
