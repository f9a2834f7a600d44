/**
 * scripts/deno-test.sh runs each test file marked "// deno-test: own-process" in a Deno process of
 * its own, so a crash of kuzu-wasm's pthread workers fails only that file. This keeps the marker
 * honest: a test file that imports a module which loads kuzu-wasm in the test process must carry
 * it, and a marked file must still import one (or the marker is stale).
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
const marker = "// deno-test: own-process";

/** Modules whose functions open the Kuzu graph store (or the selftest) in the calling process. */
const kuzuLoading = [
  "src/projection/kuzuRuntime.ts",
  "src/projection/kuzuStore.ts",
  "src/projection/projector.ts",
  "src/projection/graphQuery.ts",
  "src/diagnostics/mod.ts",
  "src/diagnostics/selftest.ts",
  "src/bench/reprojectBench.ts",
].map((file) => path.join(repoRoot, file));

function testFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...testFiles(full));
    else if (entry.name.endsWith("_test.ts")) out.push(full);
  }
  return out.sort();
}

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g), ...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith(".")).map((s) => path.resolve(path.dirname(file), s));
}

test("every test file that loads kuzu-wasm in process is marked to run in a Deno process of its own, and only those", () => {
  const unmarked: string[] = [];
  const stale: string[] = [];
  for (const file of testFiles(path.join(repoRoot, "tests"))) {
    const loadsKuzu = importsOf(file).some((target) => kuzuLoading.includes(target));
    const marked = fs.readFileSync(file, "utf8").startsWith(marker);
    const name = path.relative(repoRoot, file);
    if (loadsKuzu && !marked) unmarked.push(name);
    if (marked && !loadsKuzu) stale.push(name);
  }
  assert.deepEqual(unmarked, [], `add "${marker} ..." as the first line of these files`);
  assert.deepEqual(stale, [], "these files are marked but import no Kuzu-loading module");
});

test("scripts/deno-test.sh finds the marked files with the same marker", () => {
  const script = fs.readFileSync(path.join(repoRoot, "scripts", "deno-test.sh"), "utf8");
  assert.ok(script.includes(`marker='^${marker}'`), "the script's marker and this test's must agree");
});
