import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { WebhookAttempt, WebhookAttemptListParams, WebhookDelivery, WebhookDeliveryListParams } from '../types.ts';
import { pathOf, Resource } from './resource.ts';

/** One event sent to one endpoint: status, attempt count, last response, next attempt. */
export class WebhookDeliveries extends Resource {
  /** GET /v1/webhook-deliveries: newest first; filters `endpoint_id`, `status`. */
  list(params?: WebhookDeliveryListParams, options?: ReadOptions): PageList<WebhookDelivery> {
    return this.pages('/v1/webhook-deliveries', params, options);
  }

  /** GET /v1/webhook-deliveries/{id}. */
  async retrieve(id: string, options?: ReadOptions): Promise<WithResponse<WebhookDelivery>> {
    return this.one({ method: 'GET', path: pathOf('webhook-deliveries', id), options });
  }

  /** GET /v1/webhook-deliveries/{id}/attempts: newest first (time, duration, response code, first 1 KiB of the body). */
  attempts(id: string, params?: WebhookAttemptListParams, options?: ReadOptions): PageList<WebhookAttempt> {
    return this.pages(pathOf('webhook-deliveries', id, '/attempts'), params, options);
  }

  /** POST /v1/webhook-deliveries/{id}/retry (scope webhooks:write): reset to `pending`, attempted at once. */
  async retry(id: string, options: WriteOptions): Promise<WithResponse<WebhookDelivery>> {
    return this.one({ method: 'POST', path: pathOf('webhook-deliveries', id, '/retry'), idempotencyKey: options?.idempotencyKey, options });
  }
}
