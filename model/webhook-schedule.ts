// The attempt schedule of a webhook delivery (decisions.md, "Webhooks"): immediately, then 5 s,
// 5 min, 30 min, 2 h, 5 h, 10 h and 10 h after each failure — 8 attempts over about 27.5 hours —
// each gap with ±10 % jitter so a receiver's outage does not bring every retry back at once.
// Pure and deterministic inside a workflow (the sandbox seeds Math.random per run).

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;

/** The gap after failed attempt n (1-based) before attempt n + 1. */
export const ATTEMPT_GAPS: readonly number[] = [5 * SECOND, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 5 * HOUR, 10 * HOUR, 10 * HOUR];
export const MAX_ATTEMPTS = ATTEMPT_GAPS.length + 1;
export const JITTER = 0.1;
/** A receiver's Retry-After is honoured up to the longest gap of the schedule. */
export const MAX_RETRY_AFTER = 10 * HOUR;

/** The jittered wait after failed attempt `attempt` (1-based); null after the last attempt. */
export function plannedDelay(attempt: number, random: () => number = Math.random): number | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const gap = ATTEMPT_GAPS[Math.max(0, attempt - 1)]!;
  return Math.round(gap * (1 + (random() * 2 - 1) * JITTER));
}

/** The wait actually used: the planned one, or longer when the receiver asked (429/503 Retry-After). */
export function delayAfterFailure(planned: number, retryAfterMs: number | null): number {
  if (retryAfterMs === null || !Number.isFinite(retryAfterMs)) return planned;
  return Math.max(planned, Math.min(Math.max(0, retryAfterMs), MAX_RETRY_AFTER));
}
