/**
 * `zaxy compact LOG --projection-output PATH`: verify the log, audit it, build the projection
 * and write the artifact. The log is only read (its bytes never change). A log whose chain does
 * not verify gets no artifact: a projection of a tampered log would cite events that are not
 * what was sealed.
 *
 * The artifact's `audit` holds Python's twelve report keys (so Python's loader reads it) plus
 * this implementation's summary figures (operator, clusters count, centroid/medoid/exemplar
 * recall, backpointer and nearest-neighbour figures, remediation); the per-cluster table is
 * left out (it can be as long as the log; `zaxy compact --audit --json` prints it).
 */
import * as fs from "node:fs";
import * as path from "node:path";
import { JsonNumber, type JsonObject, type JsonValue, pythonFloatRepr } from "../canonical/mod.ts";
import { checkError, inputError } from "../errors.ts";
import { readEvents } from "../eventloom/mod.ts";
import { auditFloatKeys, auditLog, type CompactionAuditReport } from "./audit.ts";
import { buildProjection, defaultProjectionMaxRecords, projectionStrategies } from "./projection.ts";
import { type CompactionProjection, projectionArtifactSuffix, writeProjectionArtifact } from "../retrieval/projectionArtifact.ts";
import { checkReplacedArtifact, resolveProjectionOutput } from "./projectionOutput.ts";
import type { RequestedStrategy } from "./projectionPolicy.ts";
import { purposeProfile } from "./purpose.ts";
import type { ProgressSink } from "../progress.ts";

export interface ProjectionRunOptions {
  /** `--strategy` as given (validated here); default `medoid`. */
  strategy?: string;
  /** `--max-records`; default 5. */
  maxRecords?: number;
  /** `--purpose`; default `general`. */
  purpose?: string;
  clusterThreshold?: number;
  wholeLog?: boolean;
  embeddingDim?: number;
  /** Where the audit's and the selection's stages are reported. */
  progress?: ProgressSink;
  /** Eventloom roots whose logs and config.json the output may never replace (the log's own directory always counts). */
  roots?: string[];
  /** `--force`: replace an existing file that is not an artifact of this log (never a log or config.json). */
  force?: boolean;
}

export interface ProjectionRunResult {
  projection: CompactionProjection;
  outputPath: string;
  /** Whether retrieval will find the artifact: named `*.compaction.json`. */
  discoverable: boolean;
}

/** Audit keys not embedded: the per-cluster table and the machine-specific log path. */
const auditKeysLeftOut = new Set(["clusters", "log_path"]);

function auditValue(value: unknown, key: string): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean" || typeof value === "string") return value;
  if (typeof value === "number") {
    return auditFloatKeys.has(key) || !Number.isInteger(value) ? new JsonNumber(pythonFloatRepr(String(value)), true) : JsonNumber.int(value);
  }
  if (Array.isArray(value)) return value.map((item) => auditValue(item, key));
  const out: JsonObject = new Map();
  for (const [childKey, child] of Object.entries(value as Record<string, unknown>)) {
    if (child !== undefined) out.set(childKey, auditValue(child, childKey));
  }
  return out;
}

/** The audit report as embedded in an artifact (ints stay ints, ratios are Python floats). */
export function auditJson(report: CompactionAuditReport): JsonObject {
  const out: JsonObject = new Map();
  for (const [key, value] of Object.entries(report)) {
    if (!auditKeysLeftOut.has(key)) out.set(key, auditValue(value, key));
  }
  return out;
}

function parseStrategy(value: string | undefined): RequestedStrategy {
  const strategy = value ?? "medoid";
  if (!(projectionStrategies as readonly string[]).includes(strategy)) {
    throw inputError("invalid_option", `\`strategy\` must be one of ${projectionStrategies.join(", ")}, got ${JSON.stringify(strategy)}`, {
      field: "strategy",
      expected: projectionStrategies.join("|"),
    });
  }
  return strategy as RequestedStrategy;
}

function checkLog(logPath: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(logPath);
  } catch {
    throw inputError("unreadable_log", `Cannot build a compaction projection of ${JSON.stringify(logPath)}: no such file`, { field: "LOG", expected: "an Eventloom JSONL file" });
  }
  if (!stat.isFile()) throw inputError("unreadable_log", `Cannot build a compaction projection of ${JSON.stringify(logPath)}: not a regular file`, { field: "LOG" });
}

/**
 * Validates every option and the output path first (bad input writes nothing; see
 * projectionOutput.ts for what an output may replace), then verifies, audits, builds and writes.
 *
 * @example
 * const { projection } = await writeProjectionFromLog(".eventloom/default.jsonl", ".eventloom/projections/default.compaction.json", { strategy: "exemplar", maxRecords: 8 });
 */
export async function writeProjectionFromLog(logPath: string, outputPath: string, options: ProjectionRunOptions = {}): Promise<ProjectionRunResult> {
  const strategy = parseStrategy(options.strategy);
  const maxRecords = options.maxRecords ?? defaultProjectionMaxRecords;
  if (!Number.isSafeInteger(maxRecords) || maxRecords < 1) {
    throw inputError("invalid_option", `\`max_records\` must be an integer >= 1, got ${maxRecords}`, { field: "max_records", expected: "integer >= 1" });
  }
  const purpose = purposeProfile(options.purpose);
  checkLog(logPath);
  const target = resolveProjectionOutput(logPath, outputPath, { roots: options.roots, force: options.force });
  const progress = options.progress;
  // The audit verifies the hash chain first and stops there when it is broken.
  const report = await auditLog(logPath, {
    strategy,
    maxRecords,
    clusterThreshold: options.clusterThreshold,
    wholeLog: options.wholeLog,
    embeddingDim: options.embeddingDim,
    progress,
  });
  if (!report.integrity_ok) {
    throw checkError("integrity_failure", `Cannot build a compaction projection of ${logPath}: integrity check failed (${report.integrity_reason}); no artifact was written`, {
      field: "LOG",
      hint: "Restore the Eventloom log from backup or remove the tampered candidate from compaction (`zaxy verify` names the broken event).",
    });
  }
  progress?.phase("selecting records");
  const { events } = readEvents(logPath);
  checkReplacedArtifact(target, outputPath, events, options.force === true);
  const projection = buildProjection(events, auditJson(report), { strategy, maxRecords, purpose, embeddingDim: options.embeddingDim });
  writeProjectionArtifact(projection, target.file, { createDirectories: false });
  return { projection, outputPath, discoverable: path.basename(outputPath).endsWith(projectionArtifactSuffix) };
}

/** The `--json` document's schema. */
export const projectionSummarySchema = "zaxy.compact.projection.v1";

/** The `--json` summary document (without `schema`, which the CLI adds). */
export function projectionSummary(result: ProjectionRunResult): { [key: string]: unknown } {
  const { projection } = result;
  const audit = projection.audit;
  const auditNumber = (key: string) => {
    const value = audit.get(key);
    return value instanceof JsonNumber ? value.toNumber() : null;
  };
  return {
    projection_path: result.outputPath,
    discoverable: result.discoverable,
    projection_id: projection.projection_id,
    strategy: projection.strategy,
    purpose: projection.purpose.get("profile") ?? "general",
    source_event_count: projection.source_event_count,
    record_count: projection.records.length,
    source_identity_count: projection.source_identities.length,
    records: projection.records.map((record) => ({
      kind: record.kind,
      event_seq: record.event_seq,
      event_ref: record.event_ref,
      citations: record.citations,
      authority_scope: record.authority_scope,
    })),
    audit: {
      safe: audit.get("safe") === true,
      identity_recall: auditNumber("identity_recall"),
      citation_coverage: auditNumber("citation_coverage"),
    },
    consolidation_policy: projection.consolidation_policy,
  };
}

/** The text report (Python's four lines, then where retrieval will find it). */
export function projectionText(result: ProjectionRunResult): string {
  const { projection } = result;
  const lines = [
    `Wrote compaction projection: ${result.outputPath}`,
    `Strategy: ${projection.strategy}`,
    `Records: ${projection.records.length}`,
    `Source identities: ${projection.source_identities.length}`,
  ];
  if (!result.discoverable) lines.push(`Note: retrieval only discovers artifacts named *${projectionArtifactSuffix} under the Eventloom root`);
  return lines.join("\n");
}
