/**
 * Deterministic proposals per segment (DESIGN §8; reference §2.4), in this order:
 * - episode, always: title `Episode <start>-<end>`, confidence 0.68;
 * - claim, when the segment has at least two events (the design's `_has_claim_signal`, seed
 *   000: two `tool.call.completed` events yield a claim): confidence 0.62;
 * - procedure, when it has >= 2 `tool.call.completed`, or a file edit together with a tool
 *   call, command or task: confidence 0.58.
 * Titles feed candidate ids, so their wording must never change.
 */
import type { SourceEventRef } from "./candidate.ts";
import { type ConsolidationCandidateType, consolidationCandidatePayload } from "./candidate.ts";
import type { PlainJson } from "../projection/types.ts";
import { codePointLength, codePointPrefix, pythonRstrip, pythonStrip } from "../canonical/pythonText.ts";
import { type ConsolidationSegment, summaryCharsMax } from "./segments.ts";

export const episodeConfidence = 0.68;
export const claimConfidence = 0.62;
export const procedureConfidence = 0.58;

export const episodeMethod = "deterministic_episode_segment_v1";
export const claimMethod = "deterministic_claim_signal_v1";
export const procedureMethod = "deterministic_procedure_trace_v1";

/** Event summaries a segment summary joins, at most. */
const segmentSummaryEventsMax = 4;
const ellipsis = "...";

export interface ProposedConsolidation {
  segmentId: string;
  candidateType: ConsolidationCandidateType;
  title: string;
  summary: string;
  confidence: number;
  method: string;
  purpose?: string;
  sourceEvents: SourceEventRef[];
}

/**
 * The first four event summaries joined with " -> " (or the segment id), at most 240 code
 * points: longer ones keep 237 (trailing whitespace dropped) and end in "...".
 */
export function segmentSummary(segment: ConsolidationSegment): string {
  const summaries = segment.sourceEvents.map((event) => pythonStrip(event.summary)).filter((summary) => summary !== "");
  const summary = summaries.slice(0, segmentSummaryEventsMax).join(" -> ") || segment.segmentId;
  if (codePointLength(summary) > summaryCharsMax) return pythonRstrip(codePointPrefix(summary, summaryCharsMax - ellipsis.length)) + ellipsis;
  return summary;
}

/** Events a segment needs before it supports a claim (the design's `source_event_count >= 2`). */
export const claimSourceEventsMin = 2;

/**
 * Two cited events are the least a claim can rest on. Later Python also required a file edit,
 * task or coordination event; the design document (seed 000) does not, and it wins.
 */
function hasClaimSignal(segment: ConsolidationSegment): boolean {
  return segment.sourceEvents.length >= claimSourceEventsMin;
}

function hasProcedureSignal(segment: ConsolidationSegment): boolean {
  if ((segment.eventTypeCounts.get("tool.call.completed") ?? 0) >= 2) return true;
  const types = [...segment.eventTypeCounts.keys()];
  return types.some((type) => type.startsWith("file.edit.")) &&
    types.some((type) => ["tool.call.", "command.", "task."].some((prefix) => type.startsWith(prefix)));
}

export function generateConsolidationProposals(segments: readonly ConsolidationSegment[], purpose?: string): ProposedConsolidation[] {
  const proposals: ProposedConsolidation[] = [];
  for (const segment of segments) {
    const base = {
      segmentId: segment.segmentId,
      sourceEvents: segment.sourceEvents.map((event) => ({ seq: event.seq, hash: event.hash })),
      ...(purpose === undefined ? {} : { purpose }),
    };
    const summary = segmentSummary(segment);
    const range = segment.segmentId.slice(segment.segmentId.lastIndexOf(":") + 1);
    proposals.push({ ...base, candidateType: "episode", title: `Episode ${range}`, summary, confidence: episodeConfidence, method: episodeMethod });
    if (hasClaimSignal(segment)) {
      proposals.push({
        ...base,
        candidateType: "claim",
        title: `Claim from ${segment.segmentId}`,
        summary: `Candidate claim supported by ${segment.sourceEvents.length} cited source events: ${summary}`,
        confidence: claimConfidence,
        method: claimMethod,
      });
    }
    if (hasProcedureSignal(segment)) {
      proposals.push({
        ...base,
        candidateType: "procedure",
        title: `Procedure from ${segment.segmentId}`,
        summary: `Candidate procedure inferred from observed workflow steps: ${summary}`,
        confidence: procedureConfidence,
        method: procedureMethod,
      });
    }
  }
  return proposals;
}

/** The validated `consolidation.candidate.created` payload of a proposal. */
export function proposalPayload(proposal: ProposedConsolidation): { [key: string]: PlainJson } {
  return consolidationCandidatePayload({
    candidateType: proposal.candidateType,
    title: proposal.title,
    summary: proposal.summary,
    sourceEvents: proposal.sourceEvents,
    confidence: proposal.confidence,
    method: proposal.method,
    purpose: proposal.purpose,
  });
}
