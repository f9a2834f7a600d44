/**
 * A key given twice in one JSON object (`{"n":1,"n":2}`) used to be stored as its last value,
 * silently. `--payload-json`, `--payload-file`, stdin payloads and ingest lines refuse it with
 * exit 2 naming the key, and nothing is written. A stored line with a duplicate key (Python's
 * json.loads reads it as the last value) still verifies.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { refused } from "./refusedRun.ts";
import { writeSealedLog } from "./sealedLogFixture.ts";

after(removeTempDirs);

describe("duplicate keys in JSON input", () => {
  test("memory append refuses a duplicate payload key from --payload-json, --payload-file and stdin", () => {
    const dir = makeTempDir("duplicate-keys");
    const z = (args: string[], input?: string) => runZaxy(args, { cwd: dir, input });
    const log = path.join(dir, ".eventloom", "default.jsonl");
    refused(z(["memory", "append", "note.added", "--actor", "a", "--payload-json", '{"n":1,"n":2}']), /--payload-json gives key "n" twice in one object; each key may appear once/, "flag");
    fs.writeFileSync(path.join(dir, "p.json"), '{"outer":{"k":"a","k":"b"}}');
    refused(z(["memory", "append", "note.added", "--actor", "a", "--payload-file", "p.json"]), /--payload-file gives key "k" twice/, "file, nested");
    refused(z(["memory", "append", "note.added", "--actor", "a"], '{"n":1,"n":1}'), /stdin payload gives key "n" twice/, "stdin");
    assert.equal(fs.existsSync(log), false, "nothing was written");
  });

  test("memory ingest refuses a line with a duplicate key, naming the line and key", () => {
    const dir = makeTempDir("duplicate-keys-ingest");
    const input = '{"event_type":"note.added","actor":"a","payload":{"n":1}}\n{"event_type":"note.added","actor":"a","payload":{"n":1,"n":2}}\n';
    refused(runZaxy(["memory", "ingest", "-"], { cwd: dir, input }), /line 2 gives key "n" twice in one object/, "ingest");
    assert.equal(fs.existsSync(path.join(dir, ".eventloom", "default.jsonl")), false, "nothing was written");
  });

  test("a stored line with a duplicate key still verifies", () => {
    const dir = makeTempDir("duplicate-keys-existing");
    const root = path.join(dir, ".eventloom");
    writeSealedLog(root, "default", [{ type: "note.added", actor: "a", payload: { n: 2 } }]);
    // The hash covers the parsed line, where a repeated key holds its last value (Python's reading).
    const log = path.join(root, "default.jsonl");
    const line = fs.readFileSync(log, "utf8");
    assert.ok(line.includes('"payload":{"n":2}'));
    fs.writeFileSync(log, line.replace('"payload":{"n":2}', '"payload":{"n":1,"n":2}'));
    const verify = runZaxy(["verify", "--json"], { cwd: dir });
    assert.equal(verify.code, 0, verify.stderr);
  });
});
