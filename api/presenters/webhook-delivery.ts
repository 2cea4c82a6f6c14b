import type { Static } from 'typebox';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../../db/repositories/webhook-deliveries.ts';
import type { WebhookAttempt, WebhookDelivery } from '../schemas/webhook-deliveries.ts';

/** The delivery record, exactly the spec's fields (docs/api-decisions.md, "Webhooks"): no organization id, nothing internal. */
export function presentWebhookDelivery(d: WebhookDeliveryRow): Static<typeof WebhookDelivery> {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    event: d.event,
    status: d.status,
    attempt_count: d.attempt_count,
    last_response_code: d.last_response_code,
    last_error: d.last_error,
    next_attempt_at: d.next_attempt_at,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}

export function presentWebhookAttempt(a: WebhookAttemptRow): Static<typeof WebhookAttempt> {
  return {
    attempt_number: a.attempt_number,
    started_at: a.started_at,
    duration_ms: a.duration_ms,
    response_code: a.response_code,
    response_body: a.response_body,
    error: a.error,
  };
}
