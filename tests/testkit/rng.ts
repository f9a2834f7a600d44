/**
 * The seeded PRNG of the property tests (not a test file itself). A failing property test prints
 * its seed; the same seed replays the same inputs.
 */

/** sfc32: a small, fast PRNG whose whole sequence is fixed by the 32-bit seed. */
export class Rng {
  private a = 0x9e3779b9;
  private b = 0x243f6a88;
  private c = 0xb7e15162;
  private d: number;

  constructor(seed: number) {
    this.d = seed >>> 0;
    for (let i = 0; i < 16; i++) this.u32();
  }

  u32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor((this.u32() / 4294967296) * n);
  }

  /** An integer in [lo, hi]. */
  range(lo: number, hi: number): number {
    return lo + this.int(hi - lo + 1);
  }

  chance(p: number): boolean {
    return this.u32() / 4294967296 < p;
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(items.length)];
  }
}

/** The seed of a property test: env `ZAXY_PROPERTY_SEED` when set, else the test's default. */
export function propertySeed(defaultSeed: number): number {
  const text = process.env.ZAXY_PROPERTY_SEED;
  if (text === undefined || text === "") return defaultSeed;
  const seed = Number(text);
  if (!Number.isSafeInteger(seed)) throw new Error(`ZAXY_PROPERTY_SEED must be an integer, got ${JSON.stringify(text)}`);
  return seed >>> 0;
}
