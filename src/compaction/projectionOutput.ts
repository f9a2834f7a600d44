/**
 * Where `zaxy compact LOG --projection-output PATH` may write. An artifact is a derived view; the
 * files it must never replace are the record itself. So the output is resolved to the one file
 * it would land on (symlinks in the directory and in the name followed, `..` and spellings
 * collapsed) and refused (bad input, exit 2, nothing written) unless:
 *   - the resolved name ends in `.compaction.json` (so a log `*.jsonl`, `config.json`, the row
 *     cache or any other file under an Eventloom root can never be named, even with --force);
 *   - its directory already exists (a typo never creates a tree);
 *   - it is not the audited log, a `*.jsonl` log or `config.json` of the log's directory or of
 *     the Eventloom root under any alias: same resolved path, or same device and inode (a hard
 *     link) — even with --force;
 *   - an existing file there is a compaction artifact of the same log (every record's event ref
 *     names an event of this log with that hash) — anything else needs `force`.
 * The project keeps no secrets vault; the protected set is the log, its siblings and config.
 */
import * as fs from "node:fs";
import * as path from "node:path";
import type { EventRecord } from "../eventloom/envelope.ts";
import { citationUri } from "../eventloom/root.ts";
import { inputError } from "../errors.ts";
import { type CompactionProjection, loadProjectionArtifact, projectionArtifactSuffix } from "../retrieval/projectionArtifact.ts";

const field = "projection_output";

export interface ProjectionOutputTarget {
  /** The real path the artifact is written to (directory symlinks and a symlinked name resolved). */
  file: string;
  /** The artifact already there, when it parsed as one; its source is checked against the log later. */
  existing: CompactionProjection | undefined;
  /** An existing file that is not a valid artifact, replaced because `force` was given. */
  forcedOverExisting: boolean;
}

export interface ProjectionOutputOptions {
  /** Eventloom roots whose logs and config.json are protected besides the log's own directory. */
  roots?: string[];
  /** Replace an existing file that is not an artifact of this log (never a protected one). */
  force?: boolean;
}

function quoted(file: string): string {
  return JSON.stringify(file);
}

function refuse(code: string, outputPath: string, reason: string, hint?: string): never {
  throw inputError(code, `\`${field}\` ${quoted(outputPath)} ${reason}`, { field, hint });
}

interface ProtectedFile {
  real: string;
  dev: number;
  ino: number;
}

function protectedFile(file: string): ProtectedFile | undefined {
  try {
    const real = fs.realpathSync(file);
    const stat = fs.statSync(real);
    return stat.isFile() ? { real, dev: stat.dev, ino: stat.ino } : undefined;
  } catch {
    return undefined;
  }
}

/** The log, every `*.jsonl` and `config.json` directly under the log's directory and each root. */
function protectedFiles(logPath: string, roots: string[]): ProtectedFile[] {
  const files: ProtectedFile[] = [];
  const add = (file: string) => {
    const found = protectedFile(file);
    if (found !== undefined) files.push(found);
  };
  add(logPath);
  const dirs = new Set<string>();
  for (const dir of [path.dirname(path.resolve(logPath)), ...roots.map((root) => path.resolve(root))]) {
    try {
      dirs.add(fs.realpathSync(dir));
    } catch {
      // A root that does not exist holds nothing to protect.
    }
  }
  for (const dir of dirs) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of names) if (name.endsWith(".jsonl")) add(path.join(dir, name));
    add(path.join(dir, "config.json"));
  }
  return files;
}

function describeProtected(file: ProtectedFile, logReal: string | undefined): string {
  if (file.real === logReal) return "the log itself; the log is never overwritten by a projection";
  if (path.basename(file.real) === "config.json") return `the Eventloom config ${file.real}; a projection never replaces it`;
  return `the Eventloom log ${file.real}; a projection never replaces a log`;
}

/**
 * Resolves and checks the output path before anything is read or written.
 *
 * @example
 * resolveProjectionOutput(".eventloom/default.jsonl", ".eventloom/projections/default.compaction.json", { roots: [".eventloom"] }).file
 */
export function resolveProjectionOutput(logPath: string, outputPath: string, options: ProjectionOutputOptions = {}): ProjectionOutputTarget {
  const expected = `a *${projectionArtifactSuffix} file in an existing directory`;
  const absolute = path.resolve(outputPath);
  const lstatGiven = fs.lstatSync(absolute, { throwIfNoEntry: false });
  if (lstatGiven?.isDirectory() || /[/\\]$/.test(outputPath)) {
    refuse("invalid_option", outputPath, `is a directory; expected a file path such as <root>/projections/<session>${projectionArtifactSuffix}`);
  }
  const badSuffix = !path.basename(absolute).endsWith(projectionArtifactSuffix) || path.basename(absolute) === projectionArtifactSuffix;
  const refuseSuffix: () => never = () =>
    refuse("invalid_projection_output", outputPath, `must name a *${projectionArtifactSuffix} file (a projection artifact), e.g. .eventloom/projections/default${projectionArtifactSuffix}`);
  const parent = path.dirname(absolute);
  let realParent: string;
  try {
    realParent = fs.realpathSync(parent);
  } catch {
    if (badSuffix) refuseSuffix();
    refuse("missing_directory", outputPath, `is in a directory that does not exist (${parent}); nothing was written`, `create it first (mkdir -p ${quoted(parent)}); zaxy does not create directories for an artifact`);
  }
  if (!fs.statSync(realParent).isDirectory()) refuse("invalid_projection_output", outputPath, `is not in a directory (${parent} is a file)`);
  let file = path.join(realParent, path.basename(absolute));
  const lstat = fs.lstatSync(file, { throwIfNoEntry: false });
  if (lstat?.isSymbolicLink()) {
    try {
      file = fs.realpathSync(file);
    } catch {
      refuse("invalid_projection_output", outputPath, "is a symbolic link to a missing file; name the artifact itself");
    }
  }
  const stat = fs.statSync(file, { throwIfNoEntry: false });
  if (stat?.isDirectory()) refuse("invalid_option", outputPath, `is a directory; expected a file path such as <root>/projections/<session>${projectionArtifactSuffix}`);
  let logReal: string | undefined;
  try {
    logReal = fs.realpathSync(logPath);
  } catch {
    logReal = undefined;
  }
  for (const guarded of protectedFiles(logPath, options.roots ?? [])) {
    const sameInode = stat !== undefined && stat.dev === guarded.dev && stat.ino === guarded.ino;
    if (guarded.real === file || sameInode) {
      const alias = guarded.real === file && file === absolute ? "is" : `is an alias of`;
      throw inputError("protected_file", `\`${field}\` ${quoted(outputPath)} ${alias} ${describeProtected(guarded, logReal)}`, {
        field,
        expected,
        hint: "name a new *.compaction.json file, e.g. under <root>/projections/",
      });
    }
  }
  if (badSuffix) refuseSuffix();
  // Every protected file name fails the suffix rule, so a resolved target outside the suffix is an alias of something else.
  if (!path.basename(file).endsWith(projectionArtifactSuffix)) {
    refuse("protected_file", outputPath, `is a symbolic link to ${file}, which is not a *${projectionArtifactSuffix} artifact`);
  }
  if (stat === undefined) return { file, existing: undefined, forcedOverExisting: false };
  if (!stat.isFile()) refuse("invalid_projection_output", outputPath, "exists and is not a regular file");
  let existing: CompactionProjection | undefined;
  try {
    existing = loadProjectionArtifact(file);
  } catch {
    existing = undefined;
  }
  if (existing === undefined) {
    if (options.force === true) return { file, existing: undefined, forcedOverExisting: true };
    refuse("projection_output_exists", outputPath, "exists and is not a compaction artifact; nothing was written", "pass --force to replace it");
  }
  return { file, existing, forcedOverExisting: false };
}

/**
 * Whether an existing artifact was built from this log: it has records and each record's event
 * ref names an event of `events` with that seq and hash (a log only grows, so a projection of an
 * earlier state still matches). An artifact of another log needs `force`.
 */
export function isArtifactOfLog(artifact: CompactionProjection, events: readonly EventRecord[]): boolean {
  if (artifact.records.length === 0 || artifact.source_event_count > events.length) return false;
  return artifact.records.every((record) => {
    const event = events[record.event_seq - 1];
    return event !== undefined && event.seq === record.event_seq && citationUri(event.thread, event.seq, event.hash) === record.event_ref;
  });
}

/** Refuses to replace an artifact of another log unless `force` (called once the log's events are read). */
export function checkReplacedArtifact(target: ProjectionOutputTarget, outputPath: string, events: readonly EventRecord[], force: boolean): void {
  if (target.existing === undefined || force || isArtifactOfLog(target.existing, events)) return;
  refuse("projection_output_exists", outputPath, "is a compaction artifact of another log; nothing was written", "pass --force to replace it");
}
