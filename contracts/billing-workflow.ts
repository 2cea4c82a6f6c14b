// One workflow per organization's subscription, `billing/<org id>`: the id is the dedup scope. A
// provider event is a signal-with-start, so the first event starts it and later ones find it; a
// run ends when the subscription is canceled, and the next checkout starts a new run.
import { Type, type Static } from 'typebox';
import type { BillingSignal, SubscriptionSnapshot } from '../model/billing-events.ts';

export const BILLING_WORKFLOW_PREFIX = 'billing/';

export function billingWorkflowId(organizationId: string): string {
  return `${BILLING_WORKFLOW_PREFIX}${organizationId}`;
}

/**
 * Outbox payload of a `signal_billing` row: a provider event for the organization's workflow
 * (signal-with-start). The check covers what the dispatcher relies on; the event's own fields
 * were validated where the provider's event was parsed (billing/).
 */
export const BillingSignalPayload = Type.Object({
  organizationId: Type.String({ minLength: 1 }),
  signal: Type.Unsafe<BillingSignal>(Type.Object({
    eventId: Type.String({ minLength: 1 }),
    event: Type.Object({ type: Type.String({ minLength: 1 }) }),
    subscription: Type.Union([Type.Null(), Type.Object({ plan: Type.String(), status: Type.String(), periodStart: Type.String(), periodEnd: Type.String() })]),
  })),
  searchAttributes: Type.Optional(Type.Literal(false)),
});
export type BillingSignalPayload = Static<typeof BillingSignalPayload>;

export const BILLING_WORKFLOW = 'billingSubscriptionWorkflow';

export interface BillingWorkflowInput {
  organizationId: string;
  /** False only where the server cannot index custom search attributes (time-skipping tests). */
  searchAttributes?: boolean;
  /** Set by continue-as-new: what the previous run knew. */
  carry?: { subscription: SubscriptionSnapshot | null; suspended: boolean };
}
