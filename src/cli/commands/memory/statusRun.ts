/** What status.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import type { CommandContext } from "../../command.ts";
import * as fs from "node:fs";
import * as path from "node:path";
import { countLogEvents, sessionLogPath, verifyLog } from "../../../eventloom/mod.ts";
import { invalidDerivedEventsInLog } from "../../../events/derivedEventRules.ts";
import { inputError } from "../../../errors.ts";
import { booleanOption } from "../../command.ts";
import { emit } from "../../output.ts";
import { readModelTailEventsMax } from "../../../limits.ts";

function readJson(file: string): Record<string, unknown> | null {
  try {
    return JSON.parse(fs.readFileSync(file, "utf8")) as Record<string, unknown>;
  } catch {
    return null;
  }
}

function graphLine(graph: { counts: unknown; behind_by: number }): string {
  const behind = graph.behind_by === 0 ? "up to date" : `${graph.behind_by} events behind (zaxy graph sync brings it up)`;
  return `graph store: ${JSON.stringify(graph.counts)}, ${behind}`;
}

type Warn = (message: string) => void;
type Integrity = Awaited<ReturnType<typeof verifyLog>>;
type UnauthorisedEvent = { seq: number; hash: string; event_type: string; actor: string; reason: string };

/**
 * The projection's head and counts as the read model records them (its manifest's head), read
 * without changing anything; a read model that cannot be used is reported under `read_model`.
 */
async function projectionSection(root: string, events: number, integrityOk: boolean, sessionId: string): Promise<Record<string, unknown>> {
  const { projectionDbPath } = await import("../../../projection/projector.ts");
  const { readManifest } = await import("../../../readmodel/manifest.ts");
  const manifest = readManifest(root, sessionId);
  const head = manifest === "missing" || "problem" in manifest ? null : manifest.head;
  return {
    database: projectionDbPath(root),
    head_seq: head?.seq ?? 0,
    head_hash: head?.hash ?? null,
    behind_by: Math.max(0, events - (head?.seq ?? 0)),
    up_to_date: integrityOk && head !== null && head.seq === events,
    entity_versions: head?.entityCount ?? 0,
    current_entities: head?.currentEntityCount ?? 0,
    relations: head?.relationCount ?? 0,
    current_relations: head?.currentRelationCount ?? 0,
  };
}

/** The vector index's metadata, or null before the first index is written. */
async function vectorsSection(root: string, sessionId: string): Promise<{ path: string; count: unknown; dim: unknown; head_seq: unknown; quantization: unknown } | null> {
  const { vectorIndexPath } = await import("../../../projection/vectorIndex.ts");
  const vectorMeta = readJson(`${vectorIndexPath(root, sessionId)}.json`);
  return vectorMeta === null
    ? null
    : { path: vectorIndexPath(root, sessionId), count: vectorMeta.count, dim: vectorMeta.dim, head_seq: vectorMeta.head_seq, quantization: vectorMeta.quantization };
}

/**
 * Governance records no governance command would have written: on a fleet thread the fleet
 * events its replay refused for want of authority (fleet/replay.ts), elsewhere the records that
 * lack the gate decision their command appends with them (governance/sessionRecordAudit.ts).
 * Only a verified chain is read.
 */
async function unauthorisedGovernance(root: string, sessionId: string, logPath: string, integrityOk: boolean, events: number, warn: Warn): Promise<UnauthorisedEvent[]> {
  let unauthorised: UnauthorisedEvent[] = [];
  if (integrityOk && sessionId.startsWith("fleet.")) {
    const { readVerifiedSession } = await import("../../../fleet/fleetLog.ts");
    const { summarizeFleetEvents } = await import("../../../fleet/replay.ts");
    unauthorised = summarizeFleetEvents(sessionId.slice("fleet.".length), (await readVerifiedSession(root, sessionId)) ?? []).unauthorised;
  } else if (integrityOk && events > 0) {
    const { unauthorisedSessionGovernanceInLog } = await import("../../../governance/sessionRecordAudit.ts");
    unauthorised = unauthorisedSessionGovernanceInLog(logPath);
  }
  if (unauthorised.length > 0) {
    warn(sessionId.startsWith("fleet.")
      ? `fleet thread ${sessionId} holds ${unauthorised.length} fleet event(s) no fleet command would have written (seq ${unauthorised.map((e) => e.seq).join(", ")}); they are not applied (zaxy fleet audit lists them)`
      : `session ${sessionId} holds ${unauthorised.length} governance record(s) no governance command would have written (seq ${unauthorised.map((e) => e.seq).join(", ")}); unauthorised_governance_events says why`);
  }
  return unauthorised;
}

/** `--graph`: the Kuzu store's head and counts, and how far behind the log it is. */
async function graphSection(root: string, sessionId: string, events: number, warn: Warn): Promise<Record<string, unknown>> {
  const { projectionDbPath } = await import("../../../projection/projector.ts");
  const { headCountMismatch, KuzuStore } = await import("../../../projection/kuzuStore.ts");
  const store = await KuzuStore.openOrRebuild(projectionDbPath(root), warn);
  try {
    const head = store.head(sessionId);
    const counts = store.counts(sessionId);
    const mismatch = head === null ? null : headCountMismatch(head, counts);
    const headProblem = mismatch === null ? null : `the head (seq ${head!.seq}) records other counts: the store ${mismatch}`;
    if (headProblem !== null) warn(`graph projection of session ${sessionId}: ${headProblem}; zaxy graph sync rebuilds it`);
    // Events the store lacks: only `zaxy graph sync` (or reproject --graph-store) adds them.
    const behindBy = Math.max(0, events - (head?.seq ?? 0));
    return { head, counts, head_problem: headProblem, behind_by: behindBy, sessions: store.sessions() };
  } finally {
    store.close();
  }
}

/** The read model's head, and what the next read does with it. */
async function readModelSection(root: string, sessionId: string, events: number, integrityOk: boolean): Promise<Record<string, unknown> | null> {
  const { readManifest, manifestPath } = await import("../../../readmodel/manifest.ts");
  const manifest = readManifest(root, sessionId);
  const readModelBehind = manifest === "missing" || "problem" in manifest ? null : Math.max(0, events - manifest.head.seq);
  return manifest === "missing" ? null : "problem" in manifest
    ? { manifest: manifestPath(root, sessionId), problem: manifest.problem }
    : {
      manifest: manifestPath(root, sessionId),
      head_seq: manifest.head.seq,
      head_hash: manifest.head.hash,
      behind_by: readModelBehind,
      // What the next read does: answer from it, fold the tail on it, or catch everything up.
      next_read: !integrityOk ? "refused" : readModelBehind === 0 ? "read_model" : readModelBehind! <= readModelTailEventsMax ? "read_model_tail" : "catch_up",
    };
}

/** The text form of the status document. */
function statusText(sessionId: string, events: number, integrity: Integrity, doc: Record<string, unknown>): string {
  const p = doc.projection as Record<string, unknown>;
  const r = doc.read_model as Record<string, unknown> | null;
  const v = doc.vectors as Record<string, unknown> | null;
  const invalidDerived = doc.invalid_derived_events as Array<{ seq: number; type: string; hash: string; reason: string }>;
  const unauthorised = doc.unauthorised_governance_events as UnauthorisedEvent[];
  const readModelLine = r === null
    ? "read model: none yet (the next read writes one)"
    : r.problem !== undefined
    ? `read model: not usable (${r.problem}); the next read rebuilds it`
    : `read model: head seq ${r.head_seq}${r.behind_by === 0 ? " (up to date)" : `, ${r.behind_by} events behind (${r.next_read === "read_model_tail" ? "reads fold them in memory" : "the next read catches up"})`}`;
  return [
    `session ${sessionId}: ${events} events, integrity ${integrity.ok ? "ok" : `BROKEN at seq ${integrity.broken_at_seq}: ${integrity.broken_reason}`}`,
    readModelLine,
    `projection: head seq ${p.head_seq}${p.up_to_date ? " (up to date)" : `, ${p.behind_by} events behind (caught up when a read rewrites the read model)`}`,
    `  ${p.entity_versions} entity versions (${p.current_entities} current), ${p.relations} relations (${p.current_relations} current)`,
    ...(invalidDerived.length === 0 ? [] : [
      `invalid derived events: ${invalidDerived.length} (their producer never writes them; not projected)`,
      ...invalidDerived.map((e) => `  - seq ${e.seq} ${e.type} ${e.hash.slice(0, 12)}: ${e.reason}`),
    ]),
    ...(unauthorised.length === 0 ? [] : [
      `unauthorised governance events: ${unauthorised.length} (no fleet command would have written them; not applied)`,
      ...unauthorised.map((e) => `  - seq ${e.seq} ${e.event_type} by ${e.actor}: ${e.reason}`),
    ]),
    `vectors: ${v === null ? "none yet" : `${v.count} x ${v.dim} (${v.quantization})`}`,
    ...(doc.graph ? [graphLine(doc.graph as { counts: unknown; behind_by: number })] : []),
  ].join("\n");
}

export async function runMemoryStatus(ctx: CommandContext): Promise<number> {
  // Absolute, like the log path that sessionLogPath gives.
  const root = path.resolve(ctx.global.eventloomPath);
  const sessionId = ctx.global.sessionId;
  const logPath = sessionLogPath(root, sessionId, "read");
  if (!fs.existsSync(logPath)) {
    throw inputError("unknown_session", `Unknown session ${JSON.stringify(sessionId)}: no log at ${logPath}`, { field: "session_id" });
  }
  const integrity = await verifyLog(logPath);
  const warn: Warn = (message) => ctx.io.stderr(`zaxy: warning: ${message}\n`);
  const events = integrity.ok ? integrity.total_events : countLogEvents(logPath);
  const projection = await projectionSection(root, events, integrity.ok, sessionId);
  const vectors = await vectorsSection(root, sessionId);
  // Only a verified chain is read; a broken one reports nothing it could not trust.
  const invalidDerived = integrity.ok ? invalidDerivedEventsInLog(logPath) : [];
  if (invalidDerived.length > 0) {
    warn(`session ${sessionId} holds ${invalidDerived.length} invalid derived event(s) (seq ${invalidDerived.map((e) => e.seq).join(", ")}); they are not projected`);
  }
  const unauthorised = await unauthorisedGovernance(root, sessionId, logPath, integrity.ok, events, warn);
  const doc: Record<string, unknown> = {
    session_id: sessionId,
    log: { path: logPath, events, integrity_ok: integrity.ok, broken_at_seq: integrity.broken_at_seq, broken_reason: integrity.broken_reason },
    projection,
    // Filled in below (readmodel/manifest.ts); here for the key order.
    read_model: null,
    vectors,
    // Sealed causal edges their producer would never write (events/derivedEventRules.ts).
    invalid_derived_events: invalidDerived,
    // Governance records no governance command would have written (see above).
    unauthorised_governance_events: unauthorised,
  };
  if (booleanOption(ctx, "graph")) doc.graph = await graphSection(root, sessionId, events, warn);
  doc.read_model = await readModelSection(root, sessionId, events, integrity.ok);
  emit(ctx, "zaxy.memory.status.v1", doc, () => statusText(sessionId, events, integrity, doc));
  return integrity.ok ? 0 : 1;
}
