import {
  condition, continueAsNew, log, proxyActivities, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo,
} from '@temporalio/workflow';
import type { createBillingActivities } from '../../activities/billing.ts';
import type { BillingSignal, SubscriptionSnapshot } from '../../model/billing-events.ts';
import { HostgateBillingPlan, HostgateBillingStatus } from '../../contracts/search-attributes.ts';
import type { BillingWorkflowInput } from '../../contracts/billing-workflow.ts';
import { billingStateQuery, providerEventSignal, type BillingWorkflowState } from './signals.ts';

// Postgres and provider calls; retried with backoff without limit (a period close must happen
// eventually, and every activity is idempotent). A provider outage only delays the overage item.
const billing = proxyActivities<ReturnType<typeof createBillingActivities>>({
  startToCloseTimeout: '1 minute',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

const HOUR_MS = 3_600_000;

/**
 * One workflow per organization's subscription (`billing/<org id>`). Postgres already holds the
 * subscription's state (every provider event is applied there before it is signalled here); this
 * workflow owns what happens over time:
 * - at each period end: the period's peak is fixed and its overage invoiced, a local subscription
 *   renews;
 * - past_due longer than the grace period: the organization's domains are suspended (reason
 *   `billing`); paid again (active): exactly those resume;
 * - canceled: the running period is closed and invoiced, and the run ends (a later checkout
 *   starts a new one).
 */
export async function billingSubscriptionWorkflow(input: BillingWorkflowInput): Promise<void> {
  const { organizationId } = input;
  const inbox: BillingSignal[] = [];
  setHandler(providerEventSignal, (signal) => { inbox.push(signal); });
  const loaded = await billing.loadBillingState({ organizationId });
  const graceMs = loaded.graceHours * HOUR_MS;
  const state: BillingWorkflowState = {
    subscription: input.carry?.subscription ?? loaded.subscription,
    suspended: input.carry?.suspended ?? loaded.suspended,
    periodsClosed: 0,
    eventsHandled: 0,
  };
  setHandler(billingStateQuery, () => state);

  let indexed = '';
  const show = (sub: SubscriptionSnapshot | null) => {
    if (sub && input.searchAttributes !== false && indexed !== `${sub.plan}/${sub.status}`) {
      upsertSearchAttributes([{ key: HostgateBillingPlan, value: sub.plan }, { key: HostgateBillingStatus, value: sub.status }]);
      indexed = `${sub.plan}/${sub.status}`;
    }
    setCurrentDetails(sub
      ? `**${sub.plan}**, ${sub.status}; period ${sub.periodStart} → ${sub.periodEnd}${sub.status === 'past_due' && sub.pastDueSince ? `; past due since ${sub.pastDueSince}, domains ${state.suspended ? 'suspended' : `suspended at ${new Date(Date.parse(sub.pastDueSince) + graceMs).toISOString()}`}` : ''}`
      : 'no subscription');
  };

  const graceEnd = (sub: SubscriptionSnapshot) => (sub.status === 'past_due' && sub.pastDueSince && !state.suspended ? Date.parse(sub.pastDueSince) + graceMs : Infinity);

  for (;;) {
    const sub = state.subscription;
    show(sub);
    const nextAt = sub && sub.status !== 'canceled' ? Math.min(Date.parse(sub.periodEnd), graceEnd(sub)) : Infinity;
    if (inbox.length === 0) {
      if (nextAt === Infinity) await condition(() => inbox.length > 0);
      else if (nextAt > Date.now()) await condition(() => inbox.length > 0, nextAt - Date.now());
    }

    while (inbox.length > 0) {
      const signal = inbox.shift()!;
      state.eventsHandled++;
      const { event } = signal;
      if (signal.duplicate) {
        // A second checkout completed beside the live subscription: the live one stays unchanged.
        await billing.cancelDuplicateSubscription({ organizationId, duplicate: signal.duplicate });
        continue;
      }
      if (event.type === 'invoice.created' && state.subscription) {
        await billing.attachOverageToInvoice({ organizationId, providerInvoiceId: event.invoiceId, invoicePeriodEnd: event.periodEnd, plan: state.subscription.plan });
      }
      const before = state.subscription;
      state.subscription = signal.subscription;
      if (signal.subscription?.status === 'active' && state.suspended) {
        await billing.resumeDomainsAfterBilling({ organizationId });
        state.suspended = false;
      }
      if (signal.subscription?.status === 'canceled') {
        // The last period ends at the cancellation: its overage is invoiced like any other.
        if (before && before.status !== 'canceled') {
          await billing.closeBillingPeriod({ organizationId, periodStart: before.periodStart, periodEnd: before.periodEnd, plan: before.plan });
          state.periodsClosed++;
        }
        show(state.subscription);
        log.info('subscription canceled; billing workflow ends', { organizationId });
        return;
      }
    }

    const current = state.subscription;
    if (current && current.status !== 'canceled' && Date.now() >= Date.parse(current.periodEnd)) {
      const closed = await billing.closeBillingPeriod({ organizationId, periodStart: current.periodStart, periodEnd: current.periodEnd, plan: current.plan });
      state.periodsClosed++;
      // Stripe renews on its own and says so with an event; until then the next period is known.
      const next = closed.subscription && Date.parse(closed.subscription.periodEnd) > Date.parse(current.periodEnd)
        ? closed.subscription
        : { ...current, periodStart: current.periodEnd, periodEnd: new Date(Date.parse(current.periodEnd) + (Date.parse(current.periodEnd) - Date.parse(current.periodStart))).toISOString() };
      state.subscription = { ...next, status: current.status, pastDueSince: current.pastDueSince };
    }
    if (current && Date.now() >= graceEnd(current)) {
      await billing.suspendDomainsForBilling({ organizationId });
      state.suspended = true;
    }

    if (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > 2_000) {
      await condition(() => inbox.length === 0);
      return continueAsNew<typeof billingSubscriptionWorkflow>({ ...input, carry: { subscription: state.subscription, suspended: state.suspended } });
    }
  }
}
