/**
 * The stdio transport of `zaxy serve`: newline-delimited JSON-RPC on a readable and a writable
 * stream, implementing the MCP SDK's `Transport`. It replaces the SDK's `StdioServerTransport`,
 * which drops a line it cannot parse (no reply, against JSON-RPC 2.0) and closes the connection
 * when a line outgrows its buffer.
 *
 * Every line is read by `readJsonRpcLine`: a message goes to the SDK, a malformed one is
 * answered here with its JSON-RPC error (and a one-line diagnostic through `onerror`). A line
 * longer than `messageBytesMax` is answered -32600 as soon as it crosses the bound and skipped up
 * to its newline, never buffered whole. Nothing a client sends closes the connection; only the
 * end of the input does. A last line without its "\n" is still read when the input ends.
 *
 * @example
 * const transport = new StdioLineTransport(process.stdin, process.stdout, { messageBytesMax: mcpMessageBytesMax });
 * transport.onend = () => void shutdown();
 * await server.connect(transport);
 */
import type { Readable, Writable } from "node:stream";
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { ErrorCode, type JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";
import { errorReply, readJsonRpcLine } from "./jsonRpcLine.ts";

export interface LineTransportOptions {
  /** Longest line read; a longer one is answered -32600 and skipped. */
  messageBytesMax: number;
}

const newline = 0x0a;
const carriageReturn = 0x0d;

export class StdioLineTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Called once when the input has ended (or closed) and every line of it was read. */
  onend?: () => void;

  readonly #input: Readable;
  readonly #output: Writable;
  readonly #messageBytesMax: number;
  /** Pieces of the line being read (it has no "\n" yet). */
  #pending: Uint8Array[] = [];
  #pendingBytes = 0;
  /** The line being read outgrew the bound and was answered; drop bytes up to its "\n". */
  #skipping = false;
  #started = false;
  #ended = false;
  #closed = false;

  constructor(input: Readable, output: Writable, options: LineTransportOptions) {
    this.#input = input;
    this.#output = output;
    this.#messageBytesMax = options.messageBytesMax;
  }

  start(): Promise<void> {
    if (this.#started) throw new Error("StdioLineTransport already started");
    this.#started = true;
    this.#input.on("data", this.#onData);
    this.#input.on("end", this.#onEnd);
    this.#input.on("close", this.#onEnd);
    this.#input.on("error", this.#onError);
    return Promise.resolve();
  }

  send(message: JSONRPCMessage): Promise<void> {
    return this.#write(message);
  }

  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    this.#closed = true;
    this.#input.off("data", this.#onData);
    this.#input.off("end", this.#onEnd);
    this.#input.off("close", this.#onEnd);
    this.#input.off("error", this.#onError);
    this.#input.pause();
    this.#pending = [];
    this.#pendingBytes = 0;
    this.onclose?.();
    return Promise.resolve();
  }

  #write(message: unknown): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(JSON.stringify(message) + "\n")) resolve();
      else this.#output.once("drain", resolve);
    });
  }

  readonly #onData = (chunk: Buffer): void => {
    let start = 0;
    while (start < chunk.length) {
      const end = chunk.indexOf(newline, start);
      this.#take(chunk.subarray(start, end === -1 ? chunk.length : end));
      if (end === -1) return;
      this.#finishLine();
      start = end + 1;
    }
  };

  readonly #onEnd = (): void => {
    if (this.#ended) return;
    this.#ended = true;
    if (this.#pendingBytes > 0) this.#finishLine();
    this.#skipping = false;
    this.onend?.();
  };

  readonly #onError = (error: Error): void => {
    this.onerror?.(error);
  };

  #take(part: Uint8Array): void {
    if (this.#skipping || part.length === 0) return;
    if (this.#pendingBytes + part.length > this.#messageBytesMax) {
      this.#pending = [];
      this.#pendingBytes = 0;
      this.#skipping = true;
      const message = `Invalid Request: the message is longer than ${this.#messageBytesMax} bytes; it was skipped`;
      this.#answer(errorReply(null, ErrorCode.InvalidRequest, message), `answered ${ErrorCode.InvalidRequest} (id null): ${message}`);
      return;
    }
    // A copy (Buffer#slice would share memory): a short piece must not pin its whole chunk.
    this.#pending.push(new Uint8Array(part));
    this.#pendingBytes += part.length;
  }

  #finishLine(): void {
    if (this.#skipping) {
      this.#skipping = false;
      return;
    }
    let line = this.#pending.length === 1 ? this.#pending[0] : concat(this.#pending, this.#pendingBytes);
    this.#pending = [];
    this.#pendingBytes = 0;
    if (line.length > 0 && line[line.length - 1] === carriageReturn) line = line.subarray(0, line.length - 1);
    const outcome = readJsonRpcLine(line);
    if (outcome.kind === "message") this.onmessage?.(outcome.message);
    else if (outcome.kind === "reply") this.#answer(outcome.reply, outcome.diagnostic);
    else if (outcome.diagnostic !== undefined) this.onerror?.(new Error(outcome.diagnostic));
  }

  #answer(reply: unknown, diagnostic: string): void {
    this.onerror?.(new Error(diagnostic));
    this.#write(reply).catch((error) => this.onerror?.(error instanceof Error ? error : new Error(String(error))));
  }
}

function concat(parts: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
