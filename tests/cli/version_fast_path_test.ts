/**
 * `zaxy --version` is answered by the entry before the command tree loads (scripts and installers
 * probe the binary with it, so it should cost no more than starting the runtime). The answer must
 * be the command tree's answer byte for byte, and every other form (`--version --json`, a flag
 * after it) still goes through the command tree.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runCliCaptured } from "./inProcess.ts";
import { repoRoot, runZaxy } from "./zaxy.ts";

after(removeTempDirs);

test("zaxy --version prints what the command tree prints, with exit code 0 and nothing on stderr", async () => {
  const dir = makeTempDir();
  const fromTree = await runCliCaptured(["--version"], { cwd: dir });
  assert.equal(fromTree.code, 0);
  assert.match(fromTree.out, /^zaxy \d+\.\d+\.\d+\n$/);
  const run = runZaxy(["--version"], { cwd: dir });
  assert.deepEqual(run, { code: 0, stdout: fromTree.out, stderr: "" });
});

test("zaxy --version --json and --version followed by other words still go through the command tree", async () => {
  const dir = makeTempDir();
  const json = runZaxy(["--version", "--json"], { cwd: dir });
  assert.equal(json.code, 0);
  const report = JSON.parse(json.stdout);
  assert.equal(report.schema, "zaxy.version.v1");
  assert.equal(`zaxy ${report.version}\n`, (await runCliCaptured(["--version"], { cwd: dir })).out);
  for (const args of [["--version", "extra"], ["--version", "--no-such-flag"]]) {
    const fromTree = await runCliCaptured(args, { cwd: dir });
    assert.deepEqual(runZaxy(args, { cwd: dir }), { code: fromTree.code, stdout: fromTree.out, stderr: fromTree.err }, args.join(" "));
  }
});

test("the entry imports the command tree only when the argument is not a plain --version", () => {
  const entry = fs.readFileSync(path.join(repoRoot, "src", "bin", "zaxy.ts"), "utf8");
  const staticImports = [...entry.matchAll(/^import\s[^;]*?from\s*"([^"]+)"/gm)].map((match) => match[1]);
  const commandTree = ["../cli/main.ts", "../cli/root.ts", "../cli/dispatch.ts"];
  assert.ok(!staticImports.some((specifier) => commandTree.includes(specifier)), `static imports: ${staticImports.join(", ")}`);
  assert.match(entry, /await import\("\.\.\/cli\/main\.ts"\)/);
});
