/**
 * The read model's binary files (docs/read-model.md): a 16-byte header (8-byte ASCII magic that
 * names the kind and version, then two reserved u32) followed by little-endian sections. Readers
 * open a file once and read small ranges at known offsets, so a query touches only the pages it
 * needs; nothing is parsed up front.
 */
import * as fs from "node:fs";
import { ReadModelCorruptError } from "./readModelError.ts";

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
    if (offset < 0 || length < 0 || offset + length > this.size) throw new ReadModelCorruptError(this.file, `has no bytes ${offset}..${offset + length}`);
    const out = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < length) {
      const read = fs.readSync(this.fd, out, done, length - done, offset + done);
      if (read === 0) throw new ReadModelCorruptError(this.file, `ended before byte ${offset + length}`);
      done += read;
    }
    return out;
  }

  u32(offset: number): number {
    return this.bytes(offset, 4).readUInt32LE(0);
  }

  u32Array(offset: number, count: number): Uint32Array {
    const bytes = this.bytes(offset, count * 4);
    // A fresh buffer from `bytes` may start at any byte; copy to an aligned one on little-endian hosts.
    if (littleEndianHost) return new Uint32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 4));
    const out = new Uint32Array(count);
    for (let i = 0; i < count; i++) out[i] = bytes.readUInt32LE(i * 4);
    return out;
  }

  f64Array(offset: number, count: number): Float64Array {
    const bytes = this.bytes(offset, count * 8);
    if (littleEndianHost) return new Float64Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + count * 8));
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
