/**
 * Every registered whole-session fold gives one state however it is reached: the batch replay of
 * the whole log (the rules each fold replaced, written out here as references), the fold
 * continued from `empty()` over the whole log, and the state of a log prefix stored as the read
 * model stores it (JSON) then continued over the rest — same sets, same map entries in the same
 * order, same causal edges in the same order, the same manifest bytes.
 *
 * Logs are generated through the real appender and producers from a fixed seed (printed): rules
 * generated, proposed and rolled back, feedback of each kind, causal explanations and their
 * contradictions, consolidation candidates created (duplicates too), reviewed, invalidated and
 * their reviews rolled back. One more log interleaves them with the bench's mixed agent session
 * (src/bench/mixedSession.ts: tasks, decisions, tool calls, documents, preferences, goals).
 */
import assert from "node:assert/strict";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { seededRandom } from "../../src/bench/measure.ts";
import { mixedSessionItems } from "../../src/bench/mixedSession.ts";
import { fromJs, intField, isJsonObject, stringField } from "../../src/canonical/mod.ts";
import type { AppendItem } from "../../src/eventloom/append.ts";
import type { EventRecord } from "../../src/eventloom/envelope.ts";
import { readEvents } from "../../src/eventloom/replay.ts";
import { causalRelationOfLabel } from "../../src/events/causalTaxonomy.ts";
import { type CausalEdge, causalEdgeOf, causalEdges } from "../../src/folds/causalEdges.ts";
import { type CandidateState, replayConsolidation } from "../../src/folds/consolidationStatus.ts";
import { normalizeFeedback, reinforcementKey } from "../../src/folds/reinforcement.ts";
import { replayRules, withheldRuleEventSeqs } from "../../src/folds/ruleStatus.ts";
import { type FoldTail, noGraphChanges, type SessionFold, wholeLogTail } from "../../src/folds/sessionFold.ts";
import {
  continueSessionFolds,
  decodeFoldState,
  encodeFoldState,
  keptEventsFoldSource,
  RegistrySessionFolds,
  sessionFoldRegistry,
  sessionFoldsOfLog,
  storedFoldState,
  someSessionFoldReads,
  storedSessionFolds,
} from "../../src/folds/sessionFolds.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { extractEvent } from "../../src/projection/extract/mod.ts";
import { foldLogRows } from "../../src/projection/foldLog.ts";
import { GraphFold } from "../../src/projection/graphFold.ts";
import type { EntityRow, SessionGraphRows } from "../../src/projection/types.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";

after(removeTempDirs);

const slow = { timeout: 600_000 };
const sessionId = "s";
const seeds = [11, 29, 47];
const eventsPerLog = 90;

// --- References: each fold's whole-log replay as it was written before it became a continuation.

function referenceWithheldRuleSeqs(events: readonly EventRecord[]): Set<number> {
  return new Set(replayRules(events).filter((rule) => rule.reviewStatus !== "active").map((rule) => rule.seq));
}

function referenceReinforcement(events: readonly EventRecord[]): Map<string, number> {
  const text = (event: EventRecord, key: string, fallback: string) => {
    const value = event.payload.get(key);
    return typeof value === "string" && value.trim() !== "" ? value : fallback;
  };
  const net = new Map<string, number>();
  for (const event of events) {
    const delta = event.type === "memory.reinforced" ? 1 : event.type === "memory.feedback" && normalizeFeedback(text(event, "feedback", "")) === "irrelevant" ? -1 : 0;
    if (delta === 0) continue;
    const key = reinforcementKey(text(event, "entity_type", "memory"), text(event, "entity_name", `memory:${event.seq}`));
    net.set(key, (net.get(key) ?? 0) + delta);
  }
  return net;
}

function referenceCausalEdges(rows: SessionGraphRows, events: readonly EventRecord[]): CausalEdge[] {
  const current = new Map<string, EntityRow>();
  for (const entity of rows.entities) if (entity.validTo === null) current.set(entity.nodeKey, entity);
  const edges: CausalEdge[] = [];
  for (const relation of rows.relations) {
    if (relation.validTo !== null) continue;
    const relationType = causalRelationOfLabel(relation.relationType);
    const source = current.get(relation.sourceKey);
    const target = current.get(relation.targetKey);
    if (relationType === undefined || source === undefined || target === undefined) continue;
    const edge = causalEdgeOf(sessionId, relation, relationType, source, target, (seq) => events[seq - 1]);
    if (edge !== undefined) edges.push(edge);
  }
  return edges;
}

function referenceCandidates(events: readonly EventRecord[]): Map<string, CandidateState> {
  const candidates = new Map<string, CandidateState>();
  const rolledBack = new Set<string>();
  for (const event of events) {
    const payload = event.payload;
    if (event.type === "consolidation.candidate.created") {
      const id = stringField(payload, "candidate_id");
      if (!id) continue;
      const existing = candidates.get(id);
      if (existing !== undefined) {
        existing.invalidatedAt = null;
        existing.invalidatedSeq = null;
        continue;
      }
      candidates.set(id, {
        candidateId: id,
        candidateType: stringField(payload, "candidate_type") ?? null,
        createdSeq: event.seq,
        createdHash: event.hash,
        stale: payload.get("stale") === true,
        supersededBy: stringField(payload, "superseded_by") || null,
        validTo: stringField(payload, "valid_to") || null,
        invalidatedAt: null,
        invalidatedSeq: null,
        reviews: [],
      });
    } else if (event.type === "consolidation.candidate.reviewed") {
      candidates.get(stringField(payload, "candidate_id") ?? "")?.reviews.push({ seq: event.seq, hash: event.hash, status: stringField(payload, "status") ?? null, rolledBack: false });
    } else if (event.type === "memory.rolled_back") {
      const target = payload.get("target");
      if (!isJsonObject(target)) continue;
      const seq = intField(target, "seq");
      const hash = stringField(target, "hash");
      if (seq !== undefined && hash !== undefined) rolledBack.add(`${seq}:${hash}`);
    } else if (event.type === "memory.invalidated" && stringField(payload, "entity_type") === "consolidation_candidate") {
      const candidate = candidates.get(stringField(payload, "entity_name") ?? "");
      const invalidAt = stringField(payload, "invalid_at");
      if (candidate === undefined || !invalidAt) continue;
      candidate.invalidatedAt = invalidAt;
      candidate.invalidatedSeq = event.seq;
    }
  }
  for (const candidate of candidates.values()) for (const review of candidate.reviews) review.rolledBack = rolledBack.has(`${review.seq}:${review.hash}`);
  return candidates;
}

/** The reference state of each registered fold, by the name the manifest stores it under. */
const references: Record<string, (rows: SessionGraphRows, events: readonly EventRecord[]) => unknown> = {
  withheld_rule_seqs: (_rows, events) => referenceWithheldRuleSeqs(events),
  reinforcement: (_rows, events) => referenceReinforcement(events),
  causal_edges: (rows, events) => referenceCausalEdges(rows, events),
  consolidation_candidates: (_rows, events) => referenceCandidates(events),
};

// --- Generated logs.

/** Where an appended event landed. */
interface Ref {
  seq: number;
  hash: string;
}

/**
 * Writes a log of `eventsPerLog` or more events chosen by `seed`, each chosen event after the next
 * of `interleaved` until all of those are in; returns its events (threads varied, as worker threads).
 */
async function generatedLog(seed: number, interleaved: readonly AppendItem[] = []): Promise<EventRecord[]> {
  const root = path.join(makeTempDir(), ".eventloom");
  const random = seededRandom(seed);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  let tick = 0;
  const clock = () => Date.UTC(2025, 0, 1) * 1000 + (tick++) * 1_000_000;
  const written: Ref[] = [];
  const record = async (type: string, payload: Record<string, unknown>, actor = "agent") => {
    const result = await recordEvents(root, sessionId, [{ type, actor, payload: fromJs(payload) }], { clock });
    for (const event of [...result.events, ...result.generated]) written.push({ seq: event.seq, hash: event.hash });
    return result;
  };
  const names = ["config drift", "stale pool", "slow reviews", "late merges", "flaky test"];
  const rules: Ref[] = [];
  const reviews: Ref[] = [];
  const candidateIds: string[] = [];
  const edges: Array<Ref & { cause: string; effect: string; relation: string }> = [];
  let interleavedNext = 0;
  while (written.length < eventsPerLog || interleavedNext < interleaved.length) {
    if (interleavedNext < interleaved.length) {
      const item = interleaved[interleavedNext++];
      const result = await recordEvents(root, sessionId, [item], { clock });
      for (const event of [...result.events, ...result.generated]) written.push({ seq: event.seq, hash: event.hash });
    }
    const action = pick(["note", "rule", "rule", "rollback", "feedback", "feedback", "explain", "explain", "contradict", "candidate", "review", "invalidate"]);
    if (action === "note" || written.length === 0) {
      await record("observation.recorded", { summary: `${pick(names)} seen again` });
    } else if (action === "rule") {
      const type = pick(["memory.rule.generated", "memory.rule.proposed"]);
      const { events } = await record(type, { rule_id: `rule:${written.length}`, rule: `never ${pick(names)} twice`, trigger: pick(names) });
      rules.push(events[0]);
    } else if (action === "rollback") {
      // Reviews and rules are what a rollback reverses; an early note is one it names in vain.
      const target = reviews.length > 0 && random() < 0.5 ? pick(reviews) : pick([...rules, ...written.slice(0, 3)]);
      const hash = random() < 0.2 ? "0".repeat(64) : target.hash;
      await record("memory.rolled_back", { rollback_id: `rollback:${written.length}`, target: { seq: target.seq, hash }, reason: "generated" });
    } else if (action === "feedback") {
      const value = pick(["used", "helpful", "irrelevant", " Irrelevant ", "meh"]);
      const type = value === "used" || value === "helpful" ? "memory.reinforced" : "memory.feedback";
      const payload: Record<string, unknown> = { feedback: value };
      if (random() < 0.8) Object.assign(payload, { entity_name: pick(names), entity_type: pick(["cause", "symptom"]) });
      await record(type, payload);
    } else if (action === "explain") {
      const { events: [observed] } = await record("observation.recorded", { summary: "evidence" });
      const cause = pick(names);
      const effect = pick(names.filter((name) => name !== cause));
      const relation = pick(["caused", "enabled", "regressed"]);
      const { generated } = await record("outcome.explained", {
        cause: { name: cause, entity_type: "cause" },
        effect: { name: effect, entity_type: "symptom" },
        relation_type: relation,
        confidence: Math.round(random() * 100) / 100,
        evidence: { source_event_seq: observed.seq, source_event_hash: observed.hash },
      });
      for (const edge of generated) edges.push({ seq: edge.seq, hash: edge.hash, cause, effect, relation });
    } else if (action === "contradict" && edges.length > 0) {
      const edge = pick(edges);
      await record("inference.edge.contradicted", {
        source: { name: edge.cause, entity_type: "cause" },
        target: { name: edge.effect, entity_type: "symptom" },
        relation_type: `causal_${edge.relation}`,
        valid_from: "2025-01-01T00:00:00Z",
        original_event_seq: edge.seq,
        original_event_hash: edge.hash,
        reason: "generated contradiction",
      });
    } else if (action === "candidate") {
      const id = candidateIds.length > 0 && random() < 0.3 ? pick(candidateIds) : `consolidation:claim:${candidateIds.length + 1}`;
      if (!candidateIds.includes(id)) candidateIds.push(id);
      const extra = random() < 0.2 ? { stale: true, superseded_by: pick(candidateIds) } : {};
      await record("consolidation.candidate.created", {
        candidate_id: id,
        candidate_type: "claim",
        summary: `${id} merges repeated retries`,
        title: id,
        source_events: [{ seq: written[0].seq, hash: written[0].hash }],
        ...extra,
      });
    } else if (action === "review") {
      const id = candidateIds.length > 0 && random() < 0.85 ? pick(candidateIds) : "consolidation:claim:unknown";
      const { events } = await record("consolidation.candidate.reviewed", { candidate_id: id, status: pick(["accepted", "rejected", "deferred"]), rationale: "generated" });
      reviews.push(events[0]);
    } else if (action === "invalidate" && candidateIds.length > 0) {
      await record("memory.invalidated", { entity_name: pick(candidateIds), entity_type: "consolidation_candidate", invalid_at: "2025-01-01T00:00:00Z" });
    }
  }
  return readEvents(path.join(root, `${sessionId}.jsonl`)).events.map((event) => ({ ...event, thread: `worker-${event.seq % 3}` }));
}

/** `fold`'s state as the manifest stores it, as JSON text. */
function storedJson<State>(fold: SessionFold<State>, state: State): string {
  return JSON.stringify(encodeFoldState(fold, state));
}

/** `tail` with only the events `fold` reads; the others stay reachable through its lookups. */
function tailReadBy<State>(fold: SessionFold<State>, tail: FoldTail): FoldTail {
  return { ...tail, events: tail.events.filter((event) => fold.readsEvent(event)) };
}

/**
 * The state `fold` had at `from` events, stored as JSON, continued over events from..head (over
 * the tail `narrow` makes of them, when given).
 */
function continuedAt<State>(
  fold: SessionFold<State>,
  events: readonly EventRecord[],
  from: number,
  head: number,
  narrow: (tail: FoldTail) => FoldTail = (tail) => tail,
): State {
  const baseRows = foldLogRows(sessionId, events.slice(0, from));
  const base = decodeFoldState(fold, JSON.parse(storedJson(fold, fold.apply(fold.empty(), wholeLogTail(sessionId, baseRows, events.slice(0, from))))));
  const graph = new GraphFold(sessionId, baseRows);
  const tail = events.slice(from, head);
  for (const event of tail) graph.apply(event, extractEvent(event));
  const baseEntities = new Map(baseRows.entities.map((entity) => [entity.nodeKey, entity]));
  return fold.apply(
    base,
    narrow({
      sessionId,
      events: tail,
      changes: graph.diff() ?? noGraphChanges,
      lookups: { baseEntity: (nodeKey) => baseEntities.get(nodeKey), event: (seq) => (seq >= 1 && seq <= head ? events[seq - 1] : undefined) },
    }),
  );
}

const logs = new Map<number, { events: EventRecord[]; rows: SessionGraphRows }>();
/** The seed of the log interleaved with the bench's mixed session, and how many of its events. */
const mixedSeed = 53;
const mixedEventCount = 90;
const mixed = mixedSessionItems(mixedEventCount, mixedSeed);
let mixedLog: { events: EventRecord[]; rows: SessionGraphRows };

before(async () => {
  for (const seed of seeds) {
    const events = await generatedLog(seed);
    logs.set(seed, { events, rows: foldLogRows(sessionId, events) });
  }
  const events = await generatedLog(mixedSeed, mixed.items);
  mixedLog = { events, rows: foldLogRows(sessionId, events) };
}, slow);

describe("session fold registry", () => {
  test("registers one fold per SessionFolds method, each with a manifest name and a reference here", () => {
    assert.deepEqual(Object.keys(sessionFoldRegistry), ["withheldRuleSeqs", "reinforcement", "causalEdges", "consolidationCandidates"]);
    assert.deepEqual(Object.values(sessionFoldRegistry).map((fold) => fold.name), Object.keys(references));
  });

  test("the generated logs exercise every fold: non-empty states, rolled-back rules and reviews, closed causal relations, invalidated candidates", () => {
    const seen = { closedCausalRelations: 0, rolledBackRules: 0, rolledBackReviews: 0, invalidatedCandidates: 0 };
    const nonEmpty = new Set<string>();
    for (const [seed, { events, rows }] of logs) {
      console.log(`seed ${seed}: ${events.length} events`);
      for (const fold of Object.values(sessionFoldRegistry) as SessionFold<unknown>[]) {
        if (storedJson(fold, fold.apply(fold.empty(), wholeLogTail(sessionId, rows, events))) !== "[]") nonEmpty.add(fold.name);
      }
      const candidates = [...referenceCandidates(events).values()];
      seen.closedCausalRelations += rows.relations.filter((relation) => relation.relationType.startsWith("causal_") && relation.validTo !== null).length;
      seen.rolledBackRules += replayRules(events).filter((rule) => rule.reviewStatus === "rolled_back").length;
      seen.rolledBackReviews += candidates.flatMap((candidate) => candidate.reviews).filter((review) => review.rolledBack).length;
      seen.invalidatedCandidates += candidates.filter((candidate) => candidate.invalidatedAt !== null).length;
    }
    assert.deepEqual([...nonEmpty].sort(), Object.values(sessionFoldRegistry).map((fold) => fold.name).sort());
    for (const [what, count] of Object.entries(seen)) assert.ok(count > 0, `no ${what} in the generated logs`);
  });

  test("the continuation from empty over the whole log equals the batch replay, for every registered fold", () => {
    for (const [seed, { events, rows }] of logs) {
      for (const fold of Object.values(sessionFoldRegistry) as SessionFold<unknown>[]) {
        const expected = storedJson(fold, references[fold.name](rows, events));
        assert.equal(storedJson(fold, fold.apply(fold.empty(), wholeLogTail(sessionId, rows, events))), expected, `seed ${seed}: ${fold.name}`);
      }
      // The batch functions other features call are the same fold from empty.
      assert.deepEqual([...withheldRuleEventSeqs(events)], [...referenceWithheldRuleSeqs(events)], `seed ${seed}: withheldRuleEventSeqs`);
      assert.equal(JSON.stringify(causalEdges(sessionId, rows, events)), JSON.stringify(referenceCausalEdges(rows, events)), `seed ${seed}: causalEdges`);
      assert.equal(JSON.stringify([...replayConsolidation(events).candidates]), JSON.stringify([...referenceCandidates(events)]), `seed ${seed}: replayConsolidation`);
    }
  });

  test("folding only the events some fold reads, the others looked up by seq, gives the whole log's state, for every registered fold", () => {
    for (const [seed, { events, rows }] of logs) {
      const kept = events.filter(someSessionFoldReads);
      assert.ok(kept.length < events.length, `seed ${seed}: every event is read by some fold`);
      const looked: number[] = [];
      const folds = new RegistrySessionFolds(keptEventsFoldSource(sessionId, rows, kept, (seq) => {
        looked.push(seq);
        return events[seq - 1];
      }));
      assert.equal(JSON.stringify(storedFoldState(folds)), JSON.stringify(storedFoldState(sessionFoldsOfLog(sessionId, rows, events))), `seed ${seed}`);
      assert.ok(looked.length > 0, `seed ${seed}: no event was looked up`);
    }
  });

  test("a state stored at k events and continued over the rest equals the whole log's, for every registered fold and several k", slow, () => {
    for (const [seed, { events, rows }] of logs) {
      const cuts = [1, 2, Math.floor(events.length / 4), Math.floor(events.length / 2), Math.floor((3 * events.length) / 4), events.length - 1, events.length];
      for (const fold of Object.values(sessionFoldRegistry) as SessionFold<unknown>[]) {
        const expected = storedJson(fold, references[fold.name](rows, events));
        for (const k of cuts) assert.equal(storedJson(fold, continuedAt(fold, events, k, events.length)), expected, `seed ${seed}: ${fold.name} stored at ${k}`);
      }
    }
  });

  test("the folds of a log, stored and continued, write the manifest's folds as the batch replays give them", () => {
    for (const [seed, { events, rows }] of logs) {
      const manifestFolds = JSON.stringify({
        withheld_rule_seqs: [...referenceWithheldRuleSeqs(events)],
        reinforcement: [...referenceReinforcement(events)],
        causal_edges: referenceCausalEdges(rows, events),
        consolidation_candidates: [...referenceCandidates(events)],
      });
      const whole = sessionFoldsOfLog(sessionId, rows, events);
      assert.equal(JSON.stringify(storedFoldState(whole)), manifestFolds, `seed ${seed}: whole log`);
      const stored = JSON.parse(manifestFolds);
      assert.equal(JSON.stringify(storedFoldState(storedSessionFolds(stored))), manifestFolds, `seed ${seed}: decoded`);
      const k = Math.floor(events.length / 2);
      const baseRows = foldLogRows(sessionId, events.slice(0, k));
      const base = JSON.parse(JSON.stringify(storedFoldState(sessionFoldsOfLog(sessionId, baseRows, events.slice(0, k)))));
      const graph = new GraphFold(sessionId, baseRows);
      for (const event of events.slice(k)) graph.apply(event, extractEvent(event));
      const baseEntities = new Map(baseRows.entities.map((entity) => [entity.nodeKey, entity]));
      const continued = continueSessionFolds(base, {
        sessionId,
        events: events.slice(k),
        changes: graph.diff() ?? noGraphChanges,
        lookups: { baseEntity: (nodeKey) => baseEntities.get(nodeKey), event: (seq) => events[seq - 1] },
      });
      assert.equal(JSON.stringify(storedFoldState(continued)), manifestFolds, `seed ${seed}: continued from ${k}`);
      // Each fold is computed once and remembered.
      assert.equal(continued.causalEdges(), continued.causalEdges());
      assert.equal(whole.reinforcement(), whole.reinforcement());
    }
  });

  test("each fold's readsEvent is exact: folding only the events it reads gives its state over every event, whole or continued", slow, () => {
    const all: Array<[string, { events: EventRecord[]; rows: SessionGraphRows }]> = [
      ...[...logs].map(([seed, log]): [string, typeof log] => [`seed ${seed}`, log]),
      [`seed ${mixedSeed} with the mixed session`, mixedLog],
    ];
    // The interleaved log holds every event type of the other logs and of the bench's mix.
    console.log(`seed ${mixedSeed} with ${mixedEventCount} mixed-session events: ${mixedLog.events.length} events`);
    const mixedTypes = new Set(mixedLog.events.map((event) => event.type));
    const otherTypes = [...logs.values()].flatMap((log) => log.events.map((event) => event.type));
    for (const type of new Set([...otherTypes, ...Object.keys(mixed.typeCounts)])) assert.ok(mixedTypes.has(type), `the interleaved log has no ${type}`);
    const readCounts = new Map<string, number>();
    for (const [label, { events, rows }] of all) {
      for (const fold of Object.values(sessionFoldRegistry) as SessionFold<unknown>[]) {
        const whole = wholeLogTail(sessionId, rows, events);
        const read = tailReadBy(fold, whole);
        readCounts.set(fold.name, (readCounts.get(fold.name) ?? 0) + read.events.length);
        const expected = storedJson(fold, fold.apply(fold.empty(), whole));
        assert.equal(storedJson(fold, fold.apply(fold.empty(), read)), expected, `${label}: ${fold.name} over only the events it reads`);
        for (const k of [Math.floor(events.length / 3), Math.floor(events.length / 2)]) {
          const continued = continuedAt(fold, events, k, events.length, (tail) => tailReadBy(fold, tail));
          assert.equal(storedJson(fold, continued), expected, `${label}: ${fold.name} stored at ${k}, continued over only the events it reads`);
        }
      }
    }
    // Every fold that iterates events read some and passed over others (the check had something to drop).
    const eventTotal = all.reduce((sum, [, log]) => sum + log.events.length, 0);
    for (const [name, count] of readCounts) {
      if (name === sessionFoldRegistry.causalEdges.name) assert.equal(count, 0, `${name} reads no events: it folds graph changes`);
      else assert.ok(count > 0 && count < eventTotal, `${name} read ${count} of ${eventTotal} events`);
    }
  });
});
