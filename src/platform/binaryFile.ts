/**
 * The read model's binary files (docs/read-model.md): a 16-byte header (8-byte ASCII magic that
 * names the kind and version, then two reserved u32) followed by little-endian sections. Readers
 * open a file once and read small ranges at known offsets, so a query touches only the pages it
 * needs; nothing is parsed up front. Files whose pieces are read one by one (BM25 segments, the
 * semantic vector store) check each piece against its CRC-32, also here.
 */
import * as fs from "node:fs";
import { ReadModelCorruptError } from "./readModelError.ts";
import * as zlib from "node:zlib";

export const headerBytes = 16;

const littleEndianHost = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

export function fileHeader(magic: string): Buffer {
  const header = Buffer.alloc(headerBytes);
  header.write(magic, 0, 8, "latin1");
  return header;
}

export function u32Bytes(values: ArrayLike<number>): Buffer {
  // A typed array's bytes are already the file's on a little-endian host: one copy, no per-value call.
  if (littleEndianHost && values instanceof Uint32Array) return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const out = Buffer.allocUnsafe(values.length * 4);
  for (let i = 0; i < values.length; i++) out.writeUInt32LE(values[i], i * 4);
  return out;
}

export function f64Bytes(values: ArrayLike<number>): Buffer {
  if (littleEndianHost && values instanceof Float64Array) return Buffer.from(values.buffer, values.byteOffset, values.byteLength);
  const out = Buffer.allocUnsafe(values.length * 8);
  for (let i = 0; i < values.length; i++) out.writeDoubleLE(values[i], i * 8);
  return out;
}

/** Positional reads of one read-model file, checked against its magic and expected size. */
export class BinaryFile {
  private constructor(readonly file: string, private fd: number, readonly size: number) {}

  static open(file: string, magic: string, expectedBytes: number): BinaryFile {
    let fd: number;
    try {
      fd = fs.openSync(file, "r");
    } catch (error) {
      throw new ReadModelCorruptError(file, `cannot be opened (${(error as NodeJS.ErrnoException).code ?? String(error)})`);
    }
    const size = fs.fstatSync(fd).size;
    const reader = new BinaryFile(file, fd, size);
    if (size !== expectedBytes) {
      reader.close();
      throw new ReadModelCorruptError(file, `has ${size} bytes, the manifest records ${expectedBytes}`);
    }
    if (size < headerBytes || reader.bytes(0, 8).toString("latin1") !== magic) {
      reader.close();
      throw new ReadModelCorruptError(file, `is not a ${magic} file`);
    }
    return reader;
  }

  get descriptor(): number {
    return this.fd;
  }

  /** `length` bytes at `offset`; a range outside the file is corruption, never a short answer. */
  bytes(offset: number, length: number): Buffer {
    this.checkRange(offset, length);
    const out = Buffer.allocUnsafe(length);
    this.readInto(out, offset);
    return out;
  }

  /** Checked before anything is allocated: a damaged count must not ask for gigabytes. */
  private checkRange(offset: number, length: number): void {
    if (!(offset >= 0 && length >= 0 && offset + length <= this.size)) throw new ReadModelCorruptError(this.file, `has no bytes ${offset}..${offset + length}`);
  }

  /** Fills `target` from `offset` (a range already checked). */
  private readInto(target: Uint8Array, offset: number): void {
    const length = target.byteLength;
    let done = 0;
    while (done < length) {
      const read = fs.readSync(this.fd, target, done, length - done, offset + done);
      if (read === 0) throw new ReadModelCorruptError(this.file, `ended before byte ${offset + length}`);
      done += read;
    }
  }

  u32(offset: number): number {
    return this.bytes(offset, 4).readUInt32LE(0);
  }

  u32Array(offset: number, count: number): Uint32Array {
    // On little-endian hosts the file's bytes are the array's: read them straight into its own
    // (aligned) memory. A copy would touch every page twice, which at a million events costs more
    // than the read.
    this.checkRange(offset, count * 4);
    if (littleEndianHost) {
      const out = new Uint32Array(count);
      this.readInto(new Uint8Array(out.buffer), offset);
      return out;
    }
    const bytes = this.bytes(offset, count * 4);
    const out = new Uint32Array(count);
    for (let i = 0; i < count; i++) out[i] = bytes.readUInt32LE(i * 4);
    return out;
  }

  f64Array(offset: number, count: number): Float64Array {
    this.checkRange(offset, count * 8);
    if (littleEndianHost) {
      const out = new Float64Array(count);
      this.readInto(new Uint8Array(out.buffer), offset);
      return out;
    }
    const bytes = this.bytes(offset, count * 8);
    const out = new Float64Array(count);
    for (let i = 0; i < count; i++) out[i] = bytes.readDoubleLE(i * 8);
    return out;
  }

  /** Throws unless `condition`: the file's own numbers must agree with each other. */
  check(condition: boolean, reason: string): void {
    if (!condition) throw new ReadModelCorruptError(this.file, reason);
  }

  close(): void {
    if (this.fd >= 0) fs.closeSync(this.fd);
    this.fd = -1;
  }
}

/**
 * One section of a read-model file (a u32 or f64 column, or a byte heap), read range by range at
 * first and whole once those reads have cost about what one whole read would: one system call
 * per 8 KiB of the section, and at least 16. A cold checkout of a million-event model then reads
 * kilobytes instead of the tens of megabytes its tables hold, and a server that has answered
 * many queries reads none, so neither pays more than twice the cheaper of the two.
 */
export class FileSection<T extends { subarray(from: number, to: number): T; readonly length: number }> {
  private whole?: T;
  private rangeReads = 0;
  private readonly rangeReadsMax: number;

  constructor(
    private readonly file: BinaryFile,
    private readonly at: number,
    readonly count: number,
    private readonly widthBytes: number,
    private readonly read: (offset: number, count: number) => T,
  ) {
    this.rangeReadsMax = Math.max(16, Math.ceil((count * widthBytes) / 8192));
  }

  /** Values [from, to) of the section; a range outside it is corruption. */
  range(from: number, to: number): T {
    if (!(Number.isInteger(from) && Number.isInteger(to) && from >= 0 && from <= to && to <= this.count)) {
      throw new ReadModelCorruptError(this.file.file, `has no values ${from}..${to} in a section of ${this.count}`);
    }
    if (this.whole === undefined && ++this.rangeReads > this.rangeReadsMax) this.whole = this.read(this.at, this.count);
    return this.whole !== undefined ? this.whole.subarray(from, to) : this.read(this.at + from * this.widthBytes, to - from);
  }
}

export function u32Section(file: BinaryFile, at: number, count: number): FileSection<Uint32Array> {
  return new FileSection(file, at, count, 4, (offset, n) => file.u32Array(offset, n));
}

export function f64Section(file: BinaryFile, at: number, count: number): FileSection<Float64Array> {
  return new FileSection(file, at, count, 8, (offset, n) => file.f64Array(offset, n));
}

export function byteSection(file: BinaryFile, at: number, length: number): FileSection<Buffer> {
  return new FileSection(file, at, length, 1, (offset, n) => file.bytes(offset, n));
}

// ---------------------------------------------------------------------------
/*
 * CRC-32 (IEEE 802.3, the zlib/PNG polynomial 0xEDB88320), used by the read-model files to
 * check each piece they read (a header, a dictionary entry, a posting list) without hashing the
 * whole file. Chained like zlib: `crc32(b, crc32(a)) === crc32(a ‖ b)`. Bun, Deno and Node 22.2+
 * have zlib's native `crc32` (70x faster than a table loop on a cold process, which matters
 * because a CLI query checks every posting list it reads); the table loop is the fallback.
 */
type Crc32 = (bytes: Uint8Array, previous?: number) => number;

// Typed as always there (@types/node), but absent before Node 22.2 and in older Bun and Deno.
const nativeCrc32: Crc32 | undefined = zlib.crc32;

let table: Int32Array | undefined;

function tableCrc32(bytes: Uint8Array, previous = 0): number {
  if (table === undefined) {
    table = new Int32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      table[n] = c;
    }
  }
  let c = ~previous;
  for (let i = 0; i < bytes.length; i++) c = table[(c ^ bytes[i]) & 0xff] ^ (c >>> 8);
  return ~c >>> 0;
}

const crc32Of: Crc32 = nativeCrc32 ?? tableCrc32;

/**
 * The CRC-32 of `bytes[start, end)`, continuing `previous` (the CRC of the bytes before them).
 *
 * @example
 * crc32(new TextEncoder().encode("123456789")) // 0xcbf43926
 */
export function crc32(bytes: Uint8Array, previous = 0, start = 0, end = bytes.length): number {
  return crc32Of(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end), previous) >>> 0;
}

/** The table implementation, exported so a test can check the native one against it. */
export const crc32Table: Crc32 = tableCrc32;
