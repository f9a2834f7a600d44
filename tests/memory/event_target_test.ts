/**
 * Naming the target event of `zaxy memory edit`, `forget`, `rollback` and `outcome` (real CLI
 * processes) and of MCP memory_edit: by citation (`--target` / `target`), by a hash prefix of at
 * least 12 hex with or without the seq, or by seq and full hash as before. The recorded target
 * always holds the full hash; every refusal exits 2 naming the field, with no stack trace and
 * the log byte-identical.
 */
import assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { runZaxy, stackTraceLines } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer, tempEventloomRoot } from "../mcp/mcpTestClient.ts";

after(removeTempDirs);
const slow = { timeout: 300_000 };

interface Root {
  dir: string;
  log: string;
}

/** A fresh root; with forgetting on, payloads are sealed and read back through the CLI only. */
function freshRoot(label: string, forgetting = false): Root {
  const dir = makeTempDir(`zaxy-target-${label}`);
  const root = { dir, log: path.join(dir, ".eventloom", "default.jsonl") };
  if (forgetting) ok(root, ["init", "--forgetting"]);
  return root;
}

// deno-lint-ignore no-explicit-any
function ok(root: Root, args: string[], stderr: RegExp = /^$/): any {
  const run = runZaxy([...args, "--json"], { cwd: root.dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.match(run.stderr, stderr);
  return JSON.parse(run.stdout);
}

/** Exit 2, one error document naming `field`, no stack trace, log byte-identical. */
function refused(root: Root, args: string[], field: string, message: RegExp): void {
  const before = fs.readFileSync(root.log);
  const run = runZaxy([...args, "--json"], { cwd: root.dir });
  assert.equal(run.code, 2, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), []);
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.error.field, field, run.stdout);
  assert.match(doc.error.message, message);
  assert.deepEqual(fs.readFileSync(root.log), before, "log unchanged");
}

// deno-lint-ignore no-explicit-any
function lastPayload(root: Root): any {
  const lines = fs.readFileSync(root.log, "utf8").trim().split("\n");
  const payload = { ...JSON.parse(lines[lines.length - 1]).payload };
  delete payload.__zaxy_security;
  return payload;
}

function state(root: Root, key: string, value: string): { seq: number; hash: string; citation: string } {
  // The type's underscore keeps the session in legacy lines, which the first append warns about.
  const args = ["memory", "append", "user.preference_changed", "--allow-envelope-switch", "--actor", "ci", "--payload-json", JSON.stringify({ user: "ci", key, value })];
  return ok(root, args, /^(zaxy: warning: event type "user\.preference_changed" cannot be written in the eventloom\.v1 envelope[^\n]*\n)?$/);
}

const edit = (target: string[], content: string) => ["memory", "edit", ...target, "--content", content, "--reason", "was wrong"];

describe("memory edit: the target by citation, hash prefix, or seq and full hash", () => {
  let root: Root;
  let shell: { seq: number; hash: string; citation: string };
  let editor: { seq: number; hash: string; citation: string };
  before(() => {
    root = freshRoot("edit");
    shell = state(root, "shell", "bash");
    editor = state(root, "editor", "vim");
  }, slow);

  test("--target-seq with the citation's 12-hex hash corrects the event and records its full hash, as the full hash does", slow, () => {
    const prefix = shell.citation.split("#")[1];
    assert.equal(prefix.length, 12);
    const byPrefix = ok(root, edit(["--target-seq", String(shell.seq), "--target-hash", prefix], "shell=zsh"));
    assert.equal(byPrefix.corrected_citation, shell.citation);
    const recorded = lastPayload(root);
    assert.deepEqual(recorded.target, { seq: shell.seq, hash: shell.hash });
    // The id is derived from the full hash, exactly as an edit given the full hash derives it.
    const id = `correction:${crypto.createHash("sha256").update(`${shell.seq}:${shell.hash}\u001fshell=zsh`).digest("hex").slice(0, 24)}`;
    assert.equal(recorded.correction_id, id);
    // The same edit given the full hash, in a root with the same statement, records the same payload
    // but for the target's hash (the twin's event has its own timestamp) and the id derived from it.
    const twin = freshRoot("edit-twin");
    const twinShell = state(twin, "shell", "bash");
    ok(twin, edit(["--target-seq", String(twinShell.seq), "--target-hash", twinShell.hash], "shell=zsh"));
    const twinRecorded = lastPayload(twin);
    assert.deepEqual(twinRecorded.target, { seq: twinShell.seq, hash: twinShell.hash });
    assert.deepEqual({ ...twinRecorded, target: null, correction_id: null }, { ...recorded, target: null, correction_id: null });
  });

  test("--target CITATION and --target-hash alone name the event", slow, () => {
    const byCitation = ok(root, edit(["--target", editor.citation], "editor=nano"));
    assert.equal(byCitation.corrected_citation, editor.citation);
    assert.deepEqual(lastPayload(root).target, { seq: editor.seq, hash: editor.hash });
    ok(root, edit(["--target-hash", editor.hash.slice(0, 20)], "editor=emacs"));
    assert.deepEqual(lastPayload(root).target, { seq: editor.seq, hash: editor.hash });
  });

  test("refusals name the field and write nothing", slow, () => {
    const prefix = shell.hash.slice(0, 12);
    const unknown = shell.hash.startsWith("000000000000") ? "ffffffffffff" : "000000000000";
    refused(root, edit(["--target-hash", unknown], "x"), "--target-hash", new RegExp(`^No event in session "default" has a hash starting with ${unknown}$`));
    refused(root, edit(["--target-hash", prefix.slice(0, 11)], "x"), "--target-hash", /^--target-hash "[0-9a-f]{11}" has 11 hex characters; at least 12 are needed to name one event$/);
    refused(root, edit(["--target-hash", prefix.toUpperCase()], "x"), "--target-hash", /^--target-hash must be 64 lowercase hex, or a prefix of at least 12/);
    refused(root, edit(["--target", shell.citation.replace("eventloom://default/", "eventloom://other/")], "x"), "--target", /cites session "other", but this call acts on session "default"/);
    refused(root, edit(["--target-seq", String(editor.seq), "--target-hash", prefix], "x"), "--target-seq", new RegExp(`^--target-seq ${editor.seq} and --target-hash ${prefix} disagree: .* is seq ${shell.seq}$`));
    refused(root, edit(["--target", shell.citation.replace(`/events/${shell.seq}#`, `/events/${editor.seq}#`)], "x"), "--target", /does not match session "default"/);
    refused(root, edit([], "x"), "--target-hash", /^--target-hash is required, with or without --target-seq \(or --target CITATION\)$/);
    refused(root, edit(["--target-seq", "1"], "x"), "--target-hash", /^--target-hash is required with --target-seq \(or --target CITATION\)$/);
    refused(root, edit(["--target", shell.citation, "--target-hash", prefix], "x"), "--target-hash", /^Give --target or --target-seq\/--target-hash, not both/);
    refused(root, edit(["--target", "eventloom://default/events/1"], "x"), "--target", /^--target must be a citation eventloom:\/\/<session>\/events\/<seq>#<hash prefix>/);
  });
});

describe("memory forget, rollback and outcome take the same forms", () => {
  test("forget by citation and by hash prefix; rollback by hash prefix and by citation; outcome by citation; refusals write nothing", slow, () => {
    const root = freshRoot("forget", true);
    const first = state(root, "branch", "main");
    const second = state(root, "region", "eu-west-1");
    refused(root, ["memory", "forget", "--reason", "asked"], "--target-hash", /^--target-hash is required/);
    refused(root, ["memory", "forget", "--target-hash", "abc", "--reason", "asked"], "--target-hash", /at least 12 are needed/);
    const forgot = ok(root, ["memory", "forget", "--target", first.citation, "--reason", "asked"]);
    assert.deepEqual([forgot.status, forgot.target], ["forgotten", { seq: first.seq, hash: first.hash }]);
    const third = state(root, "zone", "b");
    ok(root, ["memory", "forget", "--target-hash", third.hash.slice(0, 12), "--reason", "asked"]);
    assert.deepEqual(lastPayload(root).target, { seq: third.seq, hash: third.hash });

    const corrected = ok(root, edit(["--target", second.citation], "region=us-east-1"));
    const another = ok(root, edit(["--target", second.citation], "region=ap-south-1"));
    refused(root, ["memory", "rollback", "--reason", "wrong"], "--target-hash", /^--target-hash is required, with or without --target-seq \(or --target CITATION\)$/);
    refused(root, ["memory", "rollback", "--target", corrected.citation.replace("//default/", "//elsewhere/"), "--reason", "wrong"], "--target", /cites session "elsewhere"/);
    const byPrefix = ok(root, ["memory", "rollback", "--target-hash", corrected.hash.slice(0, 12), "--reason", "wrong"]);
    assert.deepEqual(byPrefix.target, { seq: corrected.seq, hash: corrected.hash });
    const byCitation = ok(root, ["memory", "rollback", "--target", another.citation, "--reason", "wrong"]);
    assert.deepEqual(byCitation.target, { seq: another.seq, hash: another.hash });

    const outcome = ok(root, ["memory", "outcome", "success", "--summary", "held", "--target", second.citation]);
    assert.deepEqual(outcome.target, { seq: second.seq, hash: second.hash });
    refused(root, ["memory", "outcome", "success", "--summary", "held", "--target-seq", "1"], "--target-hash", /^--target-hash is required with --target-seq/);
  });
});

describe("MCP memory_edit takes a citation as target", () => {
  let mcp: McpServer;
  before(async () => {
    mcp = await startMcpServer(tempEventloomRoot("zaxy-mcp-target"), { profile: "full", clientName: "zaxy-target-test" });
  }, slow);
  after(async () => await mcp?.close());

  test("target: a citation corrects the event and records its full hash; another session's citation is invalid_request", slow, async () => {
    const stated = await mcp.callOk("memory_append", { event_type: "user.preference_changed", allow_envelope_switch: true, actor: "ci", payload: { user: "ci", key: "shell", value: "bash" } });
    const edited = await mcp.callOk("memory_edit", { target: stated.citation, new_content: "shell=zsh", reason: "typo" });
    assert.equal(edited.corrected_citation, stated.citation);
    const replay = await mcp.callOk("memory_replay", {});
    const last = replay.events[replay.events.length - 1];
    assert.deepEqual(last.payload.target, { seq: stated.seq, hash: stated.hash });
    const count = replay.events.length;
    const other = await mcp.callError("memory_edit", { target: stated.citation.replace("//default/", "//other/"), new_content: "x", reason: "r" }, "invalid_request");
    assert.match(other.message, /^target "eventloom:\/\/other\/events\/1#[0-9a-f]{12}" cites session "other"/);
    const missing = await mcp.callError("memory_edit", { new_content: "x", reason: "r" }, "invalid_request");
    assert.equal(missing.message, "target_hash is required, with or without target_seq (or target CITATION)");
    assert.equal((await mcp.callOk("memory_replay", {})).events.length, count, "refusals write nothing");
  });
});
