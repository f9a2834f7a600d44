/**
 * Keeps `as unknown as` out of src/ (outside generated files): a double cast switches the type
 * check off for a value. A value gets its real type instead (a type guard at a runtime boundary,
 * a typed helper, a declaration in src/types/ambient.d.ts), or at most one `as` with a comment
 * saying why nothing better is possible.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { filesUnder } from "./sourceFiles.ts";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
const excludedDirs = ["src/generated"].map((dir) => path.join(repoRoot, dir));
/** Written with a space class so this file's own source never matches it. */
const doubleCast = /\bas\s+unknown\s+as\b/;

/** `path:line: text` for each line of `file` with a double cast. */
function doubleCasts(file: string): string[] {
  const lines = fs.readFileSync(file, "utf8").split("\n");
  const found: string[] = [];
  lines.forEach((line, index) => {
    if (doubleCast.test(line)) found.push(`${path.relative(repoRoot, file)}:${index + 1}: ${line.trim()}`);
  });
  return found;
}

test("the double-cast scan finds a cast written across spaces and none in plain prose", () => {
  assert.equal(doubleCast.test("const x = y as unknown as Z;"), true);
  assert.equal(doubleCast.test("const x = (y as  unknown\tas Z);"), true);
  assert.equal(doubleCast.test("// known as a canvas, unknown as yet"), false);
  assert.equal(doubleCast.test("const x = y as Z;"), false);
});

test("no source file in src/ casts through unknown (`as unknown as`)", () => {
  const files = filesUnder(path.join(repoRoot, "src"), { excludedDirs });
  assert.ok(files.length > 100, `expected the source tree under ${repoRoot}/src, found ${files.length} files`);
  assert.deepEqual(files.flatMap(doubleCasts), []);
});
