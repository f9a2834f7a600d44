// test-lane: full (slow)
/**
 * Derived files forged by someone who can write `projections/` but cannot read `keys/`
 * (docs/reliability.md, "Derived files and the root key"): they recompute every public checksum
 * (a checkpoint's `prefix_sha256` and `checksum`, a read-model
 * manifest's recorded SHA-256 values) as an attacker would, and a read still refuses the file,
 * says so, and answers from the log; the file is written again. The root's key is a 0600 file in
 * a 0700 directory; a root made before keys existed keeps working; a root whose key cannot be
 * made answers by verifying the log.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

const slow = { timeout: 180_000 };
after(() => removeTempDirs());

const sha256 = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");

/** A root with three goals (alpha, bravo, charlie) and every derived file written by a checkout. */
function readRoot(): { dir: string; root: string; zaxy: (...args: string[]) => ReturnType<typeof runZaxy> } {
  const dir = makeTempDir("zaxy-forged");
  const root = path.join(dir, "root");
  const zaxy = (...args: string[]) => runZaxy(["--eventloom-path", root, ...args], { cwd: dir });
  assert.equal(zaxy("init", "--json").code, 0);
  for (const name of ["alpha", "bravo", "charlie"]) {
    const run = zaxy("memory", "append", "goal.created", "--actor", "ci", "--payload-json", JSON.stringify({ title: `Ship the ${name} release` }), "--json");
    assert.equal(run.code, 0, run.stderr);
  }
  const first = zaxy("memory", "checkout", "bravo release", "--json");
  assert.equal(first.code, 0, first.stderr);
  assert.ok(fs.existsSync(checkpointOf(root)) && fs.existsSync(manifestOf(root)));
  return { dir, root, zaxy };
}

const checkpointOf = (root: string) => path.join(root, "projections", "verified", "default.json");
const readModelOf = (root: string) => path.join(root, "projections", "readmodel", "default");
const manifestOf = (root: string) => path.join(readModelOf(root), "manifest.json");

/** Replaces `from` by `to` (same length) in line 2 of the log. */
function editLogLine2(root: string, from: string, to: string): void {
  const log = path.join(root, "default.jsonl");
  const lines = fs.readFileSync(log, "utf8").split("\n");
  assert.ok(lines[1].includes(from));
  lines[1] = lines[1].replace(from, to);
  fs.writeFileSync(log, lines.join("\n"));
}

/** Recomputes the checkpoint's public checksums over the log as it now stands (what an attacker can do). */
function forgeCheckpoint(root: string): void {
  const file = checkpointOf(root);
  const cp = JSON.parse(fs.readFileSync(file, "utf8"));
  const prefix = fs.readFileSync(path.join(root, "default.jsonl")).subarray(0, cp.bytes);
  cp.prefix_sha256 = sha256(prefix);
  cp.checksum = sha256(JSON.stringify([cp.schema, cp.seq, cp.hash, cp.bytes, cp.lines, cp.prefix_sha256, cp.file]));
  fs.writeFileSync(file, `${JSON.stringify(cp)}\n`);
}

/** Replaces `from` by `to` (same length) in the read model's entity table and re-records its SHA-256 in a re-checksummed manifest. */
function forgeReadModel(root: string, from: string, to: string): void {
  const text = fs.readFileSync(manifestOf(root), "utf8");
  const newline = text.indexOf("\n");
  const header = JSON.parse(text.slice(0, newline));
  const manifest = JSON.parse(text.slice(newline + 1));
  const entitiesFile = path.join(readModelOf(root), manifest.files.entities.name);
  const bytes = fs.readFileSync(entitiesFile);
  const at = bytes.indexOf(from);
  assert.ok(at >= 0);
  bytes.write(to, at);
  fs.writeFileSync(entitiesFile, bytes);
  manifest.files.entities.sha256 = sha256(bytes);
  const body = JSON.stringify(manifest);
  header.body_bytes = Buffer.byteLength(body);
  header.body_sha256 = sha256(body);
  fs.writeFileSync(manifestOf(root), `${JSON.stringify(header)}\n${body}`);
}

describe("derived files forged without the root's key", () => {
  test("a checkpoint re-checksummed over an edited log line 2 is refused: checkout and query fail verification and never serve the edit", slow, () => {
    const { root, zaxy } = readRoot();
    editLogLine2(root, "bravo", "BRAVO");
    forgeCheckpoint(root);
    // Without a read model the projection folds the log the checkpoint vouches for.
    fs.rmSync(readModelOf(root), { recursive: true });
    for (const args of [["memory", "checkout", "BRAVO release", "--json"], ["memory", "query", "BRAVO", "--json"]]) {
      const run = zaxy(...args);
      assert.equal(run.code, 1, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
      assert.ok(!run.stdout.includes("BRAVO") || run.stdout.includes("integrity_failure"), run.stdout);
      assert.ok(!`${run.stdout}${run.stderr}`.includes("Ship the BRAVO release"), run.stdout + run.stderr);
      assert.match(run.stdout + run.stderr, /fails verification at seq 2/);
      assert.deepEqual(stackTraceLines(run.stderr), []);
    }
    // `zaxy verify` agrees.
    assert.equal(zaxy("verify", path.join(root, "default.jsonl")).code, 1);
  });

  test("a checkpoint re-checksummed over the unchanged log is refused with a warning, the log verified in full, and the checkpoint rewritten", slow, () => {
    const { root, zaxy } = readRoot();
    const genuine = fs.readFileSync(checkpointOf(root), "utf8");
    const cp = JSON.parse(genuine);
    // A checkpoint that vouches for the first event only: valid public checksums, no valid MAC.
    const log = fs.readFileSync(path.join(root, "default.jsonl"));
    const end = log.indexOf(0x0a) + 1;
    cp.seq = 1;
    cp.lines = 1;
    cp.bytes = end;
    cp.hash = JSON.parse(log.subarray(0, end).toString("utf8")).hash ?? cp.hash;
    fs.writeFileSync(checkpointOf(root), `${JSON.stringify(cp)}\n`);
    forgeCheckpoint(root);
    const run = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Ship the bravo release/);
    assert.match(run.stderr, /verified checkpoint .*not authenticated by this root's key/);
    // As the genuine one; only the log's identity may have been recorded since (once its change time settled).
    const rewritten = JSON.parse(fs.readFileSync(checkpointOf(root), "utf8"));
    const stat = fs.statSync(path.join(root, "default.jsonl"), { bigint: true });
    assert.ok(rewritten.file === null || rewritten.file.startsWith(`${stat.dev}:${stat.ino}:${stat.size}:`), rewritten.file);
    const withoutIdentity = ({ file: _file, checksum: _checksum, mac: _mac, ...rest }: Record<string, unknown>) => rest;
    assert.deepEqual(withoutIdentity(rewritten), withoutIdentity(JSON.parse(genuine)), "the checkpoint is written again, as the genuine one");
    const again = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(again.code, 0);
    assert.equal(again.stderr, "", "the rewritten checkpoint is trusted");
  });

  test("a read-model entity table re-recorded in a re-checksummed manifest is refused with a warning and rebuilt", slow, () => {
    const { root, zaxy } = readRoot();
    forgeReadModel(root, "Ship the bravo release", "Ship the BRAVO release");
    const run = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(run.code, 0, run.stderr);
    assert.ok(!run.stdout.includes("BRAVO"), run.stdout);
    assert.match(run.stdout, /Ship the bravo release/);
    assert.match(run.stderr, /read model of session "default" is rebuilt from the log: its manifest is not authenticated by this root's key/);
    const again = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(again.code, 0);
    assert.equal(again.stderr, "");
    assert.ok(!again.stdout.includes("BRAVO"));
  });
});

describe("the root's key", () => {
  test("the first read makes keys/derived.key, mode 0600 in a 0700 directory, 64 hex; init and appends leave the root as they did", slow, () => {
    const dir = makeTempDir("zaxy-keys");
    const root = path.join(dir, "root");
    assert.equal(runZaxy(["--eventloom-path", root, "init", "--json"], { cwd: dir }).code, 0);
    assert.deepEqual(fs.readdirSync(root), ["config.json"]);
    assert.equal(runZaxy(["--eventloom-path", root, "memory", "append", "goal.created", "--actor", "ci", "--payload-json", '{"title":"x"}'], { cwd: dir }).code, 0);
    assert.equal(runZaxy(["--eventloom-path", root, "memory", "checkout", "x"], { cwd: dir }).code, 0);
    const key = path.join(root, "keys", "derived.key");
    assert.equal(fs.statSync(key).mode & 0o777, 0o600);
    assert.equal(fs.statSync(path.dirname(key)).mode & 0o777, 0o700);
    assert.match(fs.readFileSync(key, "utf8"), /^[0-9a-f]{64}\n$/);

    const lazy = path.join(dir, "lazy");
    const run = runZaxy(["--eventloom-path", lazy, "memory", "append", "goal.created", "--actor", "ci", "--payload-json", '{"title":"x"}'], { cwd: dir });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(runZaxy(["--eventloom-path", lazy, "memory", "checkout", "x"], { cwd: dir }).code, 0);
    assert.equal(fs.statSync(path.join(lazy, "keys", "derived.key")).mode & 0o777, 0o600);
    // The key is never derived data: nothing under projections/ holds it.
    const secret = fs.readFileSync(path.join(lazy, "keys", "derived.key"), "utf8").trim();
    const walk = (d: string): string[] => fs.readdirSync(d, { withFileTypes: true }).flatMap((e) => e.isDirectory() ? walk(path.join(d, e.name)) : [path.join(d, e.name)]);
    for (const file of walk(path.join(lazy, "projections"))) assert.ok(!fs.readFileSync(file).includes(secret), file);
  });

  test("a root made before keys existed (no keys/, derived files it cannot authenticate) answers, makes its key, and rebuilds them", slow, () => {
    const { root, zaxy } = readRoot();
    fs.rmSync(path.join(root, "keys"), { recursive: true });
    const run = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Ship the bravo release/);
    assert.deepEqual(stackTraceLines(run.stderr), []);
    assert.equal(fs.statSync(path.join(root, "keys", "derived.key")).mode & 0o777, 0o600);
    const again = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(again.code, 0);
    assert.equal(again.stderr, "", "the derived files were rebuilt under the new key");
  });

  test("a root whose key cannot be made still answers, by verifying the log, and refuses a forged checkpoint", slow, () => {
    const { root, zaxy } = readRoot();
    fs.rmSync(path.join(root, "keys"), { recursive: true });
    fs.writeFileSync(path.join(root, "keys"), "not a directory");
    const run = zaxy("memory", "checkout", "bravo release", "--json");
    assert.equal(run.code, 0, run.stderr);
    assert.match(run.stdout, /Ship the bravo release/);
    editLogLine2(root, "bravo", "BRAVO");
    forgeCheckpoint(root);
    const tampered = zaxy("memory", "checkout", "BRAVO release", "--json");
    assert.equal(tampered.code, 1, tampered.stdout + tampered.stderr);
    assert.ok(!tampered.stdout.includes("Ship the BRAVO release"));
  });
});
