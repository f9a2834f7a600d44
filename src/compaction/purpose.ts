/**
 * Purpose profiles for compaction projections (Python `zaxy.purpose` presets plus the
 * `_PURPOSE_CONSOLIDATION_RULES` of `zaxy.compaction`). A profile says what a compacted view of
 * the log must keep for a kind of work, and so how many source events a projection may drop:
 *
 *   general                                   → the requested strategy as-is (medoid | exemplar)
 *   coding, research, support, product        → `purpose_exemplar`, at least 8 records
 *   review, release, security, sales, legal,
 *   executive                                 → `purpose_preserve_all` (every event kept)
 *   coordinate                                → `coordinate_authoritative` (every authoritative
 *                                               event; pending/rejected/stale rows diagnostic)
 *
 * The profile dictionaries are stored in artifacts and hashed into `projection_id`, so their
 * field values must never change for an existing profile. The Python sources seen name the
 * profile fields only for general/coding/review/release/security/research/coordinate; the
 * support/product/sales/legal/executive fields here are our own (docs/compaction.md lists them).
 */
import { inputError } from "../errors.ts";

export interface PurposeProfile {
  profile: string;
  role: string;
  task: string;
  risk: string;
  time_horizon: string;
  expected_action: string;
  permission_scope: string;
  evidence_policy: string;
  retention_policy: string;
  ontology_lens: readonly string[];
  required_evidence: readonly string[];
  retain: readonly string[];
  suppress: readonly string[];
  warnings: readonly string[];
}

export type PurposeStrategy = "purpose_exemplar" | "purpose_preserve_all";

/** How a non-general, non-coordinate profile compacts (Python `_PURPOSE_CONSOLIDATION_RULES`). */
export interface PurposeConsolidationRule {
  strategy: PurposeStrategy;
  /** Floor on the exemplar count: effective max records = max(--max-records, minRecords). */
  minRecords: number;
  preserveAll: boolean;
  /** Stored as `consolidation_policy.purpose_consolidation_reason`. */
  reason: string;
}

const generalProfile: PurposeProfile = {
  profile: "general",
  role: "agent",
  task: "answer",
  risk: "normal",
  time_horizon: "turn",
  expected_action: "answer_or_continue",
  permission_scope: "session",
  evidence_policy: "cite_relevant_evidence",
  retention_policy: "preserve_relevant_current_state",
  ontology_lens: [],
  required_evidence: [],
  retain: [],
  suppress: [],
  warnings: [],
};

function preset(fields: Partial<PurposeProfile> & { profile: string }): PurposeProfile {
  return { ...generalProfile, ...fields };
}

const presets: ReadonlyMap<string, PurposeProfile> = new Map([
  ["general", generalProfile],
  ["coding", preset({
    profile: "coding",
    role: "coding-agent",
    task: "implementation",
    risk: "correctness-critical",
    time_horizon: "current-change",
    expected_action: "implement_or_verify",
    permission_scope: "repo-local",
    evidence_policy: "cite_current_facts_and_verification",
    retention_policy: "preserve_invariants_failed_attempts_and_test_evidence",
    ontology_lens: ["invariant", "regression", "prior_fix", "open_blocker", "test_evidence"],
    required_evidence: ["current_fact_citation", "verification_or_source_citation"],
    retain: ["architectural_constraints", "failed_fixes", "accepted_decisions", "test_results"],
    suppress: ["superseded_context", "uncited_claim"],
  })],
  ["review", preset({
    profile: "review",
    role: "reviewer",
    task: "review",
    risk: "high",
    time_horizon: "release",
    expected_action: "approve_or_block",
    permission_scope: "repo-local",
    evidence_policy: "cited_current_facts_required",
    retention_policy: "preserve_risks_decisions_and_verification",
    ontology_lens: ["risk", "regression", "missing_test", "accepted_decision", "blocker"],
    required_evidence: ["accepted_or_cited_fact", "verification_evidence"],
    retain: ["blocking_risks", "accepted_findings", "test_results", "review_decisions"],
    suppress: ["pending_unreviewed_claim", "superseded_context", "low_trust_inference"],
  })],
  ["release", preset({
    profile: "release",
    role: "release-manager",
    task: "release-readiness",
    risk: "high",
    time_horizon: "release",
    expected_action: "ship_block_or_defer",
    permission_scope: "repo-local",
    evidence_policy: "release_gate_evidence_required",
    retention_policy: "preserve_release_gates_regressions_and_external_blockers",
    ontology_lens: ["release_gate", "regression", "changelog", "packaging", "deployment", "external_validation"],
    required_evidence: ["release_check_ref", "test_result_ref", "changelog_ref"],
    retain: ["release_decisions", "gate_failures", "packaging_evidence", "external_blockers"],
    suppress: ["draft_claim", "uncited_release_assertion", "stale_gate_result"],
    warnings: ["Treat stale release-gate evidence as blocking until refreshed."],
  })],
  ["security", preset({
    profile: "security",
    role: "security-reviewer",
    task: "security-assessment",
    risk: "critical",
    time_horizon: "incident-or-release",
    expected_action: "block_or_accept_risk",
    permission_scope: "repo-local",
    evidence_policy: "cited_security_evidence_required",
    retention_policy: "preserve_threats_controls_findings_and_risk_acceptance",
    ontology_lens: ["secret", "credential", "auth", "authorization", "exposure", "vulnerability", "risk_acceptance"],
    required_evidence: ["source_citation", "mitigation_ref", "risk_owner_ref"],
    retain: ["security_findings", "mitigations", "risk_acceptance", "secret_handling"],
    suppress: ["uncited_safe_claim", "low_trust_inference", "stale_mitigation"],
    warnings: ["Do not treat absence of retrieved findings as evidence of safety."],
  })],
  ["research", preset({
    profile: "research",
    role: "researcher",
    task: "evidence-synthesis",
    risk: "normal",
    time_horizon: "investigation",
    expected_action: "synthesize_or_identify_gap",
    permission_scope: "session",
    evidence_policy: "multi_source_citations_preferred",
    retention_policy: "preserve_claims_sources_contradictions_and_open_questions",
    ontology_lens: ["claim", "source", "contradiction", "method", "benchmark", "open_question"],
    required_evidence: ["source_citation", "method_ref", "contradiction_ref"],
    retain: ["research_claims", "source_quality", "contradictions", "open_questions"],
    suppress: ["single_source_overclaim", "uncited_claim", "stale_source"],
    warnings: ["Separate confirmed findings from hypotheses and source gaps."],
  })],
  ["support", preset({
    profile: "support",
    role: "support-agent",
    task: "case-resolution",
    risk: "normal",
    time_horizon: "case",
    expected_action: "resolve_or_escalate",
    permission_scope: "session",
    evidence_policy: "cite_case_history",
    retention_policy: "preserve_escalations_workarounds_customer_impact_and_resolutions",
    ontology_lens: ["escalation", "workaround", "customer_impact", "resolution", "known_issue"],
    required_evidence: ["case_ref", "resolution_ref"],
    retain: ["escalations", "workarounds", "customer_impact", "resolutions"],
    suppress: ["superseded_workaround", "uncited_claim"],
  })],
  ["product", preset({
    profile: "product",
    role: "product-manager",
    task: "product-decision",
    risk: "normal",
    time_horizon: "roadmap",
    expected_action: "prioritize_or_decide",
    permission_scope: "session",
    evidence_policy: "cite_signals_and_decisions",
    retention_policy: "preserve_roadmap_signals_promises_tradeoffs_and_experiment_outcomes",
    ontology_lens: ["roadmap_signal", "customer_promise", "tradeoff", "experiment_outcome", "decision"],
    required_evidence: ["signal_ref", "decision_ref"],
    retain: ["roadmap_signals", "customer_promises", "tradeoffs", "experiment_outcomes"],
    suppress: ["stale_signal", "uncited_claim"],
  })],
  ["sales", preset({
    profile: "sales",
    role: "account-executive",
    task: "account-management",
    risk: "high",
    time_horizon: "account",
    expected_action: "commit_or_follow_up",
    permission_scope: "session",
    evidence_policy: "cite_account_commitments",
    retention_policy: "preserve_commitments_objections_renewal_risks_and_account_context",
    ontology_lens: ["commitment", "objection", "renewal_risk", "account_context", "pricing"],
    required_evidence: ["account_ref", "commitment_ref"],
    retain: ["commitments", "objections", "renewal_risks", "account_context"],
    suppress: ["unconfirmed_commitment", "stale_account_state"],
    warnings: ["Do not restate a commitment without its cited source."],
  })],
  ["legal", preset({
    profile: "legal",
    role: "legal-reviewer",
    task: "legal-review",
    risk: "critical",
    time_horizon: "obligation",
    expected_action: "approve_or_escalate",
    permission_scope: "repo-local",
    evidence_policy: "cited_obligations_required",
    retention_policy: "preserve_obligations_approvals_deadlines_and_exceptions",
    ontology_lens: ["obligation", "approval", "deadline", "exception", "jurisdiction"],
    required_evidence: ["source_citation", "approval_ref"],
    retain: ["obligations", "approvals", "deadlines", "exceptions"],
    suppress: ["uncited_legal_claim", "superseded_terms"],
    warnings: ["Absence of a retrieved obligation is not evidence that none exists."],
  })],
  ["executive", preset({
    profile: "executive",
    role: "executive",
    task: "strategic-decision",
    risk: "high",
    time_horizon: "quarter",
    expected_action: "decide_or_delegate",
    permission_scope: "session",
    evidence_policy: "cite_decisions_and_risks",
    retention_policy: "preserve_strategic_exceptions_market_patterns_risks_and_decisions",
    ontology_lens: ["strategic_exception", "market_pattern", "risk", "decision", "commitment"],
    required_evidence: ["decision_ref", "risk_ref"],
    retain: ["strategic_exceptions", "market_patterns", "risks", "decisions"],
    suppress: ["stale_forecast", "uncited_claim"],
  })],
  ["coordinate", preset({
    profile: "coordinate",
    role: "coordinator",
    task: "mission-state",
    risk: "high",
    time_horizon: "handoff",
    expected_action: "brief_promote_or_handoff",
    permission_scope: "mission-parent",
    evidence_policy: "accepted_parent_state_with_citations_required",
    retention_policy: "preserve_accepted_findings_conflicts_handoffs_and_proof_packets",
    ontology_lens: ["accepted_finding", "pending_diagnostic", "conflict", "stale_evidence", "handoff", "proof_packet"],
    required_evidence: ["promotion_event_ref", "review_event_ref", "source_event_ref"],
    retain: ["accepted_parent_state", "proof_packets", "handoff_refs", "conflicts"],
    suppress: ["worker_local_pending", "rejected_finding", "stale_unpromoted_finding"],
    warnings: ["Pending worker-local rows are diagnostic only unless explicitly included."],
  })],
]);

function exemplarRule(reason: string): PurposeConsolidationRule {
  return { strategy: "purpose_exemplar", minRecords: 8, preserveAll: false, reason };
}

function preserveAllRule(reason: string): PurposeConsolidationRule {
  return { strategy: "purpose_preserve_all", minRecords: 0, preserveAll: true, reason };
}

const consolidationRules: ReadonlyMap<string, PurposeConsolidationRule> = new Map([
  ["coding", exemplarRule("preserve_invariants_failed_attempts_and_test_evidence")],
  ["review", preserveAllRule("preserve_blocking_risks_decisions_and_verification")],
  ["release", preserveAllRule("preserve_release_gates_regressions_and_external_blockers")],
  ["security", preserveAllRule("preserve_threats_controls_findings_and_risk_acceptance")],
  ["research", exemplarRule("preserve_claims_sources_contradictions_and_open_questions")],
  ["support", exemplarRule("preserve_escalations_workarounds_customer_impact_and_resolutions")],
  ["product", exemplarRule("preserve_roadmap_signals_promises_tradeoffs_and_experiment_outcomes")],
  ["sales", preserveAllRule("preserve_commitments_objections_renewal_risks_and_account_context")],
  ["legal", preserveAllRule("preserve_obligations_approvals_deadlines_and_exceptions")],
  ["executive", preserveAllRule("preserve_strategic_exceptions_market_patterns_risks_and_decisions")],
]);

/** Every profile name `--purpose` accepts, in the order help and errors list them. */
export const purposeNames: readonly string[] = [...presets.keys()];

/**
 * The named profile. Python turns an unknown name into an empty custom profile; here an unknown
 * name is bad input, so a typo cannot silently compact with the general rules.
 *
 * @example
 * purposeProfile("security").retain // ["security_findings", "mitigations", ...]
 */
export function purposeProfile(name: string | undefined, field = "purpose"): PurposeProfile {
  const key = (name ?? "general").trim().toLowerCase().replaceAll(" ", "-");
  const profile = presets.get(key);
  if (profile === undefined) {
    throw inputError("invalid_purpose", `\`${field}\` ${JSON.stringify(name)} is not a purpose profile; expected one of ${purposeNames.join(", ")}`, {
      field,
      expected: purposeNames.join("|"),
      actual: String(name),
    });
  }
  return profile;
}

/** The consolidation rule of a profile; undefined for `general` and `coordinate`. */
export function purposeConsolidationRule(profile: PurposeProfile): PurposeConsolidationRule | undefined {
  return consolidationRules.get(profile.profile);
}

/**
 * The profile as stored in artifacts (Python `PurposeProfile.to_dict()`): the text fields always,
 * the list fields only when non-empty.
 */
export function purposeProfileJson(profile: PurposeProfile): { [key: string]: string | string[] } {
  const out: { [key: string]: string | string[] } = {
    profile: profile.profile,
    role: profile.role,
    task: profile.task,
    risk: profile.risk,
    time_horizon: profile.time_horizon,
    expected_action: profile.expected_action,
    permission_scope: profile.permission_scope,
    evidence_policy: profile.evidence_policy,
    retention_policy: profile.retention_policy,
  };
  for (const key of ["ontology_lens", "required_evidence", "retain", "suppress", "warnings"] as const) {
    if (profile[key].length > 0) out[key] = [...profile[key]];
  }
  return out;
}
