import { pathOf, Resource } from "./resource.js";
/** Where signed event deliveries go. The signing `secret` is shown only by create and rotateSecret. */
export class WebhookEndpoints extends Resource {
    /** POST /v1/webhook-endpoints (scope webhooks:write): the endpoint with its `secret`, shown once. */
    async create(params, options) {
        return this.one({ method: 'POST', path: '/v1/webhook-endpoints', body: params, idempotencyKey: options?.idempotencyKey, options });
    }
    /** GET /v1/webhook-endpoints: newest first. */
    list(params, options) {
        return this.pages('/v1/webhook-endpoints', params, options);
    }
    /** GET /v1/webhook-endpoints/{id}. */
    async retrieve(id, options) {
        return this.one({ method: 'GET', path: pathOf('webhook-endpoints', id), options });
    }
    /** PATCH /v1/webhook-endpoints/{id}: `url`, `events`, `enabled`, `description` (at least one). */
    async update(id, params, options) {
        return this.one({ method: 'PATCH', path: pathOf('webhook-endpoints', id), body: params, idempotencyKey: options?.idempotencyKey, options });
    }
    /** DELETE /v1/webhook-endpoints/{id}. */
    async delete(id, options) {
        return this.one({ method: 'DELETE', path: pathOf('webhook-endpoints', id), idempotencyKey: options?.idempotencyKey, options });
    }
    /**
     * POST /v1/webhook-endpoints/{id}/rotate-secret: a new `secret`, shown once. The old one keeps
     * signing beside it for 24 h (deliveries carry two `v1=` signatures), so receivers can switch.
     */
    async rotateSecret(id, options) {
        return this.one({ method: 'POST', path: pathOf('webhook-endpoints', id, '/rotate-secret'), idempotencyKey: options?.idempotencyKey, options });
    }
}
