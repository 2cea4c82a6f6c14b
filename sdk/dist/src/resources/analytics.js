import { Resource } from "./resource.js";
/** The organization's traffic: totals and its top hostnames (per domain: `domains.analytics`). */
export class Analytics extends Resource {
    /**
     * GET /v1/analytics: totals over [`from`, `to`) and a page of hostnames by `sort` (requests,
     * errors or bytes); pass `next_cursor` as `cursor` (same other parameters) for the next page.
     */
    async retrieve(params, options) {
        return this.one({ method: 'GET', path: '/v1/analytics', query: { ...(params ?? {}) }, options });
    }
}
