/**
 * Events of a verified log read again by seq, one line each, through the spans of its lines
 * (eventSpans.ts): what a fold over a log nobody holds in memory looks up (a rule's rollback
 * target, a causal relation's source event). The lines read are parsed as the verified read
 * parsed them.
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import { type EventRecord, recordFromLine } from "../eventloom/envelope.ts";
import { scanEventSpans } from "./eventSpans.ts";

export class LogEventReader {
  private spans?: Float64Array;
  private fd?: number;

  /** The first `eventCount` events of the log at `logPath`, whose first `logBytes` bytes were verified. */
  constructor(private readonly logPath: string, private readonly logBytes: number, private readonly eventCount: number) {}

  /** The event with this seq, or undefined when the log has none (or its line is not an event). */
  event(seq: number): EventRecord | undefined {
    if (!Number.isSafeInteger(seq) || seq < 1 || seq > this.eventCount) return undefined;
    this.spans ??= scanEventSpans(this.logPath, this.logBytes, this.eventCount);
    this.fd ??= fs.openSync(this.logPath, "r");
    const start = this.spans[2 * (seq - 1)];
    const bytes = Buffer.allocUnsafe(this.spans[2 * (seq - 1) + 1] - start);
    for (let done = 0; done < bytes.length;) {
      const read = fs.readSync(this.fd, bytes, done, bytes.length - done, start + done);
      if (read === 0) return undefined;
      done += read;
    }
    let parsed;
    try {
      parsed = parseJsonBytes(bytes);
    } catch {
      return undefined;
    }
    if (!isJsonObject(parsed)) return undefined;
    const event = recordFromLine(parsed, seq);
    return event.seq === seq ? event : undefined;
  }

  close(): void {
    if (this.fd !== undefined) fs.closeSync(this.fd);
    this.fd = undefined;
    this.spans = undefined;
  }
}
