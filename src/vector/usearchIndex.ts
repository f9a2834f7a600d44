/**
 * The usearch HNSW index over the native addon's `CompiledIndex`.
 *
 * The usearch npm package wraps the same addon, but it locates the addon at import time through
 * `node-gyp-build`, a dynamic `require` that `bun build --compile` cannot embed, so the compiled
 * binary cannot import the package at all. This class is a small, faithful copy of the part of
 * the package's `Index` (usearch 2.25.3, `javascript/usearch.ts`) that Zaxy uses: the same
 * argument checks, the same key and vector normalisation, the same calls into the addon. It runs
 * in every mode (binary, Bun and Deno from source), so the tests exercise what the binary runs.
 * Differences: vectors are flat typed arrays only (no arrays of arrays), and single and batched
 * search are two methods (`search`, `searchBatch`) instead of one with a union result.
 */

/** Flat row-major matrix (or one vector) of `dimensions` columns. */
export type VectorData = Float32Array | Float64Array | Int8Array | Uint8Array;

/** Keys are unsigned 64-bit integers. */
export type VectorKeys = bigint | number | ReadonlyArray<bigint | number> | BigUint64Array;

export type MetricKind =
  | "cos"
  | "ip"
  | "l2sq"
  | "haversine"
  | "divergence"
  | "pearson"
  | "jaccard"
  | "hamming"
  | "tanimoto"
  | "sorensen";

export type ScalarKind = "f64" | "f32" | "bf16" | "f16" | "e5m2" | "e4m3" | "e3m2" | "e2m3" | "i8" | "u8" | "b1";

const metricKinds: ReadonlySet<string> = new Set([
  "cos", "ip", "l2sq", "haversine", "divergence", "pearson", "jaccard", "hamming", "tanimoto", "sorensen",
]);
const scalarKinds: ReadonlySet<string> = new Set([
  "f64", "f32", "bf16", "f16", "e5m2", "e4m3", "e3m2", "e2m3", "i8", "u8", "b1",
]);

export interface IndexConfig {
  dimensions: number;
  /** Default `cos`. */
  metric?: MetricKind;
  /** Storage scalar; default `f32`. */
  quantization?: ScalarKind;
  /** HNSW graph degree; 0 lets usearch choose. */
  connectivity?: number;
  /** Candidate list size while adding; 0 lets usearch choose. */
  expansionAdd?: number;
  /** Candidate list size while searching; 0 lets usearch choose. */
  expansionSearch?: number;
  /** Allow several vectors per key. */
  multi?: boolean;
}

/** The addon's native index (usearch `javascript/lib.cpp`). Threads 0 means all cores. */
export interface CompiledIndex {
  add(keys: BigUint64Array, vectors: VectorData, threads: number): void;
  search(queries: VectorData, k: number, threads: number): [BigUint64Array, Float32Array, BigUint64Array];
  contains(keys: BigUint64Array): boolean[];
  count(keys: BigUint64Array): number[];
  remove(keys: BigUint64Array): number[];
  dimensions(): number;
  connectivity(): number;
  size(): number;
  capacity(): number;
  save(path: string): void;
  load(path: string): void;
  view(path: string): void;
}

/** The module object the `usearch.node` addon exports. */
export interface UsearchAddon {
  CompiledIndex: new (
    dimensions: number,
    metric: string,
    quantization: string,
    connectivity: number,
    expansionAdd: number,
    expansionSearch: number,
    multi: boolean,
  ) => CompiledIndex;
  hardwareAccelerationCompiled(): string;
  hardwareAccelerationAvailable(): string;
}

/** Nearest neighbours of one query, closest first. */
export interface Matches {
  keys: BigUint64Array;
  distances: Float32Array;
}

/** Nearest neighbours of several queries; `get(i)` gives the matches of query `i`. */
export class BatchMatches {
  constructor(
    readonly keys: BigUint64Array,
    readonly distances: Float32Array,
    readonly counts: BigUint64Array,
    readonly k: number,
  ) {}

  get(i: number): Matches {
    const start = i * this.k;
    const count = Number(this.counts[i]);
    return { keys: this.keys.slice(start, start + count), distances: this.distances.slice(start, start + count) };
  }
}

function normalizeKeys(keys: VectorKeys): BigUint64Array {
  if (keys instanceof BigUint64Array) return keys;
  if (typeof keys === "bigint" || (typeof keys === "number" && !Number.isNaN(keys))) {
    return BigUint64Array.of(BigInt(keys));
  }
  if (Array.isArray(keys)) {
    return BigUint64Array.from(
      keys.map((key) => {
        if (typeof key === "bigint") return key;
        if (typeof key === "number" && Number.isInteger(key) && key >= 0) return BigInt(key);
        throw new Error("All keys must be positive integers or bigints.");
      }),
    );
  }
  throw new Error("Keys must be a number, bigint, an array of numbers or bigints, or a BigUint64Array.");
}

function checkVectors(vectors: VectorData, dimensions: number): VectorData {
  if (
    !(vectors instanceof Float32Array || vectors instanceof Float64Array || vectors instanceof Int8Array ||
      vectors instanceof Uint8Array)
  ) {
    throw new Error("Vectors must be a Float32Array, Float64Array, Int8Array or Uint8Array.");
  }
  if (vectors.length % dimensions !== 0) {
    throw new Error("The size of the flattened vectors must be a multiple of the dimension of the vectors.");
  }
  return vectors;
}

function checkThreads(threads: number): void {
  if (!Number.isInteger(threads) || threads < 0) {
    throw new Error("`threads` must be a non-negative integer; 0 uses every core.");
  }
}

/**
 * An approximate nearest-neighbour index. Get the class from `loadUsearch()`, which binds it to
 * the addon.
 *
 * @example
 * ```ts
 * const { Index } = await loadUsearch();
 * const index = new Index({ dimensions: 3, metric: "cos" });
 * index.add([1n, 2n], new Float32Array([1, 0, 0, 0, 1, 0]));
 * index.search(new Float32Array([0.9, 0.1, 0]), 1).keys; // BigUint64Array [1n]
 * ```
 */
export class UsearchIndex {
  readonly #compiled: CompiledIndex;

  constructor(addon: UsearchAddon, config: IndexConfig) {
    const {
      dimensions,
      metric = "cos",
      quantization = "f32",
      connectivity = 0,
      expansionAdd = 0,
      expansionSearch = 0,
      multi = false,
    } = config;
    if (
      !Number.isInteger(dimensions) || dimensions <= 0 || !Number.isInteger(connectivity) || connectivity < 0 ||
      !Number.isInteger(expansionAdd) || expansionAdd < 0 || !Number.isInteger(expansionSearch) || expansionSearch < 0
    ) {
      throw new Error(
        "`dimensions`, `connectivity`, `expansionAdd`, and `expansionSearch` must be non-negative integers, with `dimensions` being positive.",
      );
    }
    if (!metricKinds.has(metric)) throw new Error(`Invalid metric: ${metric}. It must be one of: ${[...metricKinds].join(", ")}`);
    if (!scalarKinds.has(quantization)) {
      throw new Error(`Invalid quantization: ${quantization}. It must be one of: ${[...scalarKinds].join(", ")}`);
    }
    this.#compiled = new addon.CompiledIndex(dimensions, metric, quantization, connectivity, expansionAdd, expansionSearch, multi);
  }

  /** Adds `n` vectors (a flat `n × dimensions` matrix) under `n` keys, or all under one key. */
  add(keys: VectorKeys, vectors: VectorData, threads = 0): void {
    let normalizedKeys = normalizeKeys(keys);
    const dimensions = this.#compiled.dimensions();
    const vectorCount = checkVectors(vectors, dimensions).length / dimensions;
    if (normalizedKeys.length === 1 && vectorCount > 1) {
      normalizedKeys = new BigUint64Array(vectorCount).fill(normalizedKeys[0]);
    } else if (normalizedKeys.length !== vectorCount) {
      throw new Error(
        `The length of keys (${normalizedKeys.length}) must match the number of vectors (${vectorCount}) or be a single key.`,
      );
    }
    checkThreads(threads);
    this.#compiled.add(normalizedKeys, vectors, threads);
  }

  /** The `k` nearest neighbours of one query vector. */
  search(query: VectorData, k: number, threads = 0): Matches {
    const dimensions = this.#compiled.dimensions();
    if (checkVectors(query, dimensions).length !== dimensions) {
      throw new Error(`search takes one vector of ${dimensions} values; use searchBatch for several.`);
    }
    return this.searchBatch(query, k, threads).get(0);
  }

  /**
   * The `k` nearest neighbours of each row of `queries`. usearch keeps per-thread scratch space
   * sized by the last `add` (or `load`), so `threads` must not exceed the thread count used
   * there, or the search fails with "Reserve capacity ahead of searches!"; 0 means all cores.
   */
  searchBatch(queries: VectorData, k: number, threads = 0): BatchMatches {
    if (!Number.isInteger(k) || k <= 0) {
      throw new Error("`k` must be a positive integer representing the number of nearest neighbors to search for.");
    }
    checkThreads(threads);
    const [keys, distances, counts] = this.#compiled.search(checkVectors(queries, this.#compiled.dimensions()), k, threads);
    return new BatchMatches(keys, distances, counts, k);
  }

  /** Whether each key is present. */
  contains(keys: VectorKeys): boolean[] {
    return this.#compiled.contains(normalizeKeys(keys));
  }

  /** How many vectors each key holds (more than 1 only in a `multi` index). */
  count(keys: VectorKeys): number[] {
    return this.#compiled.count(normalizeKeys(keys));
  }

  /** Removes the vectors of each key; returns how many were removed per key. */
  remove(keys: VectorKeys): number[] {
    return this.#compiled.remove(normalizeKeys(keys));
  }

  dimensions(): number {
    return this.#compiled.dimensions();
  }

  connectivity(): number {
    return this.#compiled.connectivity();
  }

  /** Number of vectors indexed. */
  size(): number {
    return this.#compiled.size();
  }

  /** Number of vectors the index has room for before it grows. */
  capacity(): number {
    return this.#compiled.capacity();
  }

  /** Writes the index to `path`. */
  save(path: string): void {
    this.#compiled.save(path);
  }

  /** Replaces the contents with the index saved at `path`. */
  load(path: string): void {
    this.#compiled.load(path);
  }

  /** Memory-maps the index saved at `path` read-only instead of loading it. */
  view(path: string): void {
    this.#compiled.view(path);
  }
}
