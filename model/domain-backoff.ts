// Wait schedules of the domain lifecycle, shared by its workflow and the workers' DNS checker
// (model/dns-check-schedule.ts). Pure and deterministic inside a workflow (the sandbox seeds
// Math.random per run), so replays compute the same delays.

export const SECOND = 1000;
export const MINUTE = 60 * SECOND;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** Customers usually fix DNS within minutes, sometimes days: check often at first, then hourly. */
export const DNS_GIVE_UP_AFTER = 14 * DAY;
export const DNS_BACKOFF_FIRST = 5 * SECOND;
export const DNS_BACKOFF_CAP = HOUR;

/** A CA refusal is rarely fixed in seconds; rate limits are per hour/week at Let's Encrypt. */
export const CERT_BACKOFF_FIRST = MINUTE;
export const CERT_BACKOFF_CAP = 6 * HOUR;
export const CERT_MAX_FAILURES = 12;

/** Active domains: DNS is re-checked at a low rate only to flag breakage. */
export const ACTIVE_DNS_RECHECK = 6 * HOUR;

/** Delay before retry number `attempt` (1-based): doubling from `first`, capped, ±20 % jitter. */
export function backoff(attempt: number, first: number, cap: number, random: () => number = Math.random): number {
  const base = Math.min(cap, first * 2 ** Math.max(0, attempt - 1));
  const jitter = 1 + (random() * 0.4 - 0.2);
  return Math.round(Math.min(cap, base * jitter));
}

/** Renew at two thirds of the certificate's lifetime (Let's Encrypt's own recommendation). */
export function renewalTime(notBefore: number, notAfter: number): number {
  return notBefore + Math.floor(((notAfter - notBefore) * 2) / 3);
}
