/**
 * Keeps every function in src/ (outside the WASM glue and generated files) at most
 * `functionLinesMax` lines long, so long pipelines stay split into named stages whose contracts
 * can be read and asserted one at a time. Counts declarations, methods, accessors, constructors,
 * arrow functions and function expressions, from the first line of the node to its last.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import * as ts from "typescript";
import { filesUnder } from "./sourceFiles.ts";

const repoRoot = path.resolve(fileURLToPath(new URL("../../", import.meta.url)));
const functionLinesMax = 120;
const excludedDirs = ["src/wasm", "src/generated"].map((dir) => path.join(repoRoot, dir));

function functionName(node: ts.Node): string {
  const named = node as ts.Node & { name?: ts.Node };
  if (named.name && ts.isIdentifier(named.name)) return named.name.text;
  if (ts.isConstructorDeclaration(node)) return "constructor";
  const parent = node.parent;
  if (parent && ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (parent && ts.isPropertyAssignment(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  return "(anonymous)";
}

function isFunctionLike(node: ts.Node): boolean {
  return ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isArrowFunction(node) ||
    ts.isFunctionExpression(node) || ts.isConstructorDeclaration(node) || ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node);
}

/** Lines `first-last name (count lines)` for each function in `file` longer than the limit. */
function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(file, fs.readFileSync(file, "utf8"), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunctionLike(node)) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      const lineCount = last - first + 1;
      if (lineCount > functionLinesMax) {
        found.push(`${path.relative(repoRoot, file)}:${first} ${functionName(node)} (${lineCount} lines)`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

test("the line counter flags each kind of function one line over the limit and none at it", () => {
  // One line over the limit for each kind, and one function exactly at the limit.
  const body = Array.from({ length: functionLinesMax - 1 }, (_, i) => `  const v${i} = ${i};`).join("\n");
  const file = path.join(fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? "/tmp"), "zaxy-fnlen-")), "long.ts");
  fs.writeFileSync(file, [
    `function declared() {\n${body}\n}`,
    `const arrow = () => {\n${body}\n};`,
    `const expressed = function () {\n${body}\n};`,
    `class Holder {\n  constructor() {\n${body}\n  }\n  method() {\n${body}\n  }\n}`,
    `function fits() {\n${body.split("\n").slice(1).join("\n")}\n}`,
  ].join("\n"));
  const names = longFunctions(file).map((line) => line.split(" ")[1]);
  fs.rmSync(path.dirname(file), { recursive: true });
  assert.deepEqual(names, ["declared", "arrow", "expressed", "constructor", "method"]);
});

// Parsing the whole tree takes a few seconds on a loaded machine.
test(`no function in src/ is longer than ${functionLinesMax} lines`, { timeout: 120_000 }, () => {
  const files = filesUnder(path.join(repoRoot, "src"), { excludedDirs });
  assert.ok(files.length > 100, `expected the source tree, found ${files.length} files`);
  const tooLong = files.flatMap(longFunctions);
  assert.deepEqual(tooLong, [], `split these into named stages:\n${tooLong.join("\n")}`);
});
