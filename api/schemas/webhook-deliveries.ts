import { Type } from 'typebox';
import { deliveryStatuses } from '../../db/repositories/webhook-deliveries.ts';
import { eventKinds } from '../../model/domain-status.ts';
import { ListQuery, Timestamp } from './common.ts';

export const DeliveryStatus = Type.Union(deliveryStatuses.map((s) => Type.Literal(s)), {
  description: '`pending` (an attempt is due or running), `succeeded` (a 2xx answer), `failed` (8 attempts failed, the endpoint answered 410 Gone or is disabled)',
});

// The delivery record, exactly these fields (docs/api-decisions.md, "Webhooks").
export const WebhookDelivery = Type.Object({
  id: Type.String({ description: 'Identifier (whd_…)' }),
  endpoint_id: Type.String({ description: 'The webhook endpoint (whe_…) delivered to' }),
  event_id: Type.String({ description: 'The event (evt_…); the `id` of the delivered body and of `Service-Event-Id`, the same on every attempt' }),
  event: Type.String({ description: `The event kind: ${eventKinds.map((k) => `\`${k}\``).join(', ')}` }),
  status: DeliveryStatus,
  attempt_count: Type.Integer({ minimum: 0, description: 'Attempts made since creation or the last retry request' }),
  last_response_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null before the first or when no answer came (timeout, connection error, refused target)' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed; null after a success' }),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null once the delivery succeeded or failed' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { $id: 'WebhookDelivery' });

export const WebhookAttempt = Type.Object({
  attempt_number: Type.Integer({ minimum: 1, description: 'Which attempt since creation or the last retry request (1–8)' }),
  started_at: Timestamp,
  duration_ms: Type.Integer({ minimum: 0, description: 'From the start of the request to the answer (or the failure)' }),
  response_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when no answer came' }),
  response_body: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KiB of the response body, as text' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt got no usable answer (timeout, connection error, refused target, redirect); null otherwise' }),
}, { $id: 'WebhookAttempt' });

export const WebhookDeliveryIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });

export const ListWebhookDeliveriesQuery = Type.Object({
  ...ListQuery,
  endpoint_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only deliveries to this endpoint' })),
  status: Type.Optional(DeliveryStatus),
}, { additionalProperties: false });
