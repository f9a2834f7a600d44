/**
 * `zaxy help TOPIC`: the guides of docs/ printed by the CLI, from source (the repository's docs/)
 * and from the built binary run in an empty directory (the copies embedded at build time), so an
 * installed zaxy can show what its messages point at. A topic never hides a command's help, and
 * every `zaxy help ...` a message or help text names resolves.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { commandNamedTopics } from "../../src/cli/docTopics.ts";
import { rootGroup } from "../../src/cli/root.ts";
import { ExitCode } from "../../src/errors.ts";
import { runCliCaptured } from "./inProcess.ts";

const repoRoot = fileURLToPath(new URL("../../", import.meta.url));
const docsDir = path.join(repoRoot, "docs");
const guideNames = fs.readdirSync(docsDir).filter((name) => name.endsWith(".md")).map((name) => name.slice(0, -3)).sort();
const commandNames = rootGroup.children.map((c) => c.name);
const guide = (name: string) => fs.readFileSync(path.join(docsDir, `${name}.md`), "utf8");

describe("zaxy help TOPIC from source", () => {
  test("zaxy help events prints docs/events.md; --json carries it as markdown", async () => {
    const run = await runCliCaptured(["help", "events"]);
    assert.equal(run.code, 0, run.err);
    assert.equal(run.err, "");
    assert.equal(run.out, guide("events"));
    assert.match(run.out, /^# Event types\n/);
    const json = await runCliCaptured(["help", "events", "--json"]);
    assert.deepEqual(JSON.parse(json.out), { schema: "zaxy.help.v1", topic: "events", format: "markdown", text: guide("events") });
  });

  test("a command's name stays the command's help; its guide is --topic", async () => {
    for (const name of commandNamedTopics) {
      const viaHelp = await runCliCaptured(["help", name]);
      assert.equal(viaHelp.out, (await runCliCaptured([name, "--help"])).out, name);
      const topic = await runCliCaptured(["help", "--topic", name]);
      assert.equal(topic.code, 0, topic.err);
      assert.equal(topic.out, guide(name));
    }
  });

  test("commandNamedTopics is exactly the guides named like a top-level command", () => {
    assert.deepEqual([...commandNamedTopics].sort(), guideNames.filter((name) => commandNames.includes(name)));
  });

  test("zaxy help topics and --topics list every guide with its first heading", async () => {
    const listed = await runCliCaptured(["help", "topics"]);
    assert.equal(listed.code, 0, listed.err);
    assert.equal((await runCliCaptured(["help", "--topics"])).out, listed.out);
    for (const name of guideNames) assert.match(listed.out, new RegExp(`^${name} +\\S`, "m"), name);
    assert.match(listed.out, /^hooks +Git hooks.*\(zaxy help --topic hooks\)$/m);
    const json = JSON.parse((await runCliCaptured(["help", "topics", "--json"])).out);
    assert.equal(json.schema, "zaxy.help.topics.v1");
    assert.deepEqual(json.topics.map((t: { name: string }) => t.name), guideNames);
    assert.deepEqual(json.topics.find((t: { name: string }) => t.name === "events"), { name: "events", title: "Event types", command: "zaxy help events" });
  });

  test("an unknown topic exits 2 with a did-you-mean and prints nothing on stdout", async () => {
    const typo = await runCliCaptured(["help", "--topic", "evnts"]);
    assert.deepEqual(typo, { code: ExitCode.badInput, out: "", err: 'zaxy help: unknown topic "evnts"; did you mean "events"?\n' });
    const far = await runCliCaptured(["help", "--topic", "zzzzzz"]);
    assert.equal(far.code, ExitCode.badInput);
    assert.equal(far.err, "zaxy help: unknown topic \"zzzzzz\" (list them with 'zaxy help topics')\n");
    // "hooks" is a command and a guide: still one suggestion.
    assert.equal((await runCliCaptured(["help", "hoks"])).err, 'zaxy help: unknown command or topic "hoks"; did you mean "hooks"?\n');
    const json = await runCliCaptured(["help", "evnts", "--json"]);
    assert.equal(json.code, ExitCode.badInput);
    assert.equal(JSON.parse(json.out).error.code, "usage");
  });

  test("a topic takes no further words, and --topic no COMMAND", async () => {
    assert.equal((await runCliCaptured(["help", "events", "extra"])).code, ExitCode.badInput);
    assert.equal((await runCliCaptured(["help", "--topic", "events", "verify"])).code, ExitCode.badInput);
    assert.equal((await runCliCaptured(["help", "--topic", "events", "--topics"])).code, ExitCode.badInput);
  });

  test("every 'zaxy help ...' that src/ names resolves to a command or a guide", () => {
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const file = path.join(dir, entry.name);
        if (entry.isDirectory() && entry.name !== "generated") walk(file);
        else if (entry.name.endsWith(".ts")) files.push(file);
      }
    };
    walk(path.join(repoRoot, "src"));
    let seen = 0;
    for (const file of files) {
      for (const match of fs.readFileSync(file, "utf8").matchAll(/zaxy help (--topic )?([a-z][a-z0-9-]*)/g)) {
        const [, topicFlag, word] = match;
        const where = `${path.relative(repoRoot, file)}: ${match[0]}`;
        seen++;
        if (topicFlag !== undefined) assert.ok(guideNames.includes(word), where);
        else assert.ok(commandNames.includes(word) || guideNames.includes(word) || word === "topics", where);
      }
    }
    assert.ok(seen > 20, `only ${seen} references found`);
  });
});

const builtBinary = path.join(repoRoot, "dist", "zaxy");
const skipBinary = fs.existsSync(builtBinary) ? false : `${builtBinary} does not exist; build it with node_modules/.bin/bun build.ts`;

describe("zaxy help TOPIC from the built binary in an empty directory", { skip: skipBinary }, () => {
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-help-topics-"));
  after(() => fs.rmSync(workDir, { recursive: true, force: true }));
  const run = (...args: string[]) => {
    const result = spawnSync(builtBinary, args, { cwd: workDir, encoding: "utf8", env: { PATH: process.env.PATH ?? "/usr/bin:/bin", TMPDIR: workDir } });
    return { code: result.status, out: result.stdout, err: result.stderr };
  };

  test("the working directory has no docs/", () => {
    assert.equal(fs.existsSync(path.join(workDir, "docs")), false);
  });

  test("zaxy help events prints the guide's first heading and the guide as built", () => {
    const events = run("help", "events");
    assert.equal(events.code, 0, events.err);
    assert.equal(events.err, "");
    assert.equal(events.out.split("\n")[0], "# Event types");
    assert.equal(events.out, guide("events"));
  });

  test("zaxy help --topic hooks, topics and an unknown topic", () => {
    assert.equal(run("help", "--topic", "hooks").out, guide("hooks"));
    const topics = run("help", "topics", "--json");
    assert.equal(topics.code, 0, topics.err);
    assert.deepEqual(JSON.parse(topics.out).topics.map((t: { name: string }) => t.name), guideNames);
    const unknown = run("help", "evnts");
    assert.deepEqual(unknown, { code: ExitCode.badInput, out: "", err: 'zaxy help: unknown command or topic "evnts"; did you mean "events"?\n' });
  });
});
