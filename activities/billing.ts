// Activities of the billing workflow: each reads and writes Postgres (and the provider) and is
// idempotent, so a retry after a crash repeats nothing that was done.
import type { DuplicateSubscription, SubscriptionSnapshot } from '../model/billing-events.ts';
import type { BillingProvider } from '../billing/provider.ts';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { billingRepository, snapshotOf } from '../db/repositories/billing.ts';
import { usageRepository } from '../db/repositories/usage.ts';
import type { Logger } from '../logging/logger.ts';
import { OVERAGE_CENTS_PER_HOSTNAME, overage, plans } from '../model/plans.ts';

export interface BillingActivityDeps {
  db: Db;
  logger: Logger;
  config: Pick<Config, 'billing'>;
  provider: BillingProvider;
}

export interface ClosedPeriod {
  periodStart: string;
  periodEnd: string;
  peakHostnames: number;
  overageHostnames: number;
  overageCents: number;
  invoiceId: string;
  /** The subscription after the close (the local provider renews; Stripe's renewal arrives as an event). */
  subscription: SubscriptionSnapshot | null;
}

export function createBillingActivities(deps: BillingActivityDeps) {
  const billing = billingRepository(deps.db);
  const usage = usageRepository(deps.db);

  async function currentSnapshot(organizationId: string): Promise<SubscriptionSnapshot | null> {
    return snapshotOf(await billing.getSubscription(organizationId));
  }

  /** Closes the period in usage, records its invoice (the overage item) once. */
  async function closeAndInvoice(organizationId: string, periodStart: string, plan: SubscriptionSnapshot['plan']) {
    const closed = await usage.closePeriod(organizationId, periodStart);
    if (!closed) throw new Error(`period starting ${periodStart} of ${organizationId} is neither open nor closed`);
    const { overageHostnames } = overage(plan, closed.peak_hostnames);
    const invoice = await billing.recordPeriodInvoice({
      organizationId, periodStart: closed.period_start, periodEnd: closed.period_end, plan,
      peak: closed.peak_hostnames, included: plans[plan].includedHostnames,
      quantity: overageHostnames, unitAmountCents: OVERAGE_CENTS_PER_HOSTNAME,
      description: `Hostnames above the ${plan} plan's ${plans[plan].includedHostnames} (peak ${closed.peak_hostnames}), ${closed.period_start.slice(0, 10)} to ${closed.period_end.slice(0, 10)}`,
    });
    return { closed, invoice };
  }

  return {
    /** What a (new) run starts from: the subscription in Postgres and whether dunning holds domains. */
    async loadBillingState(input: { organizationId: string }): Promise<{ subscription: SubscriptionSnapshot | null; suspended: boolean; graceHours: number }> {
      const open = await billing.openSuspensionCount(input.organizationId);
      return { subscription: await currentSnapshot(input.organizationId), suspended: open > 0, graceHours: deps.config.billing.graceHours };
    },

    /**
     * The period [periodStart, periodEnd) ended (by the workflow's clock): its peak is fixed, the
     * overage is invoiced (a local invoice row; with Stripe it is added to the renewal invoice when
     * Stripe opens it), and a local subscription renews for the next period.
     */
    async closeBillingPeriod(input: { organizationId: string; periodStart: string; periodEnd: string; plan: SubscriptionSnapshot['plan'] }): Promise<ClosedPeriod> {
      const { closed, invoice } = await closeAndInvoice(input.organizationId, input.periodStart, input.plan);
      const renewed = await billing.renewLocal(input.organizationId, input.periodEnd);
      deps.logger.info({ organizationId: input.organizationId, periodStart: closed.period_start, peak: closed.peak_hostnames, overageCents: invoice.total_cents }, 'billing period closed');
      return {
        periodStart: closed.period_start, periodEnd: closed.period_end, peakHostnames: closed.peak_hostnames,
        overageHostnames: invoice.overage_quantity, overageCents: invoice.total_cents, invoiceId: invoice.id,
        subscription: snapshotOf(renewed),
      };
    },

    /** Stripe opened the renewal invoice of the period that just ended: the overage goes on it. */
    async attachOverageToInvoice(input: { organizationId: string; providerInvoiceId: string; invoicePeriodEnd: string; plan: SubscriptionSnapshot['plan'] }): Promise<{ itemId: string | null; amountCents: number }> {
      // The renewal invoice's period is the one that just ended, whether or not our timer has
      // closed it yet (Stripe's clock may be ahead): closing is idempotent either way.
      const periodStart = await usage.periodStartBefore(input.organizationId, input.invoicePeriodEnd);
      if (!periodStart) return { itemId: null, amountCents: 0 };
      const { invoice } = await closeAndInvoice(input.organizationId, periodStart, input.plan);
      if (invoice.provider_invoice_id) return { itemId: null, amountCents: invoice.total_cents };
      const subscription = await billing.getSubscription(input.organizationId);
      let itemId: string | null = null;
      if (subscription?.subscription_id && invoice.overage_quantity > 0) {
        itemId = await deps.provider.addOverageItem({
          subscription: { provider: subscription.provider, customerId: subscription.customer_id, subscriptionId: subscription.subscription_id, plan: subscription.plan },
          invoiceId: input.providerInvoiceId, quantity: invoice.overage_quantity, unitAmountCents: OVERAGE_CENTS_PER_HOSTNAME,
          description: `Hostname overage: ${invoice.overage_quantity} above ${invoice.included_hostnames} (peak ${invoice.peak_hostnames})`,
          // Stripe keeps idempotency keys 24 h: a retried activity adds the item once.
          idempotencyKey: `overage-${invoice.id}`,
        });
      }
      await billing.setProviderInvoice(invoice.id, input.providerInvoiceId, itemId);
      return { itemId, amountCents: invoice.total_cents };
    },

    /** Grace period over while past_due: suspends the organization's counted domains (reason `billing`). */
    /**
     * A subscription a concurrent checkout created beside the live one: canceled at once and its
     * payment refunded (idempotent by key), so the organization is never billed twice.
     */
    async cancelDuplicateSubscription(input: { organizationId: string; duplicate: DuplicateSubscription }): Promise<{ refundedCents: number }> {
      const { duplicate } = input;
      const result = await deps.provider.cancelDuplicateSubscription({
        subscriptionId: duplicate.subscriptionId,
        idempotencyKey: `duplicate-${duplicate.subscriptionId}`,
      });
      deps.logger.warn({ organizationId: input.organizationId, subscriptionId: duplicate.subscriptionId, checkoutSessionId: duplicate.checkoutSessionId, refundedCents: result.refundedCents }, 'duplicate subscription from a concurrent checkout canceled and refunded');
      return result;
    },

    async suspendDomainsForBilling(input: { organizationId: string }): Promise<{ suspended: number }> {
      // The suspend signals ride the outbox; the worker's dispatcher sweeps it every second.
      const { domainIds } = await billing.suspendForBilling(input.organizationId);
      deps.logger.warn({ organizationId: input.organizationId, domains: domainIds.length }, 'grace period over: domains suspended for billing');
      return { suspended: domainIds.length };
    },

    /** Paid again: resumes exactly the domains dunning suspended. */
    async resumeDomainsAfterBilling(input: { organizationId: string }): Promise<{ resumed: number }> {
      const { domainIds } = await billing.resumeAfterBilling(input.organizationId);
      deps.logger.info({ organizationId: input.organizationId, domains: domainIds.length }, 'paid again: billing suspensions resumed');
      return { resumed: domainIds.length };
    },
  };
}
