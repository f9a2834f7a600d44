/**
 * The remediation plan for an unsafe audit (Python `compaction_remediation_plan`): ordered steps
 * `{code, action, details}`. Codes and action strings are Python's, word for word, so scripts
 * written against either implementation branch the same way. Empty when the audit is safe.
 */

export interface RemediationStep {
  code: "repair_eventloom_integrity" | "preserve_missing_identities" | "restore_source_citations" | "review_unsafe_reasons";
  action: string;
  details: Record<string, unknown>;
}

export const remediationActions = {
  repair_eventloom_integrity: "Restore the Eventloom log from backup or remove the tampered candidate from compaction.",
  preserve_missing_identities: "Use exemplar projection or increase max_records before compacting.",
  restore_source_citations: "Re-ingest uncited document/transcript events with source paths, line ranges, or Eventloom refs before compacting.",
  review_unsafe_reasons: "Inspect unsafe_reasons and rerun compaction audit after remediation.",
} as const;

/** What the plan reads from an audit report. */
export interface RemediationInput {
  safe: boolean;
  integrity_ok: boolean;
  integrity_reason: string | null;
  identity_recall: number | null;
  citation_coverage: number | null;
  missing_identities: string[];
  unsafe_reasons: string[];
  /** Clusters that lose identities, with the operator that would keep them (ours, not Python's). */
  clustersLosingIdentities?: Array<{ cluster_id: number; recommended_operator: string }>;
}

/**
 * @example
 * remediationPlan(report)[0] // { code: "preserve_missing_identities", action: "Use exemplar projection …", details: {…} }
 */
export function remediationPlan(report: RemediationInput): RemediationStep[] {
  if (report.safe) return [];
  const steps: RemediationStep[] = [];
  if (!report.integrity_ok) {
    steps.push({ code: "repair_eventloom_integrity", action: remediationActions.repair_eventloom_integrity, details: { reason: report.integrity_reason } });
  }
  if (report.missing_identities.length > 0) {
    const details: Record<string, unknown> = { missing_identities: [...report.missing_identities], identity_recall: report.identity_recall };
    if (report.clustersLosingIdentities !== undefined) details.clusters = report.clustersLosingIdentities;
    steps.push({ code: "preserve_missing_identities", action: remediationActions.preserve_missing_identities, details });
  }
  if (report.citation_coverage !== null && report.citation_coverage < 1) {
    steps.push({ code: "restore_source_citations", action: remediationActions.restore_source_citations, details: { citation_coverage: report.citation_coverage } });
  }
  if (steps.length === 0) {
    steps.push({ code: "review_unsafe_reasons", action: remediationActions.review_unsafe_reasons, details: { unsafe_reasons: [...report.unsafe_reasons] } });
  }
  return steps;
}
