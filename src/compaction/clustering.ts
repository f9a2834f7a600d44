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

/** Default `--cluster-threshold` (cosine distance); see docs/compaction.md for how it was chosen. */
export const defaultClusterThreshold = 0.2;
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

class BandTables {
  private readonly tables: Array<Map<number, number[]>> = Array.from({ length: bandCount }, () => new Map());
  constructor(private readonly vectors: AuditVectors) {}

  /** Calls `visit` for each distinct row sharing a band with `row` (most recent first per band). */
  forEachMate(row: number, stamp: Int32Array, visit: (mate: number) => void): void {
    for (let b = 0; b < bandCount; b++) {
      const list = this.tables[b].get(this.vectors.bandKey(row, b));
      if (list === undefined) continue;
      const stop = Math.max(0, list.length - bandScanMax);
      for (let k = list.length - 1; k >= stop; k--) {
        const mate = list[k];
        if (stamp[mate] === row) continue;
        stamp[mate] = row;
        visit(mate);
      }
    }
  }

  insert(row: number): void {
    for (let b = 0; b < bandCount; b++) {
      const key = this.vectors.bandKey(row, b);
      const list = this.tables[b].get(key);
      if (list === undefined) this.tables[b].set(key, [row]);
      else list.push(row);
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
  const leaders = new BandTables(vectors);
  const everyone = new BandTables(vectors);
  const leaderStamp = new Int32Array(n).fill(-1);
  const mateStamp = new Int32Array(n).fill(-1);
  const scattered = new Float64Array(vectors.dim);
  let clusterCount = 0;
  for (let row = 0; row < n; row++) {
    let best = -1;
    let bestCosine = -Infinity;
    if (!vectors.isZero(row)) {
      vectors.scatter(row, scattered);
      leaders.forEachMate(row, leaderStamp, (leader) => {
        const cosine = vectors.cosineScattered(row, scattered, leader);
        if (1 - cosine > threshold) return;
        if (cosine > bestCosine + tieTolerance || (cosine >= bestCosine - tieTolerance && clusterOf[leader] < clusterOf[best])) {
          best = leader;
          bestCosine = cosine;
        }
      });
      everyone.forEachMate(row, mateStamp, (mate) => {
        const cosine = vectors.cosineScattered(row, scattered, mate);
        if (cosine <= 0) return;
        // Earlier rows win ties: `mate` < `row`, and rows are visited in order.
        if (isNearer(cosine, mate, nearestCosine[row], nearestNeighbour[row])) {
          nearestNeighbour[row] = mate;
          nearestCosine[row] = cosine;
        }
        if (isNearer(cosine, row, nearestCosine[mate], nearestNeighbour[mate])) {
          nearestNeighbour[mate] = row;
          nearestCosine[mate] = cosine;
        }
      });
      everyone.insert(row);
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
