/**
 * `npm run release` (`bun scripts/release.ts [--targets linux-x64,linux-arm64,...]`): builds the
 * zaxy binary for every platform agents run on and packs what an air-gapped install needs, into
 * `dist/release/`:
 *
 * - `zaxy-<version>-<os>-<arch>.tar.gz`: a directory `zaxy-<version>-<os>-<arch>/` with `zaxy`
 *   (mode 0755), LICENSE, NOTICE, README.md, the guides `docs/*.md` and the man page
 *   `share/man/man1/zaxy.1` (`zaxy help --man`), for linux-x64, linux-arm64, darwin-arm64 and
 *   darwin-x64, each binary embedding its platform's usearch addon (`build.ts --target`);
 * - `zaxy-<version>.cdx.json`: a CycloneDX 1.5 SBOM of every component inside the binaries (the
 *   Bun runtime, kuzu-wasm, usearch with each platform's addon's SHA-256, the MCP SDK, zod,
 *   postgres.js, the three WebAssembly kernels), with versions and licenses;
 * - `install.sh`: the offline installer (README, "Installing offline");
 * - `SHA256SUMS`: `sha256sum` lines for the tarballs, the installer and the SBOM
 *   (`sha256sum -c SHA256SUMS`).
 *
 * The host's binary is built last, so `src/generated/` ends as `bun build.ts` leaves it. The
 * WebAssembly kernels are the same for every platform: the first build compiles them from source
 * (`--recompile-kernels`), the others reuse those bytes.
 * Tarballs are reproducible in layout (sorted names, fixed owner and mtime); the binaries carry
 * their build date (`zaxy --version --json`).
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { zaxyVersion } from "../src/version.ts";

const root = path.resolve(import.meta.dirname ?? path.dirname(new URL(import.meta.url).pathname), "..");
const allTargets = ["linux-arm64", "darwin-arm64", "darwin-x64", "linux-x64"] as const;
const usearchPrebuild: Record<string, string> = {
  "linux-x64": "linux-x64",
  "linux-arm64": "linux-arm64",
  "darwin-arm64": "darwin-arm64+x64",
  "darwin-x64": "darwin-arm64+x64",
};

function fail(message: string, exitCode = 1): never {
  process.stderr.write(`release: ${message}\n`);
  process.exit(exitCode);
}

function run(command: string, args: string[], cwd = root): void {
  const result = spawnSync(command, args, { cwd, stdio: ["ignore", "inherit", "inherit"] });
  if (result.status !== 0) fail(`${command} ${args.join(" ")} exited ${result.status ?? result.signal}`);
}

function sha256(file: string): string {
  return createHash("sha256").update(fs.readFileSync(file)).digest("hex");
}

function requestedTargets(): string[] {
  const at = process.argv.indexOf("--targets");
  if (at < 0) return [...allTargets];
  const wanted = (process.argv[at + 1] ?? "").split(",").filter(Boolean);
  const unknown = wanted.filter((t) => !(allTargets as readonly string[]).includes(t));
  if (wanted.length === 0 || unknown.length > 0) fail(`--targets takes a comma-separated list of ${allTargets.join(", ")}; got ${JSON.stringify(process.argv[at + 1] ?? "")}`, 2);
  // The host last, whatever the order asked: src/generated/ must end as a plain build leaves it.
  return allTargets.filter((t) => wanted.includes(t));
}

interface StampComponent {
  name: string;
  version: string;
  license: string;
  sha256?: string;
}

/** The build stamp build.ts wrote for the last target built (components are the same for every target). */
function readStamp(): { commit: string | null; dirty: boolean; built_at: string; components: StampComponent[] } {
  const text = fs.readFileSync(path.join(root, "src/generated/buildStamp.ts"), "utf8");
  const json = text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1);
  return JSON.parse(json);
}

/** SPDX id for the license strings packages use ("Apache 2.0" is usearch's). */
function spdx(license: string): { license: { id: string } } | { license: { name: string } } {
  const known: Record<string, string> = { MIT: "MIT", "Apache 2.0": "Apache-2.0", "Apache-2.0": "Apache-2.0", Unlicense: "Unlicense" };
  return known[license] !== undefined ? { license: { id: known[license] } } : { license: { name: license } };
}

function sbom(targets: string[], stamp: ReturnType<typeof readStamp>): unknown {
  const components = stamp.components.map((component) => {
    const isKernel = component.name.startsWith("zaxy wasm kernel");
    const isModel = component.name.startsWith("semantic model");
    const entry: Record<string, unknown> = {
      type: isKernel ? "file" : isModel ? "machine-learning-model" : component.name.startsWith("bun") ? "application" : "library",
      "bom-ref": component.name,
      name: component.name,
      version: component.version,
      licenses: [spdx(component.license)],
    };
    if (!isKernel && !isModel && !component.name.startsWith("bun")) entry.purl = `pkg:npm/${component.name.replace("@", "%40")}@${component.version}`;
    if (component.sha256 !== undefined) entry.hashes = [{ alg: "SHA-256", content: component.sha256 }];
    if (component.name === "usearch") {
      entry.properties = targets.map((target) => ({
        name: `zaxy:addon:${target}`,
        value: sha256(path.join(root, "node_modules/usearch/prebuilds", usearchPrebuild[target], "usearch.node")),
      }));
    }
    return entry;
  });
  return {
    bomFormat: "CycloneDX",
    specVersion: "1.5",
    version: 1,
    metadata: {
      timestamp: stamp.built_at,
      component: {
        type: "application",
        "bom-ref": "zaxy",
        name: "zaxy",
        version: zaxyVersion,
        licenses: [{ license: { id: "MIT" } }],
        properties: [
          { name: "zaxy:commit", value: stamp.commit ?? "unknown" },
          { name: "zaxy:dirty", value: String(stamp.dirty) },
          ...targets.map((target) => ({ name: "zaxy:target", value: target })),
        ],
      },
    },
    components,
    dependencies: [{ ref: "zaxy", dependsOn: components.map((c) => c["bom-ref"]) }],
  };
}

/**
 * Everything a tarball holds beside the binary: the notices, the README, the guides the README
 * and `zaxy help` point at, and the man page. The page is rendered from source right after the
 * target's build, so it carries that build's date, as `zaxy help --man` of the binary does
 * (a binary for another platform cannot run here).
 */
function stageDocuments(dir: string, bun: string): void {
  for (const file of ["LICENSE", "NOTICE", "README.md"]) fs.copyFileSync(path.join(root, file), path.join(dir, file));
  fs.mkdirSync(path.join(dir, "docs"));
  for (const file of fs.readdirSync(path.join(root, "docs")).filter((name) => name.endsWith(".md")).sort()) {
    fs.copyFileSync(path.join(root, "docs", file), path.join(dir, "docs", file));
  }
  const man = spawnSync(bun, ["src/bin/zaxy.ts", "help", "--man"], { cwd: root, encoding: "utf8", maxBuffer: 64 * 1024 * 1024 });
  if (man.status !== 0 || man.stdout === "") fail(`zaxy help --man failed (exit ${man.status}): ${man.stderr}`);
  fs.mkdirSync(path.join(dir, "share/man/man1"), { recursive: true });
  fs.writeFileSync(path.join(dir, "share/man/man1/zaxy.1"), man.stdout);
}

function main(): void {
  const targets = requestedTargets();
  const releaseDir = path.join(root, "dist/release");
  const stage = path.join(releaseDir, "stage");
  fs.rmSync(releaseDir, { recursive: true, force: true });
  fs.mkdirSync(stage, { recursive: true });
  const bun = path.join(root, "node_modules/.bin/bun");
  const artifacts: string[] = [];
  for (const [i, target] of targets.entries()) {
    const name = `zaxy-${zaxyVersion}-${target}`;
    const dir = path.join(stage, name);
    fs.mkdirSync(dir);
    process.stderr.write(`release: ${name}\n`);
    const kernels = i === 0 ? ["--recompile-kernels"] : [];
    run(bun, ["build.ts", "--target", target, "--outfile", path.join(dir, "zaxy"), ...kernels]);
    fs.chmodSync(path.join(dir, "zaxy"), 0o755);
    stageDocuments(dir, bun);
    const tarball = `${name}.tar.gz`;
    run("tar", ["--sort=name", "--owner=0", "--group=0", "--numeric-owner", "--mtime=@0", "-czf", path.join(releaseDir, tarball), "-C", stage, name]);
    artifacts.push(tarball);
  }
  // The installer travels with the tarballs (and is checked by the same SHA256SUMS).
  fs.copyFileSync(path.join(root, "install.sh"), path.join(releaseDir, "install.sh"));
  fs.chmodSync(path.join(releaseDir, "install.sh"), 0o755);
  artifacts.push("install.sh");
  const sbomName = `zaxy-${zaxyVersion}.cdx.json`;
  fs.writeFileSync(path.join(releaseDir, sbomName), JSON.stringify(sbom(targets, readStamp()), null, 2) + "\n");
  artifacts.push(sbomName);
  const sums = artifacts.map((file) => `${sha256(path.join(releaseDir, file))}  ${file}\n`).join("");
  fs.writeFileSync(path.join(releaseDir, "SHA256SUMS"), sums);
  fs.rmSync(stage, { recursive: true, force: true });
  process.stdout.write(sums);
}

main();
