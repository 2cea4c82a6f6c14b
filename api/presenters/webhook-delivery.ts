import type { Static } from 'typebox';
import type { WebhookAttemptRow, WebhookDeliveryRow } from '../../db/repositories/webhook-deliveries.ts';
import type { EventKind } from '../../model/domain-status.ts';
import type { WebhookAttempt, WebhookDelivery } from '../schemas/webhook-deliveries.ts';
import { timestamp, timestampOrNull } from './timestamps.ts';

/** The delivery record: the spec's fields and `attempting` (docs/api-decisions.md, "Webhooks"); no organization id, nothing internal. */
export function presentWebhookDelivery(d: WebhookDeliveryRow): Static<typeof WebhookDelivery> {
  return {
    id: d.id,
    endpoint_id: d.endpoint_id,
    event_id: d.event_id,
    // Stored by the fan-out from the event's kind, one of eventKinds.
    event: d.event as EventKind,
    status: d.status,
    attempt_count: d.attempt_count,
    attempting: d.attempting,
    last_response_code: d.last_response_code,
    last_error: d.last_error,
    next_attempt_at: timestampOrNull(d.next_attempt_at),
    created_at: timestamp(d.created_at),
    updated_at: timestamp(d.updated_at),
  };
}

/** An attempt: its number is the one over the delivery's life (continuing across retry requests). */
export function presentWebhookAttempt(a: WebhookAttemptRow): Static<typeof WebhookAttempt> {
  return {
    id: a.id,
    attempt_number: a.sequence_number,
    started_at: timestamp(a.started_at),
    duration_ms: a.duration_ms,
    response_code: a.response_code,
    response_body: a.response_body,
    error: a.error,
  };
}
