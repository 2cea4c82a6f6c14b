// Token buckets kept in process memory: one per API key (50/s, burst 100 by default) and per
// widget session. With several API processes each enforces its own share; that is the documented
// trade-off for not putting a shared store on every request's path.

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

  /** Drops buckets that have refilled completely; they are indistinguishable from new ones. */
  #sweep(now: number) {
    for (const [key, b] of this.#buckets) {
      if (b.tokens + ((now - b.at) / 1000) * this.#rate >= this.#burst) this.#buckets.delete(key);
    }
  }
}
