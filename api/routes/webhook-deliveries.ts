import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireCursorOf } from '../../db/pagination.ts';
import { webhookDeliveriesRepository } from '../../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../../db/repositories/webhook-endpoints.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { writeAndAnswer } from '../plugins/idempotency.ts';
import { presentWebhookAttempt, presentWebhookDelivery } from '../presenters/webhook-delivery.ts';
import { DataOf, ListQuery, PageOf } from '../schemas/common.ts';
import { ListWebhookDeliveriesQuery, WebhookAttempt, WebhookDelivery, WebhookDeliveryIdParams } from '../schemas/webhook-deliveries.ts';

export const webhookDeliveryRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, dispatcher } = app.deps;
  const deliveries = webhookDeliveriesRepository(db);
  const endpoints = webhookEndpointsRepository(db, app.secretBox);
  const notFound = (id: string) => new ApiError('webhook_delivery_not_found', `webhook delivery ${id} does not exist`, { param: 'id' });

  app.get('/webhook-deliveries', {
    config: { apiKey: true },
    schema: {
      tags: ['webhook-deliveries'], operationId: 'webhookDeliveries.list', summary: 'List webhook deliveries, newest first; filter by endpoint_id and status',
      description: 'Lists the deliveries of every event to every endpoint of the organization, newest first, a page at a time.',
      querystring: ListWebhookDeliveriesQuery,
      response: { 200: PageOf(WebhookDelivery, 'A page of webhook deliveries') },
    },
  }, async (request) => {
    const q = request.query;
    requireCursorOf(q.cursor, 'webhookDelivery');
    return deliveries.list(principalOf(request).organizationId, { endpointId: q.endpoint_id, status: q.status }, { limit: q.limit ?? 20, cursor: q.cursor }, presentWebhookDelivery);
  });

  app.get('/webhook-deliveries/:id', {
    config: { apiKey: true, errors: ['webhook_delivery_not_found'] },
    schema: {
      tags: ['webhook-deliveries'], operationId: 'webhookDeliveries.retrieve', summary: 'Read a webhook delivery: status, attempt count, last response code and error, next attempt',
      description: 'Reads a delivery: `pending` while attempts remain (`attempting: true` while one is out, else `next_attempt_at` says when the next is due), then `succeeded` or `failed` with the last response code and error.',
      params: WebhookDeliveryIdParams,
      response: { 200: DataOf(WebhookDelivery, 'The webhook delivery') },
    },
  }, async (request) => {
    const delivery = await deliveries.get(principalOf(request).organizationId, request.params.id);
    if (!delivery) throw notFound(request.params.id);
    return { data: presentWebhookDelivery(delivery) };
  });

  app.get('/webhook-deliveries/:id/attempts', {
    config: { apiKey: true, errors: ['webhook_delivery_not_found'] },
    schema: {
      tags: ['webhook-deliveries'], operationId: 'webhookDeliveries.listAttempts', summary: 'List the attempts of a webhook delivery, newest first: time, duration, response code, first 1 KiB of the response body',
      description: 'Lists every HTTP request made for a delivery, newest first, numbered over the delivery\'s life (a retry request does not start again at 1).',
      params: WebhookDeliveryIdParams,
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: PageOf(WebhookAttempt, 'A page of attempts') },
    },
  }, async (request) => {
    const page = await deliveries.listAttempts(principalOf(request).organizationId, request.params.id, { limit: request.query.limit ?? 20, cursor: request.query.cursor }, presentWebhookAttempt);
    if (!page) throw notFound(request.params.id);
    return page;
  });

  app.post('/webhook-deliveries/:id/retry', {
    config: { apiKey: true, scope: 'webhooks:write', idempotent: true, errors: ['webhook_delivery_not_found', 'webhook_endpoint_disabled', 'webhook_endpoint_deleted'] },
    schema: {
      tags: ['webhook-deliveries'], operationId: 'webhookDeliveries.retry', summary: 'Retry a delivery now',
      description: 'Resets the delivery to `pending` with `attempt_count` 0 and makes a new attempt at once, also on a failed or succeeded one (sent again). A failing retry follows the schedule again from 5 s. Refused while the endpoint is disabled or deleted.',
      params: WebhookDeliveryIdParams,
      response: { 200: DataOf(WebhookDelivery, 'The delivery, reset to `pending`') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    // A retry to an endpoint that will not be called fails at once with nothing learnt: refused
    // here instead of answering 200 and failing behind the caller's back (issue 14).
    const existing = await deliveries.get(organizationId, request.params.id);
    if (!existing) throw notFound(request.params.id);
    const endpoint = await endpoints.get(organizationId, existing.endpoint_id);
    if (!endpoint) throw new ApiError('webhook_endpoint_deleted', `the endpoint of delivery ${request.params.id} (${existing.endpoint_id}) was deleted; nothing can be delivered to it`, { param: 'id', details: { endpoint_id: existing.endpoint_id } });
    if (!endpoint.enabled) throw new ApiError('webhook_endpoint_disabled', `the endpoint of delivery ${request.params.id} (${existing.endpoint_id}) is disabled (${endpoint.disabled_reason ?? 'manual'}); enable it with PATCH /v1/webhook-endpoints/${existing.endpoint_id} {"enabled": true}, then retry`, { param: 'id', details: { endpoint_id: existing.endpoint_id, disabled_reason: endpoint.disabled_reason } });
    let outboxId = 0;
    const answer = await writeAndAnswer(request, reply, 200, async (tx) => {
      const result = await deliveries.resetForRetry(organizationId, request.params.id, tx);
      if (!result) throw notFound(request.params.id);
      outboxId = result.outboxId;
      return { data: presentWebhookDelivery(result.delivery) };
    });
    // The reset, its signal and the key's answer are committed together; dispatching right away
    // is the fast path, the worker's outbox sweep covers a dispatch that fails (Temporal down,
    // process killed).
    void dispatcher?.kick([outboxId]);
    return answer;
  });
};
