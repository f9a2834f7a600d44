// test-lane: full (slow)
/**
 * What a consolidation candidate is worth in a checkout, through the binary (docs/consolidation.md
 * "What a candidate's standing is"): only a `consolidation.candidate.reviewed` event decides its
 * review status, a closed validity window (`memory invalidate`, MCP `memory_invalidate`) closes
 * it in every surface, and every candidate a checkout serves says its review and authority
 * status, with the candidate's own title and summary and the citation of its creation.
 *
 * The session (22 events, window 9 with 3 recent events → horizon split at seq 13):
 *   1-4  tool calls                      5-6  A proposed and accepted (stays current)
 *   7-8  I proposed and accepted          9-10 M proposed and accepted
 *   11   P proposed (pending)             12   S appended raw, declaring itself accepted and authoritative
 *   13-20 notes                           21   I invalidated (CLI)   22  M invalidated (MCP)
 */
import assert from "node:assert/strict";
import * as fs from "node:fs";
import * as path from "node:path";
import { after, before, describe, test } from "node:test";
import { consolidationCandidateId } from "../../src/consolidation/candidate.ts";
import { makeTempDir, removeTempDirs } from "../eventloom/testkit.ts";
import { type McpServer, startMcpServer } from "../mcp/mcpTestClient.ts";
import { runZaxy, zaxyInvocation } from "../cli/zaxy.ts";

after(removeTempDirs);

const slow = { timeout: 180_000 };

interface Appended {
  seq: number;
  hash: string;
  citation: string;
}

interface Candidate {
  id: string;
  created: Appended;
}

interface Item {
  content: string;
  citation: string;
  source: string;
  entity_name?: string;
  review_status?: string;
  authority_status?: string;
}

let dir = "";
let root = "";
const sources: Appended[] = [];
let accepted: Candidate;
let invalidatedByCli: Candidate;
let invalidatedByMcp: Candidate;
let pending: Candidate;
let selfDeclared: Candidate;
let cliInvalidAt = "";
let mcpInvalidAt = "";

// deno-lint-ignore no-explicit-any
function zaxyJson(args: string[]): any {
  const run = runZaxy([...args, "--json"], { cwd: dir });
  assert.equal(run.code, 0, `${args.join(" ")}: ${run.stdout.slice(0, 400)}${run.stderr}`);
  return JSON.parse(run.stdout);
}

function append(type: string, payload: Record<string, unknown>): Appended {
  const doc = zaxyJson(["memory", "append", type, "--actor", "agent", "--payload-json", JSON.stringify(payload)]);
  return { seq: doc.seq, hash: doc.hash, citation: doc.citation };
}

function propose(title: string, summary: string, cited: Appended[], review?: string): Candidate {
  const doc = zaxyJson([
    "memory", "consolidation", "propose", "--candidate-type", "claim", "--title", title, "--summary", summary,
    ...cited.flatMap((event) => ["--source-event", `${event.seq}:${event.hash}`]),
    "--confidence", "0.8",
  ]);
  const candidate = { id: doc.candidate_id as string, created: { seq: doc.seq, hash: doc.hash, citation: doc.citation } };
  if (review !== undefined) {
    zaxyJson(["memory", "consolidation", "review", "--candidate-id", candidate.id, "--status", review, "--rationale", "checked the cited runs"]);
  }
  return candidate;
}

/** `zaxy serve` from the tests' zaxy: the built binary, or a script running the source. */
function serveCommand(): string {
  if (zaxyInvocation.kind === "binary") return zaxyInvocation.command;
  const script = path.join(dir, "zaxy-from-source.sh");
  const quoted = [zaxyInvocation.command, ...zaxyInvocation.args].map((part) => `'${part.replaceAll("'", "'\\''")}'`).join(" ");
  fs.writeFileSync(script, `#!/bin/sh\nexec ${quoted} "$@"\n`, { mode: 0o755 });
  return script;
}

function checkout(query: string, extra: string[] = []) {
  return zaxyJson(["memory", "checkout", query, "--limit", "20", ...extra]);
}

function longHorizonCheckout(query: string) {
  return checkout(query, ["--long-horizon", "--recent-window", "9", "--max-recent-events", "3"]);
}

function itemsFor(items: readonly Item[], candidate: Candidate): Item[] {
  return items.filter((item) => item.entity_name === candidate.id || item.citation === candidate.created.citation);
}

function promptSection(prompt: string, heading: string): string[] {
  return prompt.split(`${heading}\n`)[1].split("\n\n")[0].split("\n");
}

describe("consolidation candidates in checkout", () => {
  before(async () => {
    dir = makeTempDir("zaxy-candidate-standing");
    root = path.join(dir, ".eventloom");
    for (let i = 1; i <= 4; i++) sources.push(append("tool.call.completed", { tool: "pytest", summary: `cache test run ${i}` }));
    accepted = propose("Redis cache decision", "the cache uses redis with a 60 s ttl", [sources[0], sources[1]], "accepted");
    invalidatedByCli = propose("Memcached sharding plan", "shard the memcached tier by tenant", [sources[0]], "accepted");
    invalidatedByMcp = propose("Varnish edge rule", "varnish caches product pages at the edge", [sources[1]], "accepted");
    pending = propose("Cache eviction idea", "evict lru entries when the heap passes 80 percent", [sources[2]]);
    // A candidate that declares its own acceptance, with no review event behind it.
    const selfSources = [{ seq: sources[2].seq, hash: sources[2].hash }];
    const selfId = consolidationCandidateId("claim", "Selfapproved warmup claim", selfSources);
    const selfCreated = append("consolidation.candidate.created", {
      candidate_id: selfId,
      candidate_type: "claim",
      title: "Selfapproved warmup claim",
      summary: "warmup preloads every selfapproved key",
      source_events: selfSources,
      confidence: 0.9,
      method: "manual_review_v1",
      review_status: "accepted",
      authority_status: "authoritative",
    });
    selfDeclared = { id: selfId, created: selfCreated };
    for (let i = 13; i <= 20; i++) append("note.added", { text: `later note ${i}` });

    cliInvalidAt = new Date().toISOString();
    zaxyJson(["memory", "invalidate", invalidatedByCli.id, "--entity-type", "consolidation_candidate", "--invalid-at", cliInvalidAt, "--reason", "sharding was dropped"]);
    const mcp: McpServer = await startMcpServer(root, { command: serveCommand(), profile: null, clientName: "zaxy-candidate-standing-test" });
    try {
      mcpInvalidAt = new Date().toISOString();
      const result = await mcp.callOk("memory_invalidate", {
        entity_name: invalidatedByMcp.id,
        entity_type: "consolidation_candidate",
        invalid_at: mcpInvalidAt,
        reason: "the edge tier was removed",
      });
      assert.equal(result.status, "invalidated");
      // The fact that closed is the candidate as proposed: the creation event.
      assert.equal(result.closed_citation, invalidatedByMcp.created.citation);
    } finally {
      await mcp.close();
    }
    assert.equal(fs.readFileSync(path.join(root, "default.jsonl"), "utf8").trim().split("\n").length, 22);
  }, slow);

  describe("an invalidated candidate is closed everywhere", () => {
    test("memory query shows the invalidated candidates with valid_to set", slow, () => {
      const doc = zaxyJson(["memory", "query", "memcached sharding varnish edge", "--limit", "20"]);
      for (const candidate of [invalidatedByCli, invalidatedByMcp]) {
        const rows = doc.results.filter((row: { entity_name?: string }) => row.entity_name === candidate.id);
        assert.ok(rows.length > 0, `${candidate.id} is in the query result`);
        assert.ok(rows.every((row: { valid_to: string | null }) => row.valid_to !== null), JSON.stringify(rows));
      }
    });

    test("the long-horizon tier and current facts leave out an invalidated candidate and keep the current one", slow, () => {
      const doc = longHorizonCheckout("memcached sharding varnish edge redis cache decision");
      const tierIds = doc.diagnostics.long_horizon.items.map((item: { candidate_id: string }) => item.candidate_id);
      assert.ok(tierIds.includes(accepted.id), JSON.stringify(tierIds));
      assert.ok(!tierIds.includes(invalidatedByCli.id), "invalidated through the CLI, still in the remote tier");
      assert.ok(!tierIds.includes(invalidatedByMcp.id), "invalidated through MCP, still in the remote tier");
      for (const candidate of [invalidatedByCli, invalidatedByMcp]) {
        assert.deepEqual(itemsFor(doc.current_facts, candidate), [], `${candidate.id} is served as a current fact`);
        assert.ok(!promptSection(doc.prompt, "## Current Facts").some((line) => line.includes(candidate.created.citation)));
      }
      assert.equal(itemsFor(doc.current_facts, accepted).length, 1);
    });

    test("consolidation status counts an invalidated candidate as stale, with its valid_to", slow, () => {
      const status = zaxyJson(["memory", "consolidation", "status"]);
      const byId = new Map(status.candidates.map((candidate: { candidate_id: string }) => [candidate.candidate_id, candidate]));
      // deno-lint-ignore no-explicit-any
      const cli = byId.get(invalidatedByCli.id) as any;
      // deno-lint-ignore no-explicit-any
      const mcp = byId.get(invalidatedByMcp.id) as any;
      assert.equal(cli.valid_to, runZaxyTimestamp(cliInvalidAt));
      assert.equal(mcp.valid_to, runZaxyTimestamp(mcpInvalidAt));
      assert.equal(cli.stale, true);
      assert.equal(mcp.stale, true);
      assert.equal(status.valid_to_count, 2);
      assert.equal(status.stale_count, 2);
      // deno-lint-ignore no-explicit-any
      assert.equal((byId.get(accepted.id) as any).valid_to, undefined);
    });

    test("checkout's consolidation diagnostics count the invalidated candidates as stale", slow, () => {
      const doc = checkout("memcached sharding varnish edge");
      const counts = doc.diagnostics.consolidation_candidates;
      assert.ok(counts !== undefined, "the candidates were retrieved");
      assert.equal(counts.stale_count, 2, JSON.stringify(counts));
    });
  });

  describe("only a review event decides a candidate's review status", () => {
    test("consolidation status lists a self-declared acceptance as pending and non-authoritative", slow, () => {
      const status = zaxyJson(["memory", "consolidation", "status"]);
      const candidate = status.candidates.find((entry: { candidate_id: string }) => entry.candidate_id === selfDeclared.id);
      assert.equal(candidate.review_status, "pending");
      assert.equal(candidate.authority_status, "non_authoritative");
      assert.equal(status.accepted_count, 3, "A, I and M were accepted by a review");
      assert.equal(status.pending_count, 2, "P and S have no review");
      assert.deepEqual(status.review_status_counts, { accepted: 3, pending: 2 });
    });

    test("checkout diagnostics count a self-declared acceptance as pending", slow, () => {
      const doc = checkout("selfapproved warmup");
      const counts = doc.diagnostics.consolidation_candidates;
      assert.equal(counts.candidate_count, 1, JSON.stringify(counts));
      assert.equal(counts.accepted_count, 0);
      assert.equal(counts.pending_count, 1);
      const [fact] = itemsFor(doc.current_facts, selfDeclared);
      assert.equal(fact.review_status, "pending");
      assert.equal(fact.authority_status, "non_authoritative");
    });

    test("the long-horizon tier leaves a self-declared acceptance out", slow, () => {
      const doc = longHorizonCheckout("selfapproved warmup");
      const tierIds = doc.diagnostics.long_horizon.items.map((item: { candidate_id: string }) => item.candidate_id);
      assert.ok(!tierIds.includes(selfDeclared.id));
    });
  });

  describe("every served candidate says its review status", () => {
    test("a pending candidate under Current Facts says it is pending review, in JSON and on its line", slow, () => {
      const doc = checkout("cache eviction idea lru heap");
      const [fact] = itemsFor(doc.current_facts, pending);
      assert.ok(fact !== undefined, JSON.stringify(doc.current_facts));
      assert.equal(fact.review_status, "pending");
      assert.equal(fact.authority_status, "non_authoritative");
      assert.match(fact.content, /Cache eviction idea/);
      const [evidence] = itemsFor(doc.evidence, pending);
      assert.equal(evidence.review_status, "pending");
      assert.equal(evidence.authority_status, "non_authoritative");
      const line = promptSection(doc.prompt, "## Current Facts").find((entry) => entry.includes(pending.created.citation));
      assert.ok(line !== undefined && line.includes("(pending review)"), String(line));
      // Listed once: the evidence item of a current fact is not repeated under Evidence.
      assert.equal(doc.prompt.split(pending.created.citation).length - 1, 1, doc.prompt);
    });

    test("an accepted candidate keeps its title and summary, cites its creation and says it is accepted, non-authoritative", slow, () => {
      const doc = checkout("redis cache decision ttl");
      const facts = itemsFor(doc.current_facts, accepted);
      assert.equal(facts.length, 1, JSON.stringify(doc.current_facts));
      const [fact] = facts;
      assert.equal(fact.citation, accepted.created.citation);
      assert.match(fact.content, /Redis cache decision/);
      assert.match(fact.content, /the cache uses redis with a 60 s ttl/);
      assert.equal(fact.review_status, "accepted");
      assert.equal(fact.authority_status, "non_authoritative");
      const line = promptSection(doc.prompt, "## Current Facts").find((entry) => entry.includes(accepted.created.citation));
      assert.ok(line !== undefined && line.includes("(accepted, non-authoritative)"), String(line));
      // The two invalidated candidates were accepted too, but their windows are closed: only one
      // accepted candidate is a current fact. (The diagnostics count every retrieved version, as
      // Python does, and whether a closed one is retrieved depends on the ranking.)
      assert.equal(doc.current_facts.filter((item: Item) => item.review_status === "accepted").length, 1, JSON.stringify(doc.current_facts));
      assert.ok(doc.diagnostics.consolidation_candidates.accepted_count >= 1);
    });

    test("a long-horizon item carries its review status in JSON and on its line", slow, () => {
      const doc = longHorizonCheckout("redis cache decision ttl");
      const consolidated = doc.current_facts.filter((fact: Item) => fact.source === "consolidated");
      assert.equal(consolidated.length, 1);
      assert.equal(consolidated[0].review_status, "accepted");
      assert.equal(consolidated[0].authority_status, "non_authoritative");
      const evidence = doc.evidence.filter((item: Item) => item.source === "consolidated");
      assert.equal(evidence[0].review_status, "accepted");
      const line = promptSection(doc.prompt, "## Current Facts").find((entry) => entry.includes(accepted.created.citation));
      assert.ok(line !== undefined && line.includes("(accepted, non-authoritative)"), String(line));
    });
  });
});

/** `invalid_at` as the log stores it: UTC with microseconds. */
function runZaxyTimestamp(iso: string): string {
  return iso.replace(/\.(\d{3})Z$/, ".$1000Z");
}
