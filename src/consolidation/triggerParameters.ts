/**
 * The parameters of `trigger_consolidation` (DESIGN §8) and their validation, shared by the CLI
 * and MCP front doors so both refuse the same input with the same code and message (exit 2 /
 * `invalid_request`), before anything is read or written.
 */
import { inputError } from "../errors.ts";
import { triggerMaxMemoriesMax } from "../limits.ts";

export const triggerStrategies = ["similarity", "temporal", "semantic"] as const;
export type TriggerStrategy = (typeof triggerStrategies)[number];

export const defaultTriggerStrategy: TriggerStrategy = "similarity";
export const defaultMinSimilarity = 0.85;
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
/** Any strategy: a pair's alignments may differ by at most this (inclusive). */
export const alignmentDifferenceMax = 0.05;

export interface TriggerParameters {
  strategy: TriggerStrategy;
  minSimilarity: number;
  maxMemories: number;
}

export interface TriggerParameterInput {
  strategy?: unknown;
  minSimilarity?: unknown;
  maxMemories?: unknown;
}

function describe(value: unknown): string {
  return typeof value === "string" ? JSON.stringify(value) : String(value);
}

/**
 * Validates the parameters, applying the defaults; `names` renames fields in messages (the CLI
 * passes `--strategy`, `--min-similarity`, `--max-memories`).
 *
 * @example
 * validateTriggerParameters({ strategy: "temporal" }) // { strategy: "temporal", minSimilarity: 0.85, maxMemories: 100 }
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
  const minSimilarity = input.minSimilarity ?? defaultMinSimilarity;
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
  return { strategy: strategy as TriggerStrategy, minSimilarity, maxMemories };
}
