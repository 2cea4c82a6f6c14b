// Workflow ids are the dedup scope: one workflow id per delivery (`webhook-delivery/<id>`). A
// repeated start (outbox re-dispatch) finds the running or finished one and is a no-op; only the
// API's retry starts a new run of a finished one (signal-with-start, duplicates allowed).
export { webhookDeliveryWorkflowId } from '../../db/repositories/webhook-deliveries.ts';

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

export interface WebhookDeliveryInput {
  deliveryId: string;
  endpointId: string;
  organizationId: string;
  /** The event kind, for the Temporal UI. */
  event: string;
  /** False only where the server cannot index custom search attributes (time-skipping tests). */
  searchAttributes?: boolean;
  /** Set by continue-as-new: where the previous run stood. */
  carry?: { attempt: number; waitMs: number };
}

export interface WebhookDeliveryResult {
  status: 'succeeded' | 'failed' | 'skipped' | 'missing';
  /** Attempts made since the last reset (creation or retry). */
  attempts: number;
}
