/**
 * Issue 14, tail catch-up piece 3: the whole-session folds the read model stores at its head
 * (withheld rules, reinforcement, causal edges, consolidation candidates) continued over a tail
 * of events equal the folds of the whole log at the new head — same sets, map entries and order,
 * same causal edges in the same order, and the same JSON as a manifest would store.
 *
 * The session is written through the real appender and producers: the generated agent workload
 * interleaved with rules (generated, proposed, rolled back), feedback, causal explanations (one
 * contradicted, one whose endpoint is superseded so the fold copies its relation) and
 * consolidation candidates (duplicates, reviews, rolled-back reviews, a stale one). Every split
 * point k of the log is checked: folds stored at k, continued over events k..n.
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { mixedSessionItems } from "../../src/bench/mixedSession.ts";
import { fromJs } from "../../src/canonical/mod.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { readEvents } from "../../src/eventloom/replay.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { foldLogRows } from "../../src/projection/foldLog.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import type { EntityRow, SessionGraphRows } from "../../src/projection/types.ts";
import { continueSessionFolds, noGraphChanges, type StoredFoldState, storedFoldState } from "../../src/readmodel/tailFolds.ts";
import { MemorySessionFolds, type SessionFolds } from "../../src/retrieval/sessionIndex.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";

interface Marks {
  /** Seq of the `memory.rule.generated` a later rollback withholds. */
  rolledBackRule: number;
  /** Seq of the `memory.rolled_back` of that rule. */
  ruleRollback: number;
  /** Seq of the contradiction that closes the first causal relation. */
  contradiction: number;
  /** Seq of the preference change that supersedes a causal endpoint. */
  supersession: number;
  /** Seq of the rollback of a consolidation review. */
  reviewRollback: number;
  /** Seq of a review of a candidate created much earlier. */
  lateReview: number;
}

let events: EventRecord[] = [];
let marks: Marks;

/** Writes the session through the real appender and its producers; returns the seqs the checks name. */
async function writeSession(root: string): Promise<Marks> {
  let tick = 0;
  const clock = () => Date.UTC(2025, 0, 1) * 1000 + (tick++) * 1_000_000;
  const record = async (type: string, payload: Record<string, unknown>, actor = "agent") => {
    const result = await recordEvents(root, sessionId, [{ type, actor, payload: fromJs(payload) }], { clock });
    return { event: result.events[0], generated: result.generated };
  };
  const mixed = mixedSessionItems(240, 31).items;
  let used = 0;
  const filler = async (count: number) => {
    const items = mixed.slice(used, used + count);
    used += count;
    if (items.length > 0) await recordEvents(root, sessionId, items, { clock });
  };
  const explain = async (cause: [string, string], effect: [string, string], relation = "caused", confidence = 0.8) => {
    const observed = await record("observation.recorded", { summary: `${cause[0]} ${relation} ${effect[0]}` });
    const { generated } = await record("outcome.explained", {
      cause: { name: cause[0], entity_type: cause[1] },
      effect: { name: effect[0], entity_type: effect[1] },
      relation_type: relation,
      confidence,
      evidence: { source_event_seq: observed.event.seq, source_event_hash: observed.event.hash },
    });
    assert.equal(generated.length, 1, "outcome.explained generates one causal edge");
    return generated[0];
  };
  const rule = (type: string, id: string) => record(type, { rule_id: id, rule: `never ${id} twice`, trigger: `${id} retried` });
  const rollback = (target: { seq: number; hash: string }, reason: string) =>
    record("memory.rolled_back", { rollback_id: `rollback:${target.seq}:${reason}`, target: { seq: target.seq, hash: target.hash }, reason });
  const candidate = (n: number, extra: Record<string, unknown> = {}) =>
    record("consolidation.candidate.created", {
      candidate_id: `consolidation:claim:${n}`,
      candidate_type: "claim",
      summary: `claim ${n} merges repeated retries`,
      title: `claim ${n}`,
      source_events: [{ seq: 1, hash: events0Hash }],
      ...extra,
    });
  const review = (n: number, status: string) => record("consolidation.candidate.reviewed", { candidate_id: `consolidation:claim:${n}`, status, rationale: `reviewed ${status}` });
  const feedback = (name: string, entityType: string, value: string) =>
    record(value === "used" || value === "helpful" ? "memory.reinforced" : "memory.feedback", { entity_name: name, entity_type: entityType, feedback: value });

  await filler(10);
  const events0Hash = readEvents(path.join(root, `${sessionId}.jsonl`)).events[0].hash;
  const generatedRule = await rule("memory.rule.generated", "retry-webhook");
  const proposedRule = await rule("memory.rule.proposed", "skip-tests");
  await rule("memory.rule.generated", "pin-deps");
  await record("user.preference_changed", { userId: "user-ana", key: "editor", value: "vim" }, "user-ana");
  await filler(12);
  const drift = await explain(["config drift", "cause"], ["stale connection pool", "symptom"]);
  await explain(["user-ana:editor", "preference"], ["slow reviews", "symptom"], "regressed", 0.6);
  await feedback("stale connection pool", "symptom", "used");
  await feedback("config drift", "cause", " Irrelevant ");
  await filler(12);
  const first = await candidate(1);
  await candidate(2);
  await candidate(3, { stale: true, superseded_by: "consolidation:claim:2" });
  const acceptedReview = await review(1, "accepted");
  await review(2, "rejected");
  await review(9, "accepted");
  await filler(12);
  await candidate(1, { summary: "a duplicate creation is ignored" });
  await feedback("stale connection pool", "symptom", "used");
  await feedback("retry-webhook", "memory_rule", "helpful");
  // No entity named: the count lands on `memory:<seq>` of this event.
  await record("memory.reinforced", { feedback: "used" });
  await explain(["config drift", "cause"], ["consolidation:claim:3", "consolidation_candidate"], "enabled", 0.5);
  await filler(12);
  const ruleRollback = await rollback(generatedRule.event, "rule misfired");
  await rollback(proposedRule.event, "never approved");
  await rollback({ seq: first.event.seq, hash: first.event.hash }, "not a rule or review");
  await rollback({ seq: generatedRule.event.seq, hash: "0".repeat(64) }, "wrong hash");
  await filler(12);
  const contradiction = await record("inference.edge.contradicted", {
    source: { name: "config drift", entity_type: "cause" },
    target: { name: "stale connection pool", entity_type: "symptom" },
    relation_type: "causal_caused",
    valid_from: "2025-01-01T00:00:00Z",
    original_event_seq: drift.seq,
    original_event_hash: drift.hash,
    reason: "contradicted by later evidence",
  });
  await feedback("stale connection pool", "symptom", "irrelevant");
  await filler(12);
  const reviewRollback = await rollback({ seq: acceptedReview.event.seq, hash: acceptedReview.event.hash }, "premature accept");
  await review(1, "deferred");
  await candidate(4);
  await filler(12);
  const supersession = await record("user.preference_changed", { userId: "user-ana", key: "editor", value: "helix" }, "user-ana");
  await explain(["user-ana:editor", "preference"], ["late merges", "symptom"], "caused", 0.9);
  const lateRule = await rule("memory.rule.generated", "late-rule");
  await rollback(lateRule.event, "rolled back at once");
  await rule("memory.rule.proposed", "late-proposal");
  await filler(12);
  const lateReview = await review(2, "accepted");
  await feedback("config drift", "cause", "used");
  await filler(12);
  return {
    rolledBackRule: generatedRule.event.seq,
    ruleRollback: ruleRollback.event.seq,
    contradiction: contradiction.event.seq,
    supersession: supersession.event.seq,
    reviewRollback: reviewRollback.event.seq,
    lateReview: lateReview.event.seq,
  };
}

/** The folds of the whole log up to `count` events, as the in-memory index computes them. */
function wholeFolds(count: number): { folds: SessionFolds; rows: SessionGraphRows } {
  const prefix = events.slice(0, count);
  const rows = foldLogRows(sessionId, prefix);
  return { folds: new MemorySessionFolds(sessionId, rows, prefix), rows };
}

/** The manifest's folds at `count` events: written as JSON and read back. */
function storedAt(count: number): { stored: StoredFoldState; rows: SessionGraphRows } {
  const { folds, rows } = wholeFolds(count);
  return { stored: JSON.parse(JSON.stringify(storedFoldState(folds))) as StoredFoldState, rows };
}

/** The folds stored at `from` continued to `head`, with the lookups a caller provides (base rows, the log at `head`). */
function continued(stored: StoredFoldState, baseRows: SessionGraphRows, from: number, head: number): SessionFolds {
  const fold = new GraphFold(sessionId, baseRows);
  const tail = events.slice(from, head);
  for (const event of tail) fold.apply(event, extractEvent(event));
  const baseEntities = new Map<string, EntityRow>(baseRows.entities.map((entity) => [entity.nodeKey, entity]));
  return continueSessionFolds(stored, {
    sessionId,
    events: tail,
    changes: fold.diff() ?? noGraphChanges,
    lookups: {
      baseEntity: (nodeKey) => baseEntities.get(nodeKey),
      event: (seq) => (seq >= 1 && seq <= head ? events[seq - 1] : undefined),
    },
  });
}

interface Split {
  k: number;
  stored: StoredFoldState;
  storedJson: string;
  folds: SessionFolds;
}

let whole: SessionFolds;
let splits: Split[] = [];

before(async () => {
  const root = path.join(makeTempDir(), ".eventloom");
  marks = await writeSession(root);
  // Threads differ from the session id here (as in a log of worker threads), so a causal
  // citation's thread comes from the event lookup, not from the fallback.
  events = readEvents(path.join(root, `${sessionId}.jsonl`)).events.map((event) => ({ ...event, thread: `worker-${event.seq % 3}` }));
  whole = wholeFolds(events.length).folds;
  for (let k = 1; k < events.length; k++) {
    const { stored, rows } = storedAt(k);
    const storedJson = JSON.stringify(stored);
    splits.push({ k, stored, storedJson, folds: continued(stored, rows, k, events.length) });
  }
}, slow);

/** How many splits' stored fold differs from the whole fold: ignoring the tail fails on these. */
function splitsWhereTailMatters(pick: (state: StoredFoldState) => unknown): number {
  const wholeJson = JSON.stringify(pick(storedFoldState(whole)));
  return splits.filter((split) => JSON.stringify(pick(split.stored)) !== wholeJson).length;
}

describe("tail folds (issue 14, tail catch-up)", () => {
  test("withheld rule seqs continued over a tail equal the whole fold at every split: a tail rollback withholds a base rule, in seq order", () => {
    const expected = [...whole.withheldRuleSeqs()];
    assert.ok(expected.includes(marks.rolledBackRule), "the rolled-back generated rule is withheld at the head");
    assert.ok(splitsWhereTailMatters((state) => state.withheld_rule_seqs) > 50);
    for (const split of splits) {
      assert.deepEqual([...split.folds.withheldRuleSeqs()], expected, `split at ${split.k}`);
      if (split.k < marks.ruleRollback && split.k >= marks.rolledBackRule) {
        assert.ok(!split.stored.withheld_rule_seqs.includes(marks.rolledBackRule), `split at ${split.k}: the rule is active at the base`);
      }
    }
  });

  test("reinforcement continued over a tail equals the whole fold at every split: same nets, keys in first-touch order", () => {
    const expected = [...whole.reinforcement()];
    assert.ok(expected.length >= 3);
    assert.ok(splitsWhereTailMatters((state) => state.reinforcement) > 50);
    for (const split of splits) assert.deepEqual([...split.folds.reinforcement()], expected, `split at ${split.k}`);
  });

  test("causal edges continued over a tail equal the whole fold at every split: contradicted and superseded edges drop, copied and new ones follow in relation order", () => {
    const expected = whole.causalEdges();
    assert.ok(expected.length >= 2, "the session has causal edges at its head");
    assert.ok(expected.some((edge) => edge.source.name === "user-ana:editor" && edge.source.sourceEventSeq === marks.supersession && edge.relation.sourceEventSeq < marks.supersession),
      "a relation copied onto the superseding version keeps its base citation");
    assert.ok(expected.every((edge) => /^eventloom:\/\/worker-[0-2]\//.test(edge.citation)), "citations name the source event's thread");
    assert.ok(!expected.some((edge) => edge.target.name === "stale connection pool"), "the contradicted edge is gone at the head");
    assert.ok(!expected.some((edge) => edge.target.name === "consolidation:claim:3"), "an edge onto a retired candidate never counts");
    assert.ok(splitsWhereTailMatters((state) => state.causal_edges) > 50);
    for (const split of splits) {
      const edges = split.folds.causalEdges();
      assert.deepEqual(edges, expected, `split at ${split.k}`);
      assert.equal(JSON.stringify(edges), JSON.stringify(expected), `split at ${split.k}: manifest JSON`);
    }
    const beforeContradiction = splits.find((split) => split.k === marks.contradiction - 1)!;
    assert.ok(beforeContradiction.stored.causal_edges.some((edge) => edge.target.name === "stale connection pool"), "the base has the edge the tail contradicts");
  });

  test("consolidation candidates continued over a tail equal the whole replay at every split: tail reviews, rollbacks of base reviews, creation order", () => {
    const expected = [...whole.consolidationCandidates()];
    assert.deepEqual(expected.map(([id]) => id), [1, 2, 3, 4].map((n) => `consolidation:claim:${n}`));
    const first = expected[0][1];
    assert.deepEqual(first.reviews.map((review) => [review.status, review.rolledBack]), [["accepted", true], ["deferred", false]]);
    assert.ok(splitsWhereTailMatters((state) => state.consolidation_candidates) > 50);
    for (const split of splits) assert.deepEqual([...split.folds.consolidationCandidates()], expected, `split at ${split.k}`);
    const beforeRollback = splits.find((split) => split.k === marks.reviewRollback - 1)!;
    assert.equal(beforeRollback.stored.consolidation_candidates[0][1].reviews[0].rolledBack, false, "the review is in force at the base");
    const beforeLateReview = splits.find((split) => split.k === marks.lateReview - 1)!;
    assert.equal(beforeLateReview.stored.consolidation_candidates[1][1].reviews.length, 1, "the late review is in the tail");
  });

  test("the continued folds serialize to the manifest JSON the whole folds would, at every split", () => {
    const expected = JSON.stringify(storedFoldState(whole));
    for (const split of splits) assert.equal(JSON.stringify(storedFoldState(split.folds)), expected, `split at ${split.k}`);
  });

  test("a continuation leaves the stored state as read (one manifest can serve several tails)", () => {
    for (const split of splits) assert.equal(JSON.stringify(split.stored), split.storedJson, `split at ${split.k}`);
  });

  test("continued folds chain: stored at k, continued to m, stored again and continued to the head equals the whole fold", slow, () => {
    const expected = JSON.stringify(storedFoldState(whole));
    const head = events.length;
    for (const k of [1, marks.rolledBackRule, marks.contradiction - 3, marks.reviewRollback - 1]) {
      for (const m of [marks.ruleRollback, marks.contradiction, marks.supersession, head - 5]) {
        if (m <= k) continue;
        const base = storedAt(k);
        const middle = continued(base.stored, base.rows, k, m);
        const restored = JSON.parse(JSON.stringify(storedFoldState(middle))) as StoredFoldState;
        assert.equal(JSON.stringify(restored), JSON.stringify(storedFoldState(wholeFolds(m).folds)), `k ${k} → m ${m}`);
        const rowsAtM = foldLogRows(sessionId, events.slice(0, m));
        assert.equal(JSON.stringify(storedFoldState(continued(restored, rowsAtM, m, head))), expected, `k ${k} → m ${m} → head`);
      }
    }
  });
});
