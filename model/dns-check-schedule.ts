// When the DNS checker (worker/dns-checker.ts) looks at a pending domain again: the same curve the
// domain workflow used for its own checks (5 s doubling to 1 h, ±20 % jitter), counted from the
// checks made in the current wait (`dns_check_schedule.checks`). Pure.
import { backoff, DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST, MINUTE, SECOND } from './domain-backoff.ts';

/**
 * How long a claimed row stays out of every checker's reach while its check runs: longer than a
 * check can take (the background budget, 15 s by default, and a move step, ≤ 60 s), so a slow
 * check is never taken twice, and short enough that a checker killed mid-check delays the
 * domain's next look by minutes, not its whole backoff.
 */
export const CHECK_LEASE_MS = 2 * MINUTE;

/** Rows one claim takes: enough to keep the checks in flight busy, few enough to share. */
export const CLAIM_BATCH = 100;

/** Delay after check number `checks` (1-based) of the current wait. */
export function nextCheckDelay(checks: number, random: () => number = Math.random): number {
  return backoff(checks, DNS_BACKOFF_FIRST, DNS_BACKOFF_CAP, random);
}
