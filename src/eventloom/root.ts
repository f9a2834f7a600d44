/**
 * An Eventloom root on disk: the directory, its sessions' paths, its settings and its key. Every
 * file a command finds under a root is named here, and every check on a root or a session's path
 * that turns a file-system fault into one readable error. Four sections:
 *
 * - Checks: a root that is a file or an empty path is bad input (exit 2), a root that cannot be
 *   written (read-only file system, permission) is an I/O error (exit 3), and a log path that is
 *   a directory is bad input. None of them creates or changes anything.
 * - Sessions: ids, and the paths of a session's log, its append intent and the derived files.
 * - Citations: the address of one sealed event of a session.
 * - Settings: `<root>/config.json`.
 * - The key for derived files: `<root>/keys/derived.key`.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { inputError, ioError } from "../errors.ts";
import { sessionIdCharsMax } from "../limits.ts";
import type { Envelope } from "./envelope.ts";
import { JsonNumber, type JsonObject, type JsonValue } from "../canonical/mod.ts";

// ---------------------------------------------------------------------------
// Checks

const reasons: Record<string, string> = {
  EROFS: "read-only file system",
  EACCES: "permission denied",
  EPERM: "operation not permitted",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EISDIR: "it is a directory",
  ENOTDIR: "a part of the path is a file, not a directory",
  ENOENT: "no such file or directory",
  EEXIST: "a file is in the way",
  ELOOP: "too many symbolic links",
  ENAMETOOLONG: "the name is too long",
  EIO: "input/output error",
};

/** A system error's code (`EROFS`, ...), or undefined for anything else. */
export function fileSystemErrorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" && /^E[A-Z]+$/.test(code) ? code : undefined;
}

/**
 * The readable reason of a file-system error, without the syscall dump:
 * `fileSystemReason(erofsError) // "read-only file system"`.
 */
export function fileSystemReason(error: unknown): string {
  const code = fileSystemErrorCode(error);
  if (code !== undefined && reasons[code] !== undefined) return reasons[code];
  const message = error instanceof Error ? error.message : String(error);
  // Node's messages read `EROFS: read-only file system, open '/x'`: keep the middle part.
  const match = /^E[A-Z]+: ([^,]+)/.exec(message);
  return match !== null ? match[1] : message;
}

/** The nearest existing ancestor of `dir` (itself when it exists). */
function nearestExisting(dir: string): { path: string; stat: fs.Stats } {
  let current = path.resolve(dir);
  for (;;) {
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(current, { throwIfNoEntry: false });
    } catch (error) {
      // ENOTDIR: a file sits on the way up; keep climbing to it.
      if ((error as { code?: unknown }).code !== "ENOTDIR") throw error;
    }
    if (stat !== undefined) return { path: current, stat };
    const parent = path.dirname(current);
    if (parent === current) return { path: current, stat: fs.statSync(current) };
    current = parent;
  }
}

/**
 * The root named by `label` (`--eventloom-path`, `EVENTLOOM_PATH`) must be a non-empty path
 * that is a directory or does not exist yet (below a directory). Bad input otherwise.
 *
 * @example
 * checkRootPath("/etc/hostname", "--eventloom-path"); // throws invalid_eventloom_path (exit 2)
 */
export function checkRootPath(root: string, label: string): void {
  if (root === "") {
    throw inputError("invalid_eventloom_path", `${label} is empty; give the Eventloom root directory (default .eventloom)`, {
      field: label,
      expected: "a directory path",
    });
  }
  const found = nearestExisting(root);
  if (!found.stat.isDirectory()) {
    const where = found.path === path.resolve(root) ? `${JSON.stringify(root)} is a file` : `${JSON.stringify(root)} is below the file ${found.path}`;
    throw inputError("invalid_eventloom_path", `${label} ${where}, not a directory; the Eventloom root is a directory holding the logs`, {
      field: label,
      expected: "a directory path",
    });
  }
}

/**
 * A command that writes must be able to: the root (or, when it does not exist yet, the
 * directory it would be created in) is writable. Checked before anything is read or written.
 *
 * @example
 * checkRootWritable(".eventloom"); // throws unwritable_root (exit 3) on a read-only mount
 */
export function checkRootWritable(root: string): void {
  const found = nearestExisting(root);
  try {
    fs.accessSync(found.path, fs.constants.W_OK);
  } catch (error) {
    const target = found.path === path.resolve(root) ? `the Eventloom root ${root}` : `${found.path} (to create the Eventloom root ${root})`;
    throw ioError("unwritable_root", `Cannot write to ${target}: ${fileSystemReason(error)}`, { field: "eventloom_path" });
  }
}

/**
 * A session's log, when it exists, is a regular file; a directory there is bad input.
 *
 * @example
 * checkLogNotDirectory(".eventloom/default.jsonl", "default");
 */
export function checkLogNotDirectory(logPath: string, sessionId: string): void {
  if (fs.statSync(logPath, { throwIfNoEntry: false })?.isDirectory()) {
    throw inputError("not_a_log_file", `The log of session ${JSON.stringify(sessionId)} (${logPath}) is a directory, not a log file`, {
      field: "session_id",
      expected: "a JSONL file",
      hint: "move the directory out of the Eventloom root",
    });
  }
}

// ---------------------------------------------------------------------------
// Sessions
/*
 * Session ids and the paths under an Eventloom root: a session's log, its append intent, and
 * where derived files live. A session is one JSONL file directly under the root; ids are
 * `^[A-Za-z0-9_.-]{1,128}$` and may not be `.` or `..`, so a path can never escape it.
 */
const sessionIdPattern = /^[A-Za-z0-9_.-]{1,128}$/;

export const sessionIdRule = `session ids are 1-${sessionIdCharsMax} of A-Z a-z 0-9 . _ - (not "." or "..")`;

/** Throws `invalid_session_id` (exit 2) unless `sessionId` is a safe session id. */
export function validateSessionId(sessionId: string, action = "use"): void {
  if (!sessionIdPattern.test(sessionId) || sessionId === "." || sessionId === "..") {
    throw inputError("invalid_session_id", `Cannot ${action} session ${JSON.stringify(sessionId)}: ${sessionIdRule}`, {
      field: "session_id",
      expected: sessionIdPattern.source,
      actual: sessionId,
    });
  }
}

/** `<root>/<sessionId>.jsonl`, after validating the id and checking it stays inside the root. */
export function sessionLogPath(root: string, sessionId: string, action = "use"): string {
  validateSessionId(sessionId, action);
  const resolvedRoot = path.resolve(root);
  const file = path.resolve(resolvedRoot, `${sessionId}.jsonl`);
  if (path.dirname(file) !== resolvedRoot) {
    throw inputError("invalid_session_id", `Cannot ${action} session ${JSON.stringify(sessionId)}: it resolves outside the Eventloom root`, {
      field: "session_id",
    });
  }
  return file;
}

/**
 * `<log>.intent`: where an append records its intent before writing (`intent.ts`). A read checks
 * only that it exists, so the name lives here with the log's.
 */
export function intentPath(logPath: string): string {
  return `${logPath}.intent`;
}

/**
 * Refuses a write to `file` when any part of its path below `root` is a symbolic link (a
 * dangling one included): a link planted in the root would otherwise make a write create or
 * change a file elsewhere. `unsafe_path` (exit 2), naming the link and where it points; nothing
 * is created. Parts that do not exist yet are fine (the write creates them, without following
 * anything). A `file` outside `root` has only its last part checked.
 *
 * @example
 * refuseLinkUnderRoot(".eventloom", ".eventloom/s3.jsonl", "append to session \"s3\"");
 */
export function refuseLinkUnderRoot(root: string, file: string, action: string): void {
  const resolvedRoot = path.resolve(root);
  const target = path.resolve(file);
  const relative = path.relative(resolvedRoot, target);
  const inside = relative !== "" && !relative.startsWith("..") && !path.isAbsolute(relative);
  const parts = inside ? relative.split(path.sep) : [path.basename(target)];
  let current = inside ? resolvedRoot : path.dirname(target);
  for (const part of parts) {
    current = path.join(current, part);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.lstatSync(current, { throwIfNoEntry: false });
    } catch {
      return; // ENOTDIR and the like: the write itself reports it.
    }
    if (stat === undefined) return;
    if (stat.isSymbolicLink()) {
      let points = "";
      try {
        points = fs.readlinkSync(current);
      } catch {
        // Unreadable link: named without its target.
      }
      throw inputError("unsafe_path", `Cannot ${action}: ${current} is a symbolic link${points === "" ? "" : ` to ${points}`}; zaxy does not write through links under the Eventloom root`, {
        field: "path",
        expected: "a regular file or directory, or nothing, at that path",
        actual: points === "" ? undefined : points,
        hint: `remove the link (rm ${JSON.stringify(current)}) or put the real file in its place`,
      });
    }
  }
}

/**
 * `sessionLogPath` for a write: also refuses a symbolic link at the log, its intent file, or
 * anywhere on the way to them (`refuseLinkUnderRoot`).
 */
export function writableSessionLogPath(root: string, sessionId: string, action = "append to"): string {
  const file = sessionLogPath(root, sessionId, action);
  const what = `${action} session ${JSON.stringify(sessionId)}`;
  refuseLinkUnderRoot(root, file, what);
  refuseLinkUnderRoot(root, `${file}.intent`, what);
  return file;
}

/** The session id of a log path (`<root>/<id>.jsonl` → `<id>`). */
export function sessionIdOfPath(logPath: string): string {
  return path.basename(logPath).replace(/\.jsonl$/, "");
}

/** Every session log (`*.jsonl`) directly under the root, sorted; a missing root is bad input. */
export function sessionLogsUnderRoot(root: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    throw inputError("unreadable_root", `Cannot list logs: the Eventloom root ${root} does not exist`, { field: "eventloom_path" });
  }
  return names.filter((name) => name.endsWith(".jsonl")).sort().map((name) => path.join(root, name));
}

/**
 * The error every read of a session without a log gives (exit 2): one rule for `memory log`,
 * query, status, checkout and the MCP tools (README conventions).
 */
export function unknownSessionError(sessionId: string, logPath: string): Error {
  return inputError("unknown_session", `Unknown session ${JSON.stringify(sessionId)}: no log at ${logPath}`, {
    field: "session_id",
    hint: "`zaxy memory sessions` lists the root's sessions; appending an event creates a session",
  });
}

/**
 * Where a root keeps what is derived from its logs (`<root>/projections`: read models, vector
 * indexes, the Kuzu store): everything there can be deleted and is rebuilt from the logs.
 */
export function projectionsDir(root: string): string {
  return path.join(root, "projections");
}

// ---------------------------------------------------------------------------
// Citations
/*
 * Citations point back at sealed events: `eventloom://<thread>/events/<seq>#<first 12 hex>`.
 * A cited source event is `{seq, hash}` (seq >= 1, 64 lowercase hex); on the CLI `SEQ:HASH`.
 */
export interface SourceEventRef {
  seq: number;
  hash: string;
}

/** A cited event as JSON, `{seq, hash}` in that key order (as Python writes it). */
export function sourceEventRefJson(ref: SourceEventRef): JsonObject {
  return new Map<string, JsonValue>([["seq", JsonNumber.int(ref.seq)], ["hash", ref.hash]]);
}

/** A list of cited events as JSON (order kept: it matters to ids). */
export function sourceEventsJson(sourceEvents: readonly SourceEventRef[]): JsonValue[] {
  return sourceEvents.map(sourceEventRefJson);
}

/** Hex characters of the hash kept in a citation URI. */
export const citationHashChars = 12;

/**
 * @example
 * citationUri("default", 3, "ab12...") // "eventloom://default/events/3#ab12cd34ef56"
 */
export function citationUri(thread: string, seq: number, hash: string): string {
  return `eventloom://${thread}/events/${seq}#${hash.slice(0, citationHashChars)}`;
}

const citationPattern = /^eventloom:\/\/([^/]+)\/events\/(\d+)#([a-f0-9]+)$/;

export function parseCitationUri(uri: string): { thread: string; seq: number; hashPrefix: string } | undefined {
  const match = citationPattern.exec(uri);
  if (match === null) return undefined;
  return { thread: match[1], seq: Number(match[2]), hashPrefix: match[3] };
}

/** Parses the CLI form `SEQ:HASH`. */
export function parseSourceEventRef(text: string, field = "--source-event"): SourceEventRef {
  const match = /^([1-9][0-9]*):([0-9a-f]{64})$/.exec(text);
  if (match === null) {
    throw inputError("invalid_source_event", `${field} ${JSON.stringify(text)} is not SEQ:HASH (seq >= 1, 64 lowercase hex)`, {
      field,
      expected: "SEQ:HASH",
    });
  }
  return { seq: Number(match[1]), hash: match[2] };
}

// ---------------------------------------------------------------------------
// Settings
/*
 * Per-root settings: `<root>/config.json`. `zaxy init` writes the envelope new logs start with;
 * users may add the long-horizon checkout keys (`long_horizon_enabled`, default false;
 * `long_horizon_recent_window`, default 50, docs/long-horizon.md) and `fleet_enabled` (default
 * false, docs/fleet.md). A missing file means the defaults; rewriting the envelope keeps every other key.
 */
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

// ---------------------------------------------------------------------------
// The key for derived files
/*
 * The root's key for derived files: an HMAC-SHA-256 key that authenticates the files under
 * `projections/` a read trusts instead of verifying the log again (the verified checkpoint and
 * the read-model manifest, which pins every read-model file by its SHA-256).
 *
 * Why a key: those files carry SHA-256 checksums over their own public fields, which catch
 * damage but not a forgery: whoever can write `projections/` can recompute them. A MAC under a
 * secret they cannot read cannot be recomputed, so a forged or foreign file is refused, the read
 * verifies the log in full, and the file is written again (docs/reliability.md, "Derived files
 * and the root key").
 *
 * Format (never change without a new file name): `<root>/keys/derived.key` holds 64 lowercase hex
 * (32 random bytes) and a newline; the file is mode 0600 in a directory of mode 0700. It is made
 * by the first read or write of a derived file (not by `zaxy init`, which writes only the
 * config), and is never copied anywhere: not
 * into projections, exports, backups or store imports (they copy logs only). A root whose key
 * cannot be read or made (a read-only root, a damaged key file) has no key: every derived file
 * is then untrusted and reads verify the log in full.
 */
export const keysDirName = "keys";
const keyFileName = "derived.key";
const keyPattern = /^[0-9a-f]{64}\n?$/;

/** `<root>/keys`: the directory of the root's secrets. */
export function keysDir(root: string): string {
  return path.join(root, keysDirName);
}

/** `<root>/keys/derived.key`. */
export function derivedKeyPath(root: string): string {
  return path.join(keysDir(root), keyFileName);
}

const keysByRoot = new Map<string, Buffer>();

/**
 * node:crypto, looked up on first use: the root's paths and settings are read at start-up, and
 * importing node:crypto there would load the runtime's stream modules into every command.
 */
const crypto = () => process.getBuiltinModule("node:crypto");

/** The key in `file`, or null when it is missing, a link, not a regular file, or not 64 hex. */
function readKeyFile(file: string): Buffer | null {
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0));
  } catch {
    return null;
  }
  try {
    const stat = fs.fstatSync(fd);
    if (!stat.isFile() || stat.size > 128) return null;
    const text = fs.readFileSync(fd, "utf8");
    return keyPattern.test(text) ? Buffer.from(text.slice(0, 64), "hex") : null;
  } catch {
    return null;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Makes `<root>/keys/derived.key` if it does not exist (never the root itself): the key goes to a
 * temp file first and is linked into place, so a concurrent maker's key wins whole or not at all.
 */
function makeKeyFile(root: string): void {
  const dir = keysDir(root);
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chmodSync(dir, 0o700);
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  }
  const stat = fs.lstatSync(dir);
  if (!stat.isDirectory()) throw new Error(`${dir} is not a directory`);
  const temp = path.join(dir, `.${keyFileName}.${process.pid}.${crypto().randomBytes(4).toString("hex")}.tmp`);
  const fd = fs.openSync(temp, "wx", 0o600);
  try {
    fs.writeFileSync(fd, `${crypto().randomBytes(32).toString("hex")}\n`);
    fs.fchmodSync(fd, 0o600);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(temp, derivedKeyPath(root));
  } catch (error) {
    if ((error as { code?: string }).code !== "EEXIST") throw error;
  } finally {
    fs.rmSync(temp, { force: true });
  }
}

/**
 * The root's derived-file key, made when missing and `create` is true (the root must exist);
 * null when it cannot be read or made. Cached per process once read.
 *
 * @example
 * const key = derivedFileKey(".eventloom"); // Buffer(32), or null on a read-only root without one
 */
export function derivedFileKey(root: string, create = true): Buffer | null {
  const resolved = path.resolve(root);
  const known = keysByRoot.get(resolved);
  if (known !== undefined) return known;
  let key = readKeyFile(derivedKeyPath(resolved));
  if (key === null && create && fs.existsSync(derivedKeyPath(resolved)) === false) {
    try {
      if (!fs.statSync(resolved).isDirectory()) return null;
      makeKeyFile(resolved);
    } catch {
      return null;
    }
    key = readKeyFile(derivedKeyPath(resolved));
  }
  if (key !== null) keysByRoot.set(resolved, key);
  return key;
}

/**
 * HMAC-SHA-256 hex of `parts` (JSON-encoded as one array, so no two part lists share bytes), e.g.
 * `derivedMac(key, ["zaxy.verified_checkpoint.v3", "default", 7, ...])`.
 */
export function derivedMac(key: Buffer, parts: readonly unknown[]): string {
  return crypto().createHmac("sha256", key).update(JSON.stringify(parts)).digest("hex");
}

/** Whether `mac` is `derivedMac(key, parts)`, compared in constant time. */
export function derivedMacMatches(key: Buffer, parts: readonly unknown[], mac: unknown): boolean {
  if (typeof mac !== "string" || !/^[0-9a-f]{64}$/.test(mac)) return false;
  return crypto().timingSafeEqual(Buffer.from(derivedMac(key, parts), "hex"), Buffer.from(mac, "hex"));
}

/** Forgets the cached key of one root that is gone (a read model built in a scratch directory). */
export function forgetDerivedKey(root: string): void {
  keysByRoot.delete(path.resolve(root));
}

/** Forgets cached keys (tests that delete a root's key within one process). */
export function forgetDerivedKeys(): void {
  keysByRoot.clear();
}
