// Messages of the delivery workflow, shared by the workflow, the outbox dispatcher and the API.
import { defineQuery, defineSignal } from '@temporalio/workflow';

/** "Attempt now": resets the attempt count and cuts the current wait short (POST …/retry). */
export const retrySignal = defineSignal('retry');

export interface DeliveryWorkflowState {
  attempt: number;
  /** ISO time of the next attempt while waiting; null otherwise. */
  nextAttemptAt: string | null;
  status: 'pending' | 'succeeded' | 'failed' | 'skipped' | 'missing';
  retries: number;
}
export const deliveryStateQuery = defineQuery<DeliveryWorkflowState>('state');
