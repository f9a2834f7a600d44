/**
 * The parameters of `trigger_consolidation` (DESIGN §8) and their validation, shared by the CLI
 * and MCP front doors so both refuse the same input with the same code and message (exit 2 /
 * `invalid_request`), before anything is read or written.
 */
import { inputError } from "../errors.ts";
import { triggerMaxMemoriesMax } from "../limits.ts";

export const triggerStrategies = ["similarity", "temporal", "semantic"] as const;
export type TriggerStrategy = (typeof triggerStrategies)[number];

/**
 * Where the trigger's vectors come from: `hash`, the hash embedding the vector index uses (seed
 * 004's behaviour, the default), or `model`, the bundled sentence model (src/semantic/), which
 * also places paraphrases near each other (docs/trigger-consolidation.md).
 */
export const triggerEmbeddings = ["hash", "model"] as const;
export type TriggerEmbedding = (typeof triggerEmbeddings)[number];

export const defaultTriggerStrategy: TriggerStrategy = "similarity";
export const defaultTriggerEmbedding: TriggerEmbedding = "hash";
export const defaultMinSimilarity = 0.85;
/**
 * `min_similarity` when the model's vectors are used and none is given. The model scores the
 * same fact reworded at 0.68-0.94 (median ~0.85) but also scores distinct facts on one topic high
 * ("Cache invoices in Redis" / "Store invoices in Postgres" 0.73, "run unit tests in parallel" /
 * "run integration tests nightly" 0.75, the highest of eight such pairs): 0.8 keeps every such
 * pair out with a margin and still finds 5 of 8 rewordings, where the hash default 0.85 finds 4.
 */
export const defaultModelMinSimilarity = 0.8;
export const defaultMaxMemories = 100;
/** `max_memories` is 1..10000 (seed 004), in the CLI and the MCP schema alike. */
export const maxMemoriesMin = 1;
export const maxMemoriesMax = triggerMaxMemoriesMax;

/** The similarity pre-filter is `min_similarity × prefilterFactor`. */
export const prefilterFactor = 0.9;
/** Temporal strategy: memories created at most this far apart (inclusive). */
export const temporalWindowMs = 24 * 60 * 60 * 1000;
/** Semantic strategy: both memories' goal alignment must be at least this. */
export const semanticAlignmentMin = 0.5;
/**
 * The same with the model's vectors. Measured on 20 goals, each with one memory of work that
 * serves it in other words, against the 380 goal/memory pairs across goals (all one engineering
 * domain): at 0.5, 11 of 20 served memories align and 11 % of the cross pairs; at 0.45, 11 of 20
 * and 24 %; at 0.4, 14 of 20 and 42 %. 0.5 separates best (TPR − FPR 0.44; the hash embedding at
 * 0.5 aligns almost no reworded memory, as it only sees shared words). Kept apart from
 * `semanticAlignmentMin` so either can move alone.
 */
export const modelSemanticAlignmentMin = 0.5;
/** Any strategy: a pair's alignments may differ by at most this (inclusive). */
export const alignmentDifferenceMax = 0.05;

export interface TriggerParameters {
  strategy: TriggerStrategy;
  minSimilarity: number;
  maxMemories: number;
  /**
   * Present only when the caller chose one; absent means `hash` and a document exactly as seed
   * 004 has it (no `embedding` receipt).
   */
  embedding?: TriggerEmbedding;
}

export interface TriggerParameterInput {
  strategy?: unknown;
  embedding?: unknown;
  minSimilarity?: unknown;
  maxMemories?: unknown;
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/** The goal alignment the semantic strategy requires with `embedding`'s vectors. */
export function semanticAlignmentMinFor(embedding: TriggerEmbedding): number {
  return embedding === "model" ? modelSemanticAlignmentMin : semanticAlignmentMin;
}

/**
 * Validates the parameters, applying the defaults (`min_similarity` defaults by embedding);
 * `names` renames fields in messages (the CLI passes `--strategy`, `--min-similarity`,
 * `--max-memories`, `--embedding`).
 *
 * @example
 * validateTriggerParameters({ strategy: "temporal" }) // { strategy: "temporal", minSimilarity: 0.85, maxMemories: 100 }
 * validateTriggerParameters({ embedding: "model" }) // { strategy: "similarity", minSimilarity: 0.8, maxMemories: 100, embedding: "model" }
 */
export function validateTriggerParameters(input: TriggerParameterInput, names: { [field: string]: string } = {}): TriggerParameters {
  const name = (field: string) => names[field] ?? field;
  const strategy = input.strategy ?? defaultTriggerStrategy;
  if (typeof strategy !== "string" || !(triggerStrategies as readonly string[]).includes(strategy)) {
    const valid = triggerStrategies.join(", ");
    throw inputError("invalid_strategy", `${name("strategy")} must be one of: ${valid} (got ${describe(strategy)})`, {
      field: name("strategy"),
      expected: valid,
      actual: describe(strategy),
    });
  }
  const embedding = input.embedding;
  if (embedding !== undefined && (typeof embedding !== "string" || !(triggerEmbeddings as readonly string[]).includes(embedding))) {
    const valid = triggerEmbeddings.join(", ");
    throw inputError("invalid_embedding", `${name("embedding")} must be one of: ${valid} (got ${describe(embedding)})`, {
      field: name("embedding"),
      expected: valid,
      actual: describe(embedding),
    });
  }
  const minSimilarity = input.minSimilarity ?? (embedding === "model" ? defaultModelMinSimilarity : defaultMinSimilarity);
  if (typeof minSimilarity !== "number" || !Number.isFinite(minSimilarity) || minSimilarity < 0 || minSimilarity > 1) {
    throw inputError("invalid_min_similarity", `${name("min_similarity")} must be a number from 0 to 1 (got ${describe(minSimilarity)})`, {
      field: name("min_similarity"),
      expected: "a number in 0..1",
      actual: describe(minSimilarity),
    });
  }
  const maxMemories = input.maxMemories ?? defaultMaxMemories;
  if (typeof maxMemories !== "number" || !Number.isSafeInteger(maxMemories) || maxMemories < maxMemoriesMin || maxMemories > maxMemoriesMax) {
    throw inputError(
      "invalid_max_memories",
      `${name("max_memories")} must be an integer from ${maxMemoriesMin} to ${maxMemoriesMax} (got ${describe(maxMemories)})`,
      { field: name("max_memories"), expected: `an integer in ${maxMemoriesMin}..${maxMemoriesMax}`, actual: describe(maxMemories) },
    );
  }
  const parameters: TriggerParameters = { strategy: strategy as TriggerStrategy, minSimilarity, maxMemories };
  if (embedding !== undefined) parameters.embedding = embedding as TriggerEmbedding;
  return parameters;
}
