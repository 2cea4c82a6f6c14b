import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { RotatedWebhookEndpoint, WebhookEndpoint, WebhookEndpointCreateParams, WebhookEndpointListParams, WebhookEndpointUpdateParams, WebhookEndpointWithSecret } from '../types.ts';
import { pathOf, Resource } from './resource.ts';

/** Where signed event deliveries go. The signing `secret` is shown only by create and rotateSecret. */
export class WebhookEndpoints extends Resource {
  /** POST /v1/webhook-endpoints (scope webhooks:write): the endpoint with its `secret`, shown once. */
  async create(params: WebhookEndpointCreateParams, options: WriteOptions): Promise<WithResponse<WebhookEndpointWithSecret>> {
    return this.one({ method: 'POST', path: '/v1/webhook-endpoints', body: params, idempotencyKey: options?.idempotencyKey, options });
  }

  /** GET /v1/webhook-endpoints: newest first. */
  list(params?: WebhookEndpointListParams, options?: ReadOptions): PageList<WebhookEndpoint> {
    return this.pages('/v1/webhook-endpoints', params, options);
  }

  /** GET /v1/webhook-endpoints/{id}. */
  async retrieve(id: string, options?: ReadOptions): Promise<WithResponse<WebhookEndpoint>> {
    return this.one({ method: 'GET', path: pathOf('webhook-endpoints', id), options });
  }

  /** PATCH /v1/webhook-endpoints/{id}: `url`, `events`, `enabled`, `description` (at least one). */
  async update(id: string, params: WebhookEndpointUpdateParams, options: WriteOptions): Promise<WithResponse<WebhookEndpoint>> {
    return this.one({ method: 'PATCH', path: pathOf('webhook-endpoints', id), body: params, idempotencyKey: options?.idempotencyKey, options });
  }

  /** DELETE /v1/webhook-endpoints/{id}. */
  async delete(id: string, options: WriteOptions): Promise<WithResponse<WebhookEndpoint>> {
    return this.one({ method: 'DELETE', path: pathOf('webhook-endpoints', id), idempotencyKey: options?.idempotencyKey, options });
  }

  /**
   * POST /v1/webhook-endpoints/{id}/rotate-secret: a new `secret`, shown once. The old one keeps
   * signing beside it for 24 h (deliveries carry two `v1=` signatures), so receivers can switch.
   */
  async rotateSecret(id: string, options: WriteOptions): Promise<WithResponse<RotatedWebhookEndpoint>> {
    return this.one({ method: 'POST', path: pathOf('webhook-endpoints', id, '/rotate-secret'), idempotencyKey: options?.idempotencyKey, options });
  }
}
