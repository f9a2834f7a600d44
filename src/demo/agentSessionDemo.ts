/**
 * The main demo: a short, realistic agent session recorded into a fresh Eventloom, verified,
 * replayed into a handoff, tampered with (in a copy) and caught, with every event cited.
 * Later features extend it; each step returns data so the CLI can print text or JSON.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { appendEvents, type AppendedEvent, type IntegrityReport, replayLog, verifyLog } from "../eventloom/mod.ts";
import type { HandoffSummary } from "../eventloom/replay.ts";

export interface DemoResult {
  root: string;
  session_id: string;
  events: AppendedEvent[];
  redacted_paths: string[];
  integrity: IntegrityReport;
  verify_ms: number;
  handoff: HandoffSummary;
  tamper: { copy: string; changed: string; report: IntegrityReport };
}

/** The session: an agent fixing a failing auth test. */
const sessionEvents = [
  { type: "goal.created", actor: "agent", payload: { title: "Fix the failing auth test before the release", priority: "high" } },
  { type: "task.created", actor: "agent", payload: { taskId: "task-auth-1", title: "Reproduce test_login_refreshes_jwks" } },
  {
    type: "tool.call.completed",
    actor: "agent",
    payload: { tool_name: "read_file", arguments: { path: "src/auth/jwks.py" }, result_summary: "JWKS cache TTL is 24 h" },
  },
  {
    type: "command.completed",
    actor: "agent",
    payload: { command: "pytest tests/test_auth.py -q", exit_code: 1, summary: "1 failed: key id not found after rotation", api_key: "sk-live-4f9a8b7c6d5e" },
  },
  {
    type: "file.edit.applied",
    actor: "agent",
    payload: { path: "src/auth/jwks.py", operation: "replace", line_count: 3, summary: "Refetch JWKS on unknown kid; TTL 5 min" },
  },
  { type: "command.completed", actor: "agent", payload: { command: "pytest tests/test_auth.py -q", exit_code: 0, summary: "12 passed" } },
  {
    type: "decision.recorded",
    actor: "agent",
    payload: { title: "Refetch JWKS on unknown key id", rationale: "Key rotation made cached keys stale; a 5 min TTL bounds the window." },
  },
  { type: "task.completed", actor: "agent", payload: { taskId: "task-auth-1", outcome: "success" } },
];

export async function runAgentSessionDemo(options: { dir?: string } = {}): Promise<DemoResult> {
  const base = options.dir ?? fs.mkdtempSync(path.join(os.tmpdir(), "zaxy-demo-"));
  const root = path.join(base, ".eventloom");
  const sessionId = "demo-agent";
  const { events, records, logPath } = await appendEvents(
    root,
    sessionId,
    sessionEvents.map((e) => ({ type: e.type, actor: e.actor, payload: fromJs(e.payload) })),
  );
  const redacted = records.flatMap((r) => {
    const security = r.security instanceof Map ? r.security.get("redacted_paths") : undefined;
    return Array.isArray(security) ? security.map((p) => `seq ${r.seq}: ${String(p)}`) : [];
  });
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
  return {
    root,
    session_id: sessionId,
    events,
    redacted_paths: redacted,
    integrity,
    verify_ms: verifyMs,
    handoff,
    tamper: { copy, changed: 'seq 4 payload: "exit_code":1 -> "exit_code":0', report: tamperReport },
  };
}
