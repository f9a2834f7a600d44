/**
 * Finds the command named by argv, parses its options (strictly: an unknown flag is a usage
 * error, exit 2), resolves the global options, and runs it.
 */
import * as nodePath from "node:path";
import { parseArgs } from "node:util";
import { checkLogNotDirectory, checkRootPath, checkRootWritable, sessionLogPath, readFleetEnabled } from "../eventloom/root.ts";
import { ExitCode, inputError, isZaxyError } from "../errors.ts";
import type { Command, CommandGroup, CommandIo, GlobalOptions, OptionSpec, OptionValues } from "./command.ts";
import { globalOptions } from "./globalOptions.ts";
import { resolveStoreUrl } from "../store/storeUrl.ts";
import { closestName, closestOption } from "./didYouMean.ts";
import { renderHelp } from "./help.ts";
import { clearProgress, progressDelayError } from "./progress.ts";
import { withCliFieldNames } from "./fieldNames.ts";
import { reportError } from "./output.ts";


interface Resolved {
  node: Command | CommandGroup;
  path: string[];
  rest: string[];
}

/** Walks leading words of argv down the command tree; options may come before the words. */
function resolve(root: CommandGroup, argv: string[]): Resolved {
  let node: Command | CommandGroup = root;
  const path = [root.name];
  const rest: string[] = [];
  let i = 0;
  for (; i < argv.length; i++) {
    const arg = argv[i];
    if (node.kind !== "group") break;
    if (arg === "--") break;
    if (arg.startsWith("-")) {
      rest.push(arg);
      // A global string option consumes its value when written as two words.
      const name = arg.replace(/^--?/, "");
      if (!arg.includes("=") && globalOptions[name]?.type === "string" && i + 1 < argv.length) {
        rest.push(argv[++i]);
      }
      continue;
    }
    const child: Command | CommandGroup | undefined = node.children.find((c) => c.name === arg);
    if (child === undefined) break;
    node = child;
    path.push(arg);
  }
  return { node, path, rest: [...rest, ...argv.slice(i)] };
}

/**
 * `--limit -1` must reach the option's check (and be refused there as out of range) instead of
 * being read as an unknown flag `-1` and reported as a missing value: a word that is a negative
 * number right after a string option is that option's value.
 */
function attachNegativeValues(args: string[], options: Record<string, OptionSpec>): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i];
    if (arg === "--") {
      out.push(...args.slice(i));
      break;
    }
    const long = /^--([A-Za-z0-9-]+)$/.exec(arg);
    if (long !== null && options[long[1]]?.type === "string" && i + 1 < args.length && /^-[0-9.]/.test(args[i + 1])) {
      out.push(`${arg}=${args[++i]}`);
      continue;
    }
    out.push(arg);
  }
  return out;
}

/** The options with each alias added as an option of its own (parseArgs knows no aliases). */
function withAliases(options: Record<string, OptionSpec>): Record<string, OptionSpec> {
  const out: Record<string, OptionSpec> = { ...options };
  for (const spec of Object.values(options)) for (const alias of spec.aliases ?? []) out[alias] = { ...spec, aliases: undefined };
  return out;
}

/** Moves an alias's value to its option's name; both given is a usage error naming both. */
function foldAliases(values: Record<string, unknown>, options: Record<string, OptionSpec>, commandPath: string): void {
  for (const [name, spec] of Object.entries(options)) {
    for (const alias of spec.aliases ?? []) {
      if (values[alias] === undefined) continue;
      if (values[name] !== undefined) {
        throw inputError("usage", `${commandPath}: --${alias} is another spelling of --${name}; give one`, { field: `--${name}` });
      }
      values[name] = values[alias];
      delete values[alias];
    }
  }
}

/**
 * `--ndjson` (one document per line) and `--json` (exactly one document) are two output formats;
 * given both, whichever a command preferred would silently break the other's promise, so every
 * command with `--ndjson` refuses the pair.
 */
function checkOneOutputFormat(values: Record<string, unknown>, commandPath: string): void {
  if (values.ndjson === true && values.json === true) {
    throw inputError("usage", `${commandPath}: --ndjson and --json are two output formats; give one`, { field: "--ndjson" });
  }
}

/** The name the root was given by, for messages: the flag, the environment variable, or the default. */
function rootLabel(values: Record<string, unknown>): string {
  if (typeof values["eventloom-path"] === "string") return "--eventloom-path";
  return "EVENTLOOM_PATH";
}

/**
 * Checks the root before a command runs: a root that is a file or empty is bad input (exit 2);
 * a command that writes also needs a writable root (exit 3) and a session log that is a file.
 */
function checkRoot(node: Command, global: GlobalOptions, values: Record<string, unknown>, env: Record<string, string | undefined>): void {
  const explicit = typeof values["eventloom-path"] === "string" || (env.EVENTLOOM_PATH !== undefined && env.EVENTLOOM_PATH !== "");
  checkRootPath(global.eventloomPath, explicit ? rootLabel(values) : "the default Eventloom root .eventloom");
  if (node.writesRoot !== true) return;
  checkRootWritable(global.eventloomPath);
  let logPath: string;
  try {
    logPath = sessionLogPath(global.eventloomPath, global.sessionId);
  } catch {
    return; // The command reports a bad session id itself, with its own action.
  }
  checkLogNotDirectory(logPath, global.sessionId);
}

function globalsFrom(values: Record<string, unknown>, env: Record<string, string | undefined>): GlobalOptions {
  const sessionFlag = typeof values["session-id"] === "string" ? (values["session-id"] as string) : undefined;
  const sessionEnv = env.EVENTLOOM_THREAD !== undefined && env.EVENTLOOM_THREAD !== "" ? env.EVENTLOOM_THREAD : undefined;
  const pathFlag = typeof values["eventloom-path"] === "string" ? (values["eventloom-path"] as string) : undefined;
  const pathEnv = env.EVENTLOOM_PATH !== undefined && env.EVENTLOOM_PATH !== "" ? env.EVENTLOOM_PATH : undefined;
  const root = pathFlag ?? pathEnv ?? ".eventloom";
  return {
    eventloomPath: root,
    localRoot: root,
    sessionId: sessionFlag ?? sessionEnv ?? "default",
    sessionIdExplicit: sessionFlag !== undefined || sessionEnv !== undefined,
    json: values.json === true,
    quiet: values.quiet === true,
  };
}

/** `name "word"; did you mean "closest"?` when one known name is close, else `name "word" (fallback)`. */
function unknownWordMessage(what: string, word: string, closest: string | undefined, fallback: string): string {
  return closest !== undefined ? `unknown ${what} "${word}"; did you mean "${closest}"?` : `unknown ${what} "${word}" (${fallback})`;
}

function parseErrorMessage(error: unknown, commandPath: string, options: Record<string, OptionSpec>): string {
  const raw = error instanceof Error ? error.message : String(error);
  const unknown = /Unknown option '([^']+)'/.exec(raw);
  if (unknown && /^-[0-9.]/.test(unknown[1])) {
    // A negative number where an argument is expected: parseArgs reads it as a flag.
    return `${commandPath}: "${unknown[1]}" reads as an option; to pass a negative number as an argument, put it after -- (e.g. ${commandPath} ... -- ${unknown[1]})`;
  }
  if (unknown) return `${commandPath}: ${unknownWordMessage("option", unknown[1], closestOption(unknown[1], options), `see ${commandPath} --help`)}`;
  // "argument is ambiguous": the next word looks like a flag (`--actor --json`), so it is missing too.
  const missing = /Option '([^']+)' argument (?:missing|is ambiguous)/.exec(raw);
  if (missing) {
    // parseArgs names the option as "-h, --help <value>": report the long flag.
    const flag = /--[A-Za-z0-9-]+/.exec(missing[1])?.[0] ?? missing[1];
    return `${commandPath}: option "${flag}" needs a value`;
  }
  const unexpected = /Unexpected argument '([^']+)'/.exec(raw);
  if (unexpected) return `${commandPath}: unexpected argument "${unexpected[1]}" (see ${commandPath} --help)`;
  return `${commandPath}: ${raw.split("\n")[0]}`;
}

/** Runs the CLI and returns the exit code. */
export async function dispatch(root: CommandGroup, argv: string[], io: CommandIo, version: string): Promise<number> {
  const { node, path, rest } = resolve(root, argv);
  const commandPath = path.join(" ");
  const wantsJson = rest.includes("--json");

  if (node.kind === "group") {
    const parsedGroup = parseArgs({
      args: rest,
      options: { ...globalOptions, version: { type: "boolean" } },
      strict: false,
      allowPositionals: true,
    });
    if (parsedGroup.values.version === true && path.length === 1) {
      io.stdout(wantsJson ? JSON.stringify((await import("../platform/buildInfo.ts")).versionReport(version)) + "\n" : `zaxy ${version}\n`);
      return ExitCode.ok;
    }
    if (parsedGroup.values.help === true) {
      io.stdout(renderHelp(node, path));
      return ExitCode.ok;
    }
    const word = parsedGroup.positionals[0];
    if (word === undefined && rest.every((arg) => arg === "--json" || !arg.startsWith("-") || globalOptions[arg.replace(/^--?/, "").split("=")[0]] !== undefined)) {
      // No command given: usage on stderr (stdout carries data only) and exit 2, as for any usage error.
      const usage = inputError("usage", `${commandPath}: missing command (valid: ${node.children.filter((c) => !c.hidden).map((c) => c.name).join(", ")})`, {
        hint: `run '${commandPath} --help' for the commands`,
      });
      if (!wantsJson) io.stderr(renderHelp(node, path) + "\n");
      return reportError(io, wantsJson, usage);
    }
    const visible = node.children.filter((c) => !c.hidden).map((c) => c.name);
    const flag = rest.find((a) => a.startsWith("-")) ?? "";
    const message =
      word !== undefined
        ? `${commandPath}: ${unknownWordMessage("command", word, closestName(word, visible), `valid: ${visible.join(", ")}`)}`
        : `${commandPath}: ${unknownWordMessage("option", flag, closestOption(flag, { ...globalOptions, ...(path.length === 1 ? { version: {} } : {}) }), `see ${commandPath} --help`)}`;
    return reportError(io, wantsJson, inputError("usage", message));
  }

  const options = withAliases({ ...globalOptions, ...node.options });
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: attachNegativeValues(rest, options), options, strict: true, allowPositionals: true });
    foldAliases(parsed.values, { ...globalOptions, ...node.options }, commandPath);
    checkOneOutputFormat(parsed.values, commandPath);
  } catch (error) {
    if (isZaxyError(error)) return reportError(io, wantsJson, error);
    return reportError(io, wantsJson, inputError("usage", parseErrorMessage(error, commandPath, { ...globalOptions, ...node.options })));
  }
  if (parsed.values.help === true) {
    io.stdout(renderHelp(node, path));
    return ExitCode.ok;
  }
  const global = globalsFrom(parsed.values, io.env);
  const delayError = progressDelayError(io.env);
  if (delayError !== undefined) return reportError(io, global.json, delayError);
  const required = node.positionals.filter((p) => p.required).length;
  const variadic = node.positionals.some((p) => p.variadic);
  if (parsed.positionals.length < required) {
    const missing = node.positionals[parsed.positionals.length];
    return reportError(io, global.json, inputError("usage", `${commandPath}: missing argument ${missing.name} (see ${commandPath} --help)`));
  }
  if (!variadic && parsed.positionals.length > node.positionals.length) {
    const extra = parsed.positionals[node.positionals.length];
    return reportError(io, global.json, inputError("usage", `${commandPath}: unexpected argument "${extra}" (see ${commandPath} --help)`));
  }
  if (node.usesRoot === false) {
    try {
      return await node.run({ commandPath, values: parsed.values as OptionValues, positionals: parsed.positionals, global, io });
    } catch (error) {
      return reportError(io, global.json, withCliFieldNames(error, options));
    }
  }
  try {
    checkRoot(node, global, parsed.values, io.env);
    await openStoreFor(node, commandPath, path, global, parsed.values, io);
    // The command's handle on the root it runs on (the store's mirror root with a store).
    global.root = (await import("../eventloom/rootHandle.ts")).Root.of(global.eventloomPath);
    // A root that forgets reads its erasable cells with its vault (docs/forgetting.md).
    (await import("../eventloom/forgetting.ts")).openVault(global.root);
    // Unpacked helpers (Kuzu's loader script, the usearch addon) go to TMPDIR, else here.
    (await import("../platform/cacheFile.ts")).setRootCacheDir(nodePath.resolve(global.eventloomPath, "projections", "cache"));
    // No option is a boolean that may repeat, so no value is a boolean array.
    return await node.run({ commandPath, values: parsed.values as OptionValues, positionals: parsed.positionals, global, io });
  } catch (error) {
    clearProgress(io);
    return reportError(io, global.json, withCliFieldNames(error, options));
  } finally {
    clearProgress(io);
    await global.store?.close();
  }
}

/**
 * With a store configured, a `mirror` command runs on the store's local mirror root, brought up
 * to date first: the command's session (and, for fleet commands, every fleet thread) with the
 * full tamper check, other threads only when the command reads them. The client is loaded
 * only here, so file roots never pay for it.
 */
async function openStoreFor(node: Command, commandPath: string, words: string[], global: GlobalOptions, values: Record<string, unknown>, io: CommandIo): Promise<void> {
  const mode = node.store ?? "mirror";
  if (mode === "self") return;
  const url = resolveStoreUrl(typeof values.store === "string" ? values.store : undefined, io.env, global.localRoot, (message) => io.stderr(`zaxy: warning: ${message}\n`));
  if (url === undefined) return;
  const requestId = typeof values["request-id"] === "string" ? values["request-id"] : undefined;
  if (mode === "files-only") {
    throw inputError("files_only", `${commandPath} works on log files only, not on the store ${url.redacted} (${url.source})`, {
      field: url.source,
      hint: "copy the session out with `zaxy store export --session-id S --output FILE` and run it on the file",
    });
  }
  const { openActiveStore } = await import("../store/activeStore.ts");
  global.store = await openActiveStore(url, global.localRoot, io.env, (message) => io.stderr(`zaxy: warning: ${message}\n`), { requestId });
  global.eventloomPath = global.store.mirrorRoot;
  const { syncForCall } = await import("../store/syncPolicy.ts");
  await syncForCall(global.store, {
    sessionIds: [global.sessionId],
    fleet: words[1] === "fleet",
    readsEveryThread: node.readsEveryThread === true || values.all === true,
    fleetEnabled: () => readFleetEnabled(global.localRoot),
  });
}
