/**
 * `auditLog`: the non-destructive compaction audit (DESIGN §9). It answers "if this log is
 * compacted with the intended operator (one medoid per cluster, or up to N exemplars), can every
 * durable identity still be recovered?"
 *
 * 1. Integrity first: a broken chain makes the report unsafe and nothing else is computed from
 *    the log (every other metric is null or empty).
 * 2. Pass one streams the log: event context text (eventContext.ts) → hash embedding (sparse)
 *    and MinHash sketch, identities, citation flag, timestamp. Context texts are not kept.
 * 3. Clusters: deterministic leader clustering (clustering.ts), or the whole log as one cluster
 *    (`wholeLog`, as the Python audit does).
 * 4. Per multi-event cluster (rows densified one cluster at a time): centroid, medoid,
 *    farthest-point exemplars (src/vector/geometry.ts), spreads, the centroid's representative
 *    (the member nearest the centroid: a centroid is not an event and carries no text).
 *    Single-event clusters keep their identities under every operator; they are counted into
 *    `singleton_clusters` and the totals, never given per-cluster objects.
 * 5. Pass two re-reads the log for the representatives' context texts only; identity recall is
 *    Python's test: an identity is recovered when its casefold is a substring of a
 *    representative's `event_context + "\n" + identities` (casefolded).
 *
 * Python's report keys come first and keep Python's meaning where the operator is the same;
 * `identities` and `identity_count` include event refs as Python's do, but `identity_recall` and
 * `missing_identities` count content identities only: event refs are backpointers every
 * representative carries (`backpointer_coverage`).
 *
 * Memory is O(n) small state in typed columns (per event: seq, citation flag, window, the event
 * ref's parts and content identities as ids into one pool, auditFacts.ts; its sparse vector and
 * band keys) plus one cluster's dense rows at a time (in one reused buffer): the log is streamed
 * twice and never held, context texts are never kept (pass two keeps one flag per representative
 * and identity of its cluster, not the representative's text). Each stage's garbage is collected
 * before the next stage allocates, so the peak is the largest stage's live data.
 */
import * as fs from "node:fs";
import { isJsonObject, parseJsonBytes } from "../canonical/mod.ts";
import type { InvalidDerivedEvent } from "../events/derivedEventRules.ts";
import { pythonRound4 } from "../canonical/pythonRound.ts";
import { inputError } from "../errors.ts";
import { invariant } from "../invariant.ts";
import { readLogLines, recordFromLine, verifyLog } from "../eventloom/mod.ts";
import { collectGarbageNow, requestGarbageCollection } from "../platform/mod.ts";
import type { ProgressSink } from "../progress.ts";
import type { IntegrityReport } from "../eventloom/mod.ts";
import { pythonCaseFold } from "../vector/textAnalysis.ts";
import { centroidOf, cosineDistancesTo, farthestPointExemplars, meanPairwiseCosineDistance, medoidIndex } from "../vector/geometry.ts";
import { defaultEmbeddingDim } from "../vector/hashEmbedding.ts";
import { AuditFacts } from "./auditFacts.ts";
import { AuditVectors } from "./auditVectors.ts";
import { clusterRows, defaultClusterThreshold } from "./clustering.ts";
import { defaultPassOneSplit, type PassOneSplit, readPassOne, temporalWindowMs, type UncitedEvent } from "./auditPassOne.ts";
import { eventContext } from "./eventContext.ts";
import { eventIdentities } from "./identities.ts";
import { remediationPlan, type RemediationStep } from "./remediation.ts";

export { type PassOneSplit, temporalWindowMs, type UncitedEvent } from "./auditPassOne.ts";

export type AuditStrategy = "medoid" | "exemplar";
export type ClusterRegime = "tight" | "spread";
export type RecommendedOperator = "medoid" | "exemplar" | "keep_all";

/** Default exemplars per cluster (`--max-records`, Python's default). */
export const defaultMaxRecords = 5;
/** `--cluster-threshold` must lie strictly between these (cosine distance). */
export const clusterThresholdRange = { above: 0, below: 1 } as const;
/** Representatives parsed between garbage-collection requests in pass two. */
const gcEveryEvents = 4096;
/** Event refs built for the report between garbage-collection requests. */
const gcEveryRefs = 65536;
/** Clusters measured between garbage-collection requests. */
const gcEveryClusters = 1024;

export interface AuditOptions {
  /** Cosine distance a member may be from its cluster's leader (default 0.2). */
  clusterThreshold?: number;
  /** Treat the whole log as one cluster (Python's audit). */
  wholeLog?: boolean;
  /** The operator audited: one medoid per cluster (default) or farthest-point exemplars. */
  strategy?: AuditStrategy;
  /** Exemplars per cluster (default 5). */
  maxRecords?: number;
  embeddingDim?: number;
  /** Where the audit's stages and counts are reported (the CLI draws them on a terminal). */
  progress?: ProgressSink;
  /**
   * How pass one is split over threads (the report is the same for every split); by default
   * one worker per core on a log of at least `auditParallelMinBytes`, else this thread.
   */
  passOneSplit?: PassOneSplit;
}

export interface ClusterReport {
  cluster_id: number;
  size: number;
  first_seq: number;
  last_seq: number;
  event_seqs: number[];
  mean_within_cluster_distance: number;
  mean_distance_to_centroid: number;
  regime: ClusterRegime;
  recommended_operator: RecommendedOperator;
  content_identity_count: number;
  centroid_representative_seq: number;
  medoid_seq: number;
  exemplar_seqs: number[];
  identity_recall_centroid: number;
  identity_recall_medoid: number;
  identity_recall_exemplars: number;
  /** Recall under the audited strategy, and what it misses. */
  identity_recall: number;
  missing_identities: string[];
  backpointer_coverage: number;
  citation_coverage: number;
  nearest_neighbour_events: number;
  nearest_neighbour_preservation: number;
  temporal_windows: number;
  temporal_window_coverage: number;
}

export interface CompactionAuditReport {
  // Python's keys (CompactionAuditReport).
  safe: boolean;
  event_count: number;
  integrity_ok: boolean;
  integrity_reason: string | null;
  identity_count: number;
  identity_recall: number | null;
  citation_coverage: number | null;
  mean_within_cluster_distance: number | null;
  identities: string[];
  identity_hits: string[];
  missing_identities: string[];
  unsafe_reasons: string[];
  // Ours.
  log_path: string;
  strategy: AuditStrategy;
  max_records: number;
  whole_log: boolean;
  cluster_threshold: number | null;
  embedding_dim: number;
  cluster_count: number;
  singleton_cluster_count: number;
  content_identity_count: number;
  backpointer_count: number;
  backpointer_coverage: number | null;
  identity_recall_centroid: number | null;
  identity_recall_medoid: number | null;
  identity_recall_exemplars: number | null;
  nearest_neighbour_events: number;
  nearest_neighbour_preservation: number | null;
  temporal_window_ms: number;
  /** Events that cannot be cited back to their source (what lowers `citation_coverage`). */
  uncited_event_count: number;
  /** The first `auditUncitedEventsListedMax` of them, by seq. */
  uncited_events: UncitedEvent[];
  /**
   * Sealed derived events their producer would never have written (events/derivedEventRules.ts):
   * refused at append today, so found only in logs written by Python or an older zaxy. They do
   * not project; they do not make compaction unsafe either.
   */
  invalid_derived_events: InvalidDerivedEvent[];
  /** Multi-event clusters, in cluster order, with full detail. */
  clusters: ClusterReport[];
  /** Single-event clusters, summarised (each trivially keeps its identities). */
  singleton_clusters: SingletonClustersSummary;
  remediation: RemediationStep[];
}


export interface SingletonClustersSummary {
  cluster_count: number;
  content_identity_count: number;
  cited_event_count: number;
  citation_coverage: number | null;
  nearest_neighbour_events: number;
  nearest_neighbour_preservation: number | null;
}

/** The floating-point fields of the report and of each cluster (printed as Python floats). */
export const auditFloatKeys: ReadonlySet<string> = new Set([
  "identity_recall", "citation_coverage", "mean_within_cluster_distance", "cluster_threshold", "backpointer_coverage",
  "identity_recall_centroid", "identity_recall_medoid", "identity_recall_exemplars", "nearest_neighbour_preservation",
  "mean_distance_to_centroid", "temporal_window_coverage",
]);

/** Python's twelve report keys, in Python's (sorted) order — what a `*.compaction.json` embeds. */
export function pythonAuditReport(report: CompactionAuditReport): Record<string, unknown> {
  return {
    citation_coverage: report.citation_coverage,
    event_count: report.event_count,
    identities: report.identities,
    identity_count: report.identity_count,
    identity_hits: report.identity_hits,
    identity_recall: report.identity_recall,
    integrity_ok: report.integrity_ok,
    integrity_reason: report.integrity_reason,
    mean_within_cluster_distance: report.mean_within_cluster_distance,
    missing_identities: report.missing_identities,
    safe: report.safe,
    unsafe_reasons: report.unsafe_reasons,
  };
}

function ratio(hits: number, total: number): number {
  return total === 0 ? 1 : hits / total;
}

function validateOptions(options: AuditOptions): AuditSettings {
  const threshold = options.clusterThreshold ?? defaultClusterThreshold;
  if (!(threshold > clusterThresholdRange.above && threshold < clusterThresholdRange.below)) {
    throw inputError("invalid_option", `\`cluster_threshold\` must be a number in (0, 1) (a cosine distance), got ${threshold}`, { field: "cluster_threshold" });
  }
  const maxRecords = options.maxRecords ?? defaultMaxRecords;
  if (!Number.isInteger(maxRecords) || maxRecords < 1) {
    throw inputError("invalid_option", `\`max_records\` must be an integer >= 1, got ${maxRecords}`, { field: "max_records" });
  }
  const strategy = options.strategy ?? "medoid";
  if (strategy !== "medoid" && strategy !== "exemplar") {
    throw inputError("invalid_option", `\`strategy\` must be one of medoid, exemplar, got ${JSON.stringify(strategy)}`, { field: "strategy" });
  }
  return { clusterThreshold: threshold, wholeLog: options.wholeLog ?? false, strategy, maxRecords, embeddingDim: options.embeddingDim ?? defaultEmbeddingDim };
}

/** Is `path` a readable regular file? Bad input (exit 2) otherwise. */
function checkLogFile(path: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(path);
  } catch {
    throw inputError("unreadable_log", `Cannot audit LOG ${JSON.stringify(path)}: no such file`, { field: "LOG", expected: "an Eventloom JSONL file" });
  }
  if (!stat.isFile()) throw inputError("unreadable_log", `Cannot audit LOG ${JSON.stringify(path)}: not a regular file`, { field: "LOG", expected: "an Eventloom JSONL file" });
}

function unsafeReasons(integrityOk: boolean, recall: number | null, coverage: number | null): string[] {
  const reasons: string[] = [];
  if (!integrityOk) reasons.push("integrity check failed");
  if (recall !== null && recall < 1) reasons.push("identity recall below 1.000");
  if (coverage !== null && coverage < 1) reasons.push("citation coverage below 1.000");
  return reasons;
}

/** The audit's settings once validated (every option filled in). */
type AuditSettings = Required<Omit<AuditOptions, "progress" | "passOneSplit">>;

/** The report fields that echo the audit's settings, in the report's key order. */
type ReportSettings = Pick<CompactionAuditReport, "log_path" | "strategy" | "max_records" | "whole_log" | "cluster_threshold" | "embedding_dim" | "temporal_window_ms">;

function reportSettings(path: string, opts: AuditSettings): ReportSettings {
  return {
    log_path: path,
    strategy: opts.strategy,
    max_records: opts.maxRecords,
    whole_log: opts.wholeLog,
    cluster_threshold: opts.wholeLog ? null : opts.clusterThreshold,
    embedding_dim: opts.embeddingDim,
    temporal_window_ms: temporalWindowMs,
  };
}

/** Stage 1, chain broken: the report says so and computes nothing else from the log. */
function brokenChainReport(integrity: IntegrityReport, base: ReportSettings): CompactionAuditReport {
  const report: CompactionAuditReport = {
    safe: false, event_count: integrity.total_events, integrity_ok: false, integrity_reason: integrity.broken_reason,
    identity_count: 0, identity_recall: null, citation_coverage: null, mean_within_cluster_distance: null,
    identities: [], identity_hits: [], missing_identities: [], unsafe_reasons: unsafeReasons(false, null, null),
    ...base, cluster_count: 0, singleton_cluster_count: 0, content_identity_count: 0, backpointer_count: 0,
    backpointer_coverage: null, identity_recall_centroid: null, identity_recall_medoid: null, identity_recall_exemplars: null,
    nearest_neighbour_events: 0, nearest_neighbour_preservation: null, invalid_derived_events: [], clusters: [],
    singleton_clusters: { cluster_count: 0, content_identity_count: 0, cited_event_count: 0, citation_coverage: null, nearest_neighbour_events: 0, nearest_neighbour_preservation: null },
    uncited_event_count: 0, uncited_events: [],
    remediation: [],
  };
  report.remediation = remediationPlan(report);
  return report;
}

/** What pass one keeps of the log: small facts per event (the vectors go to `AuditVectors`). */
interface EventPass {
  facts: AuditFacts;
  uncited: { count: number; listed: UncitedEvent[] };
  invalidDerived: InvalidDerivedEvent[];
}

/** Stage 2, pass one: the log into `vectors` (one row per event) and the event facts, range by range (auditPassOne.ts). */
async function readEventFacts(path: string, vectors: AuditVectors, split: PassOneSplit | undefined, progress: ProgressSink | undefined): Promise<EventPass> {
  const facts = new AuditFacts();
  const totals = await readPassOne(path, facts, vectors, split ?? defaultPassOneSplit(fs.statSync(path).size), (events) => progress?.update(events));
  // Every later stage addresses an event by its row in both.
  invariant(vectors.count === facts.count, `pass one embedded ${vectors.count} rows for ${facts.count} events`);
  return { facts, ...totals };
}

/** Which cluster each row is in, and each row's nearest neighbour within the threshold (or -1). */
interface EventClusters {
  clusterOf: Int32Array;
  clusterCount: number;
  nearest: Int32Array;
}

/** Stage 3: leader clustering, or the whole log as one cluster. */
function clusterEvents(vectors: AuditVectors, n: number, opts: AuditSettings): EventClusters {
  if (opts.wholeLog) return { clusterOf: new Int32Array(n), clusterCount: n > 0 ? 1 : 0, nearest: new Int32Array(n).fill(-1) };
  const clustering = clusterRows(vectors, opts.clusterThreshold);
  // Only neighbours within the threshold count: those are the ones a merge must keep together.
  const nearest = clustering.nearestNeighbour.map((mate, row) => (mate >= 0 && 1 - clustering.nearestCosine[row] <= opts.clusterThreshold ? mate : -1));
  return { clusterOf: clustering.clusterOf, clusterCount: clustering.clusterCount, nearest };
}

/** A cluster of two or more events: its number and its rows, in log order. */
interface MultiEventCluster {
  cluster: number;
  rows: number[];
}

interface ClusterGroups {
  /** Events per cluster, by cluster number. */
  clusterSizes: Int32Array;
  /** The multi-event clusters, in cluster order. */
  multi: MultiEventCluster[];
  /** Each cluster's index in `multi`, or -1 for a single-event cluster. */
  multiIndex: Int32Array;
}

/**
 * Only multi-event clusters get member lists and full detail; a log of mostly distinct events is
 * mostly single-event clusters, which are summarised (`singleton_clusters`).
 */
function groupClusters(clusters: EventClusters, n: number): ClusterGroups {
  const { clusterOf, clusterCount } = clusters;
  invariant(clusterOf.length === n, `clustering assigned ${clusterOf.length} rows of ${n}`);
  const clusterSizes = new Int32Array(clusterCount);
  for (let row = 0; row < n; row++) clusterSizes[clusterOf[row]]++;
  const multi: MultiEventCluster[] = [];
  const multiIndex = new Int32Array(clusterCount).fill(-1);
  for (let row = 0; row < n; row++) {
    const c = clusterOf[row];
    if (clusterSizes[c] < 2) continue;
    if (multiIndex[c] < 0) {
      multiIndex[c] = multi.length;
      multi.push({ cluster: c, rows: [] });
    }
    multi[multiIndex[c]].rows.push(row);
  }
  // Clusters are numbered by their first row, so first-row order is cluster order: the report
  // lists clusters in this order.
  for (let m = 1; m < multi.length; m++) {
    invariant(multi[m - 1].cluster < multi[m].cluster, `multi-event clusters out of order at ${m}: ${multi[m - 1].cluster} then ${multi[m].cluster}`);
  }
  return { clusterSizes, multi, multiIndex };
}

/** One multi-event cluster's geometry: representative rows and spreads. */
interface Geometry {
  centroidRep: number;
  medoid: number;
  exemplars: number[];
  meanPairwise: number;
  meanToCentroid: number;
}

/** Stage 4: each multi-event cluster's centroid representative, medoid, exemplars and spreads. */
function measureClusters(vectors: AuditVectors, multi: readonly MultiEventCluster[], opts: AuditSettings): Geometry[] {
  // One buffer for every cluster's dense rows (the largest cluster's size): a fresh array per
  // cluster is garbage the collector does not see (typed-array storage is outside its heap
  // accounting) and piled up to ~150 MB over 9 000 clusters.
  let denseScratch = new Float32Array(0);
  return multi.map(({ rows }, m) => {
    // Each cluster still leaves a few dim-long typed arrays (the centroid, the distances): at
    // 90 000 clusters that was ~800 MB waiting for a collection the heap size never asked for.
    if (m % gcEveryClusters === gcEveryClusters - 1) requestGarbageCollection();
    if (denseScratch.length < rows.length * opts.embeddingDim) denseScratch = new Float32Array(rows.length * opts.embeddingDim);
    const dense = vectors.denseInto(rows, denseScratch);
    const dim = opts.embeddingDim;
    const centroid = centroidOf(dense, rows.length, dim);
    const toCentroid = cosineDistancesTo(dense, rows.length, dim, centroid);
    let nearestToCentroid = 0;
    for (let i = 1; i < rows.length; i++) if (toCentroid[i] < toCentroid[nearestToCentroid]) nearestToCentroid = i;
    const medoid = medoidIndex(dense, rows.length, dim);
    const exemplars = farthestPointExemplars(dense, rows.length, dim, opts.maxRecords, medoid);
    // meanDistanceToCentroid's value: the same f32 centroid and distances, summed in row order.
    let toCentroidSum = 0;
    for (const distance of toCentroid) toCentroidSum += distance;
    return {
      centroidRep: rows[nearestToCentroid],
      medoid: rows[medoid],
      exemplars: exemplars.map((i) => rows[i]),
      meanPairwise: meanPairwiseCosineDistance(dense, rows.length, dim),
      meanToCentroid: toCentroidSum / rows.length,
    };
  });
}

/** Each multi-event cluster's content identities (pool ids), first seen first. */
function clusterContentIdentities(multi: readonly MultiEventCluster[], facts: AuditFacts): number[][] {
  const seenIn = new Int32Array(facts.identityCount).fill(-1);
  return multi.map(({ rows }, m) => {
    const content: number[] = [];
    for (const row of rows) {
      facts.eachContent(row, (id) => {
        if (seenIn[id] !== m) {
          seenIn[id] = m;
          content.push(id);
        }
      });
    }
    return content;
  });
}

/**
 * Stage 5, pass two: which of its cluster's identities each representative's haystack holds. A
 * single event is its own representative and recovers all its identities by construction (they
 * are in its haystack). Only the flags are kept: the haystacks (event context texts) would be
 * thousands of KB-sized strings at once on a large log; a representative represents only the
 * cluster it belongs to, so its flags are per identity of that one cluster.
 */
function readRepresentativeHits(path: string, geometry: readonly Geometry[], clusterContent: readonly number[][], clusterOf: Int32Array, multiIndex: Int32Array, facts: AuditFacts): Map<number, Uint8Array> {
  const needed = new Set<number>();
  for (const g of geometry) {
    needed.add(g.centroidRep);
    needed.add(g.medoid);
    for (const row of g.exemplars) needed.add(row);
  }
  const representativeHits = new Map<number, Uint8Array>();
  if (needed.size > 0) {
    // Only the representatives' lines are parsed; the rest are skipped as bytes.
    let row = 0;
    let parsedCount = 0;
    for (const { bytes, position } of readLogLines(path)) {
      if (needed.has(row)) {
        const parsed = parseJsonBytes(bytes);
        if (isJsonObject(parsed)) {
          const record = recordFromLine(parsed, position);
          const ids = eventIdentities(record);
          const haystack = pythonCaseFold([eventContext(record), ids.eventRef, ...ids.content].join("\n"));
          const content = clusterContent[multiIndex[clusterOf[row]]];
          representativeHits.set(row, Uint8Array.from(content, (id) => (haystack.includes(pythonCaseFold(facts.identityText(id))) ? 1 : 0)));
        }
        if (++parsedCount % gcEveryEvents === 0) requestGarbageCollection();
      }
      row++;
    }
  }
  // Scoring looks up every representative's flags.
  invariant(representativeHits.size === needed.size, `pass two found ${representativeHits.size} of ${needed.size} representatives`);
  return representativeHits;
}

/** A set of content identities (pool ids), as one flag per identity of the log. */
class IdentitySet {
  private readonly flags: Uint8Array;
  size = 0;

  constructor(identityCount: number) {
    this.flags = new Uint8Array(identityCount);
  }

  add(id: number): void {
    if (this.flags[id] === 0) {
      this.flags[id] = 1;
      this.size++;
    }
  }

  has(id: number): boolean {
    return this.flags[id] === 1;
  }
}

/** What scoring accumulates over every cluster, single or multi-event. */
interface RecallTally {
  /** Content identities the audited operator recovers, anywhere in the log. */
  recoveredGlobally: IdentitySet;
  /** Per operator (centroid representative, medoid, exemplars): content identities recovered. */
  variantHits: { centroid: IdentitySet; medoid: IdentitySet; exemplars: IdentitySet };
  pairCount: number;
  pairDistanceSum: number;
  nnEvents: number;
  nnPreserved: number;
}

interface SinglesTally {
  clusters: number;
  contentIdentities: number;
  cited: number;
  nnEvents: number;
  nnPreserved: number;
}

/** Everything the scoring stage reads. */
interface ScoringInput {
  opts: AuditSettings;
  facts: AuditFacts;
  clusters: EventClusters;
  groups: ClusterGroups;
  geometry: readonly Geometry[];
  clusterContent: readonly number[][];
  representativeHits: ReadonlyMap<number, Uint8Array>;
}

/** Stage 6a: single-event clusters, each keeping all its identities under every operator. */
function scoreSingletons(input: ScoringInput, tally: RecallTally): SinglesTally {
  const { facts } = input;
  const { clusterOf, nearest } = input.clusters;
  const singles: SinglesTally = { clusters: 0, contentIdentities: 0, cited: 0, nnEvents: 0, nnPreserved: 0 };
  for (let row = 0; row < facts.count; row++) {
    const c = clusterOf[row];
    if (input.groups.clusterSizes[c] !== 1) continue;
    singles.clusters++;
    singles.contentIdentities += facts.contentCount(row);
    facts.eachContent(row, (id) => {
      tally.recoveredGlobally.add(id);
      tally.variantHits.centroid.add(id);
      tally.variantHits.medoid.add(id);
      tally.variantHits.exemplars.add(id);
    });
    if (facts.cited(row)) singles.cited++;
    if (nearest[row] >= 0) {
      singles.nnEvents++;
      if (clusterOf[nearest[row]] === c) singles.nnPreserved++;
    }
  }
  tally.nnEvents += singles.nnEvents;
  tally.nnPreserved += singles.nnPreserved;
  return singles;
}

/** Stage 6b: the report of multi-event cluster `m`, adding its recall and neighbours to `tally`. */
function scoreCluster(input: ScoringInput, m: number, tally: RecallTally): ClusterReport {
  const { opts, facts } = input;
  const { clusterOf, nearest } = input.clusters;
  const { cluster: c, rows } = input.groups.multi[m];
  const g = input.geometry[m];
  const content = input.clusterContent[m];
  // Which of `content` (by index) some of `reps` recovers.
  const recovers = (reps: number[]): boolean[] => {
    const hits = reps.map((r) => input.representativeHits.get(r) as Uint8Array);
    return content.map((_, i) => hits.some((flags) => flags[i] === 1));
  };
  const count = (recovered: boolean[]) => recovered.filter((hit) => hit).length;
  const centroidHits = recovers([g.centroidRep]);
  const medoidHits = recovers([g.medoid]);
  const exemplarHits = recovers(g.exemplars);
  content.forEach((id, i) => {
    if (centroidHits[i]) tally.variantHits.centroid.add(id);
    if (medoidHits[i]) tally.variantHits.medoid.add(id);
    if (exemplarHits[i]) tally.variantHits.exemplars.add(id);
  });
  const auditedHits = opts.strategy === "medoid" ? medoidHits : exemplarHits;
  content.forEach((id, i) => {
    if (auditedHits[i]) tally.recoveredGlobally.add(id);
  });
  let clusterNnEvents = 0;
  let clusterNnPreserved = 0;
  for (const row of rows) {
    if (nearest[row] < 0) continue;
    clusterNnEvents++;
    if (clusterOf[nearest[row]] === c) clusterNnPreserved++;
  }
  tally.nnEvents += clusterNnEvents;
  tally.nnPreserved += clusterNnPreserved;
  const pairs = (rows.length * (rows.length - 1)) / 2;
  tally.pairCount += pairs;
  tally.pairDistanceSum += g.meanPairwise * pairs;
  const windows = new Set<number>();
  for (const row of rows) if (!Number.isNaN(facts.window(row))) windows.add(facts.window(row));
  const repRows = opts.strategy === "medoid" ? [g.medoid] : g.exemplars;
  const repWindows = new Set(repRows.map((r) => facts.window(r)).filter((w) => !Number.isNaN(w)));
  const medoidRecall = ratio(count(medoidHits), content.length);
  const exemplarRecall = ratio(count(exemplarHits), content.length);
  const cited = rows.filter((row) => facts.cited(row)).length;
  return {
    cluster_id: c,
    size: rows.length,
    first_seq: facts.seq(rows[0]),
    last_seq: facts.seq(rows[rows.length - 1]),
    event_seqs: rows.map((row) => facts.seq(row)),
    mean_within_cluster_distance: pythonRound4(g.meanPairwise),
    mean_distance_to_centroid: pythonRound4(g.meanToCentroid),
    regime: medoidRecall === 1 ? "tight" : "spread",
    recommended_operator: medoidRecall === 1 ? "medoid" : exemplarRecall === 1 ? "exemplar" : "keep_all",
    content_identity_count: content.length,
    centroid_representative_seq: facts.seq(g.centroidRep),
    medoid_seq: facts.seq(g.medoid),
    exemplar_seqs: g.exemplars.map((row) => facts.seq(row)),
    identity_recall_centroid: pythonRound4(ratio(count(centroidHits), content.length)),
    identity_recall_medoid: pythonRound4(medoidRecall),
    identity_recall_exemplars: pythonRound4(exemplarRecall),
    identity_recall: pythonRound4(ratio(count(auditedHits), content.length)),
    missing_identities: content.filter((_, i) => !auditedHits[i]).map((id) => facts.identityText(id)),
    backpointer_coverage: 1,
    citation_coverage: pythonRound4(ratio(cited, rows.length)),
    nearest_neighbour_events: clusterNnEvents,
    nearest_neighbour_preservation: pythonRound4(ratio(clusterNnPreserved, clusterNnEvents)),
    temporal_windows: windows.size,
    temporal_window_coverage: pythonRound4(ratio(repWindows.size, windows.size)),
  } satisfies ClusterReport;
}

/** Every event ref is `citationUri`'s, so only strings with this prefix can equal one. */
const eventRefPrefix = "eventloom://";

/**
 * Every identity of the log (event refs included), first seen first, and the set of event refs.
 * An event ref that is also some event's content identity (or another event's ref) is listed
 * once, where it is first seen, as either.
 */
function logIdentities(facts: AuditFacts): { identities: string[]; eventRefs: Set<string> } {
  const identities: string[] = [];
  const eventRefs = new Set<string>();
  const seenContent = new Uint8Array(facts.identityCount);
  for (let row = 0; row < facts.count; row++) {
    // Building a million refs leaves a few short-lived strings each (template pieces).
    if (row % gcEveryRefs === gcEveryRefs - 1) requestGarbageCollection();
    const ref = facts.eventRef(row);
    if (!eventRefs.has(ref)) {
      const asContent = facts.identityIdOfText(ref);
      if (asContent === undefined || seenContent[asContent] === 0) identities.push(ref);
      eventRefs.add(ref);
    }
    facts.eachContent(row, (id) => {
      if (seenContent[id] === 1) return;
      seenContent[id] = 1;
      const text = facts.identityText(id);
      if (!text.startsWith(eventRefPrefix) || !eventRefs.has(text)) identities.push(text);
    });
  }
  return { identities, eventRefs };
}

/** Stage 7: the whole-log report from the clusters' scores; an identity counts once, recovered if any cluster holding it recovers it. */
function verifiedChainReport(base: ReportSettings, pass: EventPass, clusterCount: number, clusters: ClusterReport[], singles: SinglesTally, tally: RecallTally): CompactionAuditReport {
  const { facts } = pass;
  const n = facts.count;
  const contentCount = facts.identityCount;
  // Pool ids are first-seen order over the log: the order content identities are listed in.
  const missing: string[] = [];
  for (let id = 0; id < contentCount; id++) if (!tally.recoveredGlobally.has(id)) missing.push(facts.identityText(id));
  const { identities, eventRefs } = logIdentities(facts);
  // An identity that is not an event ref is a content identity.
  const identityHits = identities.filter((id) => eventRefs.has(id) || tally.recoveredGlobally.has(facts.identityIdOfText(id) as number));
  const recall = pythonRound4(ratio(contentCount - missing.length, contentCount));
  const coverage = pythonRound4(ratio(facts.citedCount, n));
  const reasons = unsafeReasons(true, recall, coverage);
  const report: CompactionAuditReport = {
    safe: reasons.length === 0,
    event_count: n,
    integrity_ok: true,
    integrity_reason: null,
    identity_count: identities.length,
    identity_recall: recall,
    citation_coverage: coverage,
    mean_within_cluster_distance: pythonRound4(tally.pairCount === 0 ? 0 : tally.pairDistanceSum / tally.pairCount),
    identities,
    identity_hits: identityHits,
    missing_identities: missing,
    unsafe_reasons: reasons,
    ...base,
    cluster_count: clusterCount,
    singleton_cluster_count: singles.clusters,
    content_identity_count: contentCount,
    backpointer_count: eventRefs.size,
    backpointer_coverage: 1,
    identity_recall_centroid: pythonRound4(ratio(tally.variantHits.centroid.size, contentCount)),
    identity_recall_medoid: pythonRound4(ratio(tally.variantHits.medoid.size, contentCount)),
    identity_recall_exemplars: pythonRound4(ratio(tally.variantHits.exemplars.size, contentCount)),
    nearest_neighbour_events: tally.nnEvents,
    nearest_neighbour_preservation: pythonRound4(ratio(tally.nnPreserved, tally.nnEvents)),
    invalid_derived_events: pass.invalidDerived,
    clusters,
    singleton_clusters: {
      cluster_count: singles.clusters,
      content_identity_count: singles.contentIdentities,
      cited_event_count: singles.cited,
      citation_coverage: pythonRound4(ratio(singles.cited, singles.clusters)),
      nearest_neighbour_events: singles.nnEvents,
      nearest_neighbour_preservation: pythonRound4(ratio(singles.nnPreserved, singles.nnEvents)),
    },
    uncited_event_count: pass.uncited.count,
    uncited_events: pass.uncited.listed,
    remediation: [],
  };
  report.remediation = remediationPlan({
    ...report,
    clustersLosingIdentities: clusters.filter((c) => c.missing_identities.length > 0).map((c) => ({ cluster_id: c.cluster_id, recommended_operator: c.recommended_operator })),
  });
  return report;
}

/**
 * Audits the log at `path`. Never writes anything.
 *
 * @example
 * const report = await auditLog(".eventloom/default.jsonl");
 * report.safe; // false when a medoid per cluster would lose an identity
 */
export async function auditLog(path: string, options: AuditOptions = {}): Promise<CompactionAuditReport> {
  const opts = validateOptions(options);
  checkLogFile(path);
  const progress = options.progress;
  progress?.phase("verifying the hash chain", undefined, "bytes");
  const integrity = await verifyLog(path, { onProgress: progress === undefined ? undefined : (done, total) => progress.update(done, total) });
  const base = reportSettings(path, opts);
  if (!integrity.ok) return brokenChainReport(integrity, base);

  progress?.phase("embedding event contexts", integrity.total_events, "events");
  // Released once the cluster geometry is measured: the report needs only the small facts.
  let vectors: AuditVectors | null = new AuditVectors(opts.embeddingDim);
  const pass = await readEventFacts(path, vectors, options.passOneSplit, progress);
  const n = pass.facts.count;

  progress?.phase("clustering");
  const clusters = clusterEvents(vectors, n, opts);
  const groups = groupClusters(clusters, n);
  // Between stages, what the last one dropped is freed before the next allocates: typed arrays
  // (the clustering's tables, ~180 MB at a million events) are outside the collector's heap
  // accounting, and the allocator does not hand freed pages back.
  collectGarbageNow();

  progress?.phase("measuring clusters");
  const geometry = measureClusters(vectors, groups.multi, opts);
  vectors.release();
  vectors = null;
  collectGarbageNow();
  const clusterContent = clusterContentIdentities(groups.multi, pass.facts);

  progress?.phase("reading representatives");
  const representativeHits = readRepresentativeHits(path, geometry, clusterContent, clusters.clusterOf, groups.multiIndex, pass.facts);

  collectGarbageNow();
  progress?.phase("scoring recall");
  const input: ScoringInput = { opts, facts: pass.facts, clusters, groups, geometry, clusterContent, representativeHits };
  const tally: RecallTally = {
    recoveredGlobally: new IdentitySet(pass.facts.identityCount),
    variantHits: { centroid: new IdentitySet(pass.facts.identityCount), medoid: new IdentitySet(pass.facts.identityCount), exemplars: new IdentitySet(pass.facts.identityCount) },
    pairCount: 0,
    pairDistanceSum: 0,
    nnEvents: 0,
    nnPreserved: 0,
  };
  const singles = scoreSingletons(input, tally);
  const clusterReports = groups.multi.map((_, m) => {
    // Scoring a cluster leaves a few small arrays; 90 000 clusters' worth is ~300 MB.
    if (m % gcEveryClusters === gcEveryClusters - 1) requestGarbageCollection();
    return scoreCluster(input, m, tally);
  });
  const report = verifiedChainReport(base, pass, clusters.clusterCount, clusterReports, singles, tally);
  // The caller prints the report next: what building it dropped is freed first.
  collectGarbageNow();
  return report;
}
