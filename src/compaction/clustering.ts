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
 * Slots for `rowCount` rows at most 80 % full. Not a power of two: at a million rows the next
 * power of two would take 60 % more memory, and a slot is 16 bands wide.
 */
function slotsFor(rowCount: number): number {
  return Math.max(16, Math.ceil(rowCount * 1.25));
}

/** `key`'s home slot among `slots` (multiply-high: every slot reachable, no power of two needed). */
function homeSlot(key: number, slots: number): number {
  return Math.min(slots - 1, Math.floor((key * slots) / 4294967296));
}

/**
 * Index of `key`'s slot in the `slots` slots of band `band` starting at `base` of `table` (each
 * holding row + 1, 0 when empty; the key is that row's band key): its own, or the empty one where
 * it would go.
 */
function bandSlot(table: Uint32Array, base: number, slots: number, vectors: AuditVectors, band: number, key: number): number {
  let i = homeSlot(key, slots);
  for (;;) {
    const entry = table[base + i];
    if (entry === 0 || vectors.bandKey(entry - 1, band) === key) return base + i;
    i = i + 1 === slots ? 0 : i + 1;
  }
}

/**
 * For each band, the rows inserted under each band key, newest first: a hash table from key to
 * the newest row, and per (row, band) the previous row with the same key. Flat typed arrays
 * (O(n) memory, no per-key objects) instead of a Map of arrays per band. A slot holds only its
 * row + 1 (0: empty); the key is the row's own band key, read from the vectors.
 */
class LeaderTables {
  private readonly slots: Uint32Array;
  private readonly previous: Int32Array;
  private readonly slotsPerBand: number;
  // The slots `matesOf` found for `foundFor`, per band: a row that then leads a cluster is
  // inserted there (nothing is inserted in between), without probing the table again.
  private readonly found = new Int32Array(bandCount);
  private foundFor = -1;

  constructor(private readonly vectors: AuditVectors, rowCount: number) {
    this.slotsPerBand = slotsFor(rowCount);
    this.slots = new Uint32Array(this.slotsPerBand * bandCount);
    this.previous = new Int32Array(rowCount * bandCount);
  }

  /** Index of `key`'s slot in band `band`: its own, or the empty one where it would go. */
  private slotOf(band: number, key: number): number {
    return bandSlot(this.slots, band * this.slotsPerBand, this.slotsPerBand, this.vectors, band, key);
  }

  /**
   * Writes into `out` each distinct row sharing a band with `row` (bands in order, most recent
   * first per band, at most `bandScanMax` per band) and returns how many.
   */
  matesOf(row: number, stamp: Int32Array, out: Int32Array): number {
    let count = 0;
    this.foundFor = row;
    for (let b = 0; b < bandCount; b++) {
      const at = this.slotOf(b, this.vectors.bandKey(row, b));
      this.found[b] = at;
      let mate = this.slots[at] - 1;
      for (let k = 0; k < bandScanMax && mate >= 0; k++) {
        if (stamp[mate] !== row) {
          stamp[mate] = row;
          out[count++] = mate;
        }
        mate = this.previous[mate * bandCount + b];
      }
    }
    return count;
  }

  insert(row: number): void {
    const found = this.foundFor === row;
    for (let b = 0; b < bandCount; b++) {
      const at = found ? this.found[b] : this.slotOf(b, this.vectors.bandKey(row, b));
      this.previous[row * bandCount + b] = this.slots[at] - 1;
      this.slots[at] = row + 1;
    }
  }
}

/**
 * Every non-zero row's band-mates in log order, known before clustering starts (every such row
 * is inserted, in order): per (row, band) the newest earlier non-zero row with the same key, or
 * -1. Built one band at a time with one band's table, so only the chains stay.
 */
class EveryoneChains {
  private readonly newestBefore: Int32Array;

  constructor(vectors: AuditVectors, rowCount: number) {
    this.newestBefore = new Int32Array(rowCount * bandCount).fill(-1);
    const slots = slotsFor(rowCount);
    const table = new Uint32Array(slots);
    for (let b = 0; b < bandCount; b++) {
      table.fill(0);
      for (let row = 0; row < rowCount; row++) {
        if (vectors.isZero(row)) continue;
        const i = bandSlot(table, 0, slots, vectors, b, vectors.bandKey(row, b));
        this.newestBefore[row * bandCount + b] = table[i] - 1;
        table[i] = row + 1;
      }
    }
  }

  /** As `LeaderTables.matesOf`, over every earlier non-zero row. */
  matesOf(row: number, stamp: Int32Array, out: Int32Array): number {
    let count = 0;
    for (let b = 0; b < bandCount; b++) {
      let mate = this.newestBefore[row * bandCount + b];
      for (let k = 0; k < bandScanMax && mate >= 0; k++) {
        if (stamp[mate] !== row) {
          stamp[mate] = row;
          out[count++] = mate;
        }
        mate = this.newestBefore[mate * bandCount + b];
      }
    }
    return count;
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
  const leaders = new LeaderTables(vectors, n);
  const everyone = new EveryoneChains(vectors, n);
  const leaderStamp = new Int32Array(n).fill(-1);
  const mateStamp = new Int32Array(n).fill(-1);
  const scattered = new Float64Array(vectors.dim);
  // A row's cosine with a mate, kept for the row being placed: leaders are also in `everyone`,
  // so about half the mates of the second scan were scored by the first.
  const cosineStamp = new Int32Array(n).fill(-1);
  const cosineOf = new Float64Array(n);
  const mates = new Int32Array(bandCount * bandScanMax);
  let clusterCount = 0;
  for (let row = 0; row < n; row++) {
    let best = -1;
    let bestCosine = -Infinity;
    if (!vectors.isZero(row)) {
      vectors.scatter(row, scattered);
      const leaderCount = leaders.matesOf(row, leaderStamp, mates);
      for (let k = 0; k < leaderCount; k++) {
        const leader = mates[k];
        const cosine = vectors.cosineScattered(row, scattered, leader);
        cosineStamp[leader] = row;
        cosineOf[leader] = cosine;
        if (1 - cosine > threshold) continue;
        if (cosine > bestCosine + tieTolerance || (cosine >= bestCosine - tieTolerance && clusterOf[leader] < clusterOf[best])) {
          best = leader;
          bestCosine = cosine;
        }
      }
      const mateCount = everyone.matesOf(row, mateStamp, mates);
      for (let k = 0; k < mateCount; k++) {
        const mate = mates[k];
        const cosine = cosineStamp[mate] === row ? cosineOf[mate] : vectors.cosineScattered(row, scattered, mate);
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
      clusterOf[row] = clusterCount++;
      if (!vectors.isZero(row)) leaders.insert(row);
    }
  }
  return { clusterOf, clusterCount, nearestNeighbour, nearestCosine };
}
