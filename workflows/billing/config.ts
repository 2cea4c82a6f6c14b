// One workflow per organization's subscription, `billing/<org id>`: the id is the dedup scope. A
// provider event is a signal-with-start, so the first event starts it and later ones find it; a
// run ends when the subscription is canceled, and the next checkout starts a new run.
import type { SubscriptionSnapshot } from '../../model/billing-events.ts';
export { billingWorkflowId } from '../../billing/handle-event.ts';

export const BILLING_WORKFLOW = 'billingSubscriptionWorkflow';

export interface BillingWorkflowInput {
  organizationId: string;
  /** False only where the server cannot index custom search attributes (time-skipping tests). */
  searchAttributes?: boolean;
  /** Set by continue-as-new: what the previous run knew. */
  carry?: { subscription: SubscriptionSnapshot | null; suspended: boolean };
}
