// Messages of the billing workflow, shared by the workflow and its client.
import { defineQuery, defineSignal } from '@temporalio/workflow';
import type { BillingSignal, SubscriptionSnapshot } from '../../model/billing-events.ts';

/** A provider event, already applied to Postgres, with the subscription as it stands after it. */
export const providerEventSignal = defineSignal<[BillingSignal]>('providerEvent');

export interface BillingWorkflowState {
  subscription: SubscriptionSnapshot | null;
  /** Dunning suspended the organization's domains and they have not been resumed yet. */
  suspended: boolean;
  periodsClosed: number;
  eventsHandled: number;
}
export const billingStateQuery = defineQuery<BillingWorkflowState>('state');
