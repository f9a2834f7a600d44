/** The real process as a `CommandIo`. A closed stdout pipe (EPIPE) exits quietly. */
import { BoundedInput } from "./boundedInput.ts";
import type { CommandIo } from "./command.ts";

export function processIo(): CommandIo {
  process.stdout.on?.("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
  });
  return {
    stdout: (text) => {
      process.stdout.write(text);
    },
    stdoutFlowing: (text) =>
      new Promise<void>((resolve) => {
        if (process.stdout.write(text)) resolve();
        else process.stdout.once("drain", () => resolve());
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
    // Getters: touching process.stdin (or stderr) creates its stream, which a command that never
    // asks should not pay for at start-up.
    get stdinIsTTY() {
      return Boolean(process.stdin.isTTY);
    },
    get stderrIsTTY() {
      return Boolean(process.stderr.isTTY);
    },
    get stdoutIsTTY() {
      return Boolean(process.stdout.isTTY);
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

