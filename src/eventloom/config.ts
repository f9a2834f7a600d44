/**
 * Per-root settings: `<root>/config.json`. `zaxy init` writes the envelope new logs start with;
 * users may add the long-horizon checkout keys (`long_horizon_enabled`, default false;
 * `long_horizon_recent_window`, default 50, docs/long-horizon.md) and `fleet_enabled` (default
 * false, docs/fleet.md). A missing file means the defaults; rewriting the envelope keeps every other key.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../errors.ts";
import type { Envelope } from "./envelope.ts";
import { fileSystemReason } from "./root.ts";

export interface EventloomConfig {
  /** Envelope for new (empty) logs. Default v1. */
  envelope: Envelope;
}

export const configSchema = "zaxy.config.v1";
export const defaultConfig: EventloomConfig = { envelope: "v1" };

// A store's mirror root (docs/store.md) reads the settings of the local root it mirrors for.
const configRoots = new Map<string, string>();

/** Makes `root` read and write its config.json in `configRoot` (a store's mirror root → its local root). */
export function redirectConfig(root: string, configRoot: string): void {
  configRoots.set(path.resolve(root), configRoot);
}

export function configPath(root: string): string {
  const redirected = configRoots.size === 0 ? undefined : configRoots.get(path.resolve(root));
  return path.join(redirected ?? root, "config.json");
}

/** The envelopes config.json may name; a missing `envelope` key means v1. */
export const configEnvelopes: readonly Envelope[] = ["v1", "legacy"];

/**
 * The root's settings. An `envelope` that is not one of `configEnvelopes` is bad input naming
 * the key (exit 2): a typo must not silently choose a line format for every new log.
 */
export function readConfig(root: string): EventloomConfig {
  const parsed = readConfigObject(root);
  if (parsed === undefined || parsed.envelope === undefined) return { ...defaultConfig };
  if (!(configEnvelopes as readonly unknown[]).includes(parsed.envelope)) {
    throw inputError("invalid_config", `${configPath(root)}: envelope must be one of ${configEnvelopes.map((e) => JSON.stringify(e)).join(", ")}, got ${JSON.stringify(parsed.envelope)}`, {
      field: "config.json envelope",
      expected: configEnvelopes.join("|"),
      hint: "fix the value, or rewrite the file with `zaxy init --force --envelope v1`",
    });
  }
  return { envelope: parsed.envelope as Envelope };
}

export interface LongHorizonConfig {
  /** `long_horizon_enabled`: whether checkouts use the two-tier long-horizon plan by default. */
  enabled: boolean;
  /** `long_horizon_recent_window`: events kept at full detail (the episodic tier), > 0. */
  recentWindow: number;
}

export const defaultLongHorizonConfig: LongHorizonConfig = { enabled: false, recentWindow: 50 };

/**
 * The long-horizon checkout settings of a root. Read only by checkout (not by append), so a bad
 * value here never blocks writing to the log; it is bad input naming the key (exit 2).
 */
export function readLongHorizonConfig(root: string): LongHorizonConfig {
  const parsed = readConfigObject(root);
  if (parsed === undefined) return { ...defaultLongHorizonConfig };
  const enabled = parsed.long_horizon_enabled ?? defaultLongHorizonConfig.enabled;
  const recentWindow = parsed.long_horizon_recent_window ?? defaultLongHorizonConfig.recentWindow;
  if (typeof enabled !== "boolean") {
    throw inputError("invalid_config", `${configPath(root)}: long_horizon_enabled must be true or false, got ${JSON.stringify(enabled)}`, {
      field: "long_horizon_enabled",
      expected: "true or false",
    });
  }
  if (typeof recentWindow !== "number" || !Number.isSafeInteger(recentWindow) || recentWindow < 1) {
    throw inputError("invalid_config", `${configPath(root)}: long_horizon_recent_window must be an integer >= 1, got ${JSON.stringify(recentWindow)}`, {
      field: "long_horizon_recent_window",
      expected: "integer >= 1",
    });
  }
  return { enabled, recentWindow };
}

/**
 * `fleet_enabled` (default false): whether the fleet plane is on at all — the `zaxy fleet`
 * commands, the MCP fleet tools and the checkout fleet lane (docs/fleet.md). A non-boolean
 * value is bad input naming the key (exit 2).
 */
export function readFleetEnabled(root: string): boolean {
  const enabled = readConfigObject(root)?.fleet_enabled ?? false;
  if (typeof enabled !== "boolean") {
    throw inputError("invalid_config", `${configPath(root)}: fleet_enabled must be true or false, got ${JSON.stringify(enabled)}`, {
      field: "config.json fleet_enabled",
      expected: "true or false",
    });
  }
  return enabled;
}

/** Config objects being checked (`zaxy config set`), by resolved root: read instead of the file. */
const candidateConfigs = new Map<string, { [key: string]: unknown }>();

/**
 * Runs `check` with `object` standing in for `<root>/config.json`, so the engine's own readers
 * judge a value before it is written (nothing touches the disk).
 */
export function withCandidateConfig<T>(root: string, object: { [key: string]: unknown }, check: () => T): T {
  const key = path.resolve(root);
  candidateConfigs.set(key, object);
  try {
    return check();
  } finally {
    candidateConfigs.delete(key);
  }
}

/**
 * The parsed config.json object; undefined when the file is missing. The one reader of the file
 * (envelope, long-horizon, fleet and evolution settings): not JSON, JSON that is not an object,
 * or a directory named config.json is `invalid_config` naming `config.json` (exit 2); a file
 * that cannot be read (permissions, I/O) is `unreadable_config` (exit 3).
 */
export function readConfigObject(root: string): { [key: string]: unknown } | undefined {
  const candidate = candidateConfigs.get(path.resolve(root));
  if (candidate !== undefined) return candidate;
  let text: string;
  try {
    text = fs.readFileSync(configPath(root), "utf8");
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    // No config (or no root yet) means the defaults; anything else must not be silently ignored.
    if (code === "ENOENT") return undefined;
    if (code === "EISDIR") {
      throw inputError("invalid_config", `Cannot read ${configPath(root)}: it is a directory, not a file`, {
        field: "config.json",
        expected: "a JSON file",
        hint: "remove the directory; `zaxy init` writes the file",
      });
    }
    if (code === "ENOTDIR") return undefined;
    throw ioError("unreadable_config", `Cannot read ${configPath(root)}: ${fileSystemReason(error)}`, { field: "config.json" });
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw inputError("invalid_config", `Cannot read ${configPath(root)}: it is not valid JSON`, { field: "config.json" });
  }
  if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
    throw inputError("invalid_config", `Cannot read ${configPath(root)}: it must hold a JSON object`, { field: "config.json" });
  }
  return parsed as { [key: string]: unknown };
}

/**
 * Writes config.json atomically: the envelope, every key already there, and `settings` (keys
 * such as `fleet_enabled` that `zaxy init --fleet` sets) on top.
 */
export function writeConfig(root: string, config: EventloomConfig, settings: { [key: string]: unknown } = {}): string {
  fs.mkdirSync(root, { recursive: true });
  const file = configPath(root);
  const temp = `${file}.tmp-${process.pid}`;
  // Settings this writer does not manage (the long-horizon keys) survive `zaxy init --force`.
  let kept: { [key: string]: unknown } = {};
  try {
    kept = readConfigObject(root) ?? {};
  } catch {
    // An unreadable config is being replaced; nothing in it can be kept.
  }
  // Exclusive: a leftover temp file or a link planted at its name is removed, never written through.
  fs.rmSync(temp, { force: true });
  fs.writeFileSync(temp, JSON.stringify({ ...kept, ...settings, schema: configSchema, envelope: config.envelope }, null, 2) + "\n", { flag: "wx" });
  fs.renameSync(temp, file);
  return file;
}

/**
 * `forgetting_enabled` (default false): whether appended memory events are sealed as erasable
 * cells (docs/forgetting.md). A non-boolean value is bad input naming the key (exit 2).
 */
export function readForgettingEnabled(root: string): boolean {
  const enabled = readConfigObject(root)?.forgetting_enabled ?? false;
  if (typeof enabled !== "boolean") {
    throw inputError("invalid_config", `${configPath(root)}: forgetting_enabled must be true or false, got ${JSON.stringify(enabled)}`, {
      field: "config.json forgetting_enabled",
      expected: "true or false",
    });
  }
  return enabled;
}
