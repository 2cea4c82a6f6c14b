import { Resource } from "./resource.js";
/** Short-lived tokens for the `<service-widget>` in your customers' browsers. */
export class WidgetSessions extends Resource {
    /**
     * POST /v1/widget-sessions (scope widget:write): hand only `token` to the browser (valid
     * `expires_in` = 1800 s, bound to `allowed_origins`); the API key stays on your server.
     */
    async create(params, options) {
        return this.one({ method: 'POST', path: '/v1/widget-sessions', body: params, idempotencyKey: options?.idempotencyKey, options });
    }
}
