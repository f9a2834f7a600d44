/**
 * `zaxy bench trigger`: trigger_consolidation's similarity strategy at scale (DESIGN §13).
 *
 * Generates `memories` memories: `<type>-<i> (<type>) <16 words>`, the words drawn uniformly
 * from 50 000, so unrelated memories share almost nothing (the hardest case for a neighbour
 * graph: no gradient towards a near-duplicate). Every 100th memory is followed by a planted
 * near-duplicate: the same words with one replaced, under its own name (two tokens differ;
 * exact cosine about 0.89).
 *
 * In one run it measures:
 * - indexed, all memories: `triggerConsolidation` (strategy similarity, threshold 0.85,
 *   max_memories = memories) with its phases (embedding, alignment, index build, kNN search,
 *   exact re-scoring, pairing), and the recall of the planted pairs whose exact cosine passes
 *   the threshold;
 * - indexed, first `allPairsMemories`: the same over the first 10 000 memories;
 * - all pairs, first `allPairsMemories`: embedding, then the exact cosine of every pair (the same
 *   sparse exact cosine the re-scoring uses), giving the ground truth for those memories. The
 *   indexed run's recall against it covers every qualifying pair, not only planted ones.
 * The ratio reported is all-pairs seconds / indexed seconds on the same 10 000 memories; the
 * all-pairs time for all memories is extrapolated quadratically (its scan is n²/2 cosines) and
 * compared with the measured indexed time.
 */
import { SparseEmbeddings } from "../consolidation/similarityEmbeddings.ts";
import { triggerConsolidation, type TriggerPhaseTimingsMs } from "../consolidation/trigger.ts";
import { type ConsolidationMemory, memoryEmbeddingText } from "../consolidation/triggerMemories.ts";
import { defaultMinSimilarity, type TriggerParameters, validateTriggerParameters } from "../consolidation/triggerParameters.ts";
import { citationUri } from "../eventloom/root.ts";
import { defaultEmbeddingDim } from "../vector/mod.ts";
import { atLeast, atMost, type BenchMachine, benchMachine, type BenchTarget, processPeakRssMib, round, seededRandom } from "./measure.ts";

export const triggerBenchDefaults = { memories: 100_000, allPairsMemories: 10_000, seed: 20260521 } as const;
/** The target of DESIGN §13: 100 000 memories in at most this many seconds. */
export const indexedSecondsMax = 60;
const plantEvery = 100;
const summaryWords = 16;
const vocabularyWords = 50_000;
const entityTypes = ["note", "task", "decision", "file", "command", "issue"];

export interface TriggerBenchOptions {
  memories: number;
  allPairsMemories: number;
  seed?: number;
  progress?: (message: string) => void;
}

export interface IndexedRun {
  memories: number;
  seconds: number;
  phases_ms: TriggerPhaseTimingsMs;
  pairs_rescored: number;
  candidates_found: number;
}

export interface TriggerBenchResult {
  machine: BenchMachine;
  command: string[];
  seed: number;
  similarity_threshold: number;
  embedding_dim: number;
  memories: number;
  planted_pairs: number;
  planted_pairs_above_threshold: number;
  planted_recall: number;
  indexed: IndexedRun;
  indexed_all_pairs_subset: IndexedRun & { recall_vs_all_pairs: number };
  all_pairs: {
    memories: number;
    seconds: number;
    embedding_ms: number;
    scan_ms: number;
    pairs_compared: number;
    pairs_above_threshold: number;
    /** scan × (memories / all-pairs memories)² + embedding × (memories / all-pairs memories). */
    extrapolated_seconds_for_all_memories: number;
  };
  /** all-pairs seconds / indexed seconds, both over the first all-pairs memories. */
  speedup_same_memories: number;
  /** Extrapolated all-pairs seconds for all memories / measured indexed seconds. */
  speedup_all_memories_extrapolated: number;
  /** Peak resident set of this process over the whole bench (generation, both indexed runs, the all-pairs scan), MiB. */
  peak_rss_mib: number;
  targets: Record<string, BenchTarget>;
}

interface Generated {
  memories: ConsolidationMemory[];
  /** Indices of planted pairs (original, duplicate). */
  planted: Array<[number, number]>;
}

function generate(count: number, seed: number): Generated {
  const random = seededRandom(seed);
  const memories: ConsolidationMemory[] = [];
  const planted: Array<[number, number]> = [];
  const hash = "0".repeat(64);
  const push = (words: string[], type: string): void => {
    const seq = memories.length + 1;
    memories.push({
      name: `${type}-${seq}`,
      entityType: type,
      summary: words.join(" "),
      validFrom: "2026-05-20T00:00:00Z",
      sourceEventSeq: seq,
      sourceEventHash: hash,
      citation: citationUri("trigger-bench", seq, hash),
    });
  };
  while (memories.length < count) {
    const type = entityTypes[memories.length % entityTypes.length];
    const words = Array.from({ length: summaryWords }, () => `w${Math.floor(random() * vocabularyWords)}`);
    push(words, type);
    if (memories.length % plantEvery === 1 && memories.length < count) {
      const twin = [...words];
      twin[Math.floor(random() * summaryWords)] = `w${Math.floor(random() * vocabularyWords)}x`;
      planted.push([memories.length - 1, memories.length]);
      push(twin, type);
    }
  }
  return { memories, planted };
}

function pairKey(a: ConsolidationMemory, b: ConsolidationMemory): string {
  const [x, y] = a.sourceEventSeq < b.sourceEventSeq ? [a, b] : [b, a];
  return `${x.sourceEventSeq}:${y.sourceEventSeq}`;
}

async function indexedRun(memories: readonly ConsolidationMemory[], threshold: number): Promise<{ run: IndexedRun; found: Set<string> }> {
  const started = performance.now();
  // The bench measures how the engine scales past what a call may ask for (max_memories is at most
  // 10,000 there, seed 004): only the threshold is checked, the memory count is the bench's own.
  const parameters: TriggerParameters = { ...validateTriggerParameters({ strategy: "similarity", minSimilarity: threshold }), maxMemories: memories.length };
  const outcome = await triggerConsolidation(memories, parameters, { goals: [] });
  const seconds = (performance.now() - started) / 1000;
  const phases: TriggerPhaseTimingsMs = { ...outcome.timingsMs };
  // Object.keys types its result string[]; these are the keys of a TriggerPhaseTimingsMs.
  for (const key of Object.keys(phases) as (keyof TriggerPhaseTimingsMs)[]) phases[key] = round(phases[key], 1);
  return {
    run: {
      memories: memories.length,
      seconds: round(seconds, 2),
      phases_ms: phases,
      pairs_rescored: outcome.candidatesRescored,
      candidates_found: outcome.candidates.length,
    },
    found: new Set(Array.from(outcome.candidates, (c) => pairKey(c.memories[0], c.memories[1]))),
  };
}

function rssMib(): number {
  return process.memoryUsage().rss / 2 ** 20;
}

/** Runs the benchmark; see the module comment. */
export async function runTriggerBench(options: TriggerBenchOptions): Promise<TriggerBenchResult> {
  const seed = options.seed ?? triggerBenchDefaults.seed;
  const threshold = defaultMinSimilarity;
  const subsetSize = Math.min(options.allPairsMemories, options.memories);
  let peakRss = rssMib();
  options.progress?.(`generating ${options.memories} memories (a planted near-duplicate after every ${plantEvery}th)`);
  const { memories, planted } = generate(options.memories, seed);

  options.progress?.(`trigger (similarity) over ${memories.length} memories`);
  const all = await indexedRun(memories, threshold);
  peakRss = Math.max(peakRss, rssMib());
  const plantedEmbeddings = SparseEmbeddings.embed(planted.flatMap(([a, b]) => [memoryEmbeddingText(memories[a]), memoryEmbeddingText(memories[b])]), defaultEmbeddingDim);
  const plantedAbove = planted.filter((_, i) => plantedEmbeddings.cosine(2 * i, 2 * i + 1) >= threshold);
  const plantedFound = plantedAbove.filter(([a, b]) => all.found.has(pairKey(memories[a], memories[b]))).length;

  const subset = memories.slice(0, subsetSize);
  options.progress?.(`trigger (similarity) over the first ${subset.length} memories`);
  const indexedSubset = await indexedRun(subset, threshold);

  options.progress?.(`all-pairs exact cosine over the first ${subset.length} memories`);
  let mark = performance.now();
  const embeddings = SparseEmbeddings.embed(subset.map(memoryEmbeddingText), defaultEmbeddingDim);
  const embeddingMs = performance.now() - mark;
  mark = performance.now();
  const truth = new Set<string>();
  for (let a = 0; a < subset.length; a++) {
    for (let b = a + 1; b < subset.length; b++) {
      if (embeddings.cosine(a, b) >= threshold) truth.add(pairKey(subset[a], subset[b]));
    }
  }
  const scanMs = performance.now() - mark;
  peakRss = Math.max(peakRss, rssMib());
  const recallVsAllPairs = truth.size === 0 ? 1 : [...truth].filter((key) => indexedSubset.found.has(key)).length / truth.size;

  const allPairsSeconds = (embeddingMs + scanMs) / 1000;
  const scale = memories.length / subset.length;
  const extrapolated = (scanMs * scale * scale + embeddingMs * scale) / 1000;
  const plantedRecall = plantedAbove.length === 0 ? 1 : plantedFound / plantedAbove.length;
  const indexed = all.run;
  return {
    machine: benchMachine(),
    command: ["zaxy", "bench", "trigger", "--memories", String(options.memories), "--all-pairs-memories", String(options.allPairsMemories)],
    seed,
    similarity_threshold: threshold,
    embedding_dim: defaultEmbeddingDim,
    memories: memories.length,
    planted_pairs: planted.length,
    planted_pairs_above_threshold: plantedAbove.length,
    planted_recall: round(plantedRecall, 4),
    indexed,
    indexed_all_pairs_subset: { ...indexedSubset.run, recall_vs_all_pairs: round(recallVsAllPairs, 4) },
    all_pairs: {
      memories: subset.length,
      seconds: round(allPairsSeconds, 2),
      embedding_ms: round(embeddingMs, 1),
      scan_ms: round(scanMs, 1),
      pairs_compared: (subset.length * (subset.length - 1)) / 2,
      pairs_above_threshold: truth.size,
      extrapolated_seconds_for_all_memories: round(extrapolated, 1),
    },
    speedup_same_memories: round(allPairsSeconds / indexedSubset.run.seconds, 2),
    speedup_all_memories_extrapolated: round(extrapolated / indexed.seconds, 2),
    peak_rss_mib: Math.round(Math.max(peakRss, processPeakRssMib() ?? 0)),
    targets: {
      indexed_seconds: atMost(indexedSecondsMax, indexed.seconds, `<= ${indexedSecondsMax} s`),
      planted_recall: atLeast(1, plantedRecall, "= 1.0"),
      recall_vs_all_pairs: atLeast(1, recallVsAllPairs, "= 1.0"),
    },
  };
}
