/**
 * Start-up stays lazy: the command tree (src/cli/root.ts) and the entry that runs it load only
 * the commands' specs. A command's implementation and the heavy libraries are imported with
 * `await import(...)` when that command runs. This walks the static import graph from the entry
 * points and fails when it reaches a heavy package or module, naming the chain that does.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { filesUnder } from "./sourceFiles.ts";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));

/** npm packages that must not load at start-up (a prefix matches subpaths too). */
const heavyPackages = ["kuzu-wasm", "usearch", "@modelcontextprotocol/sdk", "postgres", "@energetic-ai/", "zod", "assemblyscript"];
/** Modules of ours that must not load at start-up: the WASM kernels, the native and Kuzu loaders. */
const heavyModules = [/^src\/generated\/\w+Wasm\.ts$/, /^src\/projection\/kuzuRuntime\.ts$/, /^src\/vector\/usearchNative\.ts$/, /^src\/semantic\/semanticEmbedder\.ts$/];
/** node: modules that pull in large parts of the runtime (streams, HTTP) when imported. */
const heavyBuiltins = ["node:http", "node:https", "node:zlib", "node:stream", "node:net", "node:worker_threads", "node:crypto", "node:child_process"];

/** Entry points whose static graph is what every command pays for. */
const entries = ["src/bin/zaxy_bun.ts", "src/bin/zaxy.ts", "src/cli/main.ts", "src/cli/root.ts"];

/**
 * The specifiers a module imports statically: `import ... from "x"`, `export ... from "x"` and
 * `import "x"` at the start of a line. Type-only imports (`import type`, or every name marked
 * `type`) are erased by the compiler and load nothing. `await import(...)` is not static.
 */
function staticImports(source: string): string[] {
  const out: string[] = [];
  const statement = /^(?:import|export)\s+(?!type\s)([^;]*?)\bfrom\s*["']([^"']+)["']|^import\s*["']([^"']+)["']/gm;
  for (const match of source.matchAll(statement)) {
    const clause = match[1]?.trim();
    if (clause !== undefined && /^\{[^}]*\}$/.test(clause)) {
      const names = clause.slice(1, -1).split(",").map((name) => name.trim()).filter(Boolean);
      if (names.length > 0 && names.every((name) => name.startsWith("type "))) continue;
    }
    out.push(match[2] ?? match[3]);
  }
  return out;
}

interface Reached {
  /** Path relative to the repository, or the package / node: specifier. */
  name: string;
  /** The chain of modules from an entry, for the failure message. */
  chain: string[];
}

/** Every module and package reached from `entry` through static imports. */
function staticGraph(entry: string): Reached[] {
  const chains = new Map<string, string[]>([[entry, [entry]]]);
  const reached: Reached[] = [];
  const queue = [entry];
  while (queue.length > 0) {
    const file = queue.shift()!;
    const chain = chains.get(file)!;
    for (const specifier of staticImports(fs.readFileSync(path.join(repoRoot, file), "utf8"))) {
      if (!specifier.startsWith(".")) {
        reached.push({ name: specifier, chain });
        continue;
      }
      const target = path.relative(repoRoot, path.resolve(path.dirname(path.join(repoRoot, file)), specifier));
      if (chains.has(target) || !target.endsWith(".ts")) continue;
      chains.set(target, [...chain, target]);
      reached.push({ name: target, chain: [...chain, target] });
      queue.push(target);
    }
  }
  return reached;
}

function isHeavy(name: string): boolean {
  if (name.startsWith("node:")) return heavyBuiltins.includes(name);
  if (!name.startsWith("src/")) return heavyPackages.some((pkg) => name === pkg || name.startsWith(pkg.endsWith("/") ? pkg : `${pkg}/`));
  return heavyModules.some((pattern) => pattern.test(name));
}

test("the parser sees value imports and re-exports, and skips type-only ones", () => {
  const source = [
    `import { a } from "./a.ts";`,
    `import type { B } from "./b.ts";`,
    `import { type C, type D } from "./c.ts";`,
    `import { type E, f } from "./e.ts";`,
    `import * as g from "node:zlib";`,
    `export { h } from "./h.ts";`,
    `export type { I } from "./i.ts";`,
    `import "./side.ts";`,
    `import {\n  j,\n  k,\n} from "postgres";`,
    `const l = await import("./lazy.ts");`,
    ` * import { m } from "./comment.ts";`,
  ].join("\n");
  assert.deepEqual(staticImports(source), ["./a.ts", "./e.ts", "node:zlib", "./h.ts", "./side.ts", "postgres"]);
});

for (const entry of entries) {
  test(`${entry} reaches no heavy package or module through static imports`, () => {
    const graph = staticGraph(entry);
    // The binary's entries load the command tree with `await import` (`--version` is answered
    // without it); main.ts, an entry here too, covers the tree itself.
    const expected = entry.startsWith("src/bin/") ? "src/version.ts" : "src/cli/commands/verify.ts";
    assert.ok(graph.some((r) => r.name === expected), `the walk reaches ${expected}`);
    const heavy = graph.filter((r) => isHeavy(r.name)).map((r) => `${r.name}  <-  ${r.chain.join(" > ")}`);
    assert.deepEqual(heavy, [], "import these with `await import(...)` where they are used");
  });
}

test("each heavy package is still imported somewhere (the list above is not stale)", () => {
  const all = filesUnder(path.join(repoRoot, "src")).map((file) => fs.readFileSync(file, "utf8")).join("\n");
  for (const pkg of ["kuzu-wasm", "usearch", "@modelcontextprotocol/sdk", "postgres", "@energetic-ai/", "zod"]) {
    assert.ok(all.includes(`"${pkg}`) || all.includes(`/${pkg}`), `${pkg} is no longer used; drop it from the list`);
  }
});
