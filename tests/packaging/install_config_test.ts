/**
 * What `npm install` and the build rely on: only bun, deno and usearch may run install scripts
 * (and every installed package that has one is among them, or `npm ci` would refuse it), and each
 * WebAssembly kernel's build record vouches for exactly the bytes the generated module embeds,
 * so a build that reuses a kernel instead of compiling it serves the kernel its source makes.
 */
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot } from "../cli/zaxy.ts";

const installScriptHooks = ["preinstall", "install", "postinstall"];

/** Every package directory under node_modules (scoped ones included), nested ones too. */
function packageDirs(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || !(entry.isDirectory() || entry.isSymbolicLink())) continue;
    const full = path.join(dir, entry.name);
    if (entry.name.startsWith("@")) found.push(...packageDirs(full));
    else if (fs.existsSync(path.join(full, "package.json"))) found.push(full, ...packageDirs(path.join(full, "node_modules")));
  }
  return found;
}

describe("npm install scripts", () => {
  const pkg = JSON.parse(fs.readFileSync(path.join(repoRoot, "package.json"), "utf8"));

  test("package.json allows exactly bun, deno and usearch; .npmrc makes any other install script fail the install", () => {
    assert.deepEqual(pkg.allowScripts, { bun: true, deno: true, usearch: true });
    const npmrc = fs.readFileSync(path.join(repoRoot, ".npmrc"), "utf8");
    assert.match(npmrc, /^strict-allow-scripts=true$/m);
  });

  test("every installed package with an install script is allowed", () => {
    const withScripts = packageDirs(path.join(repoRoot, "node_modules")).flatMap((dir) => {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"));
      const hooks = installScriptHooks.filter((hook) => typeof manifest.scripts?.[hook] === "string");
      return hooks.length > 0 ? [manifest.name as string] : [];
    });
    assert.ok(withScripts.length > 0, "node_modules is installed");
    assert.deepEqual([...new Set(withScripts)].filter((name) => pkg.allowScripts[name] !== true), []);
  });
});

describe("WebAssembly kernel build records", () => {
  for (const name of ["canonical", "vector", "geometry"]) {
    test(`${name}: the record's wasm_sha256 is the SHA-256 of the bytes src/generated/${name}Wasm.ts embeds`, () => {
      const generated = fs.readFileSync(path.join(repoRoot, "src/generated", `${name}Wasm.ts`), "utf8");
      const base64 = new RegExp(`export const ${name}WasmBase64 = "([A-Za-z0-9+/=]+)";`).exec(generated)?.[1];
      assert.ok(base64 !== undefined, "the generated module embeds the kernel as base64");
      const record = JSON.parse(fs.readFileSync(path.join(repoRoot, "src/generated", `${name}Wasm.inputs.json`), "utf8"));
      assert.match(record.inputs_sha256, /^[0-9a-f]{64}$/);
      assert.equal(record.wasm_sha256, createHash("sha256").update(Buffer.from(base64, "base64")).digest("hex"));
    });
  }
});
