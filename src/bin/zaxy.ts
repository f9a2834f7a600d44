/** Entry point of the compiled binary and of `bun run` / `deno run` from source. */
import * as fs from "node:fs";
import { processIo } from "../cli/processIo.ts";
import { zaxyVersion } from "../version.ts";

const argv = process.argv.slice(2);
// `zaxy --version` is what scripts and installers call to probe the binary: answer it without
// loading the command tree (the answer is the same as the command tree's, a test checks it).
const code = argv.length === 1 && argv[0] === "--version" ? printVersion() : await (await import("../cli/main.ts")).main(argv);
process.exitCode = code;
// kuzu-wasm's Emscripten runtime sets process.exitCode itself when it shuts down (at exit, after
// a command that loaded it); the command's own code must win.
process.once("exit", () => {
  process.exitCode = code;
  reportPeakRss();
});

function printVersion(): number {
  // Through the process's stdout writer: a full disk or a closed pipe is reported as for any command.
  processIo().stdout(`zaxy ${zaxyVersion}\n`);
  return 0;
}

/**
 * This process's own peak resident set. Linux's VmHWM belongs to the address space, which exec
 * replaces; getrusage's maxrss survives exec, so a child spawned by a large parent would report
 * the parent's peak. Elsewhere maxrss (kilobytes on every runtime that provides it) is all there is.
 */
function peakRssBytes(): number {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync("/proc/self/status", "utf8"));
    if (match !== null) return Number(match[1]) * 1024;
  } catch {
    // Not Linux.
  }
  return process.resourceUsage().maxRSS * 1024;
}

/**
 * Benchmarks read a fresh process's own peak resident set from `ZAXY_PEAK_RSS_FILE` (bytes, as
 * text): a parent's rusage of its children is the largest of all of them, not of this one.
 */
function reportPeakRss(): void {
  const file = process.env.ZAXY_PEAK_RSS_FILE;
  if (file === undefined || file === "") return;
  try {
    fs.writeFileSync(file, String(peakRssBytes()));
  } catch {
    // Only a benchmark asks; a run must not fail for it.
  }
}
