/**
 * Where each event's line lies in the log, so an event is read by position without reading the
 * events before it: byte start and end (exclusive, before the newline) of every non-blank line
 * up to the read model's head. The log prefix these spans cover is the verified one (its
 * SHA-256 is checked before the read model is used), so the bytes read are the verified bytes.
 *
 *   header "ZXEVTS01" | count u32 | 0 u32 | spans f64[2 · count]
 */
import * as fs from "node:fs";
import { isBlankLine } from "../eventloom/blank.ts";
import { f64Bytes, fileHeader } from "../platform/binaryFile.ts";

export const eventSpansMagic = "ZXEVTS01";

const scanChunkBytes = 1 << 20;

/** The spans of the first `count` events of the log (its first `logBytes` bytes). */
export function scanEventSpans(logPath: string, logBytes: number, count: number): Float64Array {
  const spans = new Float64Array(2 * count);
  const fd = fs.openSync(logPath, "r");
  try {
    let found = 0;
    // `buffer[0, held)` holds the log's bytes from `lineStart`: a line carried over from the last
    // read, then this read. One buffer, reused (grown only for a line longer than it): a buffer
    // per read was ~1 MB of garbage per MB of log.
    let buffer = Buffer.allocUnsafe(scanChunkBytes);
    let held = 0;
    let lineStart = 0;
    let offset = 0;
    const take = (start: number, end: number) => {
      if (found < count && !isBlankLine(buffer, start - lineStart, end - lineStart)) {
        spans[2 * found] = start;
        spans[2 * found + 1] = end;
        found++;
      }
    };
    while (offset < logBytes && found < count) {
      if (held === buffer.length) {
        const bigger = Buffer.allocUnsafe(2 * buffer.length);
        buffer.copy(bigger, 0, 0, held);
        buffer = bigger;
      }
      const read = fs.readSync(fd, buffer, held, Math.min(buffer.length - held, logBytes - offset), offset);
      if (read === 0) break;
      const end = held + read;
      const bytes = buffer.subarray(0, end);
      let at = 0;
      for (;;) {
        const nl = bytes.indexOf(0x0a, at);
        if (nl < 0) break;
        take(lineStart + at, lineStart + nl);
        at = nl + 1;
      }
      buffer.copyWithin(0, at, end);
      held = end - at;
      lineStart += at;
      offset += read;
    }
    if (found < count && held > 0) take(lineStart, lineStart + held);
    if (found !== count) throw new Error(`the log "${logPath}" holds ${found} events in its first ${logBytes} bytes, ${count} were expected`);
  } finally {
    fs.closeSync(fd);
  }
  return spans;
}

export function eventSpansChunks(spans: Float64Array): Buffer[] {
  const counts = Buffer.alloc(8);
  counts.writeUInt32LE(spans.length / 2, 0);
  return [fileHeader(eventSpansMagic), counts, f64Bytes(spans)];
}
