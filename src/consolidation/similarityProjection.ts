/**
 * The vectors the similarity index navigates by: a fixed Gaussian random projection of each
 * hash embedding to `projectionDim` dimensions (Johnson–Lindenstrauss: cosines are kept in
 * expectation, with noise of about (1 − cos²)/√32: ±0.05 near 0.85, ±0.18 for unrelated pairs).
 *
 * Why not the 1536-d embeddings themselves: a hash embedding is a handful of ±1/√n components,
 * so cosines between memories are ratios of small integers and nearly all unrelated pairs are
 * exactly orthogonal — every memory is equidistant from every other, and an HNSW graph has no
 * gradient to follow. Measured on 20 000 memories with planted near-duplicates, the 1536-d i8
 * index found 84 % of the pairs (connectivity 8) and needed connectivity 16 / expansion 64 to
 * reach 100 %, which at 100 000 memories took over 100 s on two cores. The projection is
 * continuous (no ties) and low-dimensional, where HNSW navigates well: on 100 000 memories 64
 * dimensions found 99.7–100 % of the planted pairs in ~50 s, 32 dimensions all of them in ~38 s.
 * The index only proposes neighbours: every proposed pair is re-scored with the exact cosine of
 * the float embeddings, which alone decides. The price of 32 dimensions is ranking noise: in a
 * very large session a pair just above the pre-filter (≈ 0.77) can be outranked by unrelated
 * memories whose projections came out close, and go unevaluated; pairs at the 0.85 threshold
 * rank well inside the 16 neighbours asked for.
 *
 * What must never change without re-measuring `zaxy bench trigger`: the seed, the dimension.
 */
import type { SparseEmbeddings } from "./similarityEmbeddings.ts";

export const projectionDim = 32;
const projectionSeed = 0x5eed_c0de;

/** mulberry32: a small deterministic PRNG, so the projection is the same in every process. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const matrices = new Map<number, Float32Array>();

/** `dim × projectionDim` standard normal entries (Box–Muller), row per embedding dimension. */
function projectionMatrix(dim: number): Float32Array {
  let matrix = matrices.get(dim);
  if (matrix === undefined) {
    const random = seeded(projectionSeed);
    matrix = new Float32Array(dim * projectionDim);
    for (let i = 0; i < matrix.length; i++) {
      const u = random() || Number.MIN_VALUE;
      matrix[i] = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * random());
    }
    matrices.set(dim, matrix);
  }
  return matrix;
}

/**
 * The projections of `rows`, one flat row-major `rows.length × projectionDim` matrix.
 *
 * @example
 * projectRows(embeddings, Uint32Array.of(0, 1)).length // 128
 */
export function projectRows(embeddings: SparseEmbeddings, rows: ArrayLike<number>): Float32Array {
  const matrix = projectionMatrix(embeddings.dim);
  const out = new Float32Array(rows.length * projectionDim);
  for (let r = 0; r < rows.length; r++) {
    const base = r * projectionDim;
    embeddings.forEachNonZero(rows[r], (d, value) => {
      const from = d * projectionDim;
      for (let j = 0; j < projectionDim; j++) out[base + j] += value * matrix[from + j];
    });
  }
  return out;
}
