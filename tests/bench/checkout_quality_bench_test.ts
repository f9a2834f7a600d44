// test-lane: full (bench command, slow)
/**
 * `zaxy bench checkout-quality` through the binary, in an empty directory (the question set is
 * compiled in): the JSON contract per split, no unrelated question answered from memory, and
 * checkout recall on related questions not below the `memory query` top-10 baseline.
 */
import { after, test } from "node:test";
import assert from "node:assert/strict";
import { heldOutSessions, trainSessions } from "../../src/bench/checkoutQualitySet.ts";
import { runZaxy } from "../cli/zaxy.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

interface Share {
  count: number;
  rate: number | null;
}

function assertShare(share: Share, total: number, label: string): void {
  assert.ok(Number.isInteger(share.count) && share.count >= 0 && share.count <= total, `${label}.count = ${share.count}`);
  assert.equal(share.rate, Math.round((share.count / total) * 10_000) / 10_000, `${label}.rate`);
}

test("the committed set has at least 40 related and 40 unrelated train questions, 20 and 20 held out, each naming a recorded event", () => {
  const count = (sessions: typeof trainSessions) => ({
    sessions: sessions.length,
    related: sessions.reduce((n, s) => n + s.related.length, 0),
    unrelated: sessions.reduce((n, s) => n + s.unrelated.length, 0),
  });
  const train = count(trainSessions);
  const heldOut = count(heldOutSessions);
  assert.ok(train.sessions >= 5 && train.related >= 40 && train.unrelated >= 40, JSON.stringify(train));
  assert.ok(heldOut.related >= 20 && heldOut.unrelated >= 20, JSON.stringify(heldOut));
  const ids = [...trainSessions, ...heldOutSessions].map((s) => s.id);
  assert.equal(new Set(ids).size, ids.length, "session ids are distinct");
  for (const session of [...trainSessions, ...heldOutSessions]) {
    assert.ok(session.events.length >= 10 && session.events.length <= 15, `${session.id}: ${session.events.length} events`);
    for (const { question, fact } of session.related) {
      assert.ok(Number.isInteger(fact) && fact >= 0 && fact < session.events.length, `${session.id}: "${question}" names event ${fact}`);
    }
  }
  const trainQuestions = new Set(trainSessions.flatMap((s) => [...s.related.map((r) => r.question), ...s.unrelated]));
  for (const question of heldOutSessions.flatMap((s) => [...s.related.map((r) => r.question), ...s.unrelated])) {
    assert.ok(!trainQuestions.has(question), `held-out question also in train: "${question}"`);
  }
});

test("bench checkout-quality --json: no unrelated question answered from memory, recall not below the query baseline, per split", { timeout: 120_000 }, () => {
  const run = runZaxy(["bench", "checkout-quality", "--json"], { cwd: makeTempDir("zaxy-bench-checkout-quality"), timeoutMs: 115_000 });
  assert.equal(run.code, 0, run.stderr);
  assert.equal(run.stderr, "", "no progress when stderr is not a terminal");
  const doc = JSON.parse(run.stdout);
  assert.equal(doc.schema, "zaxy.bench.checkout_quality.v1");
  assert.deepEqual(Object.keys(doc).sort(), ["command", "machine", "query_limit", "schema", "split", "splits", "targets"]);
  assert.deepEqual(doc.command, ["zaxy", "bench", "checkout-quality", "--split", "all"]);
  assert.equal(doc.split, "all");
  assert.equal(doc.query_limit, 10);
  assert.deepEqual(Object.keys(doc.splits), ["train", "held_out"]);
  assert.deepEqual(Object.keys(doc.targets), ["train_unrelated_answered", "train_recall_vs_query", "held_out_unrelated_answered", "held_out_recall_vs_query"]);
  assert.ok(typeof doc.machine.cpu === "string" && doc.machine.cores >= 1);

  for (const [name, sessions] of [["train", trainSessions], ["held_out", heldOutSessions]] as const) {
    const split = doc.splits[name];
    const related = sessions.reduce((n, s) => n + s.related.length, 0);
    const unrelated = sessions.reduce((n, s) => n + s.unrelated.length, 0);
    assert.equal(split.sessions, sessions.length);
    assert.equal(split.events, sessions.reduce((n, s) => n + s.events.length, 0));
    assert.ok(split.checkout_ms_total > 0);

    assert.deepEqual(Object.keys(split.unrelated), ["questions", "answered_from_memory", "served_current_facts", "refresh_recommended", "ask_user", "misses"]);
    assert.equal(split.unrelated.questions, unrelated);
    for (const key of ["answered_from_memory", "served_current_facts", "refresh_recommended", "ask_user"]) {
      assertShare(split.unrelated[key], unrelated, `${name}.unrelated.${key}`);
    }
    assert.equal(split.unrelated.answered_from_memory.count + split.unrelated.refresh_recommended.count + split.unrelated.ask_user.count, unrelated);
    assert.deepEqual(split.unrelated.answered_from_memory, { count: 0, rate: 0 }, `${name}: ${JSON.stringify(split.unrelated.misses)}`);
    assert.deepEqual(split.unrelated.misses, []);

    assert.deepEqual(Object.keys(split.related), ["questions", "recall_current_facts", "recall_query_top10", "answered_from_memory", "refresh_recommended", "ask_user", "misses"]);
    assert.equal(split.related.questions, related);
    for (const key of ["recall_current_facts", "recall_query_top10", "answered_from_memory", "refresh_recommended", "ask_user"]) {
      assertShare(split.related[key], related, `${name}.related.${key}`);
    }
    assert.equal(split.related.answered_from_memory.count + split.related.refresh_recommended.count + split.related.ask_user.count, related);
    assert.ok(
      split.related.recall_current_facts.count >= split.related.recall_query_top10.count,
      `${name}: checkout recall ${split.related.recall_current_facts.count} < query top-10 recall ${split.related.recall_query_top10.count}`,
    );
    // A related miss is a question whose fact was not served or that was not answered from memory.
    const notAnswered = related - split.related.answered_from_memory.count;
    const notServed = related - split.related.recall_current_facts.count;
    assert.ok(split.related.misses.length >= Math.max(notAnswered, notServed) && split.related.misses.length <= notAnswered + notServed);
    for (const miss of split.related.misses) {
      assert.deepEqual(Object.keys(miss), [
        "session", "question", "expected_citation", "in_current_facts", "in_query_top10", "answerability", "confidence", "coverage", "query_terms", "matched_terms", "served_facts",
      ]);
      assert.match(miss.expected_citation, new RegExp(`^eventloom://${name}\\.${miss.session}/events/\\d+#[0-9a-f]{12}$`));
      assert.ok(!miss.in_current_facts || miss.answerability !== "answer_from_memory");
      assert.equal(miss.in_current_facts, miss.served_facts.some((fact: { citation: string }) => fact.citation === miss.expected_citation));
    }

    for (const key of [`${name}_unrelated_answered`, `${name}_recall_vs_query`]) {
      assert.equal(doc.targets[key].met, true, `${key}: ${JSON.stringify(doc.targets[key])}`);
    }
    assert.equal(doc.targets[`${name}_unrelated_answered`].target, "== 0");
    assert.equal(doc.targets[`${name}_recall_vs_query`].value, split.related.recall_current_facts.rate);
  }
});

test("bench checkout-quality --split held-out prints one split as text", { timeout: 120_000 }, () => {
  const run = runZaxy(["bench", "checkout-quality", "--split", "held-out"], { cwd: makeTempDir("zaxy-bench-checkout-quality"), timeoutMs: 115_000 });
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /^machine: /);
  assert.match(run.stdout, /\nheld-out: 3 sessions, \d+ events\n/);
  assert.doesNotMatch(run.stdout, /\ntrain: /);
  assert.match(run.stdout, /\n {4}answered from memory +0 {2}\(0\.0 %\)\n/);
  assert.match(run.stdout, /\ntargets:\n {2}held_out_unrelated_answered +== 0 +0\.000 {2}met\n/);
});

test("bench checkout-quality refuses an unknown split with exit 2 naming the flag", () => {
  const run = runZaxy(["bench", "checkout-quality", "--split", "test", "--json"], { cwd: makeTempDir("zaxy-bench-checkout-quality") });
  assert.equal(run.code, 2);
  const { error } = JSON.parse(run.stdout);
  assert.equal(error.code, "invalid_option");
  assert.equal(error.field, "--split");
  assert.match(error.message, /--split must be one of train, held-out, all; got "test"/);
});
