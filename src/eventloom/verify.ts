/**
 * Streaming chain verification (DESIGN §2.4). The log is read in chunks straight into the
 * WebAssembly kernel's memory; the kernel parses each line and writes its hash preimage, the
 * host hashes preimages with native SHA-256, and memory stays bounded whatever the log size.
 *
 * Verdicts and messages match `python3 shared/tools/ref_verify.py` (first failure wins):
 *   legacy: seq, then seal, then first prev_hash, then the link;  v1: seal, then the link.
 */
import * as fs from "node:fs";
import { CanonicalKernel, kernelErrors, recordBytes } from "../canonical/wasmKernel.ts";
import { JsonNumber, parseJsonBytes, pythonFloatRepr, type JsonValue } from "../canonical/mod.ts";
import { inputError, ioError } from "../errors.ts";
import { lineBytesMax, lockWaitMs, verifyChunkBytes } from "../limits.ts";
import { lockFile, sha256Into } from "../platform/mod.ts";

export type IntegrityCode =
  | "sequence_mismatch"
  | "hash_mismatch"
  | "first_prev_hash_set"
  | "prev_hash_mismatch"
  | "invalid_json"
  | "torn_tail";

export interface IntegrityIssue {
  code: IntegrityCode;
  seq: number;
  /** Physical 1-based line number in the file. */
  line: number;
  reason: string;
}

export interface IntegrityReport {
  ok: boolean;
  total_events: number;
  broken_at_seq: number | null;
  broken_reason: string | null;
  /** Fixed code of the first failure, null when ok. */
  code: IntegrityCode | null;
  /** Line of the first failure, null when ok. */
  line: number | null;
  /** True when the last line was cut mid-write (no newline, not valid JSON). */
  torn_tail: boolean;
  /** Every failure (only with `allErrors`; otherwise just the first). */
  errors: IntegrityIssue[];
  bytes: number;
}

export interface VerifyOptions {
  /** Keep going after the first failure and list every one. */
  allErrors?: boolean;
  /** Called after each chunk with bytes processed so far and the file size. */
  onProgress?: (bytesDone: number, bytesTotal: number) => void;
  /** Take a shared flock while reading (default true), so a concurrent append is never half-seen. */
  lock?: boolean;
  chunkBytes?: number;
}

/** Python's repr of a JSON value, as ref_verify prints a found seq. */
function pythonRepr(value: JsonValue | undefined): string {
  if (value === undefined || value === null) return "None";
  if (value === true) return "True";
  if (value === false) return "False";
  if (value instanceof JsonNumber) return value.isFloat ? pythonFloatRepr(value.lexeme) : value.lexeme === "-0" ? "0" : value.lexeme;
  if (typeof value === "string") return value.includes("'") && !value.includes('"') ? `"${value}"` : `'${value.replace(/'/g, "\\'")}'`;
  return Array.isArray(value) ? "[...]" : "{...}";
}

function foundSeq(lineBytes: Uint8Array): string {
  try {
    const parsed = parseJsonBytes(lineBytes);
    return pythonRepr(parsed instanceof Map ? parsed.get("seq") : undefined);
  } catch {
    return "None";
  }
}

const invalidLineReasons: Record<number, string> = {
  [kernelErrors.syntax]: "is not valid JSON",
  [kernelErrors.utf8]: "is not valid JSON (invalid UTF-8)",
  [kernelErrors.depth]: "is not valid JSON (nested deeper than 1000 levels)",
  [kernelErrors.notObject]: "is not valid JSON (not an event object)",
};

/**
 * Verifies the hash chain of one log file.
 *
 * @example
 * const report = await verifyLog(".eventloom/default.jsonl");
 * if (!report.ok) console.error(report.broken_reason); // "Event 3 hash mismatch"
 */
export async function verifyLog(path: string, options: VerifyOptions = {}): Promise<IntegrityReport> {
  let size: number;
  try {
    size = fs.statSync(path).size;
  } catch (error) {
    throw inputError("unreadable_log", `Cannot verify ${path}: ${(error as Error).message}`, { field: "LOG" });
  }
  let lock: { release(): void } | undefined;
  if (options.lock !== false) {
    try {
      lock = await lockFile(path, "shared", lockWaitMs);
    } catch (error) {
      throw ioError("lock_failed", `Cannot verify ${path}: ${(error as Error).message}`);
    }
  }
  let fd: number;
  try {
    fd = fs.openSync(path, "r");
  } catch (error) {
    lock?.release();
    throw inputError("unreadable_log", `Cannot verify ${path}: ${(error as Error).message}`, { field: "LOG" });
  }
  try {
    return scan(fd, size, options);
  } catch (error) {
    if (error instanceof Error && "code" in error && (error as { code: unknown }).code === "EISDIR") {
      throw inputError("unreadable_log", `Cannot verify ${path}: it is a directory`, { field: "LOG" });
    }
    throw error;
  } finally {
    fs.closeSync(fd);
    lock?.release();
  }
}

function scan(fd: number, size: number, options: VerifyOptions): IntegrityReport {
  const chunkBytes = options.chunkBytes ?? verifyChunkBytes;
  const kernel = new CanonicalKernel(chunkBytes, 2 * chunkBytes + 65536, 16384, 1 << 18);
  const report: IntegrityReport = {
    ok: true,
    total_events: 0,
    broken_at_seq: null,
    broken_reason: null,
    code: null,
    line: null,
    torn_tail: false,
    errors: [],
    bytes: size,
  };
  const digest = new Uint8Array(32);
  let pending = 0;
  let eof = false;
  let bytesDone = 0;
  let stop = false;

  const fail = (issue: IntegrityIssue): void => {
    if (report.ok) {
      report.ok = false;
      report.broken_at_seq = issue.seq;
      report.broken_reason = issue.reason;
      report.code = issue.code;
      report.line = issue.line;
    }
    report.errors.push(issue);
    if (!options.allErrors) stop = true;
  };

  while (!stop) {
    if (!eof) {
      let space = kernel.layout.inputCap - pending;
      if (space === 0) {
        // One line longer than the buffer: grow, up to the line limit.
        if (kernel.layout.inputCap >= lineBytesMax) {
          fail({
            code: "invalid_json",
            seq: report.total_events + 1,
            line: 0,
            reason: `a line is longer than ${lineBytesMax} bytes`,
          });
          break;
        }
        kernel.ensureInput(Math.min(kernel.layout.inputCap * 2, lineBytesMax), pending);
        if (kernel.layout.outCap < 2 * kernel.layout.inputCap) {
          kernel.relayout({ ...kernel.layout, outCap: 2 * kernel.layout.inputCap + 65536 }, pending);
        }
        space = kernel.layout.inputCap - pending;
      }
      const read = fs.readSync(fd, kernel.memory, kernel.layout.inputPtr + pending, space, null);
      if (read === 0) eof = true;
      pending += read;
    }
    let offset = 0;
    for (;;) {
      const { inputPtr, outPtr, outCap, recPtr, recCap } = kernel.layout;
      const count = kernel.exports.verifyChunk(inputPtr + offset, pending - offset, eof ? 1 : 0, outPtr, outCap, recPtr, recCap);
      if (count === kernelErrors.tapeFull || count === kernelErrors.outFull) {
        kernel.grow(count, pending);
        continue;
      }
      const memory = kernel.memory;
      const ints = new Int32Array(memory.buffer, recPtr, (count * recordBytes) >> 2);
      for (let r = 0; r < count && !stop; r++) {
        const base = (r * recordBytes) >> 2;
        const kind = ints[base];
        const line = ints[base + 1];
        const seq = ints[base + 2];
        report.total_events = seq;
        if (kind < 0) {
          const terminated = ints[base + 12] === 1;
          const torn = !terminated && eof;
          if (torn) report.torn_tail = true;
          fail({
            code: torn ? "torn_tail" : "invalid_json",
            seq,
            line,
            reason: torn
              ? `line ${line} is not valid JSON (torn tail: the last line was cut mid-write)`
              : `line ${line} ${invalidLineReasons[kind] ?? "is not valid JSON"}`,
          });
          continue;
        }
        const preStart = outPtr + ints[base + 5];
        const preEnd = outPtr + ints[base + 6];
        const seqOk = ints[base + 7] === 1;
        const hashValid = ints[base + 8] === 1;
        const firstPrevOk = ints[base + 9] === 1;
        const linkOk = ints[base + 10] === 1;
        if (!seqOk) {
          const lineStart = inputPtr + offset + ints[base + 3];
          const lineEnd = inputPtr + offset + ints[base + 4];
          fail({
            code: "sequence_mismatch",
            seq,
            line,
            reason: `Event sequence expected ${seq} but found ${foundSeq(memory.subarray(lineStart, lineEnd))}`,
          });
          continue;
        }
        let sealOk = false;
        if (hashValid) {
          sha256Into(memory.subarray(preStart, preEnd), digest);
          const stored = recPtr + r * recordBytes + 64;
          sealOk = true;
          for (let i = 0; i < 32; i++) {
            if (digest[i] !== memory[stored + i]) {
              sealOk = false;
              break;
            }
          }
        }
        if (!sealOk) {
          fail({ code: "hash_mismatch", seq, line, reason: `Event ${seq} hash mismatch` });
          continue;
        }
        if (!firstPrevOk) {
          fail({ code: "first_prev_hash_set", seq, line, reason: "First event has prev_hash set" });
          continue;
        }
        if (!linkOk) {
          fail({ code: "prev_hash_mismatch", seq, line, reason: `Event ${seq} prev_hash does not link to previous` });
        }
      }
      const consumed = kernel.exports.consumed();
      offset += consumed;
      if (stop || offset >= pending || (count === 0 && consumed === 0)) break;
    }
    bytesDone += offset;
    options.onProgress?.(bytesDone, size);
    if (stop) break;
    if (offset > 0 && offset < pending) kernel.memory.copyWithin(kernel.layout.inputPtr, kernel.layout.inputPtr + offset, kernel.layout.inputPtr + pending);
    pending -= offset;
    if (eof && pending === 0) break;
    if (eof && offset === 0) break;
  }
  return report;
}
