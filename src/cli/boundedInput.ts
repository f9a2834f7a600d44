/**
 * Reading user input (stdin, a payload file, an ingest file) without trusting its size: bytes
 * are collected until the input ends or a bound is crossed, and reading stops right there.
 * `cat /dev/zero | zaxy memory ingest -` therefore costs at most the bound plus one chunk of
 * memory, never gigabytes, and is refused with exit 2 naming the bound.
 */
import { inputError } from "../errors.ts";

export interface InputBounds {
  /** The input is refused once it is longer than this. */
  maxBytes: number;
  /** Why the bound exists, ending the message: "a payload is at most 1 MiB as compact JSON". */
  why: string;
  /** JSONL input: refused as soon as one line is longer than this (an event line could not hold it). */
  lineBytesMax?: number;
}

type Overflow = { kind: "bytes" } | { kind: "line"; line: number };

/** Collects input chunks within `InputBounds`. */
export class BoundedInput {
  private readonly bounds: InputBounds;
  private chunks: Uint8Array[] = [];
  private totalBytes = 0;
  /** Bytes of the current (unterminated) line so far, and its 1-based number. */
  private lineBytes = 0;
  private line = 1;
  private overflow: Overflow | null = null;

  constructor(bounds: InputBounds) {
    this.bounds = bounds;
  }

  /** Adds a chunk; false once a bound is crossed, when the caller must stop reading. */
  push(chunk: Uint8Array): boolean {
    if (this.overflow !== null) return false;
    const kept = chunk.subarray(0, Math.min(chunk.length, this.bounds.maxBytes + 1 - this.totalBytes));
    if (this.bounds.lineBytesMax !== undefined && this.lineTooLong(kept, this.bounds.lineBytesMax)) {
      this.overflow = { kind: "line", line: this.line };
    } else if (this.totalBytes + kept.length > this.bounds.maxBytes) {
      this.overflow = { kind: "bytes" };
    }
    if (this.overflow !== null) {
      // The input is refused whatever follows: free what was kept.
      this.chunks = [];
      return false;
    }
    this.chunks.push(kept);
    this.totalBytes += kept.length;
    return true;
  }

  /** Refuses the input without reading it (its size is known to cross the bound). */
  refuseAsTooLong(): void {
    this.overflow = { kind: "bytes" };
    this.chunks = [];
  }

  /** Whether a bound was crossed: reading should stop. */
  get refused(): boolean {
    return this.overflow !== null;
  }

  private lineTooLong(chunk: Uint8Array, lineBytesMax: number): boolean {
    let start = 0;
    for (;;) {
      const newline = chunk.indexOf(0x0a, start);
      const end = newline < 0 ? chunk.length : newline;
      this.lineBytes += end - start;
      if (this.lineBytes > lineBytesMax) return true;
      if (newline < 0) return false;
      this.lineBytes = 0;
      this.line++;
      start = newline + 1;
    }
  }

  /** Everything read, or the `input_too_large` error (exit 2) naming `label` and the bound. */
  bytes(label: string, field: string): Uint8Array {
    const overflow = this.overflow;
    if (overflow?.kind === "line") {
      const max = this.bounds.lineBytesMax as number;
      throw inputError("input_too_large", `Cannot read ${label}: line ${overflow.line} is longer than ${max} bytes (${mebibytes(max)}), more than any event line may take. Nothing was written.`, {
        field,
        line: overflow.line,
      });
    }
    if (overflow?.kind === "bytes") {
      const max = this.bounds.maxBytes;
      throw inputError("input_too_large", `Cannot read ${label}: it is longer than ${max} bytes (${mebibytes(max)}); ${this.bounds.why}. Nothing was written.`, { field });
    }
    if (this.chunks.length === 1) return this.chunks[0];
    const out = new Uint8Array(this.totalBytes);
    let at = 0;
    for (const chunk of this.chunks) {
      out.set(chunk, at);
      at += chunk.length;
    }
    return out;
  }
}

function mebibytes(bytes: number): string {
  const mib = bytes / (1024 * 1024);
  return Number.isInteger(mib) ? `${mib} MiB` : `${mib.toFixed(1)} MiB`;
}
