// The built-in provider (no STRIPE_SECRET_KEY): checkout and portal are pages the API serves
// itself (api/routes/billing-local-pages.ts). Their buttons produce the same provider events
// Stripe would send, through the same code path (billing/handle-event.ts), so the whole flow —
// checkout, plan change, failed payment and dunning, cancellation — works offline.
import type { Db } from '../db/pool.ts';
import { billingId, billingRepository } from '../db/repositories/billing.ts';
import { handleBillingEvent } from './handle-event.ts';
import { planChangeEventId, type BillingProvider } from './provider.ts';

/** Portal pages live an hour, like Stripe's portal sessions (the page is reachable by its id only). */
const PORTAL_TTL_SECONDS = 3600;

/** `date` plus `months` calendar months in UTC, the day clamped to the month's last (Jan 31 → Feb 28), as Postgres adds months. */
export function addMonthsUtc(date: Date, months: number): Date {
  const y = date.getUTCFullYear();
  const m = date.getUTCMonth() + months;
  const lastDay = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return new Date(Date.UTC(y, m, Math.min(date.getUTCDate(), lastDay), date.getUTCHours(), date.getUTCMinutes(), date.getUTCSeconds(), date.getUTCMilliseconds()));
}

export function localPageUrl(publicUrl: string, kind: 'checkout' | 'portal', id: string): string {
  return `${publicUrl}/v1/billing/local/${kind}/${encodeURIComponent(id)}`;
}

export function createLocalProvider(deps: { db: Db; publicUrl: string; onEvent?: (outboxId: number) => void }): BillingProvider {
  const billing = billingRepository(deps.db);
  return {
    name: 'local',
    async createCheckoutSession(input) {
      return { id: input.sessionId, url: localPageUrl(deps.publicUrl, 'checkout', input.sessionId) };
    },
    async createPortalSession(input) {
      const id = billingId('ps');
      await billing.createPortalSession({ id, organizationId: input.organizationId, returnUrl: input.returnUrl, ttlSeconds: PORTAL_TTL_SECONDS });
      return { id, url: localPageUrl(deps.publicUrl, 'portal', id) };
    },
    async changePlan(input) {
      const current = await billing.getSubscription(input.organizationId);
      if (!current?.subscription_id) throw new Error(`organization ${input.organizationId} has no subscription`);
      // Locally there is nothing to prorate: the plan changes now, the period stays.
      const handled = await handleBillingEvent(deps.db, 'local', planChangeEventId(input.idempotencyKey), {
        type: 'subscription.updated', subscriptionId: current.subscription_id, plan: input.plan, status: current.status,
        periodStart: current.current_period_start, periodEnd: current.current_period_end,
      });
      if (handled.result === 'processed') deps.onEvent?.(handled.outboxId);
    },
    async expireCheckoutSession() {
      // Our row is the session: the route marks it canceled, and its page no longer takes payment.
      return 'expired';
    },
    async cancelDuplicateSubscription() {
      // Nothing was charged anywhere: the local subscription only ever existed in our tables.
      return { refundedCents: 0 };
    },
    async addOverageItem() {
      // The local invoice row is the item (invoices / invoice_items); nothing to send.
      return null;
    },
  };
}
