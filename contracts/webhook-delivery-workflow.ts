// The delivery workflow's contract with the rest of the system: its id, name, input and result.
// db/ and activities/ import these from here; this module imports nothing of ours, so it is safe
// everywhere (the workflow bundle takes its types only).
import { Type, type Static } from 'typebox';

// Workflow ids are the dedup scope: one workflow id per delivery (`webhook-delivery/<id>`). A
// repeated start (outbox re-dispatch) finds the running or finished one and is a no-op; only the
// API's retry starts a new run of a finished one (signal-with-start, duplicates allowed).
export const WEBHOOK_DELIVERY_WORKFLOW_PREFIX = 'webhook-delivery/';

export function webhookDeliveryWorkflowId(deliveryId: string): string {
  return `${WEBHOOK_DELIVERY_WORKFLOW_PREFIX}${deliveryId}`;
}

export const WEBHOOK_DELIVERY_WORKFLOW = 'webhookDeliveryWorkflow';

/** Outbox payload of `start_delivery` and `retry_delivery` rows: what the workflow client needs. */
export const DeliveryWorkflowPayload = Type.Object({
  deliveryId: Type.String({ minLength: 1 }),
  endpointId: Type.String({ minLength: 1 }),
  organizationId: Type.String({ minLength: 1 }),
  /** The event kind, for the Temporal UI. */
  event: Type.String({ minLength: 1 }),
  /** False only where the server cannot index custom search attributes (time-skipping tests). */
  searchAttributes: Type.Optional(Type.Boolean()),
});
export type DeliveryWorkflowPayload = Static<typeof DeliveryWorkflowPayload>;

export interface WebhookDeliveryInput extends DeliveryWorkflowPayload {
  /** Set by continue-as-new: where the previous run stood. */
  carry?: { attempt: number; waitMs: number };
}

export interface WebhookDeliveryResult {
  status: 'succeeded' | 'failed' | 'skipped' | 'missing';
  /** Attempts made since the last reset (creation or retry). */
  attempts: number;
}
