import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { RotatedWebhookEndpoint, WebhookEndpoint, WebhookEndpointCreateParams, WebhookEndpointListParams, WebhookEndpointUpdateParams, WebhookEndpointWithSecret } from '../types.ts';
import { Resource } from './resource.ts';
/** Where signed event deliveries go. The signing `secret` is shown only by create and rotateSecret. */
export declare class WebhookEndpoints extends Resource {
    /** POST /v1/webhook-endpoints (scope webhooks:write): the endpoint with its `secret`, shown once. */
    create(params: WebhookEndpointCreateParams, options: WriteOptions): Promise<WithResponse<WebhookEndpointWithSecret>>;
    /** GET /v1/webhook-endpoints: newest first. */
    list(params?: WebhookEndpointListParams, options?: ReadOptions): PageList<WebhookEndpoint>;
    /** GET /v1/webhook-endpoints/{id}. */
    retrieve(id: string, options?: ReadOptions): Promise<WithResponse<WebhookEndpoint>>;
    /** PATCH /v1/webhook-endpoints/{id}: `url`, `events`, `enabled`, `description` (at least one). */
    update(id: string, params: WebhookEndpointUpdateParams, options: WriteOptions): Promise<WithResponse<WebhookEndpoint>>;
    /** DELETE /v1/webhook-endpoints/{id}. */
    delete(id: string, options: WriteOptions): Promise<WithResponse<WebhookEndpoint>>;
    /**
     * POST /v1/webhook-endpoints/{id}/rotate-secret: a new `secret`, shown once. The old one keeps
     * signing beside it for 24 h (deliveries carry two `v1=` signatures), so receivers can switch.
     */
    rotateSecret(id: string, options: WriteOptions): Promise<WithResponse<RotatedWebhookEndpoint>>;
}
