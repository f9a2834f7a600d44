// deno-test: own-process (loads kuzu-wasm in this process; scripts/deno-test.sh runs it alone)
// test-lane: full (slow)
/**
 * The projector end to end, in process (DESIGN §4, §6): projection is a pure function of the
 * verified log (incremental catch-up == rebuild), the Kuzu store agrees with the read model's rows,
 * `<root>/projections` is disposable, a tampered log is never projected, a rewritten log or a
 * corrupt database is rebuilt with a warning, temporal validity of a twice-changed preference,
 * citations that name real events, and the inferred edge a task.completed citing its decision
 * produces through `recordEvents`.
 *
 * One fixture session (~60 mixed events) is built once and copied for the destructive cases.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { fromJs } from "../../src/canonical/mod.ts";
import type { AppendItem } from "../../src/eventloom/append.ts";
import { readEvents } from "../../src/eventloom/replay.ts";
import { sessionLogPath } from "../../src/eventloom/root.ts";
import { recordEvents } from "../../src/recording/record.ts";
import { validateMemoryRequest } from "../../src/memory/request.ts";
import { MemoryService } from "../../src/memory/service.ts";
import { KuzuStore } from "../../src/projection/kuzuStore.ts";
import { type ProjectedSession, projectionDbPath, projectSession } from "../../src/projection/projector.ts";
import { manifestPath, readModelDir } from "../../src/readmodel/manifest.ts";
import { readModelBaseRows, readModelRows } from "../../src/readmodel/readModelRows.ts";
import type { SessionGraphRows } from "../../src/projection/types.ts";
import { vectorIndexPath } from "../../src/projection/vectorIndex.ts";
import { makeTempDir, readLines, removeTempDirs, writeLines } from "../eventloom/testkit.ts";

after(removeTempDirs);

const session = "proj-s1";
const queries = ["which editor does alice use", "Kuzu storage decision", "release checklist document", "transcript deploy window"];
/** Bun's default per-test timeout is 5 s; each store open costs ~0.5 s and a rebuild more. */
const slow = { timeout: 60_000 };
const citationPattern = /^eventloom:\/\/([A-Za-z0-9_.-]+)\/events\/([1-9][0-9]*)#([0-9a-f]{12})$/;

/** A deterministic clock: one millisecond per event from 2026-01-01. */
function makeClock(): () => number {
  let micros = Date.UTC(2026, 0, 1) * 1000;
  return () => (micros += 1000);
}

function item(type: string, actor: string, payload: Record<string, unknown>): AppendItem {
  return { type, actor, payload: fromJs(payload) };
}

/** The fixture's events, in order, split into the batches the incremental projection sees. */
function fixtureBatches(): Array<Array<AppendItem | "cite-decision">> {
  const a: Array<AppendItem | "cite-decision"> = [
    item("goal.created", "planner", { title: "Ship v1", description: "First public release of the engine" }),
    item("decision.made", "architect", { decision: "Use Kuzu", summary: "Kuzu stores the graph projection", rationale: "embedded, file-backed" }),
    item("user.preference_changed", "alice", { user: "alice", key: "editor", value: "vim" }),
    item("task.proposed", "planner", { taskId: "T-1", summary: "Wire the storage layer", goalTitle: "Ship v1" }),
    item("task.proposed", "planner", { taskId: "T-2", summary: "Write the release checklist", goalTitle: "Ship v1" }),
    item("document.indexed", "indexer", { path: "docs/release.md", start_line: 1, end_line: 20, content: "Release checklist: tag, build, publish the binary" }),
    item("transcript.turn", "chat", { source: "chat-1", turn_index: 1, role: "user", content: "When is the deploy window?" }),
    item("transcript.turn", "chat", { source: "chat-1", turn_index: 2, role: "assistant", content: "The deploy window is Friday afternoon" }),
    item("custom.widget.spun", "robot", { speed: 3, note: "an event type no extractor knows" }),
    item("task.claimed", "builder", { taskId: "T-1" }),
    item("user.preference_changed", "bob", { user: "bob", key: "theme", value: "dark" }),
    item("goal.created", "planner", { title: "Harden retrieval", description: "Tune lanes and fusion" }),
  ];
  const b: Array<AppendItem | "cite-decision"> = [
    item("decision.made", "architect", { decision: "Hash embeddings", summary: "Deterministic hash embeddings for the vector lane" }),
    item("user.preference_changed", "alice", { user: "alice", key: "editor", value: "emacs" }),
    item("document.indexed", "indexer", { path: "docs/storage.md", start_line: 1, end_line: 12, content: "The Kuzu storage layer keeps entity versions" }),
    item("task.proposed", "planner", { taskId: "T-3", summary: "Benchmark checkout latency", goalTitle: "Harden retrieval" }),
    "cite-decision",
    item("transcript.turn", "chat", { source: "chat-1", turn_index: 3, role: "user", content: "Remind me about the release checklist" }),
    item("custom.widget.spun", "robot", { speed: 4 }),
    item("user.preference_changed", "bob", { user: "bob", key: "theme", value: "light" }),
    item("task.claimed", "builder", { task_id: "T-2" }),
  ];
  const c: Array<AppendItem | "cite-decision"> = [];
  for (let i = 1; i <= 14; i++) {
    c.push(item("document.indexed", "indexer", { path: `docs/notes-${i}.md`, start_line: i, end_line: i + 5, content: `Note ${i} about retrieval lane ${i % 4} and fusion weights` }));
    if (i % 3 === 0) c.push(item("transcript.turn", "chat", { source: "chat-2", turn_index: i, role: i % 2 === 0 ? "user" : "assistant", content: `Turn ${i} on retrieval tuning` }));
  }
  const d: Array<AppendItem | "cite-decision"> = [
    item("user.preference_changed", "alice", { user: "alice", key: "editor", value: "helix" }),
    item("task.completed", "builder", { taskId: "T-2", summary: "Release checklist written" }),
    item("decision.made", "architect", { decision: "Use Kuzu", summary: "Kuzu stores the graph projection, bulk loaded with COPY", rationale: "speed" }),
    item("mystery.event", "robot", { what: "unknown again" }),
    item("goal.created", "planner", { title: "Ship v1", description: "First public release of the engine, now with checkout" }),
  ];
  for (let i = 0; i < 14; i++) d.push(item("transcript.turn", "chat", { source: "chat-3", turn_index: i + 1, role: "user", content: `Status ping ${i} about Ship v1` }));
  return [a, b, c, d];
}

interface Fixture {
  root: string;
  /** The incremental projection after the last batch. */
  projected: ProjectedSession;
  /** Seq of the task.completed citing the decision, and of what recordEvents generated for it. */
  citingSeq: number;
  generatedSeq: number;
  generatedCount: number;
  logBytes: Buffer;
}

let fixture: Fixture;

function logPathOf(root: string): string {
  return sessionLogPath(root, session);
}

async function queryJson(root: string, query: string): Promise<string> {
  const result = await new MemoryService(root).query(validateMemoryRequest({ sessionId: session, query, limit: 20 }));
  const diagnostics = result.diagnostics as { source_lanes: unknown };
  return JSON.stringify({ results: result.results, source_lanes: diagnostics.source_lanes });
}

function copyRoot(from: string, label: string): string {
  const root = path.join(makeTempDir(label), ".eventloom");
  fs.cpSync(from, root, { recursive: true });
  return root;
}

function rowsOnly(rows: SessionGraphRows | null): { entities: unknown; relations: unknown } {
  assert.ok(rows !== null, "rows expected (not degraded)");
  return { entities: rows.entities, relations: rows.relations };
}

async function readStore(root: string): Promise<SessionGraphRows> {
  const store = await KuzuStore.open(projectionDbPath(root));
  try {
    return store.readSession(session);
  } finally {
    store.close();
  }
}

async function storeSessions(root: string): Promise<string[]> {
  const store = await KuzuStore.open(projectionDbPath(root));
  try {
    return store.sessions();
  } finally {
    store.close();
  }
}

before(async () => {
  const root = path.join(makeTempDir("projector"), ".eventloom");
  const clock = makeClock();
  const service = new MemoryService(root);
  let decision: { seq: number; hash: string } | null = null;
  let citingSeq = 0;
  let generatedSeq = 0;
  let generatedCount = 0;
  let projected: ProjectedSession | null = null;
  for (const batch of fixtureBatches()) {
    for (const entry of batch) {
      if (entry === "cite-decision") {
        assert.ok(decision !== null);
        const cited = await recordEvents(root, session, [
          item("task.completed", "builder", { taskId: "T-1", summary: "Storage layer wired", decision: "Use Kuzu", decision_event_seq: decision.seq, decision_event_hash: decision.hash }),
        ], { clock });
        citingSeq = cited.events[0].seq;
        generatedCount = cited.generated.length;
        generatedSeq = cited.generated[0]?.seq ?? 0;
        continue;
      }
      const result = await recordEvents(root, session, [entry], { clock });
      if (entry.type === "decision.made" && decision === null) decision = { seq: result.events[0].seq, hash: result.events[0].hash };
    }
    // The graph store is brought up to date too (reads leave it behind), so that its
    // incremental catch-up is what the store tests below read.
    projected = await projectSession(root, session, { graphStore: "sync" });
    // Reads in between, so the vector index is appended to rather than built once.
    await service.query(validateMemoryRequest({ sessionId: session, query: "release checklist" }));
  }
  assert.ok(projected !== null);
  fixture = { root, projected, citingSeq, generatedSeq, generatedCount, logBytes: fs.readFileSync(logPathOf(root)) };
}, slow);

describe("projection is a pure function of the log", () => {
  test("the fixture has ~60 mixed events and the incremental projection reached the head", slow, () => {
    const { projected } = fixture;
    assert.ok(projected.events.length >= 55 && projected.events.length <= 70, `events: ${projected.events.length}`);
    const types = new Set(projected.events.map((e) => e.type));
    for (const type of ["goal.created", "task.proposed", "task.completed", "decision.made", "user.preference_changed", "document.indexed", "transcript.turn", "custom.widget.spun", "inference.edge.generated"]) {
      assert.ok(types.has(type), type);
    }
    assert.equal(projected.rows?.head?.seq, projected.events.length);
    assert.equal(projected.rows?.head?.hash, projected.events.at(-1)?.hash);
    assert.equal(projected.source, "caught_up");
    // Unknown types become `event:<type>:<seq>` entities.
    const unknown = projected.events.find((e) => e.type === "custom.widget.spun")!;
    assert.ok(projected.rows!.entities.some((e) => e.name === `event:custom.widget.spun:${unknown.seq}`));
  });

  test("incremental catch-up and a rebuild of a copy give the same rows and the same query results", slow, async () => {
    const copy = copyRoot(fixture.root, "projector-rebuild");
    const warnings: string[] = [];
    const rebuilt = await projectSession(copy, session, { rebuild: true, warn: (m) => warnings.push(m) });
    assert.equal(rebuilt.source, "rebuilt");
    assert.deepEqual(warnings, []);
    assert.deepEqual(rowsOnly(rebuilt.rows), rowsOnly(fixture.projected.rows));
    assert.deepEqual(rebuilt.rows?.head, fixture.projected.rows?.head);
    // A fresh, never-projected root (log only) rebuilds to the same rows too.
    const logOnly = path.join(makeTempDir("projector-logonly"), ".eventloom");
    fs.mkdirSync(logOnly);
    fs.copyFileSync(logPathOf(fixture.root), logPathOf(logOnly));
    const fresh = await projectSession(logOnly, session);
    assert.equal(fresh.source, "rebuilt");
    assert.deepEqual(rowsOnly(fresh.rows), rowsOnly(fixture.projected.rows));
    for (const query of queries) {
      const [a, b, c] = [await queryJson(fixture.root, query), await queryJson(copy, query), await queryJson(logOnly, query)];
      assert.equal(b, a, `rebuilt copy, query ${JSON.stringify(query)}`);
      assert.equal(c, a, `log-only copy, query ${JSON.stringify(query)}`);
      assert.ok((JSON.parse(a).results as unknown[]).length > 0, query);
    }
  });

  test("the Kuzu store agrees with the read model's rows", slow, async () => {
    const stored = await readStore(fixture.root);
    assert.deepEqual(rowsOnly(stored), rowsOnly(fixture.projected.rows));
    assert.deepEqual(stored.head, fixture.projected.rows?.head);
    // The fixture's last reads folded a tail over an older read model: one written at the head.
    const copy = copyRoot(fixture.root, "projector-read-model-rows");
    fs.rmSync(readModelDir(copy, session), { recursive: true });
    await queryJson(copy, queries[0]);
    const read = readModelRows(copy, session);
    assert.equal(read.status, "ok");
    assert.deepEqual(read.status === "ok" ? rowsOnly(read.rows) : null, rowsOnly(stored));
    assert.deepEqual(read.status === "ok" ? read.rows.head : null, stored.head);
  });

  test("deleting <root>/projections and querying rebuilds it, with the same results", slow, async () => {
    const copy = copyRoot(fixture.root, "projector-delete");
    const before: string[] = [];
    for (const query of queries) before.push(await queryJson(copy, query));
    fs.rmSync(path.join(copy, "projections"), { recursive: true, force: true });
    const results = [await queryJson(copy, queries[0])];
    for (const file of [manifestPath(copy, session), vectorIndexPath(copy, session), `${vectorIndexPath(copy, session)}.json`]) {
      assert.ok(fs.existsSync(file), `${file} exists again`);
    }
    for (const query of queries.slice(1)) results.push(await queryJson(copy, query));
    assert.deepEqual(results, before);
    // No read answers from the graph store, so none rebuilt it; a sync does.
    assert.ok(!fs.existsSync(projectionDbPath(copy)), "a read wrote the graph store");
    assert.equal((await projectSession(copy, session, { graphStore: "sync" })).source, "rebuilt");
    assert.deepEqual(rowsOnly(await readStore(copy)), rowsOnly(fixture.projected.rows));
  });
});

describe("the log is trusted only when it verifies, and the projection only when it matches the log", () => {
  test("a tampered log throws integrity_failure (exit 1) naming the seq; read model and store head stay put", slow, async () => {
    const copy = copyRoot(fixture.root, "projector-tamper");
    // One more event, so an accepted projection would have advanced.
    await recordEvents(copy, session, [item("goal.created", "planner", { title: "After the cache" })], { clock: makeClock() });
    const cacheBefore = fs.readFileSync(manifestPath(copy, session));
    const headBefore = (await readStore(copy)).head;
    const file = logPathOf(copy);
    const lines = readLines(file);
    const middle = Math.floor(lines.length / 2);
    const parsed = JSON.parse(lines[middle]) as { payload: Record<string, unknown> };
    const key = Object.keys(parsed.payload).find((k) => k !== "__zaxy_security" && typeof parsed.payload[k] === "string" && /^[a-z]/i.test(parsed.payload[k] as string));
    assert.ok(key !== undefined, `a string payload field in ${lines[middle]}`);
    const value = parsed.payload[key] as string;
    const needle = `${JSON.stringify(key)}:${JSON.stringify(value)}`;
    assert.ok(lines[middle].includes(needle));
    const edited = (value[0] === "x" ? "y" : "x") + value.slice(1);
    lines[middle] = lines[middle].replace(needle, `${JSON.stringify(key)}:${JSON.stringify(edited)}`);
    JSON.parse(lines[middle]);
    writeLines(file, lines);
    await assert.rejects(projectSession(copy, session), (error: Error & { code?: string; exitCode?: number }) => {
      assert.equal(error.code, "integrity_failure");
      assert.equal(error.exitCode, 1);
      assert.match(error.message, new RegExp(`seq ${middle + 1}\\b`));
      return true;
    });
    assert.deepEqual(fs.readFileSync(manifestPath(copy, session)), cacheBefore, "read model unchanged byte for byte");
    assert.deepEqual((await readStore(copy)).head, headBefore, "store head not advanced");
    // The service refuses the same way.
    await assert.rejects(new MemoryService(copy).query(validateMemoryRequest({ sessionId: session, query: "Ship" })), { code: "integrity_failure" });
    assert.deepEqual(fs.readFileSync(manifestPath(copy, session)), cacheBefore);
  });

  for (const shape of ["shorter", "longer"] as const) {
    test(`a log rewritten to a different valid chain (${shape}) is detected by its head and rebuilt`, slow, async () => {
      const copy = copyRoot(fixture.root, `projector-rewrite-${shape}`);
      const oldHashes = new Set(fixture.projected.events.map((e) => e.hash));
      fs.rmSync(logPathOf(copy));
      const count = shape === "shorter" ? 5 : fixture.projected.events.length + 3;
      const clock = makeClock();
      const items = Array.from({ length: count }, (_, i) => item("goal.created", "rewriter", { title: `Rewritten goal ${i}` }));
      for (let i = 0; i < items.length; i += 50) await recordEvents(copy, session, items.slice(i, i + 50), { clock });
      const warnings: string[] = [];
      const projected = await projectSession(copy, session, { warn: (m) => warnings.push(m), baseRows: readModelBaseRows });
      assert.equal(projected.source, "rebuilt");
      assert.ok(warnings.some((w) => /read model head \(seq \d+\) is not an event of the verified log/.test(w)), JSON.stringify(warnings));
      const rows = projected.rows!;
      const newHashes = new Set(projected.events.map((e) => e.hash));
      assert.equal(projected.events.length, count);
      for (const e of projected.events) assert.ok(!oldHashes.has(e.hash));
      for (const row of [...rows.entities, ...rows.relations]) assert.ok(newHashes.has(row.sourceEventHash), "every row comes from the new log");
      const goals = rows.entities.filter((e) => e.entityType === "goal").map((e) => e.name).sort();
      assert.deepEqual(goals, items.map((_, i) => `Rewritten goal ${i}`).sort());
      assert.ok(!rows.entities.some((e) => e.entityType === "preference"), "nothing of the old log survives");
      const again = await projectSession(copy, session, { rebuild: true });
      assert.deepEqual(rowsOnly(again.rows), rowsOnly(rows));
      // The graph store still holds the old chain: its sync detects that by its head too.
      const storeWarnings: string[] = [];
      assert.equal((await projectSession(copy, session, { graphStore: "sync", warn: (m) => storeWarnings.push(m) })).source, "rebuilt");
      assert.ok(storeWarnings.some((w) => /projection head \(seq \d+\) is not an event of the verified log/.test(w)), JSON.stringify(storeWarnings));
      assert.deepEqual(rowsOnly(await readStore(copy)), rowsOnly(rows));
    });
  }

  test("rebuilding one session of a shared store starts a fresh database; the other session is re-projected on its next catch-up", slow, async () => {
    const copy = copyRoot(fixture.root, "projector-two-sessions");
    const other = "proj-s2";
    const clock = makeClock();
    await recordEvents(copy, other, [item("goal.created", "planner", { title: "Other goal" }), item("decision.made", "architect", { decision: "Other decision" })], { clock });
    const sync = { graphStore: "sync" } as const;
    const otherFirst = await projectSession(copy, other, sync);
    assert.equal(otherFirst.source, "rebuilt");
    assert.deepEqual(await storeSessions(copy), [session, other].sort());

    const warnings: string[] = [];
    const rebuilt = await projectSession(copy, session, { ...sync, rebuild: true, warn: (m) => warnings.push(m) });
    assert.equal(rebuilt.source, "rebuilt");
    assert.ok(warnings.some((w) => w.includes(`sessions ${other} are re-projected from their logs on their next graph sync`)), JSON.stringify(warnings));
    assert.deepEqual(await storeSessions(copy), [session]);
    assert.deepEqual(rowsOnly(await readStore(copy)), rowsOnly(rebuilt.rows));

    // A read writes the other session's read model; catch-ups start from it, without the store.
    await new MemoryService(copy).query(validateMemoryRequest({ sessionId: other, query: "Other goal" }));
    assert.equal((await projectSession(copy, other, { baseRows: readModelBaseRows })).source, "cache");
    await recordEvents(copy, other, [item("task.proposed", "planner", { taskId: "T-9", summary: "Other task" })], { clock });
    const caughtUp = await projectSession(copy, other, { baseRows: readModelBaseRows });
    assert.equal(caughtUp.source, "caught_up");
    assert.deepEqual(rowsOnly(caughtUp.rows), rowsOnly((await projectSession(copyRoot(copy, "projector-two-sessions-check"), other, { rebuild: true })).rows));
    assert.deepEqual(await storeSessions(copy), [session]);
    // Its next sync re-projects it into the fresh database.
    const synced = await projectSession(copy, other, sync);
    assert.equal(synced.source, "rebuilt");
    assert.deepEqual(rowsOnly(synced.rows), rowsOnly(caughtUp.rows));
    assert.deepEqual(await storeSessions(copy), [session, other].sort());
    assert.deepEqual(rowsOnly(await readStore(copy)), rowsOnly(rebuilt.rows), "the first session's rows were kept");
  });

  test("an existing but empty log projects to nothing and checks out as ask_user (no toSeq 0 error)", slow, async () => {
    const root = path.join(makeTempDir("projector-empty"), ".eventloom");
    fs.mkdirSync(root);
    fs.writeFileSync(logPathOf(root), "");
    const projected = await projectSession(root, session);
    assert.deepEqual(projected.events, []);
    assert.deepEqual(rowsOnly(projected.rows), { entities: [], relations: [] });
    const checkout = await new MemoryService(root).checkout(validateMemoryRequest({ sessionId: session, query: "anything" }));
    assert.deepEqual(checkout.current_facts, []);
    assert.equal(checkout.quality.answerability, "ask_user");
    assert.equal(checkout.replay_event_count, 0);
    assert.equal(fs.readFileSync(logPathOf(root), "utf8"), "");
  });

  test("a corrupt database file is rebuilt with a warning; projection never throws", slow, async () => {
    const copy = copyRoot(fixture.root, "projector-corrupt");
    const db = projectionDbPath(copy);
    assert.ok(fs.statSync(db).isFile(), "embedded.kuzu is a file");
    const random = new Uint8Array(64 * 1024);
    for (let i = 0; i < random.length; i += 65536) crypto.getRandomValues(random.subarray(i, i + 65536));
    fs.writeFileSync(db, random);
    fs.rmSync(readModelDir(copy, session), { recursive: true });
    const warnings: string[] = [];
    const projected = await projectSession(copy, session, { graphStore: "sync", warn: (m) => warnings.push(m) });
    assert.equal(projected.degraded, false, projected.degradedReason ?? "");
    assert.equal(projected.source, "rebuilt");
    assert.ok(warnings.some((w) => /rebuild/i.test(w)), JSON.stringify(warnings));
    assert.deepEqual(rowsOnly(projected.rows), rowsOnly(fixture.projected.rows));
    assert.deepEqual(rowsOnly(await readStore(copy)), rowsOnly(fixture.projected.rows));
  });
});

describe("temporal validity, citations and inferred edges", () => {
  test("preference changed twice: only helix is current, two versions are excluded, validity windows chain", slow, async () => {
    const checkout = await new MemoryService(fixture.root).checkout(validateMemoryRequest({ sessionId: session, query: "alice editor" }));
    const facts = checkout.current_facts.map((f) => f.content);
    assert.ok(facts.some((c) => c.includes("editor=helix")), JSON.stringify(facts));
    assert.ok(!facts.some((c) => /editor=(vim|emacs)/.test(c)), JSON.stringify(facts));
    const superseded = checkout.evidence.filter((_, i) => checkout.provenance[i].valid_to !== null).map((e) => e.content);
    assert.equal(checkout.retention.superseded_contexts_excluded, 2, JSON.stringify(superseded));
    assert.equal(checkout.diagnostics.superseded_contexts_excluded, 2);
    assert.deepEqual(superseded.map((c) => /editor=(\w+)/.exec(c)?.[1]).sort(), ["emacs", "vim"]);
    const evidence = checkout.evidence.map((e) => e.content);
    assert.ok(evidence.some((c) => c.includes("editor=vim")) && evidence.some((c) => c.includes("editor=emacs")), "superseded versions stay auditable");
    const stored = await readStore(fixture.root);
    const versions = stored.entities.filter((e) => e.entityType === "preference" && e.name === "alice:editor");
    assert.deepEqual(versions.map((v) => v.summary), ["editor=vim", "editor=emacs", "editor=helix"]);
    assert.equal(versions[0].validTo, versions[1].validFrom);
    assert.equal(versions[1].validTo, versions[2].validFrom);
    assert.equal(versions[2].validTo, null);
    assert.ok(versions[0].validFrom < versions[1].validFrom && versions[1].validFrom < versions[2].validFrom);
  });

  test("every current fact and evidence item cites an event of the log by seq and hash prefix", slow, async () => {
    const events = readEvents(logPathOf(fixture.root)).events;
    const service = new MemoryService(fixture.root);
    let checked = 0;
    for (const query of queries) {
      const checkout = await service.checkout(validateMemoryRequest({ sessionId: session, query, limit: 20 }));
      const items: Array<{ citation: string | null; event_seq?: number | null; event_hash?: string | null }> = [...checkout.current_facts, ...checkout.evidence];
      assert.ok(items.length > 0, query);
      for (const entry of items) {
        const match = citationPattern.exec(entry.citation ?? "");
        assert.ok(match, `citation ${entry.citation}`);
        assert.equal(match[1], session);
        const seq = Number(match[2]);
        const event = events[seq - 1];
        assert.ok(event !== undefined && event.seq === seq, `seq ${seq} exists`);
        assert.ok(event.hash.startsWith(match[3]), `${entry.citation} vs ${event.hash}`);
        if ("event_seq" in entry) {
          assert.equal(entry.event_seq, seq);
          assert.equal(entry.event_hash, match[3]);
        }
        checked++;
      }
    }
    assert.ok(checked >= 10, `checked ${checked}`);
  });

  test("task.completed citing a decision appends an inference.edge.generated whose relation is inferred at 0.86", slow, () => {
    const { projected, citingSeq, generatedSeq, generatedCount } = fixture;
    assert.equal(generatedCount, 1);
    assert.equal(generatedSeq, citingSeq + 1);
    const generated = projected.events[generatedSeq - 1];
    assert.equal(generated.type, "inference.edge.generated");
    assert.equal(generated.actor, "zaxy-inference");
    // The generated relation, plus its copy onto the decision's later version (graphFold keeps
    // a superseded version's relations and copies them onto the new one).
    const relations = projected.rows!.relations.filter((r) => r.relationType === "likely_implemented_decision");
    assert.equal(relations.length, 2);
    const [relation, copied] = relations;
    assert.equal(relation.inferred, true);
    assert.equal(relation.confidence, 0.86);
    assert.equal(relation.inferenceMethod, "task_completed_decision_citation_v1");
    assert.equal(relation.sourceEventSeq, generatedSeq);
    assert.equal(relation.sourceEventHash, generated.hash);
    const byKey = new Map(projected.rows!.entities.map((e) => [e.nodeKey, e]));
    assert.equal(byKey.get(relation.sourceKey)?.name, "T-1");
    assert.equal(byKey.get(relation.sourceKey)?.entityType, "task");
    assert.equal(byKey.get(relation.targetKey)?.name, "Use Kuzu");
    assert.equal(byKey.get(relation.targetKey)?.entityType, "decision");
    const evidence = JSON.parse(relation.evidenceJson) as Record<string, unknown>;
    assert.equal(evidence.source_event_seq, citingSeq);
    assert.deepEqual(
      { ...copied, relKey: "", targetKey: "", sourceEventSeq: 0, sourceEventHash: "" },
      { ...relation, relKey: "", targetKey: "", sourceEventSeq: 0, sourceEventHash: "" },
      "the copy keeps inferred, confidence, method, validity start and evidence",
    );
    const target = byKey.get(copied.targetKey)!;
    assert.deepEqual([target.name, target.entityType, target.validTo], ["Use Kuzu", "decision", null]);
    // Every other relation is observed at full confidence.
    for (const r of projected.rows!.relations) if (!relations.includes(r)) assert.deepEqual([r.inferred, r.confidence, r.inferenceMethod], [false, 1, null]);
  });

  test("none of the reads above wrote to the fixture's log", () => {
    assert.deepEqual(fs.readFileSync(logPathOf(fixture.root)), fixture.logBytes);
  });
});
