/**
 * A set of memory pairs as numbers (`a * rowCount + b`, a < b), in one open-addressed
 * `Float64Array`: 8 bytes a slot instead of a `Map` entry's ~80. The trigger's kNN search
 * proposes millions of distinct pairs on a 100 000-memory session (9 million on the 100k mixed
 * bench session), and each must be re-scored exactly once.
 *
 * Keys are integers in [1, 2^53): a pair's `b` is at least 1, so 0 marks an empty slot.
 *
 * @example
 * const seen = new PairKeySet();
 * seen.add(1 * 100 + 7); // true: new
 * seen.add(1 * 100 + 7); // false: already there
 */

/** Slots of a new set (grows by doubling). */
const initialSlots = 1 << 16;
/** Grow when more than this fraction of the slots is taken (linear probing stays short). */
const loadMax = 0.75;

export class PairKeySet {
  private slots = new Float64Array(initialSlots);
  private mask = initialSlots - 1;
  private used = 0;

  get size(): number {
    return this.used;
  }

  /** Adds `key` (an integer >= 1); true when it was not in the set. */
  add(key: number): boolean {
    let slot = slotHash(key) & this.mask;
    for (;;) {
      const held = this.slots[slot];
      if (held === key) return false;
      if (held === 0) break;
      slot = (slot + 1) & this.mask;
    }
    this.slots[slot] = key;
    if (++this.used > this.slots.length * loadMax) this.grow();
    return true;
  }

  private grow(): void {
    const old = this.slots;
    this.slots = new Float64Array(old.length * 2);
    this.mask = this.slots.length - 1;
    for (const key of old) {
      if (key === 0) continue;
      let slot = slotHash(key) & this.mask;
      while (this.slots[slot] !== 0) slot = (slot + 1) & this.mask;
      this.slots[slot] = key;
    }
  }
}

/** Mixes both 32-bit halves of the key (murmur3's finaliser) so consecutive keys spread out. */
function slotHash(key: number): number {
  let h = (key % 4294967296) ^ Math.imul(Math.floor(key / 4294967296), 0x9e3779b1);
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}
