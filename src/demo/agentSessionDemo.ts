/**
 * The main demo: a short, realistic agent session recorded into a fresh Eventloom, verified,
 * replayed into a handoff, tampered with (in a copy) and caught, with every event cited.
 * Then the team's release-branch preference changes twice and a Memory Checkout shows only the
 * current value as a cited fact, with the older values superseded (kept, closed, counted).
 * Then the agent explains the test failure causally (two cited `outcome.explained` events; the
 * producer appends the `causal.edge.generated` events) and the predecessors of the failure are
 * walked back through both hops; and consolidation candidates are proposed from the session,
 * proposed again (nothing new), one is reviewed, and the status is replayed.
 * Then a second log of near-duplicate runbook documents is audited for compaction: one cluster,
 * and one representative would lose every identity but its own (unsafe); an exemplar projection
 * keeps every identity, and retrieval finds a record through it with its source citation.
 * Last, the fleet: the agent promotes what it learned (citing its passing test run and decision)
 * into a fleet through the trust check and the evolution gate; an agent outside the fleet is
 * refused with no trace on the fleet thread (the refusal is audited in its own session);
 * another enrolled agent's checkout then cites the promotion.
 * Later features extend it; each step returns data so the CLI can print text or JSON.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { type AppendedEvent, type IntegrityReport, redactedPathsOf, replayLog, verifyLog } from "../eventloom/mod.ts";
import { appendEvents } from "../events/append.ts";
import type { HandoffSummary } from "../eventloom/replay.ts";
import { type CausalQueryResult, queryCausal } from "../causal/mod.ts";
import { proposeFromLog, readConsolidationStatus, reviewCandidate } from "../consolidation/operations.ts";
import { windowSizeDefault } from "../consolidation/segments.ts";
import type { PlainJson } from "../projection/types.ts";
import { auditLog } from "../compaction/audit.ts";
import { writeProjectionFromLog } from "../compaction/projectionFromLog.ts";
import { configPath } from "../eventloom/root.ts";
import { createFleet, enrollAgent, promote, type PromotionResult } from "../fleet/mod.ts";
import { validateMemoryRequest } from "../memory/request.ts";
import { recordEvents } from "../recording/record.ts";
import { MemoryService } from "../memory/service.ts";

export interface DemoCheckout {
  query: string;
  /** Events recorded for this step (the preference changes and a decision). */
  events: AppendedEvent[];
  current_facts: Array<{ content: string; citation: string }>;
  /** Older versions the graph keeps with closed validity windows. */
  superseded: Array<{ content: string; valid_to: string; citation: string }>;
  superseded_contexts_excluded: number;
  answerability: string;
  prompt: string;
}

export interface DemoCausal {
  /** The `outcome.explained` events and the `causal.edge.generated` events the producer appended. */
  explained: AppendedEvent[];
  generated: AppendedEvent[];
  effect: string;
  /** Predecessors of the failure: its causes, nearest first, each with its citation. */
  predecessors: CausalQueryResult[];
}

export interface DemoConsolidation {
  first: { [key: string]: PlainJson };
  /** The same proposal run again: every candidate id already exists, nothing is appended. */
  second: { [key: string]: PlainJson };
  review: { [key: string]: PlainJson };
  status: { [key: string]: PlainJson };
}

export interface DemoCompaction {
  log_path: string;
  events: AppendedEvent[];
  /** The audit of one representative per cluster (the medoid): what compaction would keep. */
  audit: { safe: boolean; cluster_count: number; identity_recall: number | null; unsafe_reasons: string[]; missing_identities: string[] };
  projection: { path: string; projection_id: string; strategy: string; records: number; identities_kept: number; identities_missing: string[] };
  /** `memory query` on the runbook session: the projection items it returns. */
  query: string;
  projection_hits: Array<{ content: string; citation: string; projection_id: string; source_citations: string[] }>;
}

export interface DemoFleet {
  fleet_id: string;
  thread_log: string;
  promotion: PromotionResult;
  /** A promotion by an agent that is not enrolled: rejected, the fleet log unchanged. */
  /** `audit_citation`: the `fleet.promotion.refused` record in the refused agent's own session. */
  refused: { actor: string; rejected: boolean; reason: string; log_bytes_unchanged: boolean; audit_citation: string | null };
  receiver: { agent_id: string; query: string; fleet_facts: Array<{ content: string; citation: string }>; fleet_items: PlainJson };
}

export interface DemoResult {
  root: string;
  session_id: string;
  events: AppendedEvent[];
  redacted_paths: string[];
  integrity: IntegrityReport;
  verify_ms: number;
  handoff: HandoffSummary;
  tamper: { copy: string; changed: string; report: IntegrityReport };
  checkout: DemoCheckout;
  causal: DemoCausal;
  consolidation: DemoConsolidation;
  compaction: DemoCompaction;
  fleet: DemoFleet;
}

/**
 * The session: an agent fixing a failing auth test. Every type is one the engine reads
 * (docs/events.md), with the fields its extractor reads, so each event becomes its own entity.
 */
export const sessionEvents = [
  { type: "goal.created", actor: "agent", payload: { title: "Fix the failing auth test before the release", priority: "high" } },
  { type: "task.proposed", actor: "agent", payload: { taskId: "task-auth-1", title: "Reproduce test_login_refreshes_jwks", goalTitle: "Fix the failing auth test before the release" } },
  {
    type: "tool.call.completed",
    actor: "agent",
    payload: { tool_name: "read_file", arguments: { path: "src/auth/jwks.py" }, result_summary: "JWKS cache TTL is 24 h" },
  },
  {
    type: "command.completed",
    actor: "agent",
    payload: { command: "pytest tests/test_auth.py -q", exit_code: 1, outcome: "failed", summary: "1 failed: key id not found after rotation", api_key: "sk-live-4f9a8b7c6d5e" },
  },
  {
    type: "file.edit.applied",
    actor: "agent",
    payload: { path: "src/auth/jwks.py", operation: "replace", line_count: 3, summary: "Refetch JWKS on unknown kid; TTL 5 min" },
  },
  { type: "command.completed", actor: "agent", payload: { command: "pytest tests/test_auth.py -q", exit_code: 0, outcome: "passed", summary: "12 passed" } },
  {
    type: "decision.made",
    actor: "agent",
    payload: { decision: "Refetch JWKS on unknown key id", rationale: "Key rotation made cached keys stale; a 5 min TTL bounds the window." },
  },
  { type: "task.completed", actor: "agent", payload: { taskId: "task-auth-1", outcome: "success" } },
];

/** Later in the session: where the fix ships changes twice. */
const preferenceEvents = [
  { type: "user.preference_changed", actor: "agent", payload: { user: "maya", key: "release_branch", value: "main" } },
  {
    type: "decision.made",
    actor: "agent",
    payload: { decision: "Ship the JWKS refetch as a patch release", rationale: "Customers on 1.4 hit the rotation bug." },
  },
  { type: "user.preference_changed", actor: "agent", payload: { user: "maya", key: "release_branch", value: "release/1.4" } },
  { type: "user.preference_changed", actor: "agent", payload: { user: "maya", key: "release_branch", value: "release/1.5" } },
];
const checkoutQuery = "Which release branch does maya want the JWKS fix on?";

async function checkoutStep(root: string, sessionId: string): Promise<DemoCheckout> {
  const { events } = await recordEvents(root, sessionId, preferenceEvents.map((e) => ({ type: e.type, actor: e.actor, payload: fromJs(e.payload) })));
  const service = new MemoryService(root);
  const request = validateMemoryRequest({ sessionId, query: checkoutQuery, limit: 8 });
  const checkout = await service.checkout(request);
  const query = await service.query(request);
  const results = query.results as Array<{ content: string; valid_to: string | null; citation: string }>;
  return {
    query: checkoutQuery,
    events,
    current_facts: checkout.current_facts.map((fact) => ({ content: fact.content, citation: fact.citation ?? "" })),
    superseded: results.filter((r) => r.valid_to !== null).map((r) => ({ content: r.content, valid_to: r.valid_to!, citation: r.citation })),
    superseded_contexts_excluded: checkout.retention.superseded_contexts_excluded,
    answerability: checkout.quality.answerability,
    prompt: checkout.prompt,
  };
}

const failure = { name: "test_login_refreshes_jwks failed", entity_type: "outcome" };
const staleKeys = { name: "stale JWKS cache after key rotation", entity_type: "cause" };
const longTtl = { name: "24 h JWKS cache TTL", entity_type: "cause" };

/**
 * The agent explains the failure it saw: the failing run (seq 4) is the evidence that stale keys
 * caused it, and the file read (seq 3) that the 24 h TTL caused the stale keys.
 */
async function causalStep(root: string, sessionId: string, session: AppendedEvent[], service: MemoryService): Promise<DemoCausal> {
  const readTtl = session[2];
  const failingRun = session[3];
  const explanation = (cause: typeof failure, effect: typeof failure, evidence: AppendedEvent, confidence: number, reason: string) => ({
    type: "outcome.explained",
    actor: "agent",
    payload: fromJs({
      cause,
      effect,
      relation_type: "caused",
      confidence,
      evidence: { source_event_seq: evidence.seq, source_event_hash: evidence.hash, reason },
    }),
  });
  const { events, generated } = await recordEvents(root, sessionId, [
    explanation(staleKeys, failure, failingRun, 0.9, "pytest: key id not found after rotation"),
    explanation(longTtl, staleKeys, readTtl, 0.8, "src/auth/jwks.py caches keys for 24 h"),
  ]);
  const predecessors = await queryCausal(service, { sessionId, direction: "predecessors", entityName: failure.name, depth: 3 });
  return { explained: events, generated, effect: failure.name, predecessors };
}

/** Candidates from the session's actionable events; the first is accepted (a disposition only). */
async function consolidationStep(root: string, sessionId: string): Promise<DemoConsolidation> {
  const first = await proposeFromLog(root, sessionId, { windowSize: windowSizeDefault });
  const second = await proposeFromLog(root, sessionId, { windowSize: windowSizeDefault });
  const created = first.events as Array<{ candidate_id: string }>;
  if (created.length === 0) throw new Error("demo: propose-from-log proposed no candidates");
  const review = await reviewCandidate(root, sessionId, {
    candidateId: created[0].candidate_id,
    status: "accepted",
    rationale: "The JWKS refetch fix and its passing test run are worth remembering.",
    actor: "maya",
  });
  const status = await readConsolidationStatus(root, sessionId);
  return { first, second, review, status };
}

const runbookCount = 6;
const runbookCode = (i: number) => `identity-code-${String(1041 + i).padStart(4, "0")}`;

/**
 * Six runbooks that differ only by their owner's identity code and their path: the near-duplicate
 * collapse the audit exists to catch.
 */
async function compactionStep(root: string): Promise<DemoCompaction> {
  const sessionId = "demo-runbooks";
  const { events, logPath } = await recordEvents(
    root,
    sessionId,
    Array.from({ length: runbookCount }, (_, i) => ({
      type: "document.indexed",
      actor: "indexer",
      payload: fromJs({
        path: `docs/runbooks/payments-${i + 1}.md`,
        start_line: 1,
        end_line: 12,
        content: `Payments worker runbook: drain the queue, restart the worker, verify the JWKS cache. Owner ${runbookCode(i)}.`,
      }),
    })),
  );
  const report = await auditLog(logPath);
  const artifact = path.join(root, "compaction", `${sessionId}.compaction.json`);
  // An artifact's directory must exist (writeProjectionFromLog never creates one).
  fs.mkdirSync(path.dirname(artifact), { recursive: true });
  const { projection } = await writeProjectionFromLog(logPath, artifact, { strategy: "exemplar", maxRecords: runbookCount });
  const kept = new Set(projection.records.flatMap((record) => record.identities));
  const query = `Which runbook is owned by ${runbookCode(3)}?`;
  const service = new MemoryService(root);
  const answer = await service.query(validateMemoryRequest({ sessionId, query, limit: 5 }));
  const results = answer.results as Array<{ content: string; citation: string; source: string; metadata?: { projection_id?: string; citations?: string[] } }>;
  return {
    log_path: logPath,
    events,
    audit: {
      safe: report.safe,
      cluster_count: report.cluster_count,
      identity_recall: report.identity_recall,
      unsafe_reasons: report.unsafe_reasons,
      missing_identities: report.missing_identities,
    },
    projection: {
      path: artifact,
      projection_id: projection.projection_id,
      strategy: projection.strategy,
      records: projection.records.length,
      identities_kept: projection.source_identities.filter((identity) => kept.has(identity)).length,
      identities_missing: projection.source_identities.filter((identity) => !kept.has(identity)),
    },
    query,
    projection_hits: results
      .filter((r) => r.source === "projection")
      .map((r) => ({
        content: r.content,
        citation: r.citation,
        projection_id: r.metadata?.projection_id ?? "",
        source_citations: (r.metadata?.citations ?? []).filter((c) => !c.startsWith("eventloom://")),
      })),
  };
}

/** Turns the fleet plane on for this root (config.json `fleet_enabled`; off by default). */
function enableFleetLane(root: string): void {
  const file = configPath(root);
  const config = fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, "utf8")) : { schema: "zaxy.config.v1", envelope: "v1" };
  fs.writeFileSync(file, JSON.stringify({ ...config, fleet_enabled: true }, null, 2) + "\n");
}

async function fleetStep(root: string, sessionId: string, session: AppendedEvent[]): Promise<DemoFleet> {
  const fleetId = "platform";
  enableFleetLane(root);
  await createFleet(root, { fleetId, summary: "Platform agents sharing what they learn", actor: "maya" });
  await enrollAgent(root, { fleetId, agentId: "agent", actor: "maya" });
  await enrollAgent(root, { fleetId, agentId: "agent-b", actor: "maya" });
  const passingRun = session[5];
  const decision = session[6];
  const lesson = {
    fleetId,
    originSession: sessionId,
    sourceEvents: [{ seq: passingRun.seq, hash: passingRun.hash }, { seq: decision.seq, hash: decision.hash }],
    outcome: "success",
    summary: "Refetch JWKS on an unknown key id; a 5 min TTL bounds stale keys after a key rotation",
    claimKey: "auth.jwks.refresh",
  };
  const threadLog = path.join(root, `fleet.${fleetId}.jsonl`);
  const before = fs.readFileSync(threadLog);
  // Refused for trust: audited in agent-x's own session, never on the fleet thread.
  const refused = await promote(root, "outcome", { ...lesson, actor: "agent-x", confidence: 0.99 }, { refusalSessionId: "agent-x" });
  const unchanged = Buffer.compare(before, fs.readFileSync(threadLog)) === 0;
  const promotion = await promote(root, "outcome", { ...lesson, actor: "agent", confidence: 0.92 });

  // Another agent, working on something else, asks; the fleet lane is opt-in per root.
  const receiver = "agent-b";
  await recordEvents(root, receiver, [{ type: "goal.created", actor: receiver, payload: fromJs({ title: "Rotate the billing service's signing keys" }) }]);
  const query = "How should we handle JWKS key rotation?";
  const checkout = await new MemoryService(root).checkout(validateMemoryRequest({ sessionId: receiver, query, fleetIds: [fleetId], agentId: receiver }));
  const fleetCitation = /^eventloom:\/\/fleet\./;
  return {
    fleet_id: fleetId,
    thread_log: threadLog,
    promotion,
    refused: { actor: "agent-x", rejected: refused.rejected, reason: refused.reason, log_bytes_unchanged: unchanged, audit_citation: refused.refusal_event?.citation ?? null },
    receiver: {
      agent_id: receiver,
      query,
      fleet_facts: checkout.current_facts
        .filter((fact) => fleetCitation.test(fact.citation ?? ""))
        .map((fact) => ({ content: fact.content, citation: fact.citation ?? "" })),
      fleet_items: (checkout.diagnostics as { [key: string]: PlainJson }).fleet ?? null,
    },
  };
}

export async function runAgentSessionDemo(options: { dir?: string } = {}): Promise<DemoResult> {
  const base = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-demo-"));
  const root = path.join(base, ".eventloom");
  const sessionId = "demo-agent";
  const { events, records, logPath } = await appendEvents(
    root,
    sessionId,
    sessionEvents.map((e) => ({ type: e.type, actor: e.actor, payload: fromJs(e.payload) })),
  );
  const redacted = records.flatMap((r) => redactedPathsOf(r.security).map((p) => `seq ${r.seq}: ${p}`));
  const started = performance.now();
  const integrity = await verifyLog(logPath);
  const verifyMs = performance.now() - started;
  const { handoff } = await replayLog(logPath);

  // Tamper with a copy: change the exit code of the failing test run (seq 4) from 1 to 0.
  const copy = path.join(base, "tampered.jsonl");
  const lines = fs.readFileSync(logPath, "utf8").split("\n");
  lines[3] = lines[3].replace('"exit_code":1', '"exit_code":0');
  fs.writeFileSync(copy, lines.join("\n"));
  const tamperReport = await verifyLog(copy);
  const checkout = await checkoutStep(root, sessionId);
  const causal = await causalStep(root, sessionId, events, new MemoryService(root));
  const consolidation = await consolidationStep(root, sessionId);
  const compaction = await compactionStep(root);
  const fleet = await fleetStep(root, sessionId, events);
  return {
    root,
    session_id: sessionId,
    events,
    redacted_paths: redacted,
    integrity,
    verify_ms: verifyMs,
    handoff,
    tamper: { copy, changed: 'seq 4 payload: "exit_code":1 -> "exit_code":0', report: tamperReport },
    checkout,
    causal,
    consolidation,
    compaction,
    fleet,
  };
}
