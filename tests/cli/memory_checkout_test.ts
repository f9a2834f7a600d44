// test-lane: full (slow)
/**
 * `zaxy memory checkout|query|status` and `zaxy reproject` through the binary (docs/checkout.md,
 * DESIGN §6, §12): the --json documents' keys, exit codes and messages for bad input (an
 * invalid session id among it; a session with no log yet is tests/checkout/first_turn_test.ts)
 * and tampered logs, status before and after a read, reprojecting one session and then
 * every session from a reset projection, the token budget, and that none of this writes to the log.
 *
 * One fixture directory is shared (each command that loads Kuzu costs ~1 s); reads after the
 * first find the read model at the log head and skip Kuzu.
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { makeTempDir, readLines, removeTempDirs, writeLines } from "../eventloom/testkit.ts";
import { runZaxy, stackTraceLines, type ZaxyRun } from "./zaxy.ts";

after(removeTempDirs);

/** Bun's default per-test timeout is 5 s; a command that opens Kuzu takes ~1 s. */
const slow = { timeout: 60_000 };

const checkoutKeys = [
  "schema", "session_id", "query", "prompt", "current_facts", "evidence", "provenance", "retention", "warnings", "guidance", "quality",
  "diagnostics", "context_counts", "replay_event_count", "compacted", "assembly_policy",
];
const diagnosticsKeys = [
  "source_lanes", "citation_count", "current_citation_count", "current_fact_count", "superseded_contexts_excluded", "warning_count",
  "feedback_recommended", "feedback_tool", "feedback_reason", "query_match", "semantic",
];
const citationPattern = /^eventloom:\/\/([A-Za-z0-9_.-]+)\/events\/([1-9][0-9]*)#([0-9a-f]{12})$/;

let dir = "";
const logs: { [session: string]: string } = {};
const logBytes: { [session: string]: Buffer } = {};
// deno-lint-ignore no-explicit-any
let firstCheckout: any;

function zaxy(args: string[], cwd = dir): ZaxyRun {
  return runZaxy(args, { cwd });
}

// deno-lint-ignore no-explicit-any
function jsonOk(args: string[], cwd = dir): any {
  const run = zaxy([...args, "--json"], cwd);
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout}${run.stderr}`);
  assert.equal(run.stderr, "", args.join(" "));
  return JSON.parse(run.stdout);
}

/** Runs with --json and checks the exit code and the error document; returns the error. */
function jsonError(args: string[], code: number, errorCode: string, cwd = dir): { code: string; message: string; [key: string]: unknown } {
  const run = zaxy([...args, "--json"], cwd);
  assert.equal(run.code, code, `${args.join(" ").slice(0, 200)}: ${run.stdout}${run.stderr}`);
  assert.deepEqual(stackTraceLines(run.stderr), [], run.stderr);
  const doc = JSON.parse(run.stdout);
  assert.deepEqual(Object.keys(doc), ["error"]);
  assert.equal(doc.error.code, errorCode, run.stdout);
  assert.equal(typeof doc.error.message, "string");
  return doc.error;
}

function append(session: string, type: string, actor: string, payload: unknown): void {
  // user.preference_changed (an underscore) switches the session to legacy lines, which must be asked for.
  const run = zaxy(["memory", "append", type, "--actor", actor, "--session-id", session, "--allow-envelope-switch", "--payload-json", JSON.stringify(payload)]);
  assert.equal(run.code, 0, run.stderr);
}

function assertLogsUnchanged(): void {
  for (const session of Object.keys(logs)) assert.deepEqual(fs.readFileSync(logs[session]), logBytes[session], `log of ${session} unchanged`);
}

before(() => {
  dir = makeTempDir("cli-checkout");
  append("default", "goal.created", "planner", { title: "Ship v1", description: "First public release" });
  append("default", "decision.made", "architect", { decision: "Use Kuzu", summary: "Kuzu stores the graph projection" });
  for (const value of ["vim", "emacs", "helix"]) append("default", "user.preference_changed", "alice", { user: "alice", key: "editor", value });
  append("default", "document.indexed", "indexer", { path: "docs/release.md", start_line: 1, end_line: 9, content: "Release checklist: tag, build, publish" });
  append("default", "transcript.turn", "chat", { source: "chat-1", turn_index: 1, role: "user", content: "When is the deploy window?" });
  append("side", "goal.created", "planner", { title: "Side quest" });
  append("side", "custom.widget.spun", "robot", { speed: 3 });
  for (const session of ["default", "side"]) {
    logs[session] = path.join(dir, ".eventloom", `${session}.jsonl`);
    logBytes[session] = fs.readFileSync(logs[session]);
  }
}, slow);

describe("zaxy memory status, checkout and query", () => {
  test("status before any read: the projection is 7 events behind and nothing exists yet", slow, () => {
    const status = jsonOk(["memory", "status"]);
    assert.deepEqual(Object.keys(status), ["schema", "session_id", "log", "projection", "read_model", "vectors", "invalid_derived_events", "unauthorised_governance_events"]);
    assert.equal(status.read_model, null, "no read model before the first read");
    assert.deepEqual(status.invalid_derived_events, []);
    assert.deepEqual(status.unauthorised_governance_events, []);
    assert.equal(status.schema, "zaxy.memory.status.v1");
    assert.deepEqual({ ...status.log, path: undefined }, { path: undefined, events: 7, integrity_ok: true, broken_at_seq: null, broken_reason: null });
    assert.equal(status.projection.head_seq, 0);
    assert.equal(status.projection.head_hash, null);
    assert.equal(status.projection.behind_by, 7);
    assert.equal(status.projection.up_to_date, false);
    assert.equal(status.projection.entity_versions, 0);
    assert.equal(status.vectors, null);
    assert.ok(!fs.existsSync(path.join(dir, ".eventloom", "projections")), "status never projects");
    assertLogsUnchanged();
  });

  test("checkout --json has the documented top-level keys, cited current facts and retention", slow, () => {
    const doc = jsonOk(["memory", "checkout", "which editor does alice use"]);
    firstCheckout = doc;
    assert.deepEqual(Object.keys(doc), checkoutKeys);
    assert.equal(doc.schema, "zaxy.memory.checkout.v1");
    assert.equal(doc.session_id, "default");
    assert.equal(doc.query, "which editor does alice use");
    assert.ok(doc.prompt.startsWith("# Memory Checkout\nQuery: which editor does alice use\n\n## Current Facts\n"), doc.prompt);
    const facts = doc.current_facts.map((f: { content: string }) => f.content);
    assert.ok(facts.some((c: string) => c.includes("editor=helix")), JSON.stringify(facts));
    assert.ok(!facts.some((c: string) => /editor=(vim|emacs)/.test(c)), JSON.stringify(facts));
    for (const fact of doc.current_facts) {
      assert.deepEqual(Object.keys(fact).slice(0, 7), ["content", "source", "score", "citation", "valid_from", "valid_to", "source_lane"]);
      assert.equal(fact.valid_to, null);
      assert.match(fact.citation, citationPattern);
    }
    for (const item of doc.evidence) {
      // matches_query: false marks low-relevance evidence (docs/checkout.md); matched items omit it.
      const keys = ["citation", "content", "source", "source_lane", "score", "event_seq", "event_hash", ...(item.matches_query === false ? ["matches_query"] : [])];
      assert.deepEqual(Object.keys(item).filter((k) => k !== "score_explanation"), keys);
      const match = citationPattern.exec(item.citation)!;
      assert.ok(match, item.citation);
      assert.deepEqual([match[1], Number(match[2]), match[3]], ["default", item.event_seq, item.event_hash]);
    }
    assert.equal(doc.provenance.length, doc.evidence.length);
    for (const item of doc.provenance) {
      const keys = ["citation", "event_seq", "event_hash", "source", "source_lane", "valid_from", "valid_to", ...(item.matches_query === false ? ["matches_query"] : [])];
      assert.deepEqual(Object.keys(item), keys);
    }
    assert.deepEqual(doc.retention, { policy: "current_only", superseded_contexts_excluded: 2 });
    assert.deepEqual(Object.keys(doc.guidance), ["trust", "ignore", "recommended_next_call", "feedback"]);
    assert.deepEqual(Object.keys(doc.quality), ["answerability", "confidence", "reasons", "required_action"]);
    assert.equal(doc.quality.answerability, "answer_from_memory");
    assert.deepEqual(Object.keys(doc.diagnostics), diagnosticsKeys);
    assert.equal(doc.diagnostics.current_fact_count, doc.current_facts.length);
    assert.equal(doc.diagnostics.citation_count, doc.evidence.length);
    assert.deepEqual(Object.keys(doc.context_counts), ["graph", "verbatim", "replay"]);
    assert.equal(doc.replay_event_count, 7);
    assert.equal(doc.compacted, false);
    assert.deepEqual(doc.assembly_policy, { verbatim_enabled: true, verbatim_slots: 1, packet_memory_enabled: false, packet_memory_slots: 0 });
    assertLogsUnchanged();
  });

  test("status after the read: up to date, behind_by 0, read model and vectors reported", slow, () => {
    const status = jsonOk(["memory", "status"]);
    assert.equal(status.projection.behind_by, 0);
    assert.equal(status.projection.up_to_date, true);
    assert.equal(status.projection.head_seq, 7);
    assert.match(status.projection.head_hash, /^[0-9a-f]{64}$/);
    const last = JSON.parse(readLines(logs.default)[6]);
    assert.equal(status.projection.head_hash, last.hash ?? last.integrity.hash.slice("sha256:".length));
    assert.equal(status.read_model.head_seq, 7);
    assert.ok(status.projection.entity_versions > status.projection.current_entities, "superseded versions are kept");
    assert.equal(status.vectors.count, status.projection.entity_versions);
    assert.equal(status.vectors.head_seq, 7);
    // The other session has not been read.
    const side = jsonOk(["memory", "status", "--session-id", "side"]);
    assert.equal(side.projection.behind_by, 2);
    assertLogsUnchanged();
  });

  test("checkout without --json prints the prompt; the same query gives the same document", slow, () => {
    const text = zaxy(["memory", "checkout", "which editor does alice use"]);
    assert.equal(text.code, 0, text.stderr);
    assert.equal(text.stderr, "");
    assert.equal(text.stdout, `${firstCheckout.prompt}\n`);
    assert.deepEqual(jsonOk(["memory", "checkout", "which editor does alice use"]), firstCheckout, "deterministic");
  });

  test("query --json: ranked, cited contexts (superseded included) with per-lane diagnostics", slow, () => {
    const doc = jsonOk(["memory", "query", "alice editor", "--limit", "5"]);
    assert.deepEqual(Object.keys(doc), ["schema", "session_id", "query", "results", "diagnostics"]);
    assert.equal(doc.schema, "zaxy.memory.query.v1");
    assert.deepEqual([doc.session_id, doc.query], ["default", "alice editor"]);
    assert.ok(doc.results.length > 0 && doc.results.length <= 5);
    for (const result of doc.results) {
      const keys = Object.keys(result).filter((k) => k !== "entity_name" && k !== "entity_type");
      assert.deepEqual(keys, ["content", "source", "source_lane", "score", "valid_from", "valid_to", "citation", "event_seq", "event_hash", "score_explanation", "metadata"]);
      const match = citationPattern.exec(result.citation)!;
      assert.ok(match, result.citation);
      assert.equal(Number(match[2]), result.event_seq);
      assert.ok(result.event_hash.startsWith(match[3]));
    }
    const scores = doc.results.map((r: { score: number }) => r.score);
    assert.ok(doc.results.some((r: { valid_to: string | null }) => r.valid_to !== null), "superseded versions are included");
    assert.equal(scores.length, doc.diagnostics.result_count);
    assert.deepEqual(Object.keys(doc.diagnostics), ["source_lanes", "result_count", "degraded", "semantic", "projection"]);
    // Asked with the memory's own words: the semantic lane did not run, and the receipt says so.
    assert.equal(doc.diagnostics.semantic.ran, false);
    assert.deepEqual(Object.keys(doc.diagnostics.source_lanes).sort(), ["exact", "keyword", "traversal", "vector", "verbatim"]);
    assert.equal(doc.diagnostics.degraded, false);
    assert.equal(doc.diagnostics.projection.head_seq, 7);
    assert.equal(doc.diagnostics.projection.source, "read_model", "the read model at the head is used (issue 14)");
    assertLogsUnchanged();
  });

  test("--max-tokens 50 packs the prompt, reports elided sections and budget keys, and changes nothing else", slow, () => {
    const doc = jsonOk(["memory", "checkout", "which editor does alice use", "--max-tokens", "50"]);
    assert.deepEqual(Object.keys(doc.diagnostics), [...diagnosticsKeys, "budget_requested", "budget_used", "elided"]);
    assert.equal(doc.diagnostics.budget_requested, 50);
    assert.ok(Number.isInteger(doc.diagnostics.budget_used) && doc.diagnostics.budget_used > 50, "the mandatory sections alone exceed 50 tokens");
    assert.ok(doc.diagnostics.budget_used >= Math.ceil([...doc.prompt].length / 4));
    assert.ok(doc.diagnostics.budget_used < Math.ceil([...firstCheckout.prompt].length / 4));
    const elided = doc.diagnostics.elided.map((e: { section_id: string }) => e.section_id);
    // No retrieved_context section: every retrieved context is already a fact or evidence item.
    assert.deepEqual(elided, ["current_facts", "evidence", "guidance", "diagnostics", "recent_events"], "mandatory sections alone exceed 50 tokens");
    // items_total counts the section's lines in the full prompt (an evidence item that is already
    // a current fact is not listed again).
    const section = (title: string) => {
      const lines = (firstCheckout.prompt as string).split("\n");
      const start = lines.indexOf(title);
      const end = lines.findIndex((line, i) => i > start && line.startsWith("#"));
      return lines.slice(start + 1, end).filter((line) => line.startsWith("- ")).length;
    };
    const evidenceLines = section("## Evidence");
    for (const entry of doc.diagnostics.elided) {
      if (entry.section_id === "current_facts" || entry.section_id === "evidence") {
        const total = entry.section_id === "current_facts" ? section("## Current Facts") : evidenceLines;
        assert.deepEqual(Object.keys(entry), ["section_id", "estimated_tokens", "items_kept", "items_total"]);
        assert.deepEqual([entry.items_kept, entry.items_total], [0, total]);
      } else if (entry.section_id === "guidance") {
        assert.deepEqual(Object.keys(entry), ["section_id", "estimated_tokens", "condensed"]);
        assert.equal(entry.condensed, true);
      } else {
        assert.deepEqual(Object.keys(entry), ["section_id", "estimated_tokens"]);
      }
      assert.ok(Number.isInteger(entry.estimated_tokens) && entry.estimated_tokens > 0);
    }
    assert.match(doc.prompt, new RegExp(`^# Memory Checkout\nQuery: which editor does alice use\nBudget: 50 tokens; shown 0 of ${section("## Current Facts")} current facts`));
    assert.ok(!doc.prompt.includes("## Current Facts") && !doc.prompt.includes("# Recent Events"));
    assert.ok(doc.prompt.startsWith("# Memory Checkout\n") && doc.prompt.includes("## Checkout Quality") && doc.prompt.includes("## Checkout Guidance"));
    const strip = (d: { prompt?: string; diagnostics: Record<string, unknown> }) => {
      const { budget_requested: _r, budget_used: _u, elided: _e, ...diagnostics } = d.diagnostics;
      return { ...d, prompt: undefined, diagnostics };
    };
    assert.deepEqual(strip(doc), strip(firstCheckout));
    const invalid = jsonError(["memory", "checkout", "x", "--max-tokens=-1"], 2, "invalid_option");
    assert.equal(invalid.message, '--max-tokens must be an integer >= 0, got "-1"');
  });
});

describe("bad input: exit 2 with a coded --json error, nothing read or written", () => {
  const longQuery = "a".repeat(4097);
  const cases: Array<{ name: string; args: string[]; code: string; message: RegExp }> = [
    { name: "empty query", args: [""], code: "invalid_query", message: /^QUERY must be a non-empty string$/ },
    { name: "blank query", args: ["   "], code: "invalid_query", message: /^QUERY must be a non-empty string$/ },
    { name: "4097-character query", args: [longQuery], code: "invalid_query", message: /^QUERY is 4097 characters; at most 4096 are allowed$/ },
    { name: "--limit 0", args: ["q", "--limit", "0"], code: "invalid_option", message: /^--limit must be an integer 1\.\.100, got "0"$/ },
    { name: "--limit 101", args: ["q", "--limit", "101"], code: "invalid_option", message: /^--limit must be an integer 1\.\.100, got "101"$/ },
    { name: "--depth 0", args: ["q", "--depth", "0"], code: "invalid_option", message: /^--depth must be an integer 1\.\.5, got "0"$/ },
    { name: "--depth 6", args: ["q", "--depth", "6"], code: "invalid_option", message: /^--depth must be an integer 1\.\.5, got "6"$/ },
    { name: "invalid session id", args: ["q", "--session-id", "no/such"], code: "invalid_session_id", message: /^Cannot read session "no\/such": session ids are / },
  ];
  for (const command of ["checkout", "query"]) {
    test(`memory ${command}: ${cases.map((c) => c.name).join(", ")}`, slow, () => {
      for (const c of cases) {
        const error = jsonError(["memory", command, ...c.args], 2, c.code);
        assert.match(error.message, c.message, c.name);
        // Without --json: the message on stderr, nothing on stdout.
        const plain = zaxy(["memory", command, ...c.args]);
        assert.equal(plain.code, 2, c.name);
        assert.equal(plain.stdout, "", c.name);
        assert.ok(plain.stderr.includes(error.message), `${c.name}: ${plain.stderr}`);
      }
      assert.ok(!fs.existsSync(path.join(dir, ".eventloom", "nosuch.jsonl")), "an unknown session is not created");
      assertLogsUnchanged();
    });
  }

  test("a 4096-character query is accepted", slow, () => {
    const doc = jsonOk(["memory", "checkout", "editor ".repeat(585) + "a"]);
    assert.equal([...doc.query].length, 4096);
  });
});

describe("zaxy reproject", () => {
  test("reproject --json rebuilds the session; --all --reset-projection rebuilds every session from nothing", slow, () => {
    const one = jsonOk(["reproject"]);
    assert.deepEqual(Object.keys(one), ["schema", "ok", "root", "sessions"]);
    assert.equal(one.schema, "zaxy.reproject.v1");
    assert.equal(one.ok, true);
    assert.equal(one.root, path.join(fs.realpathSync(dir), ".eventloom"));
    assert.equal(one.sessions.length, 1);
    const [report] = one.sessions;
    assert.deepEqual(Object.keys(report), ["session_id", "ok", "events", "entity_versions", "relations", "seconds", "vector_seconds", "phases_ms"]);
    assert.deepEqual([report.session_id, report.ok, report.events], ["default", true, 7]);
    const status = jsonOk(["memory", "status"]);
    assert.equal(status.projection.behind_by, 0);
    assert.equal(status.projection.entity_versions, report.entity_versions);
    assert.equal(status.projection.relations, report.relations);

    fs.writeFileSync(path.join(dir, ".eventloom", "projections", "stray-file"), "left over");
    const all = jsonOk(["reproject", "--all", "--reset-projection"]);
    assert.equal(all.ok, true);
    assert.deepEqual(all.sessions.map((s: { session_id: string; ok: boolean }) => [s.session_id, s.ok]), [["default", true], ["side", true]]);
    assert.deepEqual(all.sessions.map((s: { events: number }) => s.events), [7, 2]);
    assert.deepEqual([all.sessions[0].entity_versions, all.sessions[0].relations], [report.entity_versions, report.relations]);
    assert.ok(!fs.existsSync(path.join(dir, ".eventloom", "projections", "stray-file")), "--reset-projection deleted projections/");
    for (const file of ["vectors/default.vectors", "vectors/side.vectors", "readmodel/default/manifest.json", "readmodel/side/manifest.json"]) {
      assert.ok(fs.existsSync(path.join(dir, ".eventloom", "projections", file)), file);
    }
    // No read answers from the Kuzu graph store: reproject leaves it to --graph-store.
    assert.ok(!fs.existsSync(path.join(dir, ".eventloom", "projections", "embedded.kuzu")), "embedded.kuzu written without --graph-store");
    assert.equal(jsonOk(["memory", "status", "--session-id", "side"]).projection.behind_by, 0);
    assert.deepEqual(jsonOk(["memory", "checkout", "which editor does alice use"]), firstCheckout, "same checkout after the rebuild");
    assert.ok(!fs.existsSync(path.join(dir, ".eventloom", "projections", "embedded.kuzu")), "a checkout does not write the graph store");

    const withGraph = jsonOk(["reproject", "--graph-store"]);
    assert.equal(typeof withGraph.sessions[0].phases_ms.write_store, "number");
    const graph = jsonOk(["memory", "status", "--graph"]).graph;
    assert.deepEqual([graph.head.seq, graph.head.entityCount, graph.head.relationCount], [7, report.entity_versions, report.relations]);
    assert.deepEqual(graph.sessions, ["default"]);
    assertLogsUnchanged();
  });

  test("reproject of an unknown session exits 2 and deletes nothing", slow, () => {
    const error = jsonError(["reproject", "--session-id", "nosuch", "--reset-projection"], 2, "unknown_session");
    assert.match(error.message, /nosuch/);
    assert.ok(fs.existsSync(path.join(dir, ".eventloom", "projections", "readmodel", "default", "manifest.json")));
  });
});

describe("a tampered log is never projected", () => {
  test("checkout, query, status and reproject exit 1 with integrity_failure naming the seq; projections stay as they were", slow, () => {
    const copy = makeTempDir("cli-checkout-tamper");
    fs.cpSync(path.join(dir, ".eventloom"), path.join(copy, ".eventloom"), { recursive: true });
    // One more event, so a projection that trusted the log would move.
    const appended = zaxy(["memory", "append", "goal.created", "--actor", "a", "--payload-json", '{"title":"late"}'], copy);
    assert.equal(appended.code, 0, appended.stderr);
    const file = path.join(copy, ".eventloom", "default.jsonl");
    const lines = readLines(file);
    const seq = 4; // the emacs preference, the middle of 8 lines
    assert.ok(lines[seq - 1].includes('"value":"emacs"'));
    lines[seq - 1] = lines[seq - 1].replace('"value":"emacs"', '"value":"emacz"');
    JSON.parse(lines[seq - 1]);
    writeLines(file, lines);
    const cache = path.join(copy, ".eventloom", "projections", "readmodel", "default", "manifest.json");
    const cacheBytes = fs.readFileSync(cache);

    for (const command of [["memory", "checkout", "editor"], ["memory", "query", "editor"]]) {
      const error = jsonError(command, 1, "integrity_failure", copy);
      assert.match(error.message, new RegExp(`fails verification at seq ${seq}\\b`), error.message);
      const plain = zaxy(command, copy);
      assert.equal(plain.code, 1);
      assert.equal(plain.stdout, "");
      assert.match(plain.stderr, new RegExp(`seq ${seq}\\b`));
    }
    const status = zaxy(["memory", "status", "--json"], copy);
    assert.equal(status.code, 1, status.stdout + status.stderr);
    const statusDoc = JSON.parse(status.stdout);
    assert.deepEqual([statusDoc.log.integrity_ok, statusDoc.log.broken_at_seq], [false, seq]);
    assert.equal(statusDoc.projection.up_to_date, false);
    assert.equal(statusDoc.projection.head_seq, 7);

    const reproject = zaxy(["reproject", "--json"], copy);
    assert.equal(reproject.code, 1, reproject.stdout + reproject.stderr);
    const reprojectDoc = JSON.parse(reproject.stdout);
    assert.equal(reprojectDoc.ok, false);
    assert.equal(reprojectDoc.sessions[0].error.code, "integrity_failure");
    assert.match(reprojectDoc.sessions[0].error.message, new RegExp(`seq ${seq}\\b`));
    assert.deepEqual(fs.readFileSync(cache), cacheBytes, "read model unchanged");
    assertLogsUnchanged();
  });
});
