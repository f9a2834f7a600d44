/** `zaxy demo` (what `npm start` runs): the session verifies, the tampered copy is caught. */
import { test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir } from "../eventloom/testkit.ts";

test("demo records a cited session, verifies it and catches the tampered copy", () => {
  const dir = makeTempDir("zaxy-demo");
  const run = runZaxy(["demo", "--dir", dir, "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "");
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.demo.v1");
  assert.equal(doc.ok, true);
  assert.equal(doc.integrity.ok, true);
  assert.equal(doc.integrity.total_events, 8);
  assert.equal(doc.tamper.report.ok, false);
  assert.equal(doc.tamper.report.broken_at_seq, 4);
  assert.equal(doc.tamper.report.broken_reason, "Event 4 hash mismatch");
  // The first 8 events are the session; the checkout step appends 4 more.
  const log = fs.readFileSync(path.join(dir, ".eventloom", "demo-agent.jsonl"), "utf8").trim().split("\n");
  assert.equal(log.length, 12);
  doc.events.forEach((event: { seq: number; hash: string; citation: string }, i: number) => {
    assert.equal(event.seq, i + 1);
    assert.equal(event.citation, `eventloom://demo-agent/events/${i + 1}#${event.hash.slice(0, 12)}`);
    assert.ok(log[i].includes(event.hash), "the citation's hash is the stored hash");
  });
  assert.ok(!log[3].includes("sk-live"), "the secret never reaches the log");
  assert.deepEqual(doc.redacted_paths, ["seq 4: api_key"]);
});

test("demo prints a readable text report", () => {
  const dir = makeTempDir("zaxy-demo");
  const run = runZaxy(["demo", "--dir", dir], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /2\. Verify: OK, 8 events/);
  assert.match(run.stdout, /BROKEN at seq 4: Event 4 hash mismatch/);
  assert.match(run.stdout, /Demo OK/);
});

test("demo checkout cites only the current release branch and counts the superseded ones", () => {
  const dir = makeTempDir("zaxy-demo");
  const run = runZaxy(["demo", "--dir", dir, "--json"], { cwd: dir });
  assert.equal(run.code, 0, run.stderr);
  const { checkout } = JSON.parse(run.stdout);
  const log = fs.readFileSync(path.join(dir, ".eventloom", "demo-agent.jsonl"), "utf8").trim().split("\n").map((line) => JSON.parse(line));
  assert.equal(log.length, 12);
  const facts = checkout.current_facts.map((f: { content: string }) => f.content);
  assert.ok(facts.includes("maya:release_branch (preference): release_branch=release/1.5"), facts.join(" | "));
  assert.ok(!facts.some((f: string) => /release_branch=(main|release\/1\.4)$/.test(f)), facts.join(" | "));
  assert.equal(checkout.superseded_contexts_excluded, 2);
  assert.deepEqual(checkout.superseded.map((s: { content: string }) => s.content).sort(), [
    "maya:release_branch (preference): release_branch=main",
    "maya:release_branch (preference): release_branch=release/1.4",
  ]);
  for (const item of [...checkout.current_facts, ...checkout.superseded]) {
    const match = /^eventloom:\/\/demo-agent\/events\/(\d+)#([0-9a-f]{12})$/.exec(item.citation);
    assert.ok(match, item.citation);
    const event = log[Number(match[1]) - 1];
    const hash: string = event.hash ?? event.integrity.hash.replace(/^sha256:/, "");
    assert.ok(hash.startsWith(match[2]), `${item.citation} matches the log`);
  }
  assert.match(checkout.prompt, /^# Memory Checkout\nQuery: Which release branch/);
});
