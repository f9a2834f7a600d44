/** The real process as a `CommandIo`. A closed stdout pipe (EPIPE) exits quietly. */
import * as fs from "node:fs";
import { BoundedInput } from "./boundedInput.ts";
import type { CommandIo } from "./command.ts";

const isatty = (fd: number): boolean => process.getBuiltinModule("node:tty").isatty(fd);

/**
 * Stdout. Text is written to fd 1 directly until the stream `process.stdout` is needed: creating
 * that stream loads the runtime's stream machinery, which costs about as much start-up time as
 * all the rest of `zaxy --version`. The stream is taken for flowing output (`--ndjson`), or when
 * fd 1 cannot take a write now (a non-blocking pipe that is full); from then on every write goes
 * through it, so the order of the output stays the order of the writes.
 */
/**
 * Stdout cannot take the output (`> /dev/full`, a full disk, a revoked terminal): say so in one
 * line and exit 3 (an I/O error), never with a stack trace. Anything already written stays.
 */
function stdoutFailed(error: NodeJS.ErrnoException): never {
  try {
    fs.writeSync(2, `zaxy: cannot write to stdout: ${error.message}\n`);
  } catch {
    // stderr is gone too: the exit code is all that is left to say it.
  }
  process.exit(3);
}

/** Characters of text encoded into one reused buffer (longer texts get their own). */
const scratchChars = 1 << 17;

function stdoutWriter(): { write(text: string): void; stream(): NodeJS.WriteStream } {
  let stream: NodeJS.WriteStream | undefined;
  // Streamed documents arrive in ~64 KiB pieces: one buffer for all of them, not a fresh array
  // each (typed arrays are outside the collector's heap accounting and piled up as garbage).
  // UTF-8 takes at most 3 bytes per UTF-16 code unit.
  let scratch: Uint8Array | undefined;
  const encoder = new TextEncoder();
  const takeStream = (): NodeJS.WriteStream => {
    if (stream === undefined) {
      stream = process.stdout;
      stream.on?.("error", (error: NodeJS.ErrnoException) => {
        if (error.code === "EPIPE") process.exit(0);
      });
    }
    return stream;
  };
  return {
    write(text) {
      if (stream !== undefined) {
        stream.write(text);
        return;
      }
      let bytes: Uint8Array;
      if (text.length <= scratchChars) {
        scratch ??= new Uint8Array(scratchChars * 3);
        bytes = scratch.subarray(0, encoder.encodeInto(text, scratch).written);
      } else {
        bytes = encoder.encode(text);
      }
      let offset = 0;
      try {
        while (offset < bytes.length) offset += fs.writeSync(1, bytes, offset);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "EPIPE") process.exit(0);
        if (code !== "EAGAIN") stdoutFailed(error as NodeJS.ErrnoException);
        // A copy: the stream may hold the bytes past this call, and the scratch is reused.
        takeStream().write(bytes.slice(offset));
      }
    },
    stream: takeStream,
  };
}

export function processIo(): CommandIo {
  const stdout = stdoutWriter();
  return {
    stdout: (text) => stdout.write(text),
    stdoutFlowing: (text) =>
      new Promise<void>((resolve) => {
        const stream = stdout.stream();
        if (stream.write(text)) resolve();
        else stream.once("drain", () => resolve());
      }),
    stderr: (text) => {
      process.stderr.write(text);
    },
    readStdin: async (bounds) => {
      const input = new BoundedInput(bounds);
      // Leaving the loop early destroys the stream: nothing past the bound is read.
      for await (const chunk of process.stdin) if (!input.push(chunk as Uint8Array)) break;
      return input.bytes("stdin", "stdin");
    },
    // Asked of the terminal itself: touching process.stdin, stdout or stderr creates its stream,
    // which a command that never asks should not pay for at start-up.
    get stdinIsTTY() {
      return isatty(0);
    },
    get stderrIsTTY() {
      return isatty(2);
    },
    get stdoutIsTTY() {
      return isatty(1);
    },
    env: process.env,
    cwd: process.cwd(),
  };
}
