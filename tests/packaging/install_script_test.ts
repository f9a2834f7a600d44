/**
 * `install.sh` from the command line, before any tarball is involved: `--help` (and `-h`), before
 * or after the file arguments, print the usage on stdout and exit 0; a usage error prints it on
 * stderr and exits 2. Run with `sh`, as the README says, so a bash-only construct would fail here
 * under dash. Then an install of a small stand-in tarball: where the README, the guides and the
 * man page land.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
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

/** This machine's platform as install.sh names it (`linux-x64`, `darwin-arm64`). */
function platformName(): string {
  const arch = process.arch === "x64" ? "x64" : process.arch === "arm64" ? "arm64" : process.arch;
  return `${process.platform}-${arch}`;
}

describe("sh install.sh TARBALL", () => {
  test("installs the binary, the README and guides under share/doc/zaxy, and the man page", () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-install-test-"));
    try {
      const stem = `zaxy-0.0.0-${platformName()}`;
      const dir = path.join(work, stem);
      fs.mkdirSync(path.join(dir, "docs"), { recursive: true });
      fs.mkdirSync(path.join(dir, "share/man/man1"), { recursive: true });
      // A stand-in binary: install.sh runs `zaxy --version` after installing it.
      fs.writeFileSync(path.join(dir, "zaxy"), "#!/bin/sh\necho 'zaxy 0.0.0'\n", { mode: 0o755 });
      for (const file of ["LICENSE", "NOTICE", "README.md"]) fs.writeFileSync(path.join(dir, file), `${file}\n`);
      fs.writeFileSync(path.join(dir, "docs/events.md"), "# Event types\n");
      fs.writeFileSync(path.join(dir, "docs/hooks.md"), "# Git hooks\n");
      fs.writeFileSync(path.join(dir, "share/man/man1/zaxy.1"), '.TH ZAXY 1 "" "zaxy 0.0.0" "User Commands"\n');
      const tarball = path.join(work, `${stem}.tar.gz`);
      assert.equal(spawnSync("tar", ["-czf", tarball, "-C", work, stem]).status, 0);
      const sha256 = createHash("sha256").update(fs.readFileSync(tarball)).digest("hex");
      fs.writeFileSync(path.join(work, "SHA256SUMS"), `${sha256}  ${stem}.tar.gz\n`);
      const prefix = path.join(work, "prefix");
      const run = install(["--prefix", prefix, tarball]);
      assert.equal(run.status, 0, run.stderr);
      assert.match(run.stdout, /SHA-256 verified/);
      assert.equal(fs.readFileSync(path.join(prefix, "share/doc/zaxy/docs/events.md"), "utf8"), "# Event types\n");
      assert.equal(fs.readFileSync(path.join(prefix, "share/doc/zaxy/docs/hooks.md"), "utf8"), "# Git hooks\n");
      assert.equal(fs.readFileSync(path.join(prefix, "share/doc/zaxy/README.md"), "utf8"), "README.md\n");
      assert.match(fs.readFileSync(path.join(prefix, "share/man/man1/zaxy.1"), "utf8"), /^\.TH ZAXY 1 /);
      assert.equal(fs.statSync(path.join(prefix, "bin/zaxy")).mode & 0o777, 0o755);
    } finally {
      fs.rmSync(work, { recursive: true, force: true });
    }
  });
});
