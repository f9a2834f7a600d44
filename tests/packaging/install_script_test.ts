/**
 * `install.sh` from the command line, before any tarball is involved: `--help` (and `-h`), before
 * or after the file arguments, print the usage on stdout and exit 0; a usage error prints it on
 * stderr and exits 2. Run with `sh`,
 * as the README says, so a bash-only construct would fail here under dash.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const installScript = fileURLToPath(new URL("../../install.sh", import.meta.url));
const usageLine = "usage: sh install.sh [--prefix DIR] zaxy-<version>-<os>-<arch>.tar.gz [SHA256SUMS]";

function install(args: string[]): { status: number | null; stdout: string; stderr: string } {
  const run = spawnSync("sh", [installScript, ...args], { encoding: "utf8", timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe("sh install.sh", () => {
  for (const flag of ["--help", "-h"]) {
    test(`${flag} prints the usage and the options on stdout and exits 0`, () => {
      const run = install([flag]);
      assert.equal(run.status, 0, run.stderr);
      assert.equal(run.stderr, "");
      assert.equal(run.stdout.split("\n")[0], usageLine);
      assert.match(run.stdout, /^ {2}--prefix DIR {3}install DIR\/bin\/zaxy/m);
      assert.match(run.stdout, /^ {2}-h, --help {5}print this help and exit$/m);
    });
  }

  test("--help after --prefix still prints the usage and installs nothing", () => {
    const run = install(["--prefix", "/nonexistent/zaxy-prefix", "--help"]);
    assert.equal(run.status, 0);
    assert.equal(run.stdout.split("\n")[0], usageLine);
  });

  for (const args of [["zaxy-0.1.0-linux-x64.tar.gz", "--help"], ["zaxy-0.1.0-linux-x64.tar.gz", "SHA256SUMS", "-h"]]) {
    test(`${args.join(" ")}: help after the files prints the usage, exits 0 and installs nothing`, () => {
      const prefix = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-install-help-"));
      try {
        const run = install(["--prefix", prefix, ...args]);
        assert.equal(run.status, 0, run.stderr);
        assert.equal(run.stderr, "");
        assert.equal(run.stdout.split("\n")[0], usageLine);
        assert.match(run.stdout, /^ {2}-h, --help {5}print this help and exit$/m);
        assert.deepEqual(fs.readdirSync(prefix), []);
      } finally {
        fs.rmSync(prefix, { recursive: true, force: true });
      }
    });
  }

  test("an unknown option after the tarball is a usage error, not a checksum file name", () => {
    const run = install(["zaxy-0.1.0-linux-x64.tar.gz", "--bogus"]);
    assert.deepEqual(run, { status: 2, stdout: "", stderr: `install.sh: unknown option --bogus\n${usageLine}\n` });
  });

  test("three file arguments are a usage error", () => {
    const run = install(["a.tar.gz", "SHA256SUMS", "extra"]);
    assert.deepEqual(run, { status: 2, stdout: "", stderr: `${usageLine}\n` });
  });

  test("no tarball or an unknown option is a usage error: the usage on stderr, exit 2", () => {
    const none = install([]);
    assert.deepEqual(none, { status: 2, stdout: "", stderr: `${usageLine}\n` });
    const unknown = install(["--bogus"]);
    assert.deepEqual(unknown, { status: 2, stdout: "", stderr: `install.sh: unknown option --bogus\n${usageLine}\n` });
  });
});
