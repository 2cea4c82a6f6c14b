import { pathOf, Resource } from "./resource.js";
/** One event sent to one endpoint: status, attempt count, last response, next attempt. */
export class WebhookDeliveries extends Resource {
    /** GET /v1/webhook-deliveries: newest first; filters `endpoint_id`, `status`. */
    list(params, options) {
        return this.pages('/v1/webhook-deliveries', params, options);
    }
    /** GET /v1/webhook-deliveries/{id}. */
    async retrieve(id, options) {
        return this.one({ method: 'GET', path: pathOf('webhook-deliveries', id), options });
    }
    /** GET /v1/webhook-deliveries/{id}/attempts: newest first (time, duration, response code, first 1 KiB of the body). */
    attempts(id, params, options) {
        return this.pages(pathOf('webhook-deliveries', id, '/attempts'), params, options);
    }
    /** POST /v1/webhook-deliveries/{id}/retry (scope webhooks:write): reset to `pending`, attempted at once. */
    async retry(id, options) {
        return this.one({ method: 'POST', path: pathOf('webhook-deliveries', id, '/retry'), idempotencyKey: options?.idempotencyKey, options });
    }
}
