/** AuditFacts: the per-event columns the compaction audit keeps between its two passes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { AuditFacts } from "../../src/compaction/auditFacts.ts";
import { citationUri } from "../../src/eventloom/mod.ts";

const hashA = "ab".repeat(32);
const hashB = "cd".repeat(32);

test("AuditFacts pools content identities once each, in first-seen order, and lists each event's in its order", () => {
  const facts = new AuditFacts();
  facts.add({ seq: 1, thread: "default", hash: hashA, content: ["docs/a.md:1-5", "identity-code-0001"], cited: true, window: 7 });
  facts.add({ seq: 2, thread: "default", hash: hashB, content: ["identity-code-0002", "docs/a.md:1-5"], cited: false, window: Number.NaN });
  facts.add({ seq: 3, thread: "default", hash: hashA, content: [], cited: true, window: 8 });
  assert.equal(facts.count, 3);
  assert.equal(facts.identityCount, 3);
  const texts = (row: number) => [...facts.contentOf(row)].map((id) => facts.identityText(id));
  assert.deepEqual(texts(0), ["docs/a.md:1-5", "identity-code-0001"]);
  assert.deepEqual(texts(1), ["identity-code-0002", "docs/a.md:1-5"]);
  assert.deepEqual(texts(2), []);
  assert.deepEqual([0, 1, 2].map((id) => facts.identityText(id)), ["docs/a.md:1-5", "identity-code-0001", "identity-code-0002"]);
  const visited: number[] = [];
  facts.eachContent(1, (id) => visited.push(id));
  assert.deepEqual(visited, [...facts.contentOf(1)]);
  assert.deepEqual([0, 1, 2].map((row) => facts.contentCount(row)), [2, 2, 0]);
  assert.equal(facts.identityIdOfText("identity-code-0002"), 2);
  assert.equal(facts.identityIdOfText("identity-code-0003"), undefined);
  assert.deepEqual([0, 1, 2].map((row) => [facts.seq(row), facts.cited(row), facts.window(row)]), [[1, true, 7], [2, false, Number.NaN], [3, true, 8]]);
  assert.equal(facts.citedCount, 2);
});

test("AuditFacts rebuilds each event ref as citationUri writes it, for any thread and hash prefix", () => {
  const facts = new AuditFacts();
  const events = [
    { seq: 1, thread: "default", hash: hashA },
    { seq: 2, thread: "session-2", hash: hashB },
    // A prefix shorter than twelve characters, and one beyond Latin-1, are kept as written.
    { seq: 3, thread: "default", hash: "abc" },
    { seq: 4, thread: "default", hash: "ab\u0100cdef0123456789" },
    { seq: 123456789, thread: "default", hash: "ff".repeat(32) },
  ];
  for (const event of events) facts.add({ ...event, content: [], cited: true, window: 0 });
  assert.deepEqual(events.map((_, row) => facts.eventRef(row)), events.map((e) => citationUri(e.thread, e.seq, e.hash)));
  assert.equal(facts.eventRef(0), `eventloom://default/events/1#${"ab".repeat(6)}`);
});
