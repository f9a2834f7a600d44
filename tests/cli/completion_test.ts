/**
 * `zaxy completion bash|zsh|fish` and `zaxy help [COMMAND...] | --man`, run in process. Every
 * assertion parses the output and compares it with the command tree itself, so a command added
 * to the tree without showing up in the scripts or the man page fails here. The shells and the
 * man renderers are spawned when installed (bash always is; zsh, fish, groff and mandoc are
 * skipped when missing).
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, test } from "node:test";
import type { Command, CommandGroup } from "../../src/cli/command.ts";
import { type CapturedRun, runCliCaptured } from "./inProcess.ts";
import { globalOptions } from "../../src/cli/globalOptions.ts";
import { rootGroup } from "../../src/cli/root.ts";
import { ExitCode } from "../../src/errors.ts";

/** A root that does not exist: these commands read nothing, and nothing of the developer's leaks in. */
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-completion-"));
const env = { EVENTLOOM_PATH: path.join(scratch, "root") };
after(() => fs.rmSync(scratch, { recursive: true, force: true }));

function zaxy(args: string[]): Promise<CapturedRun> {
  return runCliCaptured(args, { env, cwd: scratch });
}

interface TreeNode {
  path: string;
  node: Command | CommandGroup;
}

function treeNodes(): { visible: TreeNode[]; hidden: TreeNode[] } {
  const visible: TreeNode[] = [];
  const hidden: TreeNode[] = [];
  const walk = (node: Command | CommandGroup, words: string[], isHidden: boolean): void => {
    (isHidden ? hidden : visible).push({ path: words.join(" "), node });
    if (node.kind === "group") for (const child of node.children) walk(child, [...words, child.name], isHidden || child.hidden === true);
  };
  walk(rootGroup, [rootGroup.name], false);
  return { visible, hidden };
}

const { visible, hidden } = treeNodes();
/** Every visible path below the root, e.g. `zaxy memory checkout`. */
const visiblePaths = visible.map((n) => n.path).filter((p) => p !== rootGroup.name).sort();
const hiddenPaths = hidden.map((n) => n.path);

function commandAt(commandPath: string): Command {
  const found = visible.find((n) => n.path === commandPath)?.node;
  assert.ok(found !== undefined && found.kind === "command", `${commandPath} is a visible command in the tree`);
  return found;
}

/** `--name` (and `-x`) of a command's own options followed by the global ones, as dispatch merges them. */
function optionWordsOf(command: Command): string[] {
  const merged = { ...command.options };
  for (const [name, spec] of Object.entries(globalOptions)) if (!(name in merged)) merged[name] = spec;
  return Object.entries(merged).flatMap(([name, spec]) => [`--${name}`, ...(spec.short !== undefined ? [`-${spec.short}`] : [])]);
}

function installed(program: string): boolean {
  return spawnSync(program, ["--version"], { stdio: "ignore" }).error === undefined;
}

async function script(shell: string): Promise<string> {
  const run = await zaxy(["completion", shell]);
  assert.equal(run.code, 0);
  assert.equal(run.err, "");
  return run.out;
}

function writeScript(name: string, text: string): string {
  const file = path.join(scratch, name);
  fs.writeFileSync(file, text);
  return file;
}

/** `case` entries of one table function in a bash or zsh script: key → the rest of the line(s). */
function caseTable(text: string, fn: string, keyPattern: RegExp): Map<string, string> {
  const start = text.indexOf(`${fn}() {`);
  assert.ok(start >= 0, `${fn} is defined`);
  const body = text.slice(start, text.indexOf("\n}\n", start));
  const table = new Map<string, string>();
  let key: string | undefined;
  for (const line of body.split("\n")) {
    const match = keyPattern.exec(line);
    if (match !== null) {
      key = match[1];
      table.set(key, match[2] ?? "");
    } else if (key !== undefined && line.trim() !== "" && !/^\s*(esac|\(\*\))/.test(line)) {
      table.set(key, `${table.get(key)} ${line.trim()}`);
    }
  }
  return table;
}

function bashWordTable(text: string): Map<string, string[]> {
  const table = caseTable(text, "_zaxy_words", /^ {4}"([^"]+)"\) echo "([^"]*)" ;;$/);
  return new Map([...table].map(([key, words]) => [key, words.split(" ")]));
}

/** The names in a zsh `reply=('name:description' ...)` list. */
function zshNames(rest: string): string[] {
  return [...rest.matchAll(/'((?:[^']|'\\'')*)'/g)].map((m) => m[1].split(/(?<!\\):/)[0]);
}

/** Sources the bash script, sets COMP_WORDS/COMP_CWORD (the last word is the one completed), runs _zaxy. */
function bashComplete(file: string, words: string[], cwd = scratch): string[] {
  const quoted = words.map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(" ");
  const run = spawnSync("bash", ["-c", `source '${file}'; COMP_WORDS=(${quoted}); COMP_CWORD=${words.length - 1}; _zaxy; printf '%s\\n' "\${COMPREPLY[@]}"`], {
    cwd,
    encoding: "utf8",
  });
  assert.equal(run.stderr, "");
  assert.equal(run.status, 0);
  return run.stdout.split("\n").filter((line) => line !== "");
}

test("zaxy completion bash lists every visible command path in its word table and no hidden one", async () => {
  const text = await script("bash");
  const table = bashWordTable(text);
  const listed = [...table].flatMap(([key, words]) => words.map((word) => `${key} ${word}`)).sort();
  assert.deepEqual(listed, visiblePaths);
  for (const hiddenPath of hiddenPaths) assert.ok(!listed.includes(hiddenPath), `${hiddenPath} is hidden`);
  assert.match(text, /^_zaxy\(\) \{$/m);
  assert.match(text, /^complete -F _zaxy zaxy$/m);
});

test("zaxy completion bash offers each command's own options and the global ones", async () => {
  const options = caseTable(await script("bash"), "_zaxy_options", /^ {4}"([^"]+)"\) echo "([^"]*)" ;;$/);
  for (const commandPath of ["zaxy memory checkout", "zaxy verify"]) {
    assert.deepEqual(options.get(commandPath)?.split(" "), optionWordsOf(commandAt(commandPath)), commandPath);
  }
  assert.deepEqual([...options.keys()].sort(), [rootGroup.name, ...visiblePaths].sort());
});

test("bash -n accepts the bash script, and sourced it completes words, options and values", async () => {
  const file = writeScript("zaxy.bash", await script("bash"));
  const check = spawnSync("bash", ["-n", file], { encoding: "utf8" });
  assert.equal(check.stderr, "");
  assert.equal(check.status, 0);

  assert.ok(bashComplete(file, ["zaxy", "mem"]).includes("memory"));
  const checkout = commandAt("zaxy memory checkout");
  const longOptions = optionWordsOf(checkout).filter((w) => w.startsWith("--"));
  assert.deepEqual(bashComplete(file, ["zaxy", "memory", "checkout", "--"]).sort(), [...longOptions].sort());
  // Options before the command words do not stop the walk; a value option skips its value.
  assert.ok(bashComplete(file, ["zaxy", "--eventloom-path", "somewhere", "memory", "che"]).includes("checkout"));

  // A choice option offers its choices (read from its valueName), a FILE option file names.
  const [choiceCommand, choiceOption, choices] = (() => {
    for (const n of visible) {
      if (n.node.kind !== "command") continue;
      for (const [name, spec] of Object.entries(n.node.options)) {
        if (spec.type === "string" && spec.valueName?.includes("|")) return [n.path, name, spec.valueName.split("|")] as const;
      }
    }
    throw new Error("no choice option in the tree");
  })();
  assert.deepEqual(bashComplete(file, [...choiceCommand.split(" "), `--${choiceOption}`, ""]), choices);
  const fileOption = (() => {
    for (const n of visible) {
      if (n.node.kind !== "command") continue;
      for (const [name, spec] of Object.entries(n.node.options)) if (spec.valueName === "FILE") return [n.path, name] as const;
    }
    throw new Error("no FILE option in the tree");
  })();
  const dir = fs.mkdtempSync(path.join(scratch, "files-"));
  fs.writeFileSync(path.join(dir, "report-one.json"), "{}");
  fs.writeFileSync(path.join(dir, "report-two.json"), "{}");
  assert.deepEqual(bashComplete(file, [...fileOption[0].split(" "), `--${fileOption[1]}`, "rep"], dir).sort(), ["report-one.json", "report-two.json"]);

  // `help` walks the tree again; `completion` offers the shells.
  assert.ok(bashComplete(file, ["zaxy", "help", "memory", "che"]).includes("checkout"));
  assert.deepEqual(bashComplete(file, ["zaxy", "completion", ""]), ["bash", "zsh", "fish"]);
  for (const hiddenPath of hiddenPaths) {
    const words = hiddenPath.split(" ");
    assert.ok(!bashComplete(file, [...words.slice(0, -1), ""]).includes(words[words.length - 1]), `${hiddenPath} is not offered`);
  }
});

test("zaxy completion zsh lists every visible command path with its options, and zsh accepts it", async () => {
  const text = await script("zsh");
  assert.match(text, /^#compdef zaxy$/m);
  const words = caseTable(text, "_zaxy_words", /^ {4}\('([^']+)'\)$/);
  const listed = [...words].flatMap(([key, rest]) => zshNames(rest).map((name) => `${key} ${name}`)).sort();
  assert.deepEqual(listed, visiblePaths);
  const options = caseTable(text, "_zaxy_options", /^ {4}\('([^']+)'\)$/);
  for (const commandPath of ["zaxy memory checkout", "zaxy verify"]) {
    assert.deepEqual(zshNames(options.get(commandPath) ?? ""), optionWordsOf(commandAt(commandPath)), commandPath);
  }
  if (!installed("zsh")) return;
  const file = writeScript("_zaxy", text);
  const check = spawnSync("zsh", ["-n", file], { encoding: "utf8" });
  assert.equal(check.stderr, "");
  assert.equal(check.status, 0);
  // The completion system's functions stubbed to print what they were given.
  const drive = (line: string[]) => {
    const quoted = line.map((w) => `'${w}'`).join(" ");
    const run = spawnSync("zsh", ["-f", "-c", [
      "_describe() { shift 3; print -rl -- ${(P)1%%:*} }",
      "compadd() { shift; print -rl -- $@ }",
      "_files() { print -r -- @files $@ }",
      "_message() { :; }",
      "compdef() { :; }",
      `source '${file}'`,
      `words=(${quoted}); CURRENT=${line.length}`,
      "_zaxy",
    ].join("\n")], { encoding: "utf8" });
    assert.equal(run.stderr, "");
    return run.stdout.split("\n").filter((l) => l !== "");
  };
  assert.ok(drive(["zaxy", "mem"]).includes("memory"));
  assert.deepEqual(drive(["zaxy", "memory", "checkout", "--"]), optionWordsOf(commandAt("zaxy memory checkout")));
  assert.deepEqual(drive(["zaxy", "verify", ""]), ["@files"]);
  assert.deepEqual(drive(["zaxy", "completion", ""]), ["bash", "zsh", "fish"]);
});

test("zaxy completion fish has a complete line for every visible command path and option, and fish accepts it", async () => {
  const text = await script("fish");
  const subcommands: string[] = [];
  const optionsByPath = new Map<string, string[]>();
  for (const line of text.split("\n")) {
    const match = /^complete -c zaxy(?: -n '__zaxy_at (?:"([^"]+)"|(\S+))')?(.*)$/.exec(line);
    if (match === null) continue;
    const at = match[1] ?? match[2] ?? "*";
    const word = / -a ([a-z0-9-]+) -d /.exec(match[3]);
    if (word !== null) subcommands.push(`${at} ${word[1]}`);
    const long = / -l ([a-z0-9-]+)/.exec(match[3]);
    if (long !== null) optionsByPath.set(at, [...(optionsByPath.get(at) ?? []), `--${long[1]}`]);
  }
  assert.deepEqual(subcommands.sort(), visiblePaths);
  const everywhere = optionsByPath.get("*") ?? [];
  for (const commandPath of ["zaxy memory checkout", "zaxy verify"]) {
    const offered = new Set([...(optionsByPath.get(commandPath) ?? []), ...everywhere]);
    for (const word of optionWordsOf(commandAt(commandPath)).filter((w) => w.startsWith("--"))) assert.ok(offered.has(word), `${commandPath} ${word}`);
  }
  if (!installed("fish")) return;
  const file = writeScript("zaxy.fish", text);
  const check = spawnSync("fish", ["--no-execute", file], { encoding: "utf8" });
  assert.equal(check.stderr, "");
  assert.equal(check.status, 0);
  const drive = (line: string) => {
    const run = spawnSync("fish", ["--no-config", "-c", `source '${file}'; complete -C '${line}'`], { encoding: "utf8", cwd: scratch });
    assert.equal(run.stderr, "");
    return run.stdout.split("\n").filter((l) => l !== "").map((l) => l.split("\t")[0]);
  };
  assert.ok(drive("zaxy mem").includes("memory"));
  const offered = drive("zaxy memory checkout --");
  for (const word of optionWordsOf(commandAt("zaxy memory checkout")).filter((w) => w.startsWith("--"))) assert.ok(offered.includes(word), word);
  assert.deepEqual(drive("zaxy completion ").sort(), ["bash", "fish", "zsh"]);
});

test("zaxy completion --json carries the script under zaxy.completion.v1", async () => {
  const run = await zaxy(["completion", "fish", "--json"]);
  assert.equal(run.code, 0);
  assert.equal(run.err, "");
  assert.deepEqual(JSON.parse(run.out), { schema: "zaxy.completion.v1", shell: "fish", script: await script("fish") });
});

test("zaxy completion powershell exits 2 naming bash, zsh and fish", async () => {
  const run = await zaxy(["completion", "powershell"]);
  assert.equal(run.code, ExitCode.badInput);
  assert.equal(run.out, "");
  assert.equal(run.err, 'zaxy completion: unknown shell "powershell" (valid: bash, zsh, fish)\n');
  const json = await zaxy(["completion", "powershell", "--json"]);
  assert.equal(json.code, ExitCode.badInput);
  assert.equal(JSON.parse(json.out).error.code, "usage");
  assert.equal((await zaxy(["completion"])).code, ExitCode.badInput);
});

test("zaxy help COMMAND prints what zaxy COMMAND --help prints", async () => {
  for (const words of [["memory", "checkout"], ["memory"], [], ["verify"]]) {
    const viaHelp = await zaxy(["help", ...words]);
    const viaFlag = await zaxy([...words, "--help"]);
    assert.equal(viaHelp.code, 0);
    assert.equal(viaHelp.err, "");
    assert.equal(viaHelp.out, viaFlag.out, words.join(" "));
  }
  const json = await zaxy(["help", "verify", "--json"]);
  assert.deepEqual(JSON.parse(json.out), { schema: "zaxy.help.v1", command: "zaxy verify", format: "text", text: (await zaxy(["verify", "--help"])).out });
});

test("zaxy help with a word that is neither a command nor a topic exits 2 naming the valid commands", async () => {
  const run = await zaxy(["help", "nope"]);
  assert.equal(run.code, ExitCode.badInput);
  assert.equal(run.out, "");
  const valid = rootGroup.children.filter((c) => !c.hidden).map((c) => c.name).join(", ");
  assert.equal(run.err, `zaxy help: unknown command or topic "nope" (commands: ${valid}; topics: 'zaxy help topics')\n`);
  // Below the first word, only commands: a topic is one word.
  assert.match((await zaxy(["help", "memory", "nope"])).err, /^zaxy help: unknown command "nope" under zaxy memory \(valid: /);
  assert.equal((await zaxy(["help", "verify", "extra"])).code, ExitCode.badInput);
  assert.equal((await zaxy(["help", "memory", "--man"])).code, ExitCode.badInput);
});

/** Request names a line of the page may start with. */
const manMacros = new Set(['\\"', "TH", "SH", "SS", "TP", "PP", "RS", "RE", "nf", "fi", "br"]);

function unescapeRoff(text: string): string {
  return text.replace(/\\f[BIR]/g, "").replace(/\\-/g, "-").replace(/\\e/g, "\\").replace(/\\&/g, "").replace(/^"|"$/g, "");
}

test("zaxy help --man has the sections and a .SS entry for every visible command, and only known requests", async () => {
  const run = await zaxy(["help", "--man"]);
  assert.equal(run.code, 0);
  assert.equal(run.err, "");
  const lines = run.out.split("\n");
  const sections = lines.filter((l) => l.startsWith(".SH ")).map((l) => l.slice(4));
  assert.deepEqual(sections, ["NAME", "SYNOPSIS", "DESCRIPTION", "GLOBAL OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "SEE ALSO"]);
  const entries = lines.filter((l) => l.startsWith(".SS ")).map((l) => unescapeRoff(l.slice(4)));
  assert.deepEqual([...entries].sort(), visiblePaths);
  for (const hiddenPath of hiddenPaths) assert.ok(!entries.includes(hiddenPath));
  for (const line of lines) {
    if (line.startsWith(".")) assert.ok(manMacros.has(line.slice(1).split(" ")[0]), `unexpected request: ${line}`);
    assert.ok(!line.startsWith("'"), `a line starts with a quote: ${line}`);
    assert.ok(!/[^\x00-\x7f]/.test(line), `a line is not ASCII: ${line}`);
  }
  // Each option of a command is a .TP entry under that command's .SS.
  const checkoutAt = lines.indexOf('.SS "zaxy memory checkout"');
  const nextEntry = lines.findIndex((l, i) => i > checkoutAt && l.startsWith(".SS "));
  const terms = lines.slice(checkoutAt, nextEntry).filter((_, i, all) => all[i - 1] === ".TP").map(unescapeRoff);
  for (const name of Object.keys(commandAt("zaxy memory checkout").options)) {
    assert.ok(terms.some((t) => t.split(" ").includes(`--${name}`)), `--${name} has a .TP entry`);
  }
  // The exit codes are ExitCode's.
  const exitAt = lines.indexOf(".SH EXIT STATUS");
  const codes = lines.slice(exitAt, lines.indexOf(".SH ENVIRONMENT")).filter((_, i, all) => all[i - 1] === ".TP").map(unescapeRoff);
  assert.deepEqual(codes, Object.values(ExitCode).map(String));
  assert.ok(lines.some((l) => unescapeRoff(l) === "EVENTLOOM_PATH"));
});

test("the man page renders without warnings in groff and mandoc", async (t) => {
  const file = writeScript("zaxy.1", (await zaxy(["help", "--man"])).out);
  if (!installed("groff") && !installed("mandoc")) {
    t.skip("neither groff nor mandoc is installed");
    return;
  }
  if (installed("groff")) {
    const run = spawnSync("groff", ["-man", "-Tutf8", "-ww", "-z", file], { encoding: "utf8" });
    assert.equal(run.stderr, "");
    assert.equal(run.status, 0);
  }
  if (installed("mandoc")) {
    const run = spawnSync("mandoc", ["-Tlint", "-W", "warning", file], { encoding: "utf8" });
    assert.equal(run.stdout + run.stderr, "");
  }
});

test("zaxy completion and zaxy help work beside a bad Eventloom root (they never read one)", async () => {
  const file = path.join(scratch, "root-is-a-file");
  fs.writeFileSync(file, "");
  const completion = await zaxy(["completion", "bash", "--eventloom-path", file]);
  assert.equal(completion.code, 0, completion.err);
  assert.match(completion.out, /complete -F _zaxy zaxy/);
  const help = await zaxy(["help", "verify", "--eventloom-path", file]);
  assert.equal(help.code, 0, help.err);
  const verify = await zaxy(["verify", "--eventloom-path", file]);
  assert.equal(verify.code, 2, "a command that reads the root still refuses it");
});
