// Percentiles as every benchmark reports them: nearest rank, no interpolation (a reported p99 is a
// latency that was really measured).

/** The value at nearest rank p (0–100) of ascending `sorted`; NaN when empty. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

export interface Distribution { n: number; min: number; p50: number; p90: number; p99: number; max: number }

/** Count, min, p50, p90, p99 and max of `values` (NaN for each when there are none). */
export function distribution(values: readonly number[]): Distribution {
  // Float64Array sorts numerically (and puts NaN last) without a comparator.
  const sorted = Float64Array.from(values).sort();
  const last = sorted.length ? sorted[sorted.length - 1]! : Number.NaN;
  return { n: sorted.length, min: sorted.length ? sorted[0]! : Number.NaN, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: last };
}
