// The pace of issuance (issue 22): what the certificate phases share so that nothing orders
// certificates in a loop. Whether a certificate is usable and when it renews is relative to its
// lifetime (model/certificate-lifetime.ts); a certificate due on arrival is a problem with
// backoff; a refusal of the per-domain brake waits until its window frees (it is not a failure).
import { patched } from '@temporalio/workflow';
import type { DomainWorkflowCarry } from '../../../contracts/domain-workflow.ts';
import { dueExpiryNotices, stillUsable } from '../../../model/certificate-lifetime.ts';
import { lifecycleStore } from '../activity-proxies.ts';
import type { DomainContext } from '../context.ts';

/**
 * Patch id of lifetime-relative usability and renewal, the due-on-arrival backoff, the brake's
 * wait, the certificate history and notices (issue 22). Histories recorded before it used an
 * absolute 24 h margin and replay that way.
 */
export const CERTIFICATE_LIFETIME_PATCH = 'certificate-lifetime-relative';

/** What older runs took as "still usable": more than 24 h left. */
const LEGACY_STILL_USABLE_MS = 24 * 60 * 60_000;

type Cert = NonNullable<DomainWorkflowCarry['certificate']>;

/** Whether this run follows issue 22's rules (memoized per run: one marker). */
export function lifetimeAware(): boolean {
  return patched(CERTIFICATE_LIFETIME_PATCH);
}

export function usable(cert: Cert, now: number, aware: boolean): boolean {
  return aware ? stillUsable(cert, now) : cert.notAfter - now > LEGACY_STILL_USABLE_MS;
}

/** Waits until the brake's window frees (a delete or suspend still interrupts: the phase scope). */
export async function waitForBrake(ctx: DomainContext, retryAt: number): Promise<void> {
  const delay = Math.max(1_000, retryAt - Date.now());
  ctx.details(`certificate orders held by the per-domain brake; next order in ${Math.round(delay / 1000)} s`);
  await ctx.waitUntil(() => false, delay);
}

/** Sends the expiry notices due for the certificate (hostname.certificate_expiring), once each. */
export async function expiryNotices(ctx: DomainContext, cert: Cert | null): Promise<void> {
  if (!cert) return;
  const due = dueExpiryNotices(cert, Date.now(), cert.custom ? 'custom' : 'managed');
  const nearest = due[due.length - 1];
  if (nearest === undefined || ctx.expiryNoticed.get(cert.id) === nearest) return;
  // The workflow's clock decides what is due (the same clock that woke it; time-skipped in tests).
  await lifecycleStore.expiryNotices({ domainId: ctx.domainId, at: Date.now() });
  ctx.expiryNoticed.set(cert.id, nearest);
}
