/**
 * Library errors name a field by its key; the CLI shows the flag and MCP the argument name, so
 * one message never tells an MCP client about a flag it cannot pass, nor a shell user about a key.
 */
import assert from "node:assert/strict";
import { after, test } from "node:test";
import { fieldsNamedBy, inputError, ioError } from "../../src/errors.ts";
import { withCliFieldNames } from "../../src/cli/fieldNames.ts";
import { toToolError } from "../../src/mcp/errors.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "./zaxy.ts";

after(removeTempDirs);

const windowError = () => inputError("invalid_window", "`from_seq` 9 is after `to_seq` 3", { field: "from_seq" });

test("the CLI names each quoted key its command has a flag for, in the message and in field", () => {
  const named = withCliFieldNames(windowError(), { "from-seq": {}, "to-seq": {} });
  assert.ok(named instanceof Error);
  assert.equal(named.message, "--from-seq 9 is after --to-seq 3");
  assert.equal((named as ReturnType<typeof windowError>).details.field, "--from-seq");
  assert.equal((named as ReturnType<typeof windowError>).exitCode, 2);
});

test("a key the command has no flag for keeps its name; only the field's key loses its quotes", () => {
  const named = withCliFieldNames(windowError(), {}) as ReturnType<typeof windowError>;
  assert.equal(named.message, "from_seq 9 is after `to_seq` 3");
  assert.equal(named.details.field, "from_seq");
});

test("hints, codes and non-key quotes are left as they are", () => {
  const error = ioError("write_failed", "Cannot write `output`: disk full; see `zaxy verify`", { field: "output", hint: "free `output` space" });
  const named = fieldsNamedBy(error, (key) => (key === "output" ? "--output" : undefined));
  assert.equal(named.message, "Cannot write --output: disk full; see `zaxy verify`");
  assert.equal(named.hint, "free `output` space");
  assert.equal(named.code, "write_failed");
  assert.equal(named.exitCode, 3);
});

test("MCP shows the argument names: the quotes go, the keys stay", () => {
  const tool = toToolError(windowError(), "memory_replay");
  assert.equal(tool.code, "invalid_request");
  assert.equal(tool.message, "from_seq 9 is after `to_seq` 3");
  assert.match(tool.remediation, /Correct "from_seq" and call memory_replay again/);
});

test("zaxy compact and zaxy replay name their flags in errors (exit 2, JSON field)", () => {
  const cwd = makeTempDir();
  assert.equal(runZaxy(["init", "--json"], { cwd }).code, 0);
  assert.equal(runZaxy(["memory", "append", "task.created", "--actor", "a", "--payload-json", '{"title":"one"}'], { cwd }).code, 0);
  const log = `${cwd}/.eventloom/default.jsonl`;
  const audit = runZaxy(["compact", log, "--audit", "--cluster-threshold", "1.5", "--json"], { cwd });
  assert.equal(audit.code, 2);
  const auditError = JSON.parse(audit.stdout).error;
  assert.equal(auditError.field, "--cluster-threshold");
  assert.match(auditError.message, /^--cluster-threshold must be a number in \(0, 1\)/);
  const replay = runZaxy(["replay", "--from-seq", "5", "--to-seq", "2"], { cwd });
  assert.equal(replay.code, 2);
  assert.match(replay.stderr, /--from-seq 5 is after --to-seq 2/);
});
