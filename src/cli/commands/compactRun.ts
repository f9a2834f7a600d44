/** What compact.ts's command does: imported when the command runs, so start-up loads only the command tree. */
import * as path from "node:path";
import { sessionLogPath } from "../../eventloom/root.ts";
import { type AuditStrategy, auditLog, type ClusterReport, type CompactionAuditReport } from "../../compaction/audit.ts";
import { auditDocument } from "../../compaction/auditDocument.ts";
import { purposeProfile } from "../../compaction/purpose.ts";
import { inputError } from "../../errors.ts";
import { choiceOption, intOption } from "../args.ts";
import { booleanOption, type CommandContext, stringOption } from "../command.ts";
import { commandProgress } from "../progress.ts";
import { NdjsonWriter, emit, emitStreamed } from "../output.ts";

export interface CompactFlags {
  log: string;
  audit: boolean;
  json: boolean;
  /** Undefined when not given (the audit's default applies). */
  clusterThreshold: number | undefined;
  wholeLog: boolean;
  projectionOutput: string | undefined;
  strategy: AuditStrategy;
  maxRecords: number;
  purpose: string | undefined;
  output: string | undefined;
  snapshotEvery: number;
  /** --force: a projection may replace an existing file that is not an artifact of LOG. */
  force: boolean;
}

/** Python's defaults: `--max-records 5`, `--snapshot-every 10000`, `--strategy medoid`. */
export const compactDefaults = { maxRecords: 5, snapshotEvery: 10_000, strategy: "medoid" as AuditStrategy };

function thresholdOption(ctx: CommandContext): number | undefined {
  const raw = stringOption(ctx, "cluster-threshold");
  if (raw === undefined) return undefined;
  const value = /^(0|[1-9][0-9]*)?(\.[0-9]+)?([eE][-+]?[0-9]+)?$/.test(raw) && raw !== "" ? Number(raw) : Number.NaN;
  if (!(value > 0 && value < 1)) {
    throw inputError("invalid_option", `--cluster-threshold must be a number in (0, 1) (a cosine distance), got ${JSON.stringify(raw)}`, {
      field: "--cluster-threshold",
      expected: "a number greater than 0 and less than 1",
    });
  }
  return value;
}

function nonEmptyPath(ctx: CommandContext, name: string): string | undefined {
  const raw = stringOption(ctx, name);
  if (raw !== undefined && raw.length === 0) throw inputError("invalid_option", `--${name} must be a non-empty path`, { field: `--${name}` });
  return raw;
}

/** Parses and cross-checks the flags; throws exit-2 errors naming the flag. */
export function parseCompactFlags(ctx: CommandContext): CompactFlags {
  // Without LOG: the session's log (--session-id), read from the store's mirror with --store.
  const log = ctx.positionals[0] ?? sessionLogPath(ctx.global.eventloomPath, ctx.global.sessionId, "compact");
  if (log.length === 0) throw inputError("usage", "zaxy compact: LOG is empty (give the Eventloom JSONL file to compact)", { field: "LOG" });
  if (ctx.positionals.length > 1) throw inputError("usage", `zaxy compact: one LOG at a time, got ${ctx.positionals.length}`, { field: "LOG" });
  const flags: CompactFlags = {
    log,
    audit: booleanOption(ctx, "audit"),
    json: ctx.global.json,
    clusterThreshold: thresholdOption(ctx),
    wholeLog: booleanOption(ctx, "whole-log"),
    projectionOutput: nonEmptyPath(ctx, "projection-output"),
    strategy: choiceOption(ctx, "strategy", ["medoid", "exemplar"] as const) ?? compactDefaults.strategy,
    maxRecords: intOption(ctx, "max-records", 1) ?? compactDefaults.maxRecords,
    purpose: stringOption(ctx, "purpose"),
    output: nonEmptyPath(ctx, "output"),
    snapshotEvery: intOption(ctx, "snapshot-every", 1) ?? compactDefaults.snapshotEvery,
    force: booleanOption(ctx, "force"),
  };
  if (flags.force && flags.projectionOutput === undefined) {
    throw inputError("usage", "zaxy compact: --force applies to --projection-output only", { field: "--force" });
  }
  if (booleanOption(ctx, "ndjson") && !flags.audit) {
    throw inputError("usage", "zaxy compact: --ndjson applies to --audit only (its clusters, one per line)", { field: "--ndjson" });
  }
  if (flags.purpose !== undefined) purposeProfile(flags.purpose);
  if (flags.wholeLog && flags.clusterThreshold !== undefined) {
    throw inputError("usage", "zaxy compact: --whole-log and --cluster-threshold contradict each other (one cluster, or clusters by distance)", { field: "--cluster-threshold" });
  }
  if (flags.audit && flags.projectionOutput !== undefined) {
    throw inputError("usage", "zaxy compact: --audit and --projection-output are separate modes; give one", { field: "--projection-output" });
  }
  const rewriteOnly = [["output", flags.output], ["snapshot-every", stringOption(ctx, "snapshot-every")]] as const;
  if (flags.audit || flags.projectionOutput !== undefined) {
    for (const [name, value] of rewriteOnly) {
      if (value !== undefined) throw inputError("usage", `zaxy compact: --${name} applies to rewrite mode only (not with --audit or --projection-output)`, { field: `--${name}` });
    }
  }
  if (!flags.audit && flags.projectionOutput === undefined) {
    for (const name of ["cluster-threshold", "whole-log", "strategy", "max-records", "purpose"]) {
      if (ctx.values[name] !== undefined) {
        throw inputError("usage", `zaxy compact: --${name} applies to --audit or --projection-output only`, { field: `--${name}` });
      }
    }
  }
  return flags;
}

function fixed3(value: number | null): string {
  return value === null ? "n/a" : value.toFixed(3);
}

const clusterRowsShown = 20;
const missingShown = 10;

function clusterTable(report: CompactionAuditReport): string[] {
  const multi = report.clusters.filter((c) => c.size > 1);
  const lines = [
    `Clusters: ${report.cluster_count} (${report.whole_log ? "whole log" : `threshold ${report.cluster_threshold}`}, ` +
      `${report.singleton_cluster_count} single events, ${multi.length} multi-event; strategy ${report.strategy}, max records ${report.max_records})`,
  ];
  if (multi.length === 0) return lines;
  // Unsafe clusters first, then the largest; ties by cluster id, so the table is stable.
  const shown = [...multi].sort((a, b) => (a.missing_identities.length > 0 ? 0 : 1) - (b.missing_identities.length > 0 ? 0 : 1) || b.size - a.size || a.cluster_id - b.cluster_id);
  lines.push("  cluster   size  seqs            spread  recall c/m/e        nn     windows  regime  operator");
  const row = (c: ClusterReport) =>
    `  ${String(c.cluster_id).padStart(7)} ${String(c.size).padStart(6)}  ${`${c.first_seq}-${c.last_seq}`.padEnd(14)}  ${c.mean_within_cluster_distance.toFixed(3)}   ` +
    `${c.identity_recall_centroid.toFixed(3)}/${c.identity_recall_medoid.toFixed(3)}/${c.identity_recall_exemplars.toFixed(3)}  ${c.nearest_neighbour_preservation.toFixed(3)}  ` +
    `${String(c.temporal_windows).padStart(7)}  ${c.regime.padEnd(6)}  ${c.recommended_operator}`;
  for (const c of shown.slice(0, clusterRowsShown)) lines.push(row(c));
  if (shown.length > clusterRowsShown) lines.push(`  ... ${shown.length - clusterRowsShown} more multi-event clusters`);
  return lines;
}

/** The events that lower citation coverage, by seq, full hash and type (the JSON lists the same). */
function uncitedEventLines(report: CompactionAuditReport): string[] {
  if (report.uncited_event_count === 0) return [];
  const lines = [`Uncited events (${report.uncited_event_count}; re-ingest them with their source to cite them):`];
  for (const event of report.uncited_events) lines.push(`  - seq ${event.seq}  ${event.hash}  ${event.event_type}`);
  const unlisted = report.uncited_event_count - report.uncited_events.length;
  if (unlisted > 0) lines.push(`  - ... ${unlisted} more (only the first ${report.uncited_events.length} are listed)`);
  return lines;
}

/** The text report: Python's lines first, then the cluster table and the remediation plan. */
export function renderAuditText(report: CompactionAuditReport): string {
  const lines = [
    `Compaction audit: ${report.safe ? "SAFE" : "UNSAFE"}`,
    `Events: ${report.event_count}`,
    `Integrity: ${report.integrity_ok ? "OK" : "FAILED"}`,
  ];
  if (report.integrity_reason !== null) lines.push(`Integrity reason: ${report.integrity_reason}`);
  lines.push(
    `Identities: ${report.identity_count}`,
    `Identity recall: ${fixed3(report.identity_recall)}`,
    `Citation coverage: ${fixed3(report.citation_coverage)}`,
    `Mean within-cluster distance: ${fixed3(report.mean_within_cluster_distance)}`,
  );
  if (report.unsafe_reasons.length > 0) {
    lines.push("Unsafe reasons:");
    for (const reason of report.unsafe_reasons) lines.push(`  - ${reason}`);
  }
  lines.push(...uncitedEventLines(report));
  if (report.missing_identities.length > 0) {
    lines.push("Missing identities:");
    for (const id of report.missing_identities.slice(0, missingShown)) lines.push(`  - ${id}`);
    if (report.missing_identities.length > missingShown) lines.push(`  - ... ${report.missing_identities.length - missingShown} more`);
  }
  if (report.invalid_derived_events.length > 0) {
    lines.push(`Invalid derived events: ${report.invalid_derived_events.length} (their producer never writes them; they are not projected)`);
    for (const event of report.invalid_derived_events) lines.push(`  - seq ${event.seq} ${event.type} ${event.hash.slice(0, 12)}: ${event.reason}`);
  }
  if (!report.integrity_ok) {
    lines.push("Nothing else was computed: a broken chain cannot be trusted.");
  } else {
    lines.push(
      `Recall by representative: centroid ${fixed3(report.identity_recall_centroid)}, medoid ${fixed3(report.identity_recall_medoid)}, ` +
        `exemplars ${fixed3(report.identity_recall_exemplars)} (content identities: ${report.content_identity_count}; backpointers: ${report.backpointer_count}, coverage ${fixed3(report.backpointer_coverage)})`,
      `Nearest-neighbour preservation: ${fixed3(report.nearest_neighbour_preservation)} (${report.nearest_neighbour_events} events with a neighbour)`,
      ...clusterTable(report),
    );
  }
  if (report.remediation.length > 0) {
    lines.push("Remediation plan:");
    report.remediation.forEach((step, i) => lines.push(`  ${i + 1}. ${step.code}: ${step.action}`));
  }
  return lines.join("\n");
}

async function runAudit(ctx: CommandContext, flags: CompactFlags): Promise<number> {
  const progress = commandProgress(ctx, "compact audit");
  const report = await auditLog(flags.log, {
    clusterThreshold: flags.clusterThreshold,
    wholeLog: flags.wholeLog,
    strategy: flags.strategy,
    maxRecords: flags.maxRecords,
    progress,
  }).finally(() => progress.done());
  const doc = auditDocument(report);
  if (booleanOption(ctx, "ndjson")) {
    // One line per cluster ({"kind": "cluster", ...}), then the report without its clusters
    // ({"kind": "report", ...}): a large log's clusters never make one huge document.
    const { clusters, ...rest } = doc as { clusters: unknown[] } & Record<string, unknown>;
    const writer = new NdjsonWriter(ctx.io);
    for (const cluster of clusters) await writer.write({ kind: "cluster", ...(cluster as Record<string, unknown>) });
    await writer.write({ kind: "report", schema: "zaxy.compact.audit.v1", ...rest });
    await writer.flush();
    return report.safe ? 0 : 1;
  }
  emitStreamed(ctx, "zaxy.compact.audit.v1", doc, () => renderAuditText(report));
  return report.safe ? 0 : 1;
}

/** Rewrite mode: the only history-changing operation (src/compaction/rewrite.ts, docs/compaction.md). */
async function runRewrite(ctx: CommandContext, flags: CompactFlags): Promise<number> {
  const { rewriteLog } = await import("../../compaction/rewrite.ts");
  const result = await rewriteLog(flags.log, { outputPath: flags.output, snapshotEvery: flags.snapshotEvery });
  emit(ctx, "zaxy.compact.rewrite.v1", { ...result }, () => result.message);
  return 0;
}

async function runProjection(ctx: CommandContext, flags: CompactFlags, output: string): Promise<number> {
  const { writeProjectionFromLog, projectionSummary, projectionSummarySchema, projectionText } = await import("../../compaction/projectionFromLog.ts");
  const progress = commandProgress(ctx, "compact projection");
  const result = await writeProjectionFromLog(flags.log, output, {
    strategy: flags.strategy,
    maxRecords: flags.maxRecords,
    purpose: flags.purpose,
    clusterThreshold: flags.clusterThreshold,
    wholeLog: flags.wholeLog,
    roots: [ctx.global.eventloomPath],
    force: flags.force,
    progress,
  }).finally(() => progress.done());
  emit(ctx, projectionSummarySchema, projectionSummary(result), () => projectionText(result));
  return 0;
}

export async function runCompact(ctx: CommandContext): Promise<number> {
  const flags = parseCompactFlags(ctx);
  if (flags.audit) return await runAudit(ctx, flags);
  if (flags.projectionOutput !== undefined) return await runProjection(ctx, flags, flags.projectionOutput);
  const mirrorRoot = ctx.global.store?.mirrorRoot;
  if (mirrorRoot !== undefined && path.resolve(flags.log).startsWith(path.resolve(mirrorRoot) + path.sep)) {
    // A rewrite replaces the log; the store's rows are append-only and shared by other hosts.
    throw inputError("files_only", `zaxy compact: rewrite mode works on log files only, not on the store ${ctx.global.store?.url.redacted}; --audit and --projection-output work on the store`, {
      field: "--store",
      hint: "export the session with `zaxy store export --session-id S --output FILE`, then compact the file",
    });
  }
  return await runRewrite(ctx, flags);
}
