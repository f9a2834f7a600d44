/**
 * Opening a path the user named where a regular file is expected (a log, a payload file, an
 * ingest file). Opening a FIFO for reading blocks until a writer appears, and a character device
 * such as /dev/zero never ends, so the path is opened with O_NONBLOCK (which regular files
 * ignore) and its type is checked on the open descriptor before a single byte is read. Checking
 * the descriptor rather than a stat of the path leaves no window in which the path can be
 * swapped for a special file.
 */
import * as fs from "node:fs";

/** What a path is, in the words an error message uses. */
export function fileKind(stat: fs.Stats): string {
  if (stat.isFile()) return "regular file";
  if (stat.isDirectory()) return "directory";
  if (stat.isFIFO()) return "FIFO";
  if (stat.isCharacterDevice()) return "character device";
  if (stat.isBlockDevice()) return "block device";
  if (stat.isSocket()) return "socket";
  return "special file";
}

export type RegularFileOpening =
  | { ok: true; fd: number; sizeBytes: number }
  | { ok: false; reason: string };

/**
 * Opens `path` read-only if it is a regular file (following symlinks); otherwise says why not,
 * as a phrase for "Cannot <action> <path>: <reason>". The caller closes `fd`.
 *
 * @example
 * const opened = openRegularFile("/dev/zero");
 * opened.ok ? fs.closeSync(opened.fd) : opened.reason; // "it is not a regular file (character device)"
 */
export function openRegularFile(path: string): RegularFileOpening {
  let fd: number;
  try {
    fd = fs.openSync(path, fs.constants.O_RDONLY | fs.constants.O_NONBLOCK);
  } catch (error) {
    return { ok: false, reason: openFailureReason(error) };
  }
  let stat: fs.Stats;
  try {
    stat = fs.fstatSync(fd);
  } catch (error) {
    fs.closeSync(fd);
    return { ok: false, reason: (error as Error).message };
  }
  if (!stat.isFile()) {
    fs.closeSync(fd);
    return { ok: false, reason: stat.isDirectory() ? "it is a directory" : `it is not a regular file (${fileKind(stat)})` };
  }
  return { ok: true, fd, sizeBytes: stat.size };
}

/**
 * Refuses a path that is not a regular file without reading from it; the reason, as
 * `openRegularFile` gives it, or undefined when the path is a readable regular file.
 */
export function regularFileProblem(path: string): string | undefined {
  const opened = openRegularFile(path);
  if (!opened.ok) return opened.reason;
  fs.closeSync(opened.fd);
  return undefined;
}

function openFailureReason(error: unknown): string {
  switch ((error as { code?: string }).code) {
    case "ENOENT":
      return "no such file";
    case "EISDIR":
      return "it is a directory";
    case "EACCES":
    case "EPERM":
      return "permission denied";
    case "ENXIO":
      // A socket, or a FIFO opened for writing without a reader.
      return "it is not a regular file (socket)";
    default:
      return (error as Error).message;
  }
}
