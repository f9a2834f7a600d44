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
 * chained too (`newestLeaderBefore`), filled in row by row as clustering decides who leads: a
 * row's newest earlier leader with the same key is its chain predecessor when that one leads,
 * else the predecessor's own newest earlier leader. Walking that chain visits the same leaders,
 * in the same order, as a table of leaders per band key would, without a hash probe per band
 * and row (at a million rows each probe was a cache miss into the band keys, and the tables
 * took 80 MB more).
 */
class BandChains {
  private readonly newestBefore: Int32Array;
  private readonly newestLeaderBefore: Int32Array;

  constructor(vectors: AuditVectors, rowCount: number) {
    this.newestBefore = new Int32Array(rowCount * bandCount).fill(-1);
    this.newestLeaderBefore = new Int32Array(rowCount * bandCount).fill(-1);
    const table = new BandKeyTable(rowCount);
    for (let b = 0; b < bandCount; b++) {
      table.clear();
      for (let row = 0; row < rowCount; row++) {
        if (vectors.isZero(row)) continue;
        this.newestBefore[row * bandCount + b] = table.swapNewest(vectors.bandKey(row, b), row);
      }
    }
  }

  /**
   * Fills in `row`'s newest earlier leader per band; `leads(r)` says whether earlier row `r`
   * leads a cluster. Called once per non-zero row, in row order, before `leadersOf(row, …)`.
   */
  linkLeaders(row: number, leads: (r: number) => boolean): void {
    const base = row * bandCount;
    for (let b = 0; b < bandCount; b++) {
      const mate = this.newestBefore[base + b];
      this.newestLeaderBefore[base + b] = mate < 0 ? -1 : leads(mate) ? mate : this.newestLeaderBefore[mate * bandCount + b];
    }
  }

  /**
   * Writes into `out` each distinct leader sharing a band with `row` (bands in order, most
   * recent first per band, at most `bandScanMax` per band) and returns how many.
   */
  leadersOf(row: number, stamp: Int32Array, out: Int32Array): number {
    return this.walk(this.newestLeaderBefore, row, stamp, out);
  }

  /** As `leadersOf`, over every earlier non-zero row. */
  matesOf(row: number, stamp: Int32Array, out: Int32Array): number {
    return this.walk(this.newestBefore, row, stamp, out);
  }

  private walk(chains: Int32Array, row: number, stamp: Int32Array, out: Int32Array): number {
    let count = 0;
    for (let b = 0; b < bandCount; b++) {
      let mate = chains[row * bandCount + b];
      for (let k = 0; k < bandScanMax && mate >= 0; k++) {
        if (stamp[mate] !== row) {
          stamp[mate] = row;
          out[count++] = mate;
        }
        mate = chains[mate * bandCount + b];
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
  const clusterOf = new Int32Array(n);
  const nearestNeighbour = new Int32Array(n).fill(-1);
  const nearestCosine = new Float64Array(n);
  const chains = new BandChains(vectors, n);
  // A row leads when it opened its cluster (clusters are numbered by their leader, in row order).
  const leaderOf = new Int32Array(n);
  const leads = (r: number): boolean => leaderOf[clusterOf[r]] === r;
  const leaderStamp = new Int32Array(n).fill(-1);
  const mateStamp = new Int32Array(n).fill(-1);
  const scattered = new Float64Array(vectors.dim);
  // A row's cosine with each leader it was compared with (those `leaderStamp` marks for it):
  // leaders are band-mates too, so about half the mates of the second scan were scored by the first.
  const cosineOf = new Float64Array(n);
  const mates = new Int32Array(bandCount * bandScanMax);
  let clusterCount = 0;
  for (let row = 0; row < n; row++) {
    let best = -1;
    let bestCosine = -Infinity;
    if (!vectors.isZero(row)) {
      vectors.scatter(row, scattered);
      chains.linkLeaders(row, leads);
      const leaderCount = chains.leadersOf(row, leaderStamp, mates);
      for (let k = 0; k < leaderCount; k++) {
        const leader = mates[k];
        const cosine = vectors.cosineScattered(row, scattered, leader);
        cosineOf[leader] = cosine;
        if (1 - cosine > threshold) continue;
        if (cosine > bestCosine + tieTolerance || (cosine >= bestCosine - tieTolerance && clusterOf[leader] < clusterOf[best])) {
          best = leader;
          bestCosine = cosine;
        }
      }
      const mateCount = chains.matesOf(row, mateStamp, mates);
      for (let k = 0; k < mateCount; k++) {
        const mate = mates[k];
        const cosine = leaderStamp[mate] === row ? cosineOf[mate] : vectors.cosineScattered(row, scattered, mate);
        if (cosine <= 0) continue;
        // Earlier rows win ties: `mate` < `row`, and rows are visited in order.
        if (isNearer(cosine, mate, nearestCosine[row], nearestNeighbour[row])) {
          nearestNeighbour[row] = mate;
          nearestCosine[row] = cosine;
        }
        if (isNearer(cosine, row, nearestCosine[mate], nearestNeighbour[mate])) {
          nearestNeighbour[mate] = row;
          nearestCosine[mate] = cosine;
        }
      }
      vectors.clear(row, scattered);
    }
    if (best >= 0) {
      clusterOf[row] = clusterOf[best];
    } else {
      leaderOf[clusterCount] = row;
      clusterOf[row] = clusterCount++;
    }
  }
  return { clusterOf, clusterCount, nearestNeighbour, nearestCosine };
}
