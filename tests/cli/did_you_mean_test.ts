/**
 * A mistyped command word or long option is a usage error (exit 2) that names the one known name
 * it is a typo of, when one is close; otherwise the valid names or --help, as before.
 */
import assert from "node:assert/strict";
import { after, describe, test } from "node:test";
import { closestName, closestOption } from "../../src/cli/didYouMean.ts";
import { editDistance } from "../../src/editDistance.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines } from "./zaxy.ts";

after(removeTempDirs);

describe("editDistance", () => {
  test("counts insertions, deletions, substitutions and adjacent transpositions as one edit each", () => {
    assert.equal(editDistance("memory", "memory"), 0);
    assert.equal(editDistance("memroy", "memory"), 1);
    assert.equal(editDistance("limt", "limit"), 1);
    assert.equal(editDistance("limits", "limit"), 1);
    assert.equal(editDistance("lomit", "limit"), 1);
    assert.equal(editDistance("", "log"), 3);
    assert.equal(editDistance("frob", "memory"), 5);
  });
});

describe("closestName", () => {
  const commands = ["init", "config", "verify", "replay", "memory", "serve", "store", "help"];

  test("suggests the one name within two edits", () => {
    assert.equal(closestName("memroy", commands), "memory");
    assert.equal(closestName("veryfy", commands), "verify");
    assert.equal(closestName("MEMORY", commands), "memory");
  });

  test("suggests the one name a word is the start of", () => {
    assert.equal(closestName("repl", commands), "replay");
    assert.equal(closestName("mem", commands), "memory");
  });

  test("suggests nothing for a far word, an ambiguous one, a known one or a one-letter start", () => {
    assert.equal(closestName("frob", commands), undefined);
    assert.equal(closestName("sore", ["store", "score"]), undefined); // one edit from both
    assert.equal(closestName("s", commands), undefined);
    assert.equal(closestName("memory", commands), undefined);
    assert.equal(closestName("", commands), undefined);
  });

  test("a word of three characters or fewer is a typo at one edit, not two", () => {
    assert.equal(closestName("lgo", ["log", "init"]), "log");
    assert.equal(closestName("ab", ["log"]), undefined);
  });
});

describe("closestOption", () => {
  const options = { limit: { aliases: ["max-results"] }, json: {}, "agent-id": { aliases: ["agent"] } };

  test("suggests the long option, as the flag, with or without a value", () => {
    assert.equal(closestOption("--limt", options), "--limit");
    assert.equal(closestOption("--limt=3", options), "--limit");
    assert.equal(closestOption("--jsno", options), "--json");
  });

  test("an older spelling that is close suggests the option's name", () => {
    assert.equal(closestOption("--max-result", options), "--limit");
    assert.equal(closestOption("--agnet", options), "--agent-id");
  });

  test("a short flag or a far one gets no suggestion", () => {
    assert.equal(closestOption("-x", options), undefined);
    assert.equal(closestOption("--bogus", options), undefined);
  });
});

describe("zaxy with a mistyped word", () => {
  const usage = (args: string[], stderr: string) => {
    const dir = makeTempDir("did-you-mean");
    const run = runZaxy(args, { cwd: dir });
    assert.equal(run.code, 2, args.join(" "));
    assert.equal(run.stdout, "");
    assert.equal(run.stderr, stderr);
    assert.deepEqual(stackTraceLines(run.stderr), []);
    const asJson = runZaxy([...args, "--json"], { cwd: dir });
    assert.equal(asJson.code, 2);
    assert.deepEqual(JSON.parse(asJson.stdout), { error: { code: "usage", message: stderr.trimEnd() } });
  };

  test("a command typo names the command it is close to", () => {
    usage(["memroy"], 'zaxy: unknown command "memroy"; did you mean "memory"?\n');
    usage(["memory", "lgo"], 'zaxy memory: unknown command "lgo"; did you mean "log"?\n');
    usage(["help", "memroy"], 'zaxy help: unknown command or topic "memroy"; did you mean "memory"?\n');
    usage(["help", "evnts"], 'zaxy help: unknown command or topic "evnts"; did you mean "events"?\n');
  });

  test("an option typo names the option it is close to", () => {
    usage(["memory", "query", "x", "--limt", "3"], 'zaxy memory query: unknown option "--limt"; did you mean "--limit"?\n');
    usage(["memory", "query", "x", "--limt=3"], 'zaxy memory query: unknown option "--limt"; did you mean "--limit"?\n');
    usage(["--verison"], 'zaxy: unknown option "--verison"; did you mean "--version"?\n');
  });

  test("a word close to nothing still lists the valid commands or points to --help", () => {
    const dir = makeTempDir("did-you-mean");
    const frob = runZaxy(["frob"], { cwd: dir });
    assert.equal(frob.code, 2);
    assert.match(frob.stderr, /^zaxy: unknown command "frob" \(valid: init, config, verify, replay, memory, /);
    usage(["memory", "query", "x", "--bogus"], 'zaxy memory query: unknown option "--bogus" (see zaxy memory query --help)\n');
  });
});
