/**
 * `zaxy bench consolidation`: the consolidation-collapse lane (DESIGN §13, reference §2.11).
 * Near-duplicate documents that differ only by an identity code and a path, in two sets:
 *
 * - tight: every document is the same note about one topic (one tight cluster);
 * - spread: the documents are spread round-robin over `topics` topics, each with its own
 *   vocabulary (several clusters far apart).
 *
 * Every document gets one question, "Which <topic> note records identity-code-XXXX?", and each
 * method answers it with ONE source event:
 * - raw retrieval: BM25 (the keyword lane's index and terms) over the raw documents, top 1;
 * - centroid: the set collapsed to its centroid; a centroid is not an event, so it answers with
 *   the member nearest the centroid (as `zaxy compact --audit` represents it);
 * - medoid: a `--strategy medoid` projection (one record);
 * - exemplar(k): a `--strategy exemplar --max-records k` projection; the answer is its best
 *   record by projection search (first record when nothing overlaps);
 * - zaxy retrieval: the retrieval engine over the log (in-memory graph fold, all lanes) with the
 *   exemplar(`topics`) projection merged in, top 1: the projection routes, the log still answers.
 *
 * identity recall = mean over questions of the share of the document's identity terms (its code
 * and its `path:start-end`) found in the answer's context text and identities (casefolded);
 * topic coverage = share of questions whose answer is a document about the question's topic.
 * Everything is deterministic (fixed texts, no randomness), so one run is the measurement; the
 * build times are from that run.
 */
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { fromJs } from "../canonical/mod.ts";
import { mergeProjectionContexts } from "../compaction/projectionLane.ts";
import { eventContext } from "../compaction/eventContext.ts";
import { allEventIdentities, buildProjection, contextEmbeddings } from "../compaction/projection.ts";
import type { CompactionProjection } from "../retrieval/projectionArtifact.ts";
import { searchProjections } from "../retrieval/projectionSearch.ts";
import { purposeProfile } from "../compaction/purpose.ts";
import { inputError } from "../errors.ts";
import { appendEvents } from "../events/append.ts";
import type { EventRecord } from "../eventloom/envelope.ts";
import { readEvents } from "../eventloom/replay.ts";
import { extractEvent } from "../projection/extract/mod.ts";
import { GraphFold } from "../projection/graphFold.ts";
import { Bm25Index } from "../retrieval/bm25.ts";
import { retrieve } from "../retrieval/engine.ts";
import { buildSessionIndex } from "../retrieval/sessionIndex.ts";
import { queryTerms } from "../vector/textAnalysis.ts";
import { centroidOf, cosineDistancesTo } from "../vector/geometry.ts";
import { pythonCaseFold } from "../vector/mod.ts";
import { type BenchMachine, benchMachine, round } from "./measure.ts";

/** Topic title (what the question names) and the topic's own sentence. */
export const consolidationTopics: ReadonlyArray<readonly [string, string]> = [
  ["rollback ownership", "The release captain owns rollback and signs the revert checklist before traffic shifts back."],
  ["incident readiness", "Pager rotations, escalation ladders and war-room bridges are rehearsed every sprint."],
  ["retry policy", "Clients back off exponentially with jitter and give up after five idempotent attempts."],
  ["cache eviction", "Hot keys stay pinned while cold shards are evicted by least-recently-used sweeps."],
  ["token rotation", "Service credentials rotate nightly and stale signing keys are revoked within an hour."],
  ["billing export", "Invoices are exported as ledger batches and reconciled against the payment processor."],
  ["schema migration", "Columns are added nullable first, backfilled online, and constrained in a later deploy."],
  ["queue backpressure", "Producers pause when consumer lag crosses the watermark and resume below half of it."],
];

export const consolidationBenchDefaults = { identities: 64, topics: 8 } as const;

export interface ConsolidationBenchOptions {
  /** Documents (distinct identity codes) per set, 2..9000. */
  identities: number;
  /** Topics of the spread set, 2..8. */
  topics: number;
  workDir?: string;
  progress?: (message: string) => void;
}

export interface MethodRow {
  method: string;
  /** Source events the method keeps (raw retrieval and zaxy retrieval keep the whole log). */
  records_kept: number;
  identity_recall: number;
  topic_coverage: number;
  /** Time to build the method's representation (index, projection), one run. */
  build_ms: number;
}

export interface DatasetResult {
  dataset: "tight" | "spread";
  documents: number;
  topics: number;
  /** Mean pairwise cosine distance of the documents' context embeddings (1536-d). */
  mean_pairwise_distance: number;
  rows: MethodRow[];
}

export interface ConsolidationBenchResult {
  machine: BenchMachine;
  command: string[];
  identities: number;
  topics: number;
  exemplar_ks: number[];
  datasets: DatasetResult[];
}

interface Doc {
  code: string;
  path: string;
  topic: number;
}

function docsFor(dataset: "tight" | "spread", count: number, topics: number): Doc[] {
  return Array.from({ length: count }, (_, i) => {
    const topic = dataset === "tight" ? 0 : i % topics;
    const code = String(i + 1).padStart(4, "0");
    const slug = consolidationTopics[topic][0].replace(" ", "-");
    return { code, path: `docs/${slug}/note-${code}.md`, topic };
  });
}

function docPayload(doc: Doc): Record<string, unknown> {
  const [title, sentence] = consolidationTopics[doc.topic];
  return { path: doc.path, start_line: 1, end_line: 8, content: `Consolidation review of ${title} records identity-code-${doc.code}. ${sentence}` };
}

export function consolidationQuestion(doc: { code: string; topic: number }): string {
  return `Which ${consolidationTopics[doc.topic][0]} note records identity-code-${doc.code}?`;
}

function haystack(event: EventRecord): string {
  return pythonCaseFold([eventContext(event), ...allEventIdentities(event)].join("\n"));
}

function score(docs: readonly Doc[], answers: ReadonlyArray<EventRecord | undefined>, topicOf: (event: EventRecord) => number): { recall: number; coverage: number } {
  let recall = 0;
  let coverage = 0;
  docs.forEach((doc, i) => {
    const answer = answers[i];
    if (answer === undefined) return;
    const text = haystack(answer);
    const terms = [`identity-code-${doc.code}`, `${doc.path}:1-8`];
    recall += terms.filter((term) => text.includes(pythonCaseFold(term))).length / terms.length;
    if (topicOf(answer) === doc.topic) coverage += 1;
  });
  return { recall: round(recall / docs.length, 4), coverage: round(coverage / docs.length, 4) };
}

function projectionAnswer(projection: CompactionProjection, events: readonly EventRecord[], question: string): EventRecord | undefined {
  const [hit] = searchProjections([projection], question, 1);
  const record = hit?.record ?? projection.records[0];
  return record === undefined ? undefined : events[record.event_seq - 1];
}

function timedMs<T>(fn: () => T): { ms: number; value: T } {
  const start = performance.now();
  const value = fn();
  return { ms: round(performance.now() - start, 2), value };
}

async function runDataset(dataset: "tight" | "spread", options: ConsolidationBenchOptions, ks: number[], root: string): Promise<DatasetResult> {
  const topics = dataset === "tight" ? 1 : options.topics;
  const docs = docsFor(dataset, options.identities, options.topics);
  await appendEvents(root, dataset, docs.map((doc) => ({ type: "document.indexed", actor: "indexer", payload: fromJs(docPayload(doc)) })));
  const { events } = readEvents(path.join(root, `${dataset}.jsonl`));
  const topicOf = (event: EventRecord) => docs[event.seq - 1].topic;
  const questions = docs.map(consolidationQuestion);
  const rows: MethodRow[] = [];
  const add = (method: string, kept: number, buildMs: number, answers: Array<EventRecord | undefined>) => {
    const { recall, coverage } = score(docs, answers, topicOf);
    rows.push({ method, records_kept: kept, identity_recall: recall, topic_coverage: coverage, build_ms: buildMs });
  };

  const bm25 = timedMs(() => {
    const index = new Bm25Index();
    for (const event of events) index.add(eventContext(event));
    return index;
  });
  add("raw retrieval (BM25)", events.length, bm25.ms, questions.map((q) => events[bm25.value.search(queryTerms(q), 1)[0]?.docId ?? -1]));

  const dim = 1536;
  const centroid = timedMs(() => {
    const vectors = contextEmbeddings(events, dim);
    const distances = cosineDistancesTo(vectors, events.length, dim, centroidOf(vectors, events.length, dim));
    let best = 0;
    for (let i = 1; i < distances.length; i++) if (distances[i] < distances[best]) best = i;
    return { vectors, nearest: events[best] };
  });
  add("centroid (nearest member)", 1, centroid.ms, questions.map(() => centroid.value.nearest));

  const general = purposeProfile("general");
  const medoid = timedMs(() => buildProjection(events, new Map(), { strategy: "medoid", maxRecords: 1, purpose: general }));
  add("medoid", medoid.value.records.length, medoid.ms, questions.map((q) => projectionAnswer(medoid.value, events, q)));

  let routing: CompactionProjection | undefined;
  for (const k of ks) {
    const exemplar = timedMs(() => buildProjection(events, new Map(), { strategy: "exemplar", maxRecords: k, purpose: general }));
    if (k === options.topics) routing = exemplar.value;
    add(`exemplar(k=${k})`, exemplar.value.records.length, exemplar.ms, questions.map((q) => projectionAnswer(exemplar.value, events, q)));
  }

  const zaxy = timedMs(() => {
    const fold = new GraphFold(dataset);
    for (const event of events) fold.apply(event, extractEvent(event));
    return buildSessionIndex(dataset, fold.rows(), events, null);
  });
  const projections = routing === undefined ? [] : [routing];
  add(`zaxy retrieval + exemplar(k=${options.topics}) projection`, events.length, zaxy.ms, questions.map((q) => {
    const [top] = mergeProjectionContexts(retrieve(zaxy.value, q, { limit: 1 }), q, 1, projections).contexts;
    return top?.eventSeq == null ? undefined : events[top.eventSeq - 1];
  }));

  const { meanPairwiseCosineDistance } = await import("../vector/geometry.ts");
  return {
    dataset,
    documents: docs.length,
    topics,
    mean_pairwise_distance: round(meanPairwiseCosineDistance(centroid.value.vectors, events.length, dim), 4),
    rows,
  };
}

/**
 * @example
 * const result = await runConsolidationBench({ identities: 64, topics: 8 });
 * result.datasets[1].rows.find((row) => row.method === "medoid")?.identity_recall; // 1/64
 */
export async function runConsolidationBench(options: ConsolidationBenchOptions): Promise<ConsolidationBenchResult> {
  if (!Number.isInteger(options.identities) || options.identities < 2 || options.identities > 9000) {
    throw inputError("invalid_option", `--identities must be an integer in 2..9000, got ${options.identities}`, { field: "--identities" });
  }
  if (!Number.isInteger(options.topics) || options.topics < 2 || options.topics > consolidationTopics.length) {
    throw inputError("invalid_option", `--topics must be an integer in 2..${consolidationTopics.length}, got ${options.topics}`, { field: "--topics" });
  }
  const ks = [...new Set([options.topics, options.identities])].sort((a, b) => a - b);
  const root = fs.mkdtempSync(path.join(options.workDir ?? os.tmpdir(), "zaxy-consolidation-bench-"));
  try {
    const datasets: DatasetResult[] = [];
    for (const dataset of ["tight", "spread"] as const) {
      options.progress?.(`${dataset}: ${options.identities} documents`);
      datasets.push(await runDataset(dataset, options, ks, root));
    }
    return {
      machine: benchMachine(),
      command: ["zaxy", "bench", "consolidation", "--identities", String(options.identities), "--topics", String(options.topics)],
      identities: options.identities,
      topics: options.topics,
      exemplar_ks: ks,
      datasets,
    };
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}
