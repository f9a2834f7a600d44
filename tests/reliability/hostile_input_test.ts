// test-lane: full (kill -9, slow)
/**
 * Hostile input, part 1 (issue 12 item 12): special files where a file is expected, and endless
 * input. A FIFO, a character device (`/dev/zero`, `/dev/urandom`, `/dev/null`), a directory or a
 * socket named as a log, a payload file or an ingest file is refused with exit 2 before a byte
 * is read (opening a FIFO for reading used to block forever; `/dev/zero` was read until 4.2 GB
 * resident). Stdin is legitimately a pipe, so it is read within a bound instead: reading stops
 * one byte past it and the input is refused, so `cat /dev/zero | zaxy ...` stays small.
 *
 * Every run has its own deadline and the endless-input runs a memory watchdog that kills zaxy
 * past the bound, so a regression fails the test instead of hanging it or exhausting the machine.
 * Linux only (real FIFOs, /proc for the resident set).
 */
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, python, removeTempDirs, skipWithoutPython } from "../eventloom/testkit.ts";
import { childEnv, runZaxy, stackTraceLines, type ZaxyRun, zaxyInvocation } from "../cli/zaxy.ts";

after(removeTempDirs);

const skipOffLinux = process.platform === "linux" ? false : "real FIFOs and /proc are Linux-only here";
const mib = 1024 * 1024;

/** Far above a clean refusal (well under a second), far below the lock wait or a hang. */
const refusalDeadlineMs = 30_000;

/** Runs zaxy with a deadline: a blocked open shows up as `code: null` (killed), not a hung test. */
function runWithDeadline(args: string[], cwd: string): ZaxyRun {
  const run = spawnSync(zaxyInvocation.command, [...zaxyInvocation.args, ...args], {
    cwd,
    env: childEnv(),
    input: "",
    encoding: "utf8",
    timeout: refusalDeadlineMs,
    killSignal: "SIGKILL",
  });
  return { code: run.status, stdout: run.stdout ?? "", stderr: run.stderr ?? "" };
}

function assertRefused(run: ZaxyRun, message: RegExp, label: string): void {
  assert.notEqual(run.code, null, `${label}: still running after ${refusalDeadlineMs} ms (blocked on a special file?)`);
  assert.equal(run.code, 2, `${label}: ${run.stderr}`);
  assert.equal(run.stdout, "", label);
  assert.match(run.stderr, message, label);
  assert.deepEqual(stackTraceLines(run.stderr), [], label);
}

/** A directory with a one-event log and a FIFO `pipe` that nobody writes to. */
function sessionWithFifo(): { dir: string; log: string; fifo: string } {
  const dir = makeTempDir("hostile-input");
  const seeded = runZaxy(["memory", "append", "goal.created", "--actor", "agent", "--payload-json", '{"title":"seed"}'], { cwd: dir });
  assert.equal(seeded.code, 0, seeded.stderr);
  const fifo = path.join(dir, "pipe");
  const made = spawnSync("mkfifo", [fifo]);
  assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
  assert.ok(fs.statSync(fifo).isFIFO());
  return { dir, log: path.join(dir, ".eventloom", "default.jsonl"), fifo };
}

describe("a special file where a log is expected is refused unread (exit 2), never waited on", { skip: skipOffLinux }, () => {
  test("verify, replay and repair of a FIFO exit 2 naming it a FIFO instead of blocking until a writer appears", () => {
    const { dir, fifo } = sessionWithFifo();
    for (const args of [["verify", fifo], ["verify", fifo, "--json"], ["replay", fifo], ["repair", fifo, "--truncate-torn-tail"]]) {
      const run = runWithDeadline(args, dir);
      if (args.includes("--json")) {
        assert.equal(run.code, 2, run.stdout);
        const error = JSON.parse(run.stdout).error;
        assert.equal(error.code, "unreadable_log");
        assert.match(error.message, /^Cannot verify .*pipe: it is not a regular file \(FIFO\)$/);
        assert.equal(error.field, "LOG");
        continue;
      }
      assertRefused(run, /: it is not a regular file \(FIFO\)/, args.join(" "));
    }
  });

  test("verify and replay of /dev/zero, /dev/urandom and /dev/null exit 2 naming a character device (no '0 events, OK')", () => {
    const dir = makeTempDir("hostile-input");
    for (const device of ["/dev/zero", "/dev/urandom", "/dev/null"]) {
      assertRefused(runWithDeadline(["verify", device], dir), new RegExp(`Cannot verify ${device}: it is not a regular file \\(character device\\)`), `verify ${device}`);
      assertRefused(runWithDeadline(["replay", device], dir), new RegExp(`Cannot replay ${device}: it is not a regular file \\(character device\\)`), `replay ${device}`);
    }
  });

  test("verify of a directory and of a Unix socket exit 2 naming what they are", { skip: skipWithoutPython }, () => {
    const dir = makeTempDir("hostile-input");
    const socketPath = path.join(dir, "s.sock");
    python(`import socket; s = socket.socket(socket.AF_UNIX); s.bind(${JSON.stringify(socketPath)})`);
    assert.ok(fs.statSync(socketPath).isSocket());
    assertRefused(runWithDeadline(["verify", socketPath], dir), /Cannot verify .*s\.sock: it is not a regular file \(socket\)/, "socket");
    assertRefused(runWithDeadline(["verify", dir], dir), /Cannot verify .*: it is a directory/, "directory");
  });

  test("a log reached through a symlink to a regular file still verifies", () => {
    const { dir, log } = sessionWithFifo();
    const link = path.join(dir, "link.jsonl");
    fs.symlinkSync(log, link);
    const run = runWithDeadline(["verify", link, "--json"], dir);
    assert.equal(run.code, 0, run.stderr);
    assert.equal(JSON.parse(run.stdout).logs[0].total_events, 1);
  });
});

describe("a session log replaced by a FIFO is refused by every command that opens it, never waited on", { skip: skipOffLinux }, () => {
  test("memory log, verify, checkout, query and repair exit 2 and append fails promptly, each naming the FIFO", () => {
    const dir = makeTempDir("hostile-input");
    fs.mkdirSync(path.join(dir, ".eventloom"));
    const made = spawnSync("mkfifo", [path.join(dir, ".eventloom", "default.jsonl")]);
    assert.equal(made.status, 0, `mkfifo: ${made.stderr}`);
    for (const args of [["memory", "log"], ["verify"], ["memory", "checkout", "release"], ["memory", "query", "release"], ["repair", "--truncate-torn-tail"]]) {
      assertRefused(runWithDeadline(args, dir), /default\.jsonl: it is not a regular file \(FIFO\)/, args.join(" "));
    }
    // Opening the log to lock it used to block until a reader appeared. Which exit code an
    // unusable session log gets is the append path's call; here it must fail, promptly, saying why.
    const append = runWithDeadline(["memory", "append", "note.added", "--actor", "agent"], dir);
    assert.notEqual(append.code, null, "append blocked on the FIFO");
    assert.ok(append.code === 2 || append.code === 3, `append: ${append.code} ${append.stderr}`);
    assert.match(append.stderr, /default\.jsonl is not a regular file \(FIFO\)/);
    assert.deepEqual(stackTraceLines(append.stderr), []);
  });
});

describe("a special file where an input file is expected is refused unread (exit 2), nothing written", { skip: skipOffLinux }, () => {
  test("--payload-file of a FIFO, /dev/zero or /dev/urandom: exit 2 naming the kind, log bytes unchanged", () => {
    const { dir, log, fifo } = sessionWithFifo();
    const before = fs.readFileSync(log);
    for (const [file, kind] of [[fifo, "FIFO"], ["/dev/zero", "character device"], ["/dev/urandom", "character device"]]) {
      const run = runWithDeadline(["memory", "append", "note.added", "--actor", "agent", "--payload-file", file], dir);
      assertRefused(run, new RegExp(`Cannot read --payload-file ".*${path.basename(file)}": it is not a regular file \\(${kind}\\)`), file);
      assert.deepEqual(fs.readFileSync(log), before, `${file}: nothing written`);
    }
  });

  test("memory ingest FILE and --file of a FIFO or /dev/zero: exit 2 naming the kind, log bytes unchanged", () => {
    const { dir, log, fifo } = sessionWithFifo();
    const before = fs.readFileSync(log);
    for (const args of [["memory", "ingest", fifo], ["memory", "ingest", "--file", fifo], ["memory", "ingest", "/dev/zero"], ["memory", "ingest", "--file", "/dev/zero"]]) {
      const kind = args.includes(fifo) ? "FIFO" : "character device";
      assertRefused(runWithDeadline(args, dir), new RegExp(`Cannot read FILE ".*": it is not a regular file \\(${kind}\\)`), args.join(" "));
      assert.deepEqual(fs.readFileSync(log), before, `${args.join(" ")}: nothing written`);
    }
  });

  test("--json reports the refusal as one {error: {code: unreadable_file, field}} document", () => {
    const dir = makeTempDir("hostile-input");
    const run = runWithDeadline(["memory", "append", "note.added", "--actor", "agent", "--payload-file", "/dev/zero", "--json"], dir);
    assert.equal(run.code, 2, run.stderr);
    assert.equal(run.stderr, "");
    const error = JSON.parse(run.stdout).error;
    assert.deepEqual([error.code, error.field], ["unreadable_file", "--payload-file"]);
    assert.equal(error.message, 'Cannot read --payload-file "/dev/zero": it is not a regular file (character device)');
    assert.equal(fs.existsSync(path.join(dir, ".eventloom")), false, "nothing created");
  });
});

interface WatchedRun extends ZaxyRun {
  /** Highest resident set seen (VmHWM of zaxy, sampled until it exits), in bytes. */
  peakRssBytes: number;
  /** Why the watchdog killed zaxy, if it did. */
  killedFor: string | null;
  elapsedMs: number;
}

/**
 * Runs `zaxy args` with stdin fed from `stdinShell` (`< /dev/zero` or `cat /dev/zero |`), polling
 * its peak resident set from /proc and killing it (SIGKILL, by pid) once it passes `rssCapBytes`
 * or `deadlineMs`, so an unbounded reader fails here instead of eating the machine's memory.
 */
async function runWatched(args: string[], stdin: "redirect" | "pipe", feeder: string, cwd: string, rssCapBytes: number, deadlineMs = 60_000): Promise<WatchedRun> {
  const pidFile = path.join(cwd, `zaxy-${Date.now()}-${Math.random().toString(36).slice(2)}.pid`);
  // `$!` of a background pipeline is its last command: zaxy itself, whose memory we watch.
  const script = stdin === "redirect"
    ? `"$0" "$@" < ${feeder} & echo $! > '${pidFile}'; wait $!`
    : `${feeder} | "$0" "$@" & echo $! > '${pidFile}'; wait $!`;
  const child = spawn("sh", ["-c", script, zaxyInvocation.command, ...zaxyInvocation.args, ...args], { cwd, env: childEnv(), stdio: ["ignore", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8");
  child.stderr.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => void (stdout += chunk));
  child.stderr.on("data", (chunk: string) => void (stderr += chunk));
  const started = Date.now();
  let peakRssBytes = 0;
  let killedFor: string | null = null;
  let zaxyPid: number | undefined;
  const sample = (): void => {
    if (zaxyPid === undefined) {
      const text = fs.existsSync(pidFile) ? fs.readFileSync(pidFile, "utf8").trim() : "";
      if (text !== "") zaxyPid = Number(text);
    }
    if (zaxyPid !== undefined && killedFor === null) {
      let status = "";
      try {
        status = fs.readFileSync(`/proc/${zaxyPid}/status`, "utf8");
      } catch {
        return; // already exited
      }
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (hwm) peakRssBytes = Math.max(peakRssBytes, Number(hwm[1]) * 1024);
      const overMemory = peakRssBytes > rssCapBytes;
      const overTime = Date.now() - started > deadlineMs;
      if (overMemory || overTime) {
        killedFor = overMemory ? `resident set passed ${rssCapBytes / mib} MiB` : `still running after ${deadlineMs} ms`;
        try {
          process.kill(zaxyPid, "SIGKILL");
        } catch {
          // It exited between the sample and the kill.
        }
      }
    }
  };
  const timer = setInterval(sample, 10);
  const code = await new Promise<number | null>((resolve) => child.on("close", (status) => resolve(status)));
  clearInterval(timer);
  return { code, stdout, stderr, peakRssBytes, killedFor, elapsedMs: Date.now() - started };
}

/** Endless input must be refused long before this: the binary itself is ~50-70 MB resident. */
const endlessInputRssCapBytes = 300 * mib;

describe("stdin is read within a bound: endless input is refused with exit 2, memory stays small", { skip: skipOffLinux }, () => {
  for (const stdin of ["redirect", "pipe"] as const) {
    const shown = stdin === "redirect" ? "< /dev/zero" : "cat /dev/zero |";
    test(`memory append with stdin ${shown}: exit 2 naming the 16 MiB payload document bound, peak RSS < 300 MB`, async () => {
      const { dir, log } = sessionWithFifo();
      const before = fs.readFileSync(log);
      const feeder = stdin === "redirect" ? "/dev/zero" : "cat /dev/zero";
      const run = await runWatched(["memory", "append", "note.added", "--actor", "agent"], stdin, feeder, dir, endlessInputRssCapBytes);
      assert.equal(run.killedFor, null, `killed: ${run.killedFor}`);
      assert.equal(run.code, 2, run.stderr);
      assert.match(run.stderr, /Cannot read stdin: it is longer than 16777216 bytes \(16 MiB\); a payload is at most 1048576 bytes \(1 MiB\) as compact JSON/);
      assert.ok(run.peakRssBytes < endlessInputRssCapBytes, `peak RSS ${run.peakRssBytes}`);
      assert.deepEqual(stackTraceLines(run.stderr), []);
      assert.deepEqual(fs.readFileSync(log), before, "nothing written");
    });

    test(`memory ingest - with stdin ${shown}: exit 2 at the first line longer than 16 MiB, peak RSS < 300 MB`, async () => {
      const { dir, log } = sessionWithFifo();
      const before = fs.readFileSync(log);
      const feeder = stdin === "redirect" ? "/dev/zero" : "cat /dev/zero";
      const run = await runWatched(["memory", "ingest", "-", "--json"], stdin, feeder, dir, endlessInputRssCapBytes);
      assert.equal(run.killedFor, null, `killed: ${run.killedFor}`);
      assert.equal(run.code, 2, run.stderr);
      const error = JSON.parse(run.stdout).error;
      assert.deepEqual([error.code, error.field, error.line], ["input_too_large", "stdin", 1]);
      assert.match(error.message, /^Cannot read stdin: line 1 is longer than 16777216 bytes \(16 MiB\)/);
      assert.ok(run.peakRssBytes < endlessInputRssCapBytes, `peak RSS ${run.peakRssBytes}`);
      assert.deepEqual(fs.readFileSync(log), before, "nothing written");
    });
  }

  test("memory ingest - fed endless valid JSONL lines stops one byte past 256 MiB: exit 2 naming the bound, memory bounded", async () => {
    const { dir, log } = sessionWithFifo();
    const before = fs.readFileSync(log);
    // Reading stops at the bound, so memory is the bound plus the binary, not what is offered.
    const run = await runWatched(["memory", "ingest", "-"], "pipe", `yes '{"event_type":"note.added","actor":"agent"}'`, dir, 700 * mib);
    assert.equal(run.killedFor, null, `killed: ${run.killedFor}`);
    assert.equal(run.code, 2, run.stderr);
    assert.match(run.stderr, /Cannot read stdin: it is longer than 268435456 bytes \(256 MiB\); one ingest reads at most that much JSONL/);
    assert.deepEqual(fs.readFileSync(log), before, "nothing written");
  });
});

describe("the read bounds leave every valid input alone", () => {
  // 400,000 "é" are 800,000 bytes of compact UTF-8 (under 1 MiB) but 2.4 MB as Python's default
  // ensure_ascii JSON (`\u00e9`), pretty-printed: a bound of 1 MiB on the document would refuse it.
  const escapedPayload = `{\n    "text": "${"\\u00e9".repeat(400_000)}"\n}\n`;

  test("a 2.4 MB ASCII-escaped payload document holding a 0.8 MB payload is accepted from --payload-file and stdin", () => {
    const dir = makeTempDir("hostile-input");
    fs.writeFileSync(path.join(dir, "payload.json"), escapedPayload);
    assert.ok(Buffer.byteLength(escapedPayload) > 2 * mib);
    const fromFile = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--payload-file", "payload.json", "--json"], { cwd: dir });
    assert.equal(fromFile.code, 0, fromFile.stderr);
    const fromStdin = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--json"], { cwd: dir, input: escapedPayload });
    assert.equal(fromStdin.code, 0, fromStdin.stderr);
    const verified = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(JSON.parse(verified.stdout).logs[0].total_events, 2);
  });

  test("a payload file one byte over the 16 MiB document bound is refused without parsing; exactly 16 MiB is read and parsed", () => {
    const dir = makeTempDir("hostile-input");
    // Whitespace-padded: valid JSON of a tiny payload, so only the document bound can refuse it.
    const document = (bytes: number): string => `{"a":1}${" ".repeat(bytes - 7)}`;
    fs.writeFileSync(path.join(dir, "at.json"), document(16 * mib));
    fs.writeFileSync(path.join(dir, "over.json"), document(16 * mib + 1));
    const at = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--payload-file", "at.json"], { cwd: dir });
    assert.equal(at.code, 0, at.stderr);
    const over = runZaxy(["memory", "append", "note.added", "--actor", "agent", "--payload-file", "over.json", "--json"], { cwd: dir });
    assert.equal(over.code, 2, over.stderr);
    const error = JSON.parse(over.stdout).error;
    assert.deepEqual([error.code, error.field], ["input_too_large", "--payload-file"]);
    assert.match(error.message, /^Cannot read --payload-file "over\.json": it is longer than 16777216 bytes \(16 MiB\)/);
    const overStdin = runZaxy(["memory", "append", "note.added", "--actor", "agent"], { cwd: dir, input: document(16 * mib + 1) });
    assert.equal(overStdin.code, 2, overStdin.stderr);
    assert.match(overStdin.stderr, /Cannot read stdin: it is longer than 16777216 bytes/);
  });
});
