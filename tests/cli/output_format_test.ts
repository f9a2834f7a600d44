/**
 * `--ndjson` and `--json` are two output formats: every command that has `--ndjson` refuses the
 * pair as a usage error (exit 2) naming both flags, before it reads anything, in either order.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import type { Command, CommandGroup } from "../../src/cli/command.ts";
import { rootGroup } from "../../src/cli/root.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runCliCaptured } from "./inProcess.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

/** The word paths of every command in the tree that takes `--ndjson`. */
function ndjsonCommands(node: Command | CommandGroup, words: string[] = []): string[][] {
  if (node.kind === "group") return node.children.flatMap((child) => ndjsonCommands(child, [...words, child.name]));
  return node.options.ndjson !== undefined ? [words] : [];
}

describe("--ndjson with --json", () => {
  test("the commands with --ndjson are replay, memory log, memory query and compact", () => {
    assert.deepEqual(ndjsonCommands(rootGroup).map((words) => words.join(" ")).sort(), ["compact", "memory log", "memory query", "replay"]);
  });

  test("every command with --ndjson refuses it together with --json, in either order", async () => {
    const dir = makeTempDir("ndjson-json");
    for (const words of ndjsonCommands(rootGroup)) {
      for (const flags of [["--ndjson", "--json"], ["--json", "--ndjson"]]) {
        const run = await runCliCaptured([...words, ...flags], { cwd: dir });
        const label = [...words, ...flags].join(" ");
        assert.equal(run.code, 2, label);
        assert.equal(run.err, "", label);
        assert.deepEqual(JSON.parse(run.out), {
          error: { code: "usage", message: `zaxy ${words.join(" ")}: --ndjson and --json are two output formats; give one`, field: "--ndjson" },
        }, label);
      }
    }
  });

  test("zaxy memory log --ndjson --json exits 2 with one JSON error naming both flags; without --json the text error is on stderr", () => {
    const dir = makeTempDir("ndjson-json");
    const run = runZaxy(["memory", "log", "--ndjson", "--json"], { cwd: dir });
    assert.equal(run.code, 2);
    assert.equal(run.stderr, "");
    assert.equal(run.stdout, '{"error":{"code":"usage","message":"zaxy memory log: --ndjson and --json are two output formats; give one","field":"--ndjson"}}\n');
    const alone = runZaxy(["memory", "log", "--ndjson"], { cwd: dir });
    assert.equal(alone.code, 2, "an unknown session is still exit 2, but for its own reason");
    assert.doesNotMatch(alone.stderr, /two output formats/);
  });
});
