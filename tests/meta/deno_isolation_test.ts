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
import { filesUnder } from "./sourceFiles.ts";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
const marker = "// deno-test: own-process";

/**
 * Modules whose functions open the Kuzu graph store (or the selftest) in the calling process, and
 * the test helper that runs CLI commands there.
 */
const kuzuLoading = [
  "src/projection/kuzuRuntime.ts",
  "src/projection/kuzuStore.ts",
  "src/projection/projector.ts",
  "src/projection/graphQuery.ts",
  "src/diagnostics/mod.ts",
  "src/diagnostics/selftest.ts",
  "src/bench/reprojectBench.ts",
  // Runs any zaxy command in the test process; graph sync, graph queries and reprojects load Kuzu.
  "tests/cli/inProcessRoot.ts",
].map((file) => path.join(repoRoot, file));

function importsOf(file: string): string[] {
  const text = fs.readFileSync(file, "utf8");
  const specifiers = [...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+"([^"]+)"/g), ...text.matchAll(/import\("([^"]+)"\)/g)].map((m) => m[1]);
  return specifiers.filter((s) => s.startsWith(".")).map((s) => path.resolve(path.dirname(file), s));
}

test("every test file that loads kuzu-wasm in process is marked to run in a Deno process of its own, and only those", () => {
  const unmarked: string[] = [];
  const stale: string[] = [];
  for (const file of filesUnder(path.join(repoRoot, "tests"), { suffix: "_test.ts" })) {
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

test("no test changes process.env or the working directory, which the files of the shared parallel Deno run share", () => {
  const processWide = new RegExp(
    [String.raw`process\.env(\.\w+|\[[^\]]+\])\s*=[^=]`, String.raw`delete\s+process\.env`, String.raw`process\.chdir\(`, String.raw`Deno\.chdir\(`, String.raw`Deno\.env\.(set|delete)\(`]
      .map((part) => `(${part})`)
      .join("|"),
  );
  for (const sample of ['process.env.X = "1";', "process.env[key] = value;", "delete process.env.X;", "process.chdir(dir);", 'Deno.env.set("X", "1");']) {
    assert.ok(processWide.test(sample), sample);
  }
  assert.ok(!processWide.test('process.env.X === "1"'));
  const thisFile = fileURLToPath(import.meta.url); // quotes each pattern as a sample
  // Every .ts file under tests/: the test files and the helpers they import.
  const changing = filesUnder(path.join(repoRoot, "tests"))
    .filter((file) => file !== thisFile && processWide.test(fs.readFileSync(file, "utf8")))
    .map((file) => path.relative(repoRoot, file));
  assert.deepEqual(changing, [], "pass the variables a child needs through its env option, and paths instead of a working directory");
});
