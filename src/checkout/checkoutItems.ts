/**
 * The per-context records of a checkout: current facts, evidence and provenance. Every one
 * carries a citation; `event_hash` is the citation's 12-hex fragment, not the full hash.
 */
import { citationHashChars } from "../eventloom/citation.ts";
import type { PlainJson } from "../projection/types.ts";
import type { RetrievedContext } from "../retrieval/types.ts";

export interface CurrentFact {
  content: string;
  source: string;
  score: number;
  citation: string;
  valid_from: string | null;
  /** Always null: a fact is current only while its validity window is open. */
  valid_to: null;
  source_lane: string;
  entity_name?: string;
  entity_type?: string;
  /** What a reviewed memory is worth (see `contextStanding`); absent for plain facts. */
  review_status?: string;
  authority_status?: string;
  score_explanation?: { [key: string]: PlainJson };
}

export interface EvidenceItem {
  citation: string;
  content: string;
  source: string;
  source_lane: string;
  score: number;
  event_seq: number | null;
  event_hash: string | null;
  review_status?: string;
  authority_status?: string;
  /**
   * `false` for low-relevance evidence: retrieved, but sharing no word with the query (absent
   * otherwise). It is never a current fact and never raises confidence.
   */
  matches_query?: false;
  score_explanation?: { [key: string]: PlainJson };
}

export interface ProvenanceItem {
  citation: string;
  event_seq: number | null;
  event_hash: string | null;
  source: string;
  source_lane: string;
  valid_from: string | null;
  valid_to: string | null;
  /** As in `EvidenceItem`. */
  matches_query?: false;
}

/** A context that can be shown as a current fact: open validity window and a citation. */
export function isCurrentFact(context: RetrievedContext): context is RetrievedContext & { citation: string; validTo: null } {
  return context.validTo === null && Boolean(context.citation);
}

export function isCited(context: RetrievedContext): context is RetrievedContext & { citation: string } {
  return Boolean(context.citation);
}

/**
 * Seq and hash fragment named by a citation (Python `_citation_event_identity`): the digits after
 * `/events/` and the text after the last `#`. Falls back to the context's own source event.
 */
function citedEvent(context: RetrievedContext & { citation: string }): { seq: number | null; hash: string | null } {
  const citation = context.citation;
  let seq: number | null = null;
  const eventsAt = citation.indexOf("/events/");
  if (eventsAt >= 0) {
    const seqText = citation.slice(eventsAt + "/events/".length).split("#")[0].split("/")[0];
    if (/^[0-9]+$/.test(seqText)) seq = Number(seqText);
  }
  const hashAt = citation.lastIndexOf("#");
  let hash = hashAt >= 0 && hashAt < citation.length - 1 ? citation.slice(hashAt + 1) : null;
  seq ??= context.eventSeq;
  hash ??= context.eventHash === null ? null : context.eventHash.slice(0, citationHashChars);
  return { seq, hash };
}

/**
 * The review and authority status a context's metadata carries (a consolidation candidate, a
 * fleet promotion), so a memory that is still under review, or never authoritative, says so
 * wherever it is served instead of reading like a plain fact.
 */
export function contextStanding(context: RetrievedContext): { review_status?: string; authority_status?: string } {
  const review = context.metadata.review_status;
  const authority = context.metadata.authority_status;
  return typeof review === "string" && typeof authority === "string" ? { review_status: review, authority_status: authority } : {};
}

function explanation(context: RetrievedContext): { score_explanation?: { [key: string]: PlainJson } } {
  return Object.keys(context.scoreExplanation).length > 0 ? { score_explanation: context.scoreExplanation } : {};
}

export function currentFact(context: RetrievedContext & { citation: string; validTo: null }): CurrentFact {
  const fact: CurrentFact = {
    content: context.content,
    source: context.source,
    score: context.score,
    citation: context.citation,
    valid_from: context.validFrom,
    valid_to: null,
    source_lane: context.sourceLane,
  };
  if (context.entityName) fact.entity_name = context.entityName;
  if (context.entityType) fact.entity_type = context.entityType;
  return { ...fact, ...contextStanding(context), ...explanation(context) };
}

/** `matches_query: false` for low-relevance items (see `EvidenceItem`), nothing otherwise. */
function relevance(matchesQuery: boolean): { matches_query?: false } {
  return matchesQuery ? {} : { matches_query: false };
}

export function evidenceItem(context: RetrievedContext & { citation: string }, matchesQuery = true): EvidenceItem {
  const event = citedEvent(context);
  return {
    citation: context.citation,
    content: context.content,
    source: context.source,
    source_lane: context.sourceLane,
    score: context.score,
    event_seq: event.seq,
    event_hash: event.hash,
    ...contextStanding(context),
    ...relevance(matchesQuery),
    ...explanation(context),
  };
}

export function provenanceItem(context: RetrievedContext & { citation: string }, matchesQuery = true): ProvenanceItem {
  const event = citedEvent(context);
  return {
    citation: context.citation,
    event_seq: event.seq,
    event_hash: event.hash,
    source: context.source,
    source_lane: context.sourceLane,
    valid_from: context.validFrom,
    valid_to: context.validTo,
    ...relevance(matchesQuery),
  };
}
