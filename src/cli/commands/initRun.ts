/** What init.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../command.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { configPath, defaultConfig, type EventloomConfig, readConfig, readFleetEnabled, readForgettingEnabled, writeConfig } from "../../eventloom/mod.ts";
import { fileSystemReason } from "../../eventloom/root.ts";
import { ExitCode, inputError, ioError, isZaxyError } from "../../errors.ts";
import { choiceOption } from "../args.ts";
import { booleanOption } from "../command.ts";
import { emit } from "../output.ts";

/** The work tree `dir` is in: the nearest directory at or above it holding `.git`, or undefined. */
function gitWorkTree(dir: string): string | undefined {
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, ".git"))) return current;
    if (path.dirname(current) === current) return undefined;
  }
}

/**
 * What a commit of the root should leave out: the derived projections (rebuilt from the logs;
 * often larger than the logs), the export signing key, and the lock files.
 */
export const rootGitignore = [
  "# Written by zaxy init: the logs and config.json belong in git; these do not.",
  "# Derived from the logs, rebuilt on demand (zaxy reproject):",
  "projections/",
  "# The private key memory export --sign signs with:",
  "keys/",
  "# Append locks:",
  "*.lock",
  "",
].join("\n");

/** Writes `<root>/.gitignore` when the root is inside a git work tree and has none; its path when written. */
function writeRootGitignore(root: string): string | undefined {
  if (gitWorkTree(root) === undefined) return undefined;
  const file = path.join(root, ".gitignore");
  if (fs.existsSync(file)) return undefined;
  try {
    fs.writeFileSync(file, rootGitignore, { flag: "wx" });
  } catch (error) {
    // A full disk may have left part of it: none, rather than half a .gitignore.
    if ((error as { code?: string }).code !== "EEXIST") fs.rmSync(file, { force: true });
    throw ioError("unwritable_root", `Cannot write ${file}: ${fileSystemReason(error)}`);
  }
  return file;
}

export async function runInit(ctx: CommandContext): Promise<number> {
  const root = ctx.global.eventloomPath;
  const envelope = choiceOption(ctx, "envelope", ["legacy", "v1"] as const);
  const force = booleanOption(ctx, "force");
  const fleet = booleanOption(ctx, "fleet");
  const forgetting = booleanOption(ctx, "forgetting");
  const existed = fs.existsSync(configPath(root));
  let config: EventloomConfig;
  try {
    config = readConfig(root);
  } catch (error) {
    // `init --force` is how a bad config.json (a typo in `envelope`) is rewritten.
    if (!force || !isZaxyError(error) || error.exitCode !== ExitCode.badInput) throw error;
    config = { ...defaultConfig };
  }
  let written = false;
  const settings = { ...(fleet ? { fleet_enabled: true } : {}), ...(forgetting ? { forgetting_enabled: true } : {}) };
  if (!existed || force || fleet || forgetting) {
    if (existed && !force && envelope !== undefined && envelope !== config.envelope) {
      throw inputError("config_exists", `Cannot set --envelope ${envelope}: ${configPath(root)} already chooses ${config.envelope}`, {
        field: "--envelope",
        hint: "pass --force to change it",
      });
    }
    config = { envelope: envelope ?? config.envelope };
    try {
      writeConfig(root, config, settings);
    } catch (error) {
      throw ioError("unwritable_root", `Cannot initialise ${root}: ${fileSystemReason(error)}`);
    }
    written = true;
  } else if (envelope !== undefined && envelope !== config.envelope) {
    throw inputError("config_exists", `Cannot set --envelope ${envelope}: ${configPath(root)} already chooses ${config.envelope}`, {
      field: "--envelope",
      hint: "pass --force to change it",
    });
  }
  // Inside a git repository the derived files would otherwise be committed with the logs.
  const gitignore = writeRootGitignore(root);
  const doc = {
    root: path.resolve(root),
    config_path: path.resolve(configPath(root)),
    envelope: config.envelope,
    created: written,
    fleet_enabled: readFleetEnabled(root),
    forgetting_enabled: readForgettingEnabled(root),
    gitignore_written: gitignore === undefined ? null : path.resolve(gitignore),
  };
  emit(ctx, "zaxy.init.v1", doc, () =>
    (written
      ? `Initialised ${doc.root} (new logs use the ${config.envelope} envelope)`
      : `${doc.root} is already initialised (new logs use the ${config.envelope} envelope)`) +
    (gitignore === undefined ? "" : `\nWrote ${gitignore}: projections/, keys/ and lock files stay out of git`),
  );
  return 0;
}
