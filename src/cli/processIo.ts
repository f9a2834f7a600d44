/** The real process as a `CommandIo`. A closed stdout pipe (EPIPE) exits quietly. */
import { readFileSync } from "node:fs";
import type { CommandIo } from "./command.ts";

export function processIo(): CommandIo {
  process.stdout.on?.("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(0);
  });
  return {
    stdout: (text) => {
      process.stdout.write(text);
    },
    stderr: (text) => {
      process.stderr.write(text);
    },
    readStdin: async () => {
      const chunks: Uint8Array[] = [];
      for await (const chunk of process.stdin) chunks.push(chunk as Uint8Array);
      return Buffer.concat(chunks);
    },
    stdinIsTTY: Boolean(process.stdin.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    env: process.env,
    cwd: process.cwd(),
  };
}

/** Reads all of stdin synchronously (for paths where an async read is not possible). */
export function readStdinSync(): Uint8Array {
  return readFileSync(0);
}
