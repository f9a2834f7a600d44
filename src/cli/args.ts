/** Typed option readers shared by commands; every failure names the option and the expectation. */
import * as fs from "node:fs";
import { type JsonValue, JsonSyntaxError, parseJsonBytes } from "../canonical/mod.ts";
import { inputError } from "../errors.ts";
import { type CommandContext, stringOption } from "./command.ts";

/** A string option the command cannot run without (usage error naming it when absent). */
export function requiredOption(ctx: CommandContext, name: string): string {
  const value = stringOption(ctx, name);
  if (value === undefined) throw inputError("usage", `${ctx.commandPath}: --${name} is required`, { field: `--${name}` });
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

/** Reads a file given on the command line; an unreadable file is bad input (exit 2). */
export function readInputFile(file: string, field: string): Uint8Array {
  try {
    return fs.readFileSync(file);
  } catch (error) {
    const code = (error as { code?: string }).code;
    const reason = code === "ENOENT" ? "no such file" : code === "EISDIR" ? "it is a directory" : code === "EACCES" ? "permission denied" : (error as Error).message;
    throw inputError("unreadable_file", `Cannot read ${field} ${JSON.stringify(file)}: ${reason}`, { field });
  }
}

/** Parses JSON bytes losslessly; a syntax error is bad input naming `field`. */
export function parseJsonInput(bytes: Uint8Array, field: string): JsonValue {
  try {
    return parseJsonBytes(bytes);
  } catch (error) {
    if (error instanceof JsonSyntaxError) {
      throw inputError(error.code === "depth_limit" ? "depth_limit" : "invalid_json", `${field} is not valid JSON: ${error.message}`, { field });
    }
    throw error;
  }
}
