// When a certificate is still worth serving and when it renews, relative to its own lifetime:
// the same rules hold for Let's Encrypt's 6-day short-lived profile, its 90-day default and a
// 397-day commercial certificate, where an absolute margin (the old "24 h left") either renews
// too late or — with certificates shorter than the margin — orders again at once, forever.
// Pure and deterministic: the domain workflow and the activities (resume, issue 23) both use it.

/** The dates a decision needs (epoch milliseconds). */
export interface CertificateDates { notBefore: number; notAfter: number }

/** Renew once this share of the lifetime has passed (Let's Encrypt's own recommendation). */
export const RENEW_AT_FRACTION = 2 / 3;

/** Expiry notices go out this long before `notAfter` (hostname.certificate_expiring). */
export const EXPIRY_NOTICE_DAYS = [14, 3] as const;

export function lifetimeMs(cert: CertificateDates): number {
  return Math.max(0, cert.notAfter - cert.notBefore);
}

/**
 * When the certificate renews: at two thirds of its lifetime, or earlier when the CA's renewal
 * information (RFC 9773, `ariWindowStart`) says so — never later than two thirds.
 */
export function renewsAt(cert: CertificateDates, ariWindowStart?: number | null): number {
  const twoThirds = cert.notBefore + Math.floor(lifetimeMs(cert) * RENEW_AT_FRACTION);
  return ariWindowStart != null && ariWindowStart < twoThirds ? Math.max(cert.notBefore, ariWindowStart) : twoThirds;
}

/** A managed certificate is ordered this long before a customer's own one lapses (or a third of its life, if shorter). */
export const CUSTOM_TAKEOVER_BEFORE_MS = 3 * 24 * 60 * 60_000;

/**
 * When a managed certificate is ordered to replace a customer's own certificate about to lapse
 * (if the domain's DNS points here; docs/custom-certificates.md): 3 days before it does — the
 * moment of the last `hostname.certificate_expiring` notice — or a third of its lifetime before,
 * for one shorter than 9 days. What reads show as its `renews_at`.
 */
export function customTakeoverAt(cert: CertificateDates): number {
  return cert.notAfter - Math.min(CUSTOM_TAKEOVER_BEFORE_MS, Math.floor(lifetimeMs(cert) / 3));
}

/** When the certificate is replaced: renewal (managed) or the managed takeover (custom). */
export function replacedAt(cert: CertificateDates & { source?: 'managed' | 'custom' }): number {
  return cert.source === 'custom' ? customTakeoverAt(cert) : renewsAt(cert);
}

/** Still worth deploying and keeping: more than a third of its lifetime left (not yet due). */
export function stillUsable(cert: CertificateDates, now: number): boolean {
  return now < renewsAt(cert) && now < cert.notAfter;
}

/**
 * A certificate that is due for renewal the moment it arrives (its lifetime is too short for the
 * time issuance took, or the clocks disagree): ordering again at once would loop, so the caller
 * treats it as a `certificate` problem with backoff.
 */
export function dueOnArrival(cert: CertificateDates, receivedAt: number): boolean {
  return !stillUsable(cert, receivedAt);
}

/** Shorter than the operator's floor: flagged (history, logs), and renewed only at the brake's pace. */
export function belowLifetimeFloor(cert: CertificateDates, floorMs: number): boolean {
  return lifetimeMs(cert) < floorMs;
}

/**
 * A renewal still failing now is a `hostname.certificate_failed`: once a third of the life or
 * less is left (which, without renewal information, is from the first renewal attempt on).
 */
export function renewalFailureIsSerious(cert: CertificateDates, now: number): boolean {
  return cert.notAfter - now <= lifetimeMs(cert) / 3;
}

/**
 * The expiry notices a certificate can get: 14 and 3 days before `notAfter`, each only if it
 * falls after the renewal was due (a 90-day certificate renewed on time never gets one; a 6-day
 * one gets none — its failing renewal is hostname.certificate_failed's to report).
 */
export function expiryNoticeTimes(cert: CertificateDates, source: 'managed' | 'custom' = 'managed'): Array<{ days: number; at: number }> {
  const DAY = 24 * 60 * 60_000;
  // A customer's own certificate is not renewed by us at two thirds: both notices, whenever they fall.
  const due = source === 'custom' ? cert.notBefore : renewsAt(cert);
  return EXPIRY_NOTICE_DAYS.map((days) => ({ days, at: cert.notAfter - days * DAY })).filter((n) => n.at >= due);
}

/** The expiry notices (days before notAfter) due at `now` and not yet past expiry. */
export function dueExpiryNotices(cert: CertificateDates, now: number, source: 'managed' | 'custom' = 'managed'): number[] {
  return expiryNoticeTimes(cert, source).filter((n) => now >= n.at && now < cert.notAfter).map((n) => n.days);
}

/**
 * The per-domain brake: at most `limit` orders in any `windowMs`, whatever asks for them. Given
 * the times of the orders placed in the window (any order), when the next one may be placed
 * (`now` if at once).
 */
export function nextOrderAllowedAt(placedAt: readonly number[], now: number, limit: number, windowMs: number): number {
  const inWindow = placedAt.filter((t) => t > now - windowMs).sort((a, b) => a - b);
  if (inWindow.length < limit) return now;
  // The window frees when the oldest order that keeps it full leaves it.
  return inWindow[inWindow.length - limit]! + windowMs;
}

/** The problem code of the per-domain brake (a `certificate` problem, never a failure). */
export const ORDER_BRAKE_CODE = 'domain_orders_limit';
/** The problem code of an order whose certificate was due for renewal when it arrived. */
export const DUE_ON_ARRIVAL_CODE = 'certificate_due_on_arrival';

export function brakeProblem(limit: number, retryAt: number): { code: string; message: string } {
  return {
    code: ORDER_BRAKE_CODE,
    message: `${limit} certificate orders were placed for this hostname in the last hour (the limit); the next one is placed after ${new Date(retryAt).toISOString()}`,
  };
}

export function dueOnArrivalProblem(cert: CertificateDates): { code: string; message: string } {
  return {
    code: DUE_ON_ARRIVAL_CODE,
    message: `The certificate authority issued a certificate valid only until ${new Date(cert.notAfter).toISOString()} (${Math.round(lifetimeMs(cert) / 1000)} s in all), already due for renewal when it arrived; we order again with backoff, not at once`,
  };
}
