import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { WebhookAttempt, WebhookAttemptListParams, WebhookDelivery, WebhookDeliveryListParams } from '../types.ts';
import { Resource } from './resource.ts';
/** One event sent to one endpoint: status, attempt count, last response, next attempt. */
export declare class WebhookDeliveries extends Resource {
    /** GET /v1/webhook-deliveries: newest first; filters `endpoint_id`, `status`. */
    list(params?: WebhookDeliveryListParams, options?: ReadOptions): PageList<WebhookDelivery>;
    /** GET /v1/webhook-deliveries/{id}. */
    retrieve(id: string, options?: ReadOptions): Promise<WithResponse<WebhookDelivery>>;
    /** GET /v1/webhook-deliveries/{id}/attempts: newest first (time, duration, response code, first 1 KiB of the body). */
    attempts(id: string, params?: WebhookAttemptListParams, options?: ReadOptions): PageList<WebhookAttempt>;
    /** POST /v1/webhook-deliveries/{id}/retry (scope webhooks:write): reset to `pending`, attempted at once. */
    retry(id: string, options: WriteOptions): Promise<WithResponse<WebhookDelivery>>;
}
