/**
 * Every example a command's help shows is a command line zaxy accepts: its words name a command
 * and every option it passes exists there (checked by asking that command line for `--help`, which
 * parses it strictly and prints help instead of running it). An example is copied into shells and
 * scripts as it is; one with an unknown option or command fails the user on the first try.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Command, CommandGroup } from "../../src/cli/command.ts";
import { globalOptions } from "../../src/cli/globalOptions.ts";
import { rootGroup } from "../../src/cli/root.ts";
import { runCliCaptured } from "./inProcess.ts";

/** A shell command line's words, up to its first pipe, redirection or `&&` (quotes removed; a `<placeholder>` is a word). */
export function shellWords(line: string): string[] {
  const words: string[] = [];
  let word: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === "'" || c === '"') {
      const end = line.indexOf(c, i + 1);
      assert.ok(end > i, `unbalanced quote in ${line}`);
      word = (word ?? "") + line.slice(i + 1, end);
      i = end;
    } else if (c === "<" && /^<[^ <>][^<>]*>/.test(line.slice(i))) {
      // A placeholder such as `<64 hex>` is one word.
      const end = line.indexOf(">", i);
      word = (word ?? "") + line.slice(i, end + 1);
      i = end;
    } else if (c === " ") {
      if (word !== null) words.push(word);
      word = null;
    } else if (word === null && (c === "|" || c === ">" || c === "<" || (c === "&" && line[i + 1] === "&"))) {
      break;
    } else {
      word = (word ?? "") + c;
    }
  }
  if (word !== null) words.push(word);
  return words;
}

/**
 * Why the words before the command's own arguments do not name a command (as `zaxy` reads them:
 * command words, with global options among them), or null. `--help` after a group's words prints
 * the group's help whatever else they hold, so this part is checked here.
 */
function commandWordsProblem(words: readonly string[]): string | null {
  let node: Command | CommandGroup = rootGroup;
  for (let i = 0; i < words.length && node.kind === "group"; i++) {
    const word = words[i];
    if (word.startsWith("-")) {
      const name = word.replace(/^--?/, "").split("=")[0];
      if (globalOptions[name] === undefined) return `"${word}" is not an option before the command's words`;
      if (!word.includes("=") && globalOptions[name].type === "string") i++;
      continue;
    }
    const child: Command | CommandGroup | undefined = node.children.find((c) => c.name === word);
    if (child === undefined) return `"${word}" is not a command of ${node.name}`;
    node = child;
  }
  return node.kind === "group" && words.length > 0 ? `the words end at the group ${node.name}` : null;
}

function* commandsWithExamples(node: Command | CommandGroup, path: string[]): Generator<{ path: string; examples: readonly string[] }> {
  if (node.kind !== "group" && node.examples !== undefined && node.examples.length > 0) yield { path: path.join(" "), examples: node.examples };
  if (node.kind === "group") for (const child of node.children) yield* commandsWithExamples(child, [...path, child.name]);
}

test("shellWords splits quoted words and stops at a pipe, a redirection or &&", () => {
  assert.deepEqual(shellWords(`zaxy memory graph 'MATCH (e) RETURN e' --param "name=a b" | jq .`), ["zaxy", "memory", "graph", "MATCH (e) RETURN e", "--param", "name=a b"]);
  assert.deepEqual(shellWords("zaxy help --man > zaxy.1 && man -l zaxy.1"), ["zaxy", "help", "--man"]);
  assert.deepEqual(shellWords("zaxy verify && zaxy replay"), ["zaxy", "verify"]);
  assert.deepEqual(shellWords("zaxy memory forget --target-hash <64 hex> --json < in.json"), ["zaxy", "memory", "forget", "--target-hash", "<64 hex>", "--json"]);
});

test("every example in a command's help parses as a zaxy command line", async () => {
  const found = [...commandsWithExamples(rootGroup, ["zaxy"])];
  assert.ok(found.length > 40, `only ${found.length} commands with examples found`);
  const refused: string[] = [];
  for (const { path, examples } of found) {
    for (const example of examples) {
      const words = shellWords(example);
      // Examples that start another program first (`cat x | zaxy ...`) are checked from zaxy on.
      const start = words.indexOf("zaxy");
      if (start < 0) continue;
      const problem = commandWordsProblem(words.slice(start + 1));
      if (problem !== null) {
        refused.push(`${path}: ${example}\n    ${problem}`);
        continue;
      }
      const run = await runCliCaptured([...words.slice(start + 1), "--help"]);
      if (run.code !== 0) refused.push(`${path}: ${example}\n    ${(run.out + run.err).split("\n").find((line) => line.trim() !== "")}`);
    }
  }
  assert.deepEqual(refused, []);
});
