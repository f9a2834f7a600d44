/**
 * Deterministic threshold clustering of a log's events (DESIGN §9): the groups a
 * one-representative compaction operator would merge.
 *
 * Leader clustering in log order: an event joins the cluster whose leader (its first event) is
 * nearest, when that cosine distance is at most the threshold; otherwise it leads a new cluster.
 * Ties go to the earliest cluster. Every member is therefore within the threshold of its leader,
 * clusters never chain, and the same log always gives the same clusters (no randomness, no
 * thread timing: the sketch hashes are fixed).
 *
 * Which leaders are compared: those sharing a MinHash band with the event (auditVectors.ts), at
 * most the `bandScanMax` most recent per band, re-scored by exact cosine. Comparing every leader
 * would be O(n²) on a log of mostly distinct events (100 000 events → 5·10⁹ cosines); near
 * duplicates, the case the audit exists to catch, share bands with near certainty.
 *
 * The same pass finds each event's nearest neighbour among its band-mates (exact cosine, ties to
 * the earliest), for nearest-neighbour preservation.
 */
import type { AuditVectors } from "./auditVectors.ts";
import { bandCount } from "./auditVectors.ts";

export { defaultClusterThreshold } from "./clusterThreshold.ts";
/** Most recent band-mates compared per band (bounds the work on very common bands). */
export const bandScanMax = 8;
const tieTolerance = 1e-12;

export interface Clustering {
  /** Cluster index of each row; clusters are numbered by their first (leader) row. */
  clusterOf: Int32Array;
  clusterCount: number;
  /** Nearest other row (band-mates only), or -1 when no band-mate has a positive cosine. */
  nearestNeighbour: Int32Array;
  /** Exact cosine to that neighbour (0 when there is none). */
  nearestCosine: Float64Array;
}

/**
 * Every non-zero row's band-mates in log order, known before clustering starts (every such row
 * is inserted, in order): per (row, band) the newest earlier non-zero row with the same key, or
 * -1. Built one band at a time with one band's table, so only the chains stay.
 *
 * The leaders sharing a band key with a row are the leaders among those chains, so they are
 * chained too (each link's second half), filled in row by row as clustering decides who leads: a
 * row's newest earlier leader with the same key is its chain predecessor when that one leads,
 * else the predecessor's own newest earlier leader. Walking that chain visits the same leaders,
 * in the same order, as a table of leaders per band key would, without a hash probe per band
 * and row (at a million rows each probe was a cache miss into the band keys, and the tables
 * took 80 MB more).
 */
class BandChains {
  // Per (row, band), side by side: the newest earlier non-zero row with the same key, then the
  // newest earlier leader (one cache line serves both walks of a mate).
  private readonly links: Int32Array;

  constructor(vectors: AuditVectors, rowCount: number) {
    this.links = new Int32Array(rowCount * bandCount * 2).fill(-1);
    const table = new BandKeyTable(rowCount);
    for (let b = 0; b < bandCount; b++) {
      table.clear();
      for (let row = 0; row < rowCount; row++) {
        if (vectors.isZero(row)) continue;
        this.links[(row * bandCount + b) * 2] = table.swapNewest(vectors.bandKey(row, b), row);
      }
    }
  }

  /**
   * Fills in `row`'s newest earlier leader per band; `leads[r]` is 1 when earlier row `r` leads
   * a cluster. Called once per non-zero row, in row order, before `leadersOf(row, …)`.
   */
  linkLeaders(row: number, leads: Uint8Array): void {
    const links = this.links;
    for (let b = 0; b < bandCount; b++) {
      const at = (row * bandCount + b) * 2;
      const mate = links[at];
      links[at + 1] = mate < 0 ? -1 : leads[mate] === 1 ? mate : links[(mate * bandCount + b) * 2 + 1];
    }
  }

  /**
   * Writes into `out` each distinct leader sharing a band with `row` (bands in order, most
   * recent first per band, at most `bandScanMax` per band) and returns how many. `stamps[r *
   * stride + stampAt]` marks the rows already written for `row`.
   */
  leadersOf(row: number, stamps: Int32Array, stride: number, stampAt: number, out: Int32Array): number {
    return this.walk(1, row, stamps, stride, stampAt, out);
  }

  /** As `leadersOf`, over every earlier non-zero row. */
  matesOf(row: number, stamps: Int32Array, stride: number, stampAt: number, out: Int32Array): number {
    return this.walk(0, row, stamps, stride, stampAt, out);
  }

  private walk(kind: number, row: number, stamps: Int32Array, stride: number, stampAt: number, out: Int32Array): number {
    const links = this.links;
    let count = 0;
    for (let b = 0; b < bandCount; b++) {
      let mate = links[(row * bandCount + b) * 2 + kind];
      for (let k = 0; k < bandScanMax && mate >= 0; k++) {
        const stamp = mate * stride + stampAt;
        if (stamps[stamp] !== row) {
          stamps[stamp] = row;
          out[count++] = mate;
        }
        mate = links[(mate * bandCount + b) * 2 + kind];
      }
    }
    return count;
  }
}

/**
 * One band's keys → the newest row inserted under each: open addressing with the key stored
 * beside its row, so a probe reads one slot (not the row's key from the band keys), at most
 * half full.
 */
export class BandKeyTable {
  private readonly keys: Uint32Array;
  // Row + 1, or 0 for an empty slot.
  private readonly rows: Int32Array;
  private readonly mask: number;
  private readonly shift: number;

  constructor(rowCount: number) {
    let bits = 4;
    while (1 << bits < rowCount * 2) bits++;
    this.keys = new Uint32Array(1 << bits);
    this.rows = new Int32Array(1 << bits);
    this.mask = (1 << bits) - 1;
    this.shift = 32 - bits;
  }

  clear(): void {
    this.rows.fill(0);
  }

  /** Records `row` as `key`'s newest row and returns the previous newest (or -1). */
  swapNewest(key: number, row: number): number {
    // Fibonacci hashing: the product's top bits depend on every bit of the key.
    let i = Math.imul(key, 0x9e3779b1) >>> this.shift;
    for (;;) {
      const entry = this.rows[i];
      if (entry === 0) {
        this.keys[i] = key;
        this.rows[i] = row + 1;
        return -1;
      }
      if (this.keys[i] === key) {
        this.rows[i] = row + 1;
        return entry - 1;
      }
      i = (i + 1) & this.mask;
    }
  }
}

/** The Int32 fields of a row in `clusterRows`' per-row table, and their offsets. */
const rowInts = 4;
const clusterAt = 0;
const leaderStampAt = 1;
const mateStampAt = 2;
const nearestAt = 3;

/** Whether (cosine, index) beats the current nearest: higher cosine, ties to the lower index. */
function isNearer(cosine: number, index: number, currentCosine: number, currentIndex: number): boolean {
  if (currentIndex < 0 || cosine > currentCosine + tieTolerance) return true;
  return cosine >= currentCosine - tieTolerance && index < currentIndex;
}

/**
 * @example
 * const { clusterOf, clusterCount } = clusterRows(vectors, 0.25);
 */
export function clusterRows(vectors: AuditVectors, threshold: number): Clustering {
  const n = vectors.count;
  const chains = new BandChains(vectors, n);
  // Per row, side by side, what placing a later row reads of it as a mate (one cache line rather
  // than one per column: at a million rows each was a miss): its cluster, the last row that
  // met it as a leader and as a mate, its nearest neighbour so far; and the f64s: its cosine with
  // the row being placed (valid when that row met it as a leader), its nearest cosine so far.
  const ints = new Int32Array(n * rowInts);
  const floats = new Float64Array(n * 2);
  for (let row = 0; row < n; row++) {
    ints[row * rowInts + leaderStampAt] = -1;
    ints[row * rowInts + mateStampAt] = -1;
    ints[row * rowInts + nearestAt] = -1;
  }
  const leads = new Uint8Array(n);
  const scattered = new Float64Array(vectors.dim);
  const mates = new Int32Array(bandCount * bandScanMax);
  // Clusters are numbered by their leader, in row order.
  let clusterCount = 0;
  for (let row = 0; row < n; row++) {
    let best = -1;
    let bestCluster = -1;
    let bestCosine = -Infinity;
    const at = row * rowInts;
    if (!vectors.isZero(row)) {
      vectors.scatter(row, scattered);
      chains.linkLeaders(row, leads);
      const leaderCount = chains.leadersOf(row, ints, rowInts, leaderStampAt, mates);
      for (let k = 0; k < leaderCount; k++) {
        const leader = mates[k];
        const cosine = vectors.cosineScattered(row, scattered, leader);
        floats[leader * 2] = cosine;
        if (1 - cosine > threshold) continue;
        const cluster = ints[leader * rowInts + clusterAt];
        if (cosine > bestCosine + tieTolerance || (cosine >= bestCosine - tieTolerance && cluster < bestCluster)) {
          best = leader;
          bestCluster = cluster;
          bestCosine = cosine;
        }
      }
      const mateCount = chains.matesOf(row, ints, rowInts, mateStampAt, mates);
      for (let k = 0; k < mateCount; k++) {
        const mate = mates[k];
        const mateAt = mate * rowInts;
        const cosine = ints[mateAt + leaderStampAt] === row ? floats[mate * 2] : vectors.cosineScattered(row, scattered, mate);
        if (cosine <= 0) continue;
        // Earlier rows win ties: `mate` < `row`, and rows are visited in order.
        if (isNearer(cosine, mate, floats[row * 2 + 1], ints[at + nearestAt])) {
          ints[at + nearestAt] = mate;
          floats[row * 2 + 1] = cosine;
        }
        if (isNearer(cosine, row, floats[mate * 2 + 1], ints[mateAt + nearestAt])) {
          ints[mateAt + nearestAt] = row;
          floats[mate * 2 + 1] = cosine;
        }
      }
      vectors.clear(row, scattered);
    }
    if (best >= 0) {
      ints[at + clusterAt] = bestCluster;
    } else {
      leads[row] = 1;
      ints[at + clusterAt] = clusterCount++;
    }
  }
  const clusterOf = new Int32Array(n);
  const nearestNeighbour = new Int32Array(n);
  const nearestCosine = new Float64Array(n);
  for (let row = 0; row < n; row++) {
    clusterOf[row] = ints[row * rowInts + clusterAt];
    nearestNeighbour[row] = ints[row * rowInts + nearestAt];
    nearestCosine[row] = floats[row * 2 + 1];
  }
  return { clusterOf, clusterCount, nearestNeighbour, nearestCosine };
}
