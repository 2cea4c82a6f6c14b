import { attachResponse } from "../transport.js";
import { pathOf, Resource } from "./resource.js";
/** Your customers' hostnames: DNS instructions, verification, certificate, status. */
export class Domains extends Resource {
    /** POST /v1/domains (scope domains:write): `pending_dns`, with the `dns_records` to set. */
    async create(params, options) {
        return this.one({ method: 'POST', path: '/v1/domains', body: params, idempotencyKey: options?.idempotencyKey, options });
    }
    /**
     * POST /v1/domains with `also_connect` ("www" for an apex, "apex" for a www. name): both
     * hostnames in one request, the second redirecting (301, path kept) to the first; a conflict on
     * either creates neither.
     */
    async createPair(params, options) {
        const { body, meta } = await this.transport.request({ method: 'POST', path: '/v1/domains', body: params, idempotencyKey: options?.idempotencyKey, options });
        return attachResponse({ domain: body.data, also_connected: body.also_connected }, meta);
    }
    /**
     * PATCH /v1/domains/{id}: any of `destination_id` (re-point; the certificate stays),
     * `metadata` (replaced; null clears), `redirect`, `external_customer_id`, `tls`.
     */
    async update(id, params, options) {
        return this.one({ method: 'PATCH', path: pathOf('domains', id), body: params, idempotencyKey: options?.idempotencyKey, options });
    }
    /** GET /v1/domains: newest first; filters `status`, `hostname`, `external_customer_id`, `metadata` (one key: `{ 'metadata[plan]': 'pro' }`). */
    list(params, options) {
        return this.pages('/v1/domains', params, options);
    }
    /** GET /v1/domains/{id}: status, DNS records, the last `verification`, and this period's `bandwidth`. */
    async retrieve(id, options) {
        return this.one({ method: 'GET', path: pathOf('domains', id), options });
    }
    /** DELETE /v1/domains/{id}: answers 202 with the domain `deleting`. */
    async delete(id, options) {
        return this.one({ method: 'DELETE', path: pathOf('domains', id), idempotencyKey: options?.idempotencyKey, options });
    }
    /** POST /v1/domains/{id}/verify: check DNS now instead of at the next backoff step (202). */
    async verify(id, options) {
        return this.one({ method: 'POST', path: pathOf('domains', id, '/verify'), idempotencyKey: options?.idempotencyKey, options });
    }
    /**
     * PUT /v1/domains/{id}/certificate: your own certificate (PEM chain, unencrypted PEM key) in
     * place of a managed one; served within ~2 s. `certificate.renews_at` then says when a managed
     * one replaces it if DNS points at Hostgate (3 days before it lapses). Each refusal is its own
     * 422 code (`certificate_untrusted`, `certificate_hostname_mismatch`, …).
     */
    async putCertificate(id, params, options) {
        return this.one({ method: 'PUT', path: pathOf('domains', id, '/certificate'), body: params, idempotencyKey: options?.idempotencyKey, options });
    }
    /** DELETE /v1/domains/{id}/certificate: back to managed certificates (yours is served until one is stored). */
    async deleteCertificate(id, options) {
        return this.one({ method: 'DELETE', path: pathOf('domains', id, '/certificate'), idempotencyKey: options?.idempotencyKey, options });
    }
    /**
     * GET /v1/domains/{id}/analytics: requests, status classes, bytes and origin-time percentiles per
     * `interval` (minute ≤ 48 h, hour ≤ 31 days, day ≤ 400 days) over [`from`, `to`).
     */
    async analytics(id, params, options) {
        return this.one({ method: 'GET', path: pathOf('domains', id, '/analytics'), query: { ...(params ?? {}) }, options });
    }
}
