/**
 * The shape of a CLI command. Commands only parse, call the library, and print; they never
 * touch `process` directly, so tests can run them with a captured `CommandIo`.
 */
import type { Root } from "../eventloom/rootHandle.ts";
import type { ActiveStore } from "../store/activeStore.ts";
import type { InputBounds } from "./boundedInput.ts";

export interface OptionSpec {
  type: "string" | "boolean";
  multiple?: boolean;
  short?: string;
  /** Shown in --help. */
  description: string;
  /** Placeholder shown in --help, e.g. `N`, `PATH`. */
  valueName?: string;
  /**
   * Older spellings still accepted (e.g. `agent` for `agent-id`): their value is read as this
   * option's, and giving both is a usage error. --help shows them after the description.
   */
  aliases?: string[];
}

export interface PositionalSpec {
  name: string;
  description: string;
  required?: boolean;
  variadic?: boolean;
}

export interface CommandIo {
  stdout(text: string): void;
  /**
   * Writes to stdout and resolves once the text is handed on (waits while a slow reader's pipe
   * is full), so streaming output (`--ndjson`) runs in constant memory. Absent: `stdout`.
   */
  stdoutFlowing?(text: string): Promise<void>;
  stderr(text: string): void;
  /**
   * Reads stdin until it ends or a bound is crossed (then stops reading and throws
   * `input_too_large`, exit 2): stdin may be `/dev/zero` or an endless pipe.
   */
  readStdin(bounds: InputBounds): Promise<Uint8Array>;
  stdinIsTTY: boolean;
  stderrIsTTY: boolean;
  /** Whether stdout is a terminal (text output may then use colour; see textTable.ts). */
  stdoutIsTTY?: boolean;
  env: Record<string, string | undefined>;
  cwd: string;
}

export interface GlobalOptions {
  /**
   * Eventloom root: `--eventloom-path`, env `EVENTLOOM_PATH`, default `.eventloom`. With a
   * store (`--store`), the store's local mirror root under it (docs/store.md).
   */
  eventloomPath: string;
  /** The root the user named, before any store swapped in its mirror root. */
  localRoot: string;
  /** The store the command runs against (`--store`, `ZAXY_STORE`, config.json), if any. */
  store?: ActiveStore;
  /**
   * The process's handle on `eventloomPath` (rootHandle.ts), set before a command that uses the
   * root runs: its thread store, vault and memory service live there, not in module globals.
   */
  root?: Root;
  /** Session: `--session-id`, env `EVENTLOOM_THREAD`, default `default`. */
  sessionId: string;
  /** True when `--session-id` or `EVENTLOOM_THREAD` chose the session. */
  sessionIdExplicit: boolean;
  json: boolean;
  /** `--quiet`: no progress display (warnings and errors still print). */
  quiet: boolean;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface CommandContext {
  /** e.g. `zaxy memory append`, for messages. */
  commandPath: string;
  values: OptionValues;
  positionals: string[];
  global: GlobalOptions;
  io: CommandIo;
}

export interface Command {
  kind: "command";
  name: string;
  summary: string;
  description?: string;
  options: Record<string, OptionSpec>;
  positionals: PositionalSpec[];
  /** Hidden commands run but are not listed in --help. */
  hidden?: boolean;
  examples?: string[];
  /**
   * The command writes under the Eventloom root (appends, config, projections): dispatch checks
   * first that the root is writable and the session's log is not a directory, so those faults
   * are one clear error (exit 3 / exit 2) before anything is read or written.
   */
  writesRoot?: boolean;
  /**
   * False for commands that never touch an Eventloom root (`help`, `completion`): dispatch then
   * skips the root's checks, so they work wherever they run, even beside a bad `.eventloom`.
   */
  usesRoot?: boolean;
  /**
   * How the command meets a store (docs/store.md). `mirror` (the default): dispatch opens it,
   * brings the local mirror up to date and runs the command on the mirror root. `self`: the
   * command handles `--store` itself (or has no log to read). `files-only`: refused with a store.
   */
  store?: "mirror" | "self" | "files-only";
  /** With a store: the command reads every thread (not just the session), so all are brought up to date first. */
  readsEveryThread?: boolean;
  run(ctx: CommandContext): Promise<number>;
}

export interface CommandGroup {
  kind: "group";
  name: string;
  summary: string;
  description?: string;
  hidden?: boolean;
  children: Array<Command | CommandGroup>;
}

export function defineCommand(spec: Omit<Command, "kind">): Command {
  return { kind: "command", ...spec };
}

export function defineGroup(spec: Omit<CommandGroup, "kind">): CommandGroup {
  return { kind: "group", ...spec };
}

/** Reads a string option; undefined when absent. */
export function stringOption(ctx: CommandContext, name: string): string | undefined {
  const value = ctx.values[name];
  return typeof value === "string" ? value : undefined;
}

export function booleanOption(ctx: CommandContext, name: string): boolean {
  return ctx.values[name] === true;
}

export function listOption(ctx: CommandContext, name: string): string[] {
  const value = ctx.values[name];
  if (Array.isArray(value)) return value;
  return typeof value === "string" ? [value] : [];
}
