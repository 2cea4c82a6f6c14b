import { Type } from 'typebox';
import { deliveryStatuses } from '../../db/repositories/webhook-deliveries.ts';
import { IdParams, ListQuery, named, StringEnum, Timestamp } from './common.ts';
import { EventKind } from './webhook-events.ts';

export const DeliveryStatus = named('WebhookDeliveryStatus', StringEnum(deliveryStatuses, {
  description: '`pending` (an attempt is due or running), `succeeded` (a 2xx answer), `failed` (8 attempts failed, the endpoint answered 410 Gone, is disabled or deleted, or no longer subscribes to the event)',
}));

// The delivery record: the fields of decisions.md plus `attempting` (docs/api-decisions.md, "Webhooks").
export const WebhookDelivery = named('WebhookDelivery', Type.Object({
  id: Type.String({ description: 'Identifier (whd_…)' }),
  endpoint_id: Type.String({ description: 'The webhook endpoint (whe_…) delivered to' }),
  event_id: Type.String({ description: 'The event (evt_…); the `id` of the delivered body and of `Service-Event-Id`, the same on every attempt' }),
  event: EventKind,
  status: DeliveryStatus,
  attempt_count: Type.Integer({ minimum: 0, description: 'Attempts finished since creation or the last retry request (the attempts list numbers every attempt of the delivery\'s life)' }),
  attempting: Type.Boolean({ description: 'True while an attempt is out (the request is being made): `status` is `pending`, `next_attempt_at` null, and `attempt_count` counts it once it ends' }),
  last_response_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status of the last attempt; null before the first, when no answer came (timeout, connection error, refused target), or when the delivery ended without sending (endpoint disabled, deleted or unsubscribed: see last_error)' }),
  last_error: Type.Union([Type.String(), Type.Null()], { description: 'Why the last attempt failed, or why the delivery ended without one; null after a success' }),
  next_attempt_at: Type.Union([Timestamp, Type.Null()], { description: 'When the next attempt is due; null while an attempt is out (`attempting`) and once the delivery succeeded or failed' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { description: 'One event sent to one webhook endpoint' }));

export const WebhookAttempt = named('WebhookAttempt', Type.Object({
  id: Type.String({ description: 'Identifier (wha_…)' }),
  attempt_number: Type.Integer({ minimum: 1, description: "The attempt's number in the delivery's life: 1, 2, …, continuing across retry requests (a retry's first attempt follows the last one)" }),
  started_at: Timestamp,
  duration_ms: Type.Integer({ minimum: 0, description: 'From the start of the request to the answer (or the failure)' }),
  response_code: Type.Union([Type.Integer(), Type.Null()], { description: 'HTTP status; null when no answer came' }),
  response_body: Type.Union([Type.String(), Type.Null()], { description: 'The first 1 KiB of the response body, as text' }),
  error: Type.Union([Type.String(), Type.Null()], { description: 'Why the attempt got no usable answer (timeout, connection error, refused target, redirect); null otherwise' }),
}, { description: 'One HTTP request of a delivery and what came back' }));

export const WebhookDeliveryIdParams = IdParams('webhook delivery');

export const ListWebhookDeliveriesQuery = Type.Object({
  ...ListQuery,
  endpoint_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Only deliveries to this endpoint' })),
  status: Type.Optional({ ...DeliveryStatus, description: 'Only deliveries with this status' }),
}, { additionalProperties: false });
