// Provider events in one provider-neutral shape. Stripe's webhook events and the local provider's
// page buttons are both turned into these, and from here on share one code path
// (billing/handle-event.ts): recorded once per event id, applied to Postgres, signalled to the
// organization's billing workflow.
import type { PlanName } from './plans.ts';

export type SubscriptionStatus = 'active' | 'past_due' | 'canceled';

export type BillingEvent =
  /** A checkout was paid: the subscription exists, its first period starts. */
  | { type: 'checkout.completed'; organizationId: string; checkoutSessionId: string; plan: PlanName; customerId: string | null; subscriptionId: string; periodStart: string; periodEnd: string }
  /** The provider's view of the subscription changed (plan, status, period). */
  | { type: 'subscription.updated'; subscriptionId: string; plan: PlanName | null; status: SubscriptionStatus; periodStart: string; periodEnd: string }
  | { type: 'subscription.canceled'; subscriptionId: string }
  | { type: 'invoice.paid'; subscriptionId: string }
  | { type: 'invoice.payment_failed'; subscriptionId: string }
  /** A renewal invoice was opened (Stripe): the place for the closed period's overage item. */
  | { type: 'invoice.created'; subscriptionId: string; invoiceId: string; periodStart: string; periodEnd: string };

export type BillingEventType = BillingEvent['type'];

/** What the billing workflow knows of the subscription after an event (null: none). */
export interface SubscriptionSnapshot {
  plan: PlanName;
  status: SubscriptionStatus;
  periodStart: string;
  periodEnd: string;
  /** ISO time the subscription became past_due (start of the grace period); null otherwise. */
  pastDueSince: string | null;
  provider: 'local' | 'stripe';
}

/** A second subscription a concurrent checkout created beside the live one: to cancel and refund. */
export interface DuplicateSubscription {
  subscriptionId: string;
  customerId: string | null;
  checkoutSessionId: string;
}

/** The signal payload: the event, and the subscription as Postgres has it after applying it. */
export interface BillingSignal {
  eventId: string;
  event: BillingEvent;
  subscription: SubscriptionSnapshot | null;
  /** Set when the event was a checkout completed beside a live subscription (kept as it was). */
  duplicate?: DuplicateSubscription;
}
