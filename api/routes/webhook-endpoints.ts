import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireCursorOf } from '../../db/pagination.ts';
import { webhookDeliveriesRepository } from '../../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../../db/repositories/webhook-endpoints.ts';
import { eventKinds } from '../../model/domain-status.ts';
import { parseWebhookUrl, resolvesToPrivate } from '../../security/outbound-url.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { writeAndAnswer } from '../plugins/idempotency.ts';
import { presentCreatedWebhookEndpoint, presentRotatedWebhookEndpoint, presentWebhookEndpoint } from '../presenters/webhook-endpoint.ts';
import { DataOf, ListQuery, PageOf } from '../schemas/common.ts';
import {
  CreateWebhookEndpointBody, RotatedWebhookEndpoint, UpdateWebhookEndpointBody, WebhookEndpoint, WebhookEndpointIdParams, WebhookEndpointWithSecret,
} from '../schemas/webhook-endpoints.ts';

const knownKinds: ReadonlySet<string> = new Set(eventKinds);

/** `events` is ['*'] or a list of known kinds (the schema already made it non-empty and unique). */
function checkEvents(events: readonly string[]): string[] {
  if (events.includes('*')) {
    if (events.length > 1) throw new ApiError('invalid_request', 'events: "*" already subscribes to every event; send ["*"] alone or a list of event kinds', { param: 'events' });
    return ['*'];
  }
  const unknown = events.filter((e) => !knownKinds.has(e));
  if (unknown.length) {
    throw new ApiError('invalid_request', `events: unknown event kind${unknown.length > 1 ? 's' : ''} ${unknown.map((e) => JSON.stringify(e)).join(', ')}; known kinds are ${eventKinds.join(', ')}, or "*" for all`, { param: 'events', details: { unknown, known: [...eventKinds, '*'] } });
  }
  return [...events];
}

/**
 * Unknown kinds are named before the schema's enum refuses them (preValidation runs first), with
 * the known ones in `details`: a typo gets the list of what exists.
 */
async function namesUnknownKinds(request: { body: unknown }): Promise<void> {
  const events = (request.body as { events?: unknown } | null | undefined)?.events;
  if (Array.isArray(events) && events.length > 0 && events.every((e) => typeof e === 'string')) checkEvents(events);
}

export const webhookEndpointRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config } = app.deps;
  const endpoints = webhookEndpointsRepository(db, app.secretBox);
  const deliveries = webhookDeliveriesRepository(db);
  const notFound = (id: string) => new ApiError('webhook_endpoint_not_found', `webhook endpoint ${id} does not exist`, { param: 'id' });
  const checkUrl = async (url: string) => {
    const parsed = parseWebhookUrl(url, { allowPrivate: config.allowPrivateTargets });
    if (!parsed.ok) throw new ApiError('invalid_request', parsed.message, { param: 'url' });
    // A name that resolves to a private address now is refused now; one that does not resolve
    // (yet) is accepted. Either way every delivery checks the address it connects to again.
    const problem = await resolvesToPrivate(new URL(parsed.url).hostname, { allowPrivate: config.allowPrivateTargets, lookup: app.deps.dnsLookup });
    if (problem) throw new ApiError('invalid_request', problem, { param: 'url' });
    return parsed.url;
  };

  app.post('/webhook-endpoints', {
    config: { apiKey: true, scope: 'webhooks:write', idempotent: true },
    preValidation: namesUnknownKinds,
    schema: {
      tags: ['webhook-endpoints'], operationId: 'webhookEndpoints.create', summary: 'Create a webhook endpoint; the response carries its signing secret, shown only this once',
      description: 'Creates an endpoint that receives the events of the kinds in `events` (default every kind). Deliveries are signed with the secret in this response (`Service-Signature`), which is never shown again. The URL must be https and its host public; every delivery checks the address it connects to again.',
      body: CreateWebhookEndpointBody,
      response: { 201: DataOf(WebhookEndpointWithSecret, 'The endpoint with its signing secret (shown only now)') },
    },
  }, async (request, reply) => {
    const url = await checkUrl(request.body.url);
    const events = checkEvents(request.body.events ?? ['*']);
    // The endpoint and the key's 201 (with the secret, sealed) commit together (writeAndAnswer).
    const answer = await writeAndAnswer(request, reply, 201, async (tx) => {
      const { endpoint, secret } = await endpoints.create({ organizationId: principalOf(request).organizationId, url, events, description: request.body.description ?? null }, tx);
      return { data: presentCreatedWebhookEndpoint(endpoint, secret) };
    });
    return reply.code(201).send(answer);
  });

  app.get('/webhook-endpoints', {
    config: { apiKey: true },
    schema: {
      tags: ['webhook-endpoints'], operationId: 'webhookEndpoints.list', summary: 'List webhook endpoints, newest first',
      description: "Lists the organization's webhook endpoints (without their secrets), newest first, a page at a time.",
      querystring: Type.Object(ListQuery, { additionalProperties: false }),
      response: { 200: PageOf(WebhookEndpoint, 'A page of webhook endpoints') },
    },
  }, async (request) => {
    requireCursorOf(request.query.cursor, 'webhookEndpoint');
    return endpoints.list(principalOf(request).organizationId, { limit: request.query.limit ?? 20, cursor: request.query.cursor }, presentWebhookEndpoint);
  });

  app.get('/webhook-endpoints/:id', {
    config: { apiKey: true, errors: ['webhook_endpoint_not_found'] },
    schema: {
      tags: ['webhook-endpoints'], operationId: 'webhookEndpoints.retrieve', summary: 'Read a webhook endpoint (without its secret)',
      description: 'Reads a webhook endpoint: URL, subscribed kinds, whether it is enabled and why not. The secret is never shown again after creation or rotation.',
      params: WebhookEndpointIdParams,
      response: { 200: DataOf(WebhookEndpoint, 'The webhook endpoint') },
    },
  }, async (request) => {
    const endpoint = await endpoints.get(principalOf(request).organizationId, request.params.id);
    if (!endpoint) throw notFound(request.params.id);
    return { data: presentWebhookEndpoint(endpoint) };
  });

  app.patch('/webhook-endpoints/:id', {
    config: { apiKey: true, scope: 'webhooks:write', idempotent: true, errors: ['webhook_endpoint_not_found'] },
    preValidation: namesUnknownKinds,
    schema: {
      tags: ['webhook-endpoints'], operationId: 'webhookEndpoints.update', summary: 'Update a webhook endpoint: url, events, enabled, description (at least one)',
      description: "Changes an endpoint. `enabled: false` pauses deliveries (pending ones fail at their next attempt) and `true` resumes them; narrowing `events` cancels the endpoint's pending deliveries of the kinds dropped (`failed`, with `last_error` saying so).",
      params: WebhookEndpointIdParams,
      body: UpdateWebhookEndpointBody,
      response: { 200: DataOf(WebhookEndpoint, 'The webhook endpoint as changed') },
    },
  }, async (request, reply) => {
    const body = request.body;
    if (body.url === undefined && body.events === undefined && body.enabled === undefined && body.description === undefined) {
      throw new ApiError('invalid_request', 'send at least one of url, events, enabled, description');
    }
    const patch = {
      url: body.url === undefined ? undefined : await checkUrl(body.url),
      events: body.events === undefined ? undefined : checkEvents(body.events),
      enabled: body.enabled,
      description: body.description,
    };
    return writeAndAnswer(request, reply, 200, async (tx) => {
      const endpoint = await endpoints.update(principalOf(request).organizationId, request.params.id, patch, tx);
      if (!endpoint) throw notFound(request.params.id);
      // Deliveries queued for kinds the endpoint no longer wants are not sent (issue 25).
      if (patch.events) await deliveries.cancelUnsubscribed(endpoint.id, patch.events, tx);
      return { data: presentWebhookEndpoint(endpoint) };
    });
  });

  app.delete('/webhook-endpoints/:id', {
    config: { apiKey: true, scope: 'webhooks:write', idempotent: true, errors: ['webhook_endpoint_not_found'] },
    schema: {
      tags: ['webhook-endpoints'], operationId: 'webhookEndpoints.delete', summary: 'Delete a webhook endpoint; it receives no further deliveries',
      description: 'Deletes an endpoint: its pending deliveries fail at their next attempt without sending, and its delivery log stays readable.',
      params: WebhookEndpointIdParams,
      response: { 200: DataOf(WebhookEndpoint, 'The endpoint as it was, now deleted') },
    },
  }, async (request, reply) => writeAndAnswer(request, reply, 200, async (tx) => {
    const endpoint = await endpoints.delete(principalOf(request).organizationId, request.params.id, tx);
    if (!endpoint) throw notFound(request.params.id);
    return { data: presentWebhookEndpoint(endpoint) };
  }));

  app.post('/webhook-endpoints/:id/rotate-secret', {
    config: { apiKey: true, scope: 'webhooks:write', idempotent: true, errors: ['webhook_endpoint_not_found'] },
    schema: {
      tags: ['webhook-endpoints'], operationId: 'webhookEndpoints.rotateSecret', summary: 'Replace the signing secret; the previous one keeps signing beside it for 24 h',
      description: 'Makes a new signing secret, shown only in this answer. For 24 h deliveries carry two `v1=` signatures (new and previous secret), so you can switch your receiver over without missing one.',
      params: WebhookEndpointIdParams,
      response: { 200: DataOf(RotatedWebhookEndpoint, 'The endpoint with its new secret (shown only now)') },
    },
  }, async (request, reply) => writeAndAnswer(request, reply, 200, async (tx) => {
    // The new secret is in the stored answer (sealed at rest): a retry after a lost answer gets
    // this secret back instead of rotating again and dropping the one still in use.
    const rotated = await endpoints.rotateSecret(principalOf(request).organizationId, request.params.id, tx);
    if (!rotated) throw notFound(request.params.id);
    return { data: presentRotatedWebhookEndpoint(rotated.endpoint, rotated.secret) };
  }));
};
