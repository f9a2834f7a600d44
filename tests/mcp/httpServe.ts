/**
 * A real `zaxy serve --http` on a free loopback port for tests: spawned with the test kit's
 * command (source, dist/zaxy or ZAXY_TEST_BIN), ready once its first stdout line names its URL.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { childEnv, zaxyInvocation } from "../cli/zaxy.ts";

export interface ServedHttp {
  url: string;
  port: number;
  root: string;
  child: ChildProcess;
  stderr: () => string;
  /** Resolves when the process has exited. */
  closed: Promise<void>;
  /** Sends `signal` (SIGTERM unless given) and waits for the exit. */
  stop: (signal?: NodeJS.Signals) => Promise<void>;
}

/** Starts `zaxy serve --http 127.0.0.1:0 --json --profile full --eventloom-path ROOT ...args`. */
export async function serveHttp(root: string, args: string[] = []): Promise<ServedHttp> {
  const child = spawn(zaxyInvocation.command, [...zaxyInvocation.args, "serve", "--http", "127.0.0.1:0", "--json", "--profile", "full", "--eventloom-path", root, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: childEnv(),
  });
  let stdout = "";
  let stderr = "";
  child.stderr!.on("data", (chunk) => void (stderr += chunk));
  const closed = new Promise<void>((resolve) => child.once("close", () => resolve()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on("data", (chunk) => {
      stdout += chunk;
      if (!stdout.includes("\n")) return;
      const first = JSON.parse(stdout.split("\n")[0]);
      if (first.url === undefined) reject(new Error(`zaxy serve ${args.join(" ")} did not start: ${JSON.stringify(first.error ?? first)}`));
      else resolve(first.url);
    });
    child.once("exit", (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
  });
  const port = Number(new URL(url).port);
  return { url, port, root, child, stderr: () => stderr, closed, stop: async (signal = "SIGTERM") => void (child.kill(signal), await closed) };
}
