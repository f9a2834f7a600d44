/**
 * The man page (section 1, roff with the `man` macros), rendered from the command tree that
 * `--help` renders, so the two cannot drift: every visible command is a `.SS` entry headed by
 * its full path, with its usage, description, arguments, options and examples. Hidden commands
 * are left out. Exit status, environment and files are the fixed sections below; the exit codes
 * come from `ExitCode` itself.
 *
 * Every line of text goes through `roffText`: backslashes are `\e`, hyphens `\-` (so options
 * copy as ASCII), other characters beyond ASCII `\[uXXXX]`, and a line that would start with `.`
 * or `'` (a request) starts with `\&`.
 *
 * @example
 * renderManPage(rootGroup, { version: "0.1.0" }).split("\n")[1] // '.TH ZAXY 1 "" "zaxy 0.1.0" "User Commands"'
 */
import { ExitCode } from "../errors.ts";
import type { Command, CommandGroup, OptionSpec } from "./command.ts";
import { globalOptions } from "./globalOptions.ts";

export interface ManPageOptions {
  version: string;
  /** The `.TH` date, e.g. `2026-11-27`; empty keeps the page the same from one day to the next. */
  date?: string;
}

/** Escapes one line of text for roff. */
export function roffText(text: string): string {
  const escaped = text
    .replace(/\\/g, "\\e")
    .replace(/-/g, "\\-")
    // Non-ASCII as a named code point: groff reads its input as Latin-1 unless told otherwise.
    .replace(/[^\x00-\x7f]/gu, (c) => `\\[u${(c.codePointAt(0) ?? 0).toString(16).toUpperCase().padStart(4, "0")}]`);
  return /^[.']/.test(escaped) ? `\\&${escaped}` : escaped;
}

/** A macro argument in double quotes (a quote inside is written `\(dq`). */
function roffArg(text: string): string {
  return `"${roffText(text).replace(/^\\&/, "").replace(/"/g, "\\(dq")}"`;
}

function bold(text: string): string {
  return `\\fB${roffText(text).replace(/^\\&/, "")}\\fR`;
}

function italic(text: string): string {
  return `\\fI${roffText(text).replace(/^\\&/, "")}\\fR`;
}

/** Description text: its lines as they are, a blank line a new paragraph. */
function paragraphs(text: string): string[] {
  return text.split("\n").map((line) => (line.trim() === "" ? ".PP" : roffText(line.trim())));
}

function optionEntries(options: Record<string, OptionSpec>): string[] {
  const lines: string[] = [];
  for (const [name, spec] of Object.entries(options)) {
    const flags = `${spec.short !== undefined ? `${bold(`-${spec.short}`)}, ` : ""}${bold(`--${name}`)}`;
    const value = spec.type === "string" ? ` ${italic(spec.valueName ?? "VALUE")}` : "";
    lines.push(".TP", flags + value, roffText(spec.description + (spec.multiple === true ? " (repeatable)" : "")));
  }
  return lines;
}

function usage(node: Command, path: string[]): string {
  const args = node.positionals.map((p) => {
    const word = italic(p.name) + (p.variadic === true ? " ..." : "");
    return p.required === true ? word : `[${word}]`;
  });
  return [bold(path.join(" ")), ...args, "[\\fIoptions\\fR]"].join(" ");
}

function commandSection(node: Command, path: string[]): string[] {
  const lines = [`.SS ${roffArg(path.join(" "))}`, usage(node, path), ".PP", ...paragraphs(node.description ?? node.summary)];
  if (node.positionals.length > 0) {
    lines.push(".PP", "Arguments:");
    for (const p of node.positionals) lines.push(".TP", italic(p.name), roffText(p.description));
  }
  if (Object.keys(node.options).length > 0) lines.push(".PP", "Options:", ...optionEntries(node.options));
  if (node.examples !== undefined && node.examples.length > 0) {
    lines.push(".PP", "Examples:", ".RS", ".nf", ...node.examples.map(roffText), ".fi", ".RE");
  }
  return lines;
}

function groupSection(node: CommandGroup, path: string[]): string[] {
  const visible = node.children.filter((child) => !child.hidden).map((child) => child.name);
  return [
    `.SS ${roffArg(path.join(" "))}`,
    `${bold(path.join(" "))} \\fIcommand\\fR [\\fIoptions\\fR]`,
    ".PP",
    ...paragraphs(node.description ?? node.summary),
    ".PP",
    roffText(`Commands: ${visible.join(", ")}.`),
  ];
}

function commandSections(node: Command | CommandGroup, path: string[]): string[] {
  if (node.kind === "command") return commandSection(node, path);
  const lines = path.length > 1 ? groupSection(node, path) : [];
  for (const child of node.children) {
    if (child.hidden !== true) lines.push(...commandSections(child, [...path, child.name]));
  }
  return lines;
}

const exitStatus: Array<[number, string]> = [
  [ExitCode.ok, "Success; an empty result is not a failure."],
  [ExitCode.checkFailed, "A check said no: a broken hash chain, a torn tail, an unsafe compaction audit, a rejected promotion."],
  [ExitCode.badInput, "Bad input or usage (an unknown command or option, a missing argument, an invalid value); nothing was written."],
  [ExitCode.ioError, "An I/O or internal fault: an unwritable root, a full disk, the store unreachable."],
];

/** The environment variables zaxy reads (src/ greps for io.env and process.env). */
const environment: Array<[string, string]> = [
  ["EVENTLOOM_PATH", "The Eventloom root directory when --eventloom-path is not given (default .eventloom)."],
  ["EVENTLOOM_THREAD", "The session (thread) id when --session-id is not given (default \"default\")."],
  ["ZAXY_STORE", "A shared PostgreSQL store URL (postgres://...) when --store is not given; overrides the store in config.json."],
  ["ZAXY_STORE_TIMEOUT_MS", "Milliseconds one store round trip may take."],
  ["PGHOST, PGPORT, PGDATABASE, PGUSER", "Store connection defaults for what the store URL leaves out, as in libpq."],
  ["PGPASSWORD, PGPASSFILE", "The store password when the URL has none, else the password file (default ~/.pgpass)."],
  ["PGSSLMODE", "TLS for the store connection when the URL sets no sslmode (default: prefer)."],
  ["MCP_TOOL_PROFILE", "The tool profile of zaxy serve when --profile is not given (core or full)."],
  ["MCP_ADMIN_TOKEN", "The admin token of zaxy serve when --admin-token-file is not given."],
  ["ZAXY_PROGRESS_DELAY_MS", "Milliseconds before a progress line first appears on a terminal (default 250; 0 draws from the start)."],
  ["ZAXY_DEBUG", "When set, an internal error also prints its stack trace on stderr."],
  ["TMPDIR", "Where the per-user cache directory zaxy-UID is made."],
];

const files: Array<[string, string]> = [
  [".eventloom/", "The default Eventloom root."],
  ["ROOT/SESSION.jsonl", "A session's hash-chained event log, one event a line; the only source of truth."],
  ["ROOT/config.json", "Per-root settings written by zaxy init: envelope, fleet_enabled, forgetting_enabled, store."],
  ["ROOT/projections/", "Projections, read model and indexes derived from the logs; zaxy reproject rebuilds them."],
  ["ROOT/stores/ID/", "The local mirror of a shared store that commands run on."],
  ["ROOT/__erasure_kek__.key, ROOT/__erasure_vault__.json", "Keys for verified forgetting (mode 0600), when it is on."],
  ["$TMPDIR/zaxy-UID/", "Cache of files the binary unpacks (the Kuzu glue)."],
];

function definitionList(items: Array<[string | number, string]>): string[] {
  return items.flatMap(([term, text]) => [".TP", bold(String(term)), roffText(text)]);
}

/**
 * The man page for the visible commands under `root`.
 *
 * @example
 * fs.writeFileSync("zaxy.1", renderManPage(rootGroup, { version: zaxyVersion })); // man -l zaxy.1
 */
export function renderManPage(root: CommandGroup, options: ManPageOptions): string {
  const name = root.name;
  const [title, ...rest] = root.summary.split(": ");
  const tagline = rest.length > 0 ? rest.join(": ") : title;
  const lines: string[] = [
    `.\\" Generated by \`${name} help --man\` from the command tree; do not edit.`,
    // The date stays unescaped (man readers parse it); only digits, letters, spaces and hyphens.
    `.TH ${name.toUpperCase()} 1 "${(options.date ?? "").replace(/[^0-9A-Za-z -]/g, "")}" ${roffArg(`${name} ${options.version}`)} "User Commands"`,
    ".SH NAME",
    `${roffText(name)} \\- ${roffText(tagline)}`,
    ".SH SYNOPSIS",
    `${bold(name)} [\\fIglobal options\\fR] \\fIcommand\\fR [\\fIarguments\\fR] [\\fIoptions\\fR]`,
    ".br",
    `${bold(name)} ${bold("--version")} [${bold("--json")}]`,
    ".br",
    `${bold(name)} ${bold("help")} [\\fIcommand\\fR ...] | ${bold("--man")}`,
    ".SH DESCRIPTION",
    ...paragraphs(root.description ?? root.summary),
    ".PP",
    roffText(`Options may come before or after the command words. Run '${name} COMMAND --help' (or '${name} help COMMAND') for one command's options.`),
    ".SH GLOBAL OPTIONS",
    roffText("Every command accepts these."),
    ...optionEntries(globalOptions),
    ...optionEntries({ version: { type: "boolean", description: `Print the version (${name} --version only; with --json, the build and its components)` } }),
    ".SH COMMANDS",
    ...commandSections(root, [name]),
    ".SH EXIT STATUS",
    ...definitionList(exitStatus),
    ".SH ENVIRONMENT",
    roffText("Flags override the environment."),
    ...definitionList(environment),
    ".SH FILES",
    ...definitionList(files),
    ".SH SEE ALSO",
    roffText(`${name} completion bash|zsh|fish: shell completions from the same command tree.`),
    ".PP",
    roffText(`${name} help topics: the guides (event types, checkout, MCP server, git hooks, ...) inside the binary; ${name} help TOPIC prints one.`),
  ];
  return lines.join("\n") + "\n";
}
