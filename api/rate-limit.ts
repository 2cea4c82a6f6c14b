// Token buckets kept in process memory: one per API key (50/s, burst 100 by default) and per
// widget session. With several API processes each enforces its own share; that is the documented
// trade-off for not putting a shared store on every request's path.
//
// Why not @fastify/rate-limit (11.2, measured 2026-11-26): its stores count fixed windows. Set to
// the same average (100 per 2 s), one key got 199 requests through within 33 ms straddling a window
// edge, where this bucket admits 101: "burst 100" would not hold. Its local store also forgets keys
// beyond an LRU of 5,000 (a forgotten key starts a fresh window), and the limits here are checked
// after authentication (the key id is the bucket), inside the auth hooks, before the scope check.

export interface RateDecision { allowed: boolean; retryAfterSeconds: number }

export class TokenBuckets {
  readonly #rate: number;
  readonly #burst: number;
  readonly #buckets = new Map<string, { tokens: number; at: number }>();

  constructor(ratePerSecond: number, burst: number) {
    this.#rate = ratePerSecond;
    this.#burst = burst;
  }

  take(key: string, now = performance.now()): RateDecision {
    let bucket = this.#buckets.get(key);
    if (!bucket) {
      if (this.#buckets.size > 50_000) this.#sweep(now);
      bucket = { tokens: this.#burst, at: now };
      this.#buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#rate);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return { allowed: true, retryAfterSeconds: 0 };
    }
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.#rate)) };
  }

  /**
   * Whether `take` would allow now, without taking a token. A key without a bucket is full and
   * gets none made: checking every request must not grow the map (the failed-authentication limit
   * checks every request but only failures `take`).
   */
  check(key: string, now = performance.now()): RateDecision {
    const bucket = this.#buckets.get(key);
    if (!bucket) return { allowed: true, retryAfterSeconds: 0 };
    const tokens = Math.min(this.#burst, bucket.tokens + ((now - bucket.at) / 1000) * this.#rate);
    if (tokens >= 1) return { allowed: true, retryAfterSeconds: 0 };
    return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - tokens) / this.#rate)) };
  }

  /** Drops buckets that have refilled completely; they are indistinguishable from new ones. */
  #sweep(now: number) {
    for (const [key, b] of this.#buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.#rate >= this.#burst) this.#buckets.delete(key);
    }
  }
}
