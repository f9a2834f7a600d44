/**
 * The audit report as an output document: the same keys, with every ratio and distance written
 * as a Python float (`1.0`, not `1`), so `--json` reads like Python's `json.dumps` of the report.
 */
import { JsonNumber } from "../canonical/mod.ts";
import { auditFloatKeys, type CompactionAuditReport } from "./audit.ts";

function floatsAsPython(value: object): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    out[key] = auditFloatKeys.has(key) && typeof item === "number" ? JsonNumber.float(item) : item;
  }
  return out;
}

/**
 * @example
 * displayJson(auditDocument(report)) // '{"safe":true,…,"identity_recall":1.0,…}'
 */
export function auditDocument(report: CompactionAuditReport): Record<string, unknown> {
  const doc = floatsAsPython(report);
  doc.clusters = report.clusters.map((cluster) => floatsAsPython(cluster));
  doc.singleton_clusters = floatsAsPython(report.singleton_clusters);
  doc.remediation = report.remediation.map((step) => ({ ...step, details: floatsAsPython(step.details) }));
  return doc;
}
