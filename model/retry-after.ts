// Retry-After (RFC 9110 §10.2.3): delta-seconds or an HTTP date. One reading for every server
// that asks us to come back later: the ACME CA (rate limits, outages) and webhook receivers.

/**
 * Milliseconds from `now` until the moment Retry-After names (0 when it is past); null when absent
 * or unreadable. A list (repeated header) counts by its first value. More than ten digits of
 * delta-seconds (over 300 years) is not read as a delay.
 */
export function retryAfterMs(value: string | readonly string[] | undefined, now: number): number | null {
  const text = (typeof value === 'string' ? value : value?.[0])?.trim();
  if (!text) return null;
  if (/^\d{1,10}$/.test(text)) return Number(text) * 1000;
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, at - now);
}

/** The same as whole seconds, rounded up; undefined when absent, unreadable, zero or past. */
export function retryAfterSeconds(value: unknown, now: number): number | undefined {
  const ms = typeof value === 'string' ? retryAfterMs(value, now) : null;
  const seconds = ms === null ? 0 : Math.ceil(ms / 1000);
  return seconds > 0 ? seconds : undefined;
}
