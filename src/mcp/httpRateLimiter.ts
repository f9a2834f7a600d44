/**
 * A sliding-window request budget per client address for `zaxy serve --http`. The server keeps
 * two: one for requests that passed authentication (or every request on a server without a
 * token), one for requests that failed it, so a peer sending bad tokens from a shared address
 * exhausts only its own budget and never locks out the client that holds the token.
 *
 * Memory is bounded by the addresses seen in one window: an address whose newest hit is older
 * than the window is forgotten at the next sweep, so a peer cycling through addresses (IPv6 gives
 * it many) cannot grow the table past what it sent in the last window.
 *
 * @example
 * const limiter = new RateLimiter(600, 60_000);
 * limiter.retryAfterMs("127.0.0.1") // 0: counted, go ahead
 */
export class RateLimiter {
  readonly #hits = new Map<string, number[]>();
  #sweptAt = 0;

  constructor(private readonly requests: number, private readonly windowMs: number) {}

  /** Milliseconds until `client` may send again, or 0 when it may now (and the hit is counted). */
  retryAfterMs(client: string, now = Date.now()): number {
    this.#sweep(now);
    const recent = (this.#hits.get(client) ?? []).filter((at) => now - at < this.windowMs);
    if (recent.length >= this.requests) {
      this.#hits.set(client, recent);
      return Math.max(1, this.windowMs - (now - recent[0]));
    }
    recent.push(now);
    this.#hits.set(client, recent);
    return 0;
  }

  /** Addresses tracked now (for tests and the bench). */
  get clientCount(): number {
    return this.#hits.size;
  }

  #sweep(now: number): void {
    if (now - this.#sweptAt < this.windowMs) return;
    this.#sweptAt = now;
    for (const [client, hits] of this.#hits) {
      if (hits.length === 0 || now - hits[hits.length - 1] >= this.windowMs) this.#hits.delete(client);
    }
  }
}
