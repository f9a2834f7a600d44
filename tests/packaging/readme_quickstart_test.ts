/**
 * The README's first screen stays true: its step 2 runs as written (with zaxy in place of the
 * `zaxy` on PATH) and its `mcpServers` block, pointed at that memory, hands an agent the decision
 * with its citation over MCP, as the text after it promises. The README and the guides speak to
 * users: no words about how the project's work was organised.
 */
import { after, describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { repoRoot, runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { skipWithoutBinary, startMcpServer } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);

const readme = fs.readFileSync(path.join(repoRoot, "README.md"), "utf8");

/** The fenced blocks of the "## Quickstart" section, in order. */
function quickstartBlocks(): { lang: string; body: string }[] {
  const start = readme.indexOf("## Quickstart\n");
  assert.ok(start >= 0, "README has a Quickstart section");
  const end = readme.indexOf("\n## ", start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  return [...section.matchAll(/```(\w*)\n([\s\S]*?)```/g)].map((m) => ({ lang: m[1], body: m[2] }));
}

/** `zaxy ...` command lines of step 2, as argument vectors (single-quoted JSON kept whole). */
function stepTwoCommands(shellBlock: string): string[][] {
  const step = shellBlock.slice(shellBlock.indexOf("# 2."));
  const commands: string[][] = [];
  for (const rawLine of step.split("\n").slice(1)) {
    // A trailing "# ..." is a comment; the payload's quotes never hold one.
    const line = rawLine.replace(/\s+#\s.*$/, "").trim();
    for (const part of line.split("&&").map((p) => p.trim())) {
      if (!part.startsWith("zaxy ")) continue;
      const words = [...part.slice(5).matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
      commands.push(words);
    }
  }
  return commands;
}

describe("README quickstart", () => {
  test("the first screen is the quickstart: a shell block with the install, record and ask steps, then an mcpServers block", () => {
    const blocks = quickstartBlocks();
    assert.equal(blocks[0].lang, "sh");
    assert.match(blocks[0].body, /npm install && npm start/);
    assert.match(blocks[0].body, /zaxy memory checkout /);
    const json = blocks.find((block) => block.lang === "json");
    assert.ok(json !== undefined, "an mcpServers JSON block");
    const config = JSON.parse(json.body);
    assert.deepEqual(Object.keys(config), ["mcpServers"]);
    assert.equal(config.mcpServers.zaxy.args[0], "serve");
    // The quickstart sits on the first screen: before line 60.
    assert.ok(readme.slice(0, readme.indexOf("## Quickstart")).split("\n").length < 20);
    assert.ok(readme.indexOf(json.body) < readme.split("\n").slice(0, 60).join("\n").length, "the MCP block is on the first screen");
  });

  test("step 2 runs as written and its checkout cites the decision", () => {
    const cwd = makeTempDir("zaxy-readme-");
    const commands = stepTwoCommands(quickstartBlocks()[0].body);
    assert.deepEqual(commands.map((c) => c.slice(0, 2).join(" ")), ["init", "memory append", "memory checkout", "verify"]);
    const outputs = commands.map((args) => {
      const run = runZaxy(args, { cwd });
      assert.equal(run.code, 0, `zaxy ${args.join(" ")}: ${run.stderr}`);
      return run.stdout;
    });
    assert.match(outputs[2], /Release from main, tagged v1\.2\.0/);
    assert.match(outputs[2], /eventloom:\/\/default\/events\/1#[0-9a-f]{12}/);
  });

  test("the mcpServers block's server hands an agent the decision with its citation", { skip: skipWithoutBinary }, async () => {
    const cwd = makeTempDir("zaxy-readme-mcp-");
    const commands = stepTwoCommands(quickstartBlocks()[0].body);
    for (const args of commands.slice(0, 2)) assert.equal(runZaxy(args, { cwd }).code, 0);
    const json = quickstartBlocks().find((block) => block.lang === "json")!;
    const serveArgs: string[] = JSON.parse(json.body).mcpServers.zaxy.args;
    assert.equal(serveArgs[1], "--eventloom-path");
    // The README's server, with its root in this test's directory (the block's /home/me path).
    const mcp = await startMcpServer(path.join(cwd, ".eventloom"), { profile: null, args: serveArgs.slice(3) });
    try {
      const question = /Use memory_checkout: (.+?)"\*/.exec(readme)?.[1];
      assert.equal(question, "which branch do we release from?");
      const doc = await mcp.callOk("memory_checkout", { query: question });
      const text = JSON.stringify(doc);
      assert.match(text, /Release from main, tagged v1\.2\.0/);
      assert.match(text, /eventloom:\/\/default\/events\/1#[0-9a-f]{12}/);
    } finally {
      await mcp.close();
    }
  });

  test("README and the guides speak to users: no words about issues, stops or sessions of work", () => {
    const files = ["README.md", ...fs.readdirSync(path.join(repoRoot, "docs")).filter((f) => f.endsWith(".md")).map((f) => `docs/${f}`)];
    const processWords = /\bissue\s+#?\d+|\b(this|last|previous|next) stop\b|\bstop \d+\b|\bthis stop's\b|\bhelpers?\b.*\bbranch\b/i;
    const offending = files.flatMap((file) =>
      fs.readFileSync(path.join(repoRoot, file), "utf8").split("\n").flatMap((line, i) => (processWords.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    assert.deepEqual(offending, []);
  });
});
