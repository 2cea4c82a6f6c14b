import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse, WriteOptions } from '../transport.ts';
import type { Domain, DomainAnalytics, DomainAnalyticsParams, DomainCertificateParams, DomainCreateParams, DomainDetail, DomainListParams, DomainPair, DomainUpdateParams } from '../types.ts';
import { Resource } from './resource.ts';
/** Your customers' hostnames: DNS instructions, verification, certificate, status. */
export declare class Domains extends Resource {
    /** POST /v1/domains (scope domains:write): `pending_dns`, with the `dns_records` to set. */
    create(params: DomainCreateParams, options: WriteOptions): Promise<WithResponse<Domain>>;
    /**
     * POST /v1/domains with `also_connect` ("www" for an apex, "apex" for a www. name): both
     * hostnames in one request, the second redirecting (301, path kept) to the first; a conflict on
     * either creates neither.
     */
    createPair(params: DomainCreateParams & {
        also_connect: 'www' | 'apex';
    }, options: WriteOptions): Promise<WithResponse<DomainPair>>;
    /**
     * PATCH /v1/domains/{id}: any of `destination_id` (re-point; the certificate stays),
     * `metadata` (replaced; null clears), `redirect`, `external_customer_id`, `tls`.
     */
    update(id: string, params: DomainUpdateParams, options: WriteOptions): Promise<WithResponse<Domain>>;
    /** GET /v1/domains: newest first; filters `status`, `hostname`, `external_customer_id`, `metadata` (one key: `{ 'metadata[plan]': 'pro' }`). */
    list(params?: DomainListParams, options?: ReadOptions): PageList<Domain>;
    /** GET /v1/domains/{id}: status, DNS records, the last `verification`, and this period's `bandwidth`. */
    retrieve(id: string, options?: ReadOptions): Promise<WithResponse<DomainDetail>>;
    /** DELETE /v1/domains/{id}: answers 202 with the domain `deleting`. */
    delete(id: string, options: WriteOptions): Promise<WithResponse<Domain>>;
    /** POST /v1/domains/{id}/verify: check DNS now instead of at the next backoff step (202). */
    verify(id: string, options: WriteOptions): Promise<WithResponse<Domain>>;
    /**
     * PUT /v1/domains/{id}/certificate: your own certificate (PEM chain, unencrypted PEM key) in
     * place of a managed one; served within ~2 s. `certificate.renews_at` then says when a managed
     * one replaces it if DNS points at Hostgate (3 days before it lapses). Each refusal is its own
     * 422 code (`certificate_untrusted`, `certificate_hostname_mismatch`, …).
     */
    putCertificate(id: string, params: DomainCertificateParams, options: WriteOptions): Promise<WithResponse<Domain>>;
    /** DELETE /v1/domains/{id}/certificate: back to managed certificates (yours is served until one is stored). */
    deleteCertificate(id: string, options: WriteOptions): Promise<WithResponse<Domain>>;
    /**
     * GET /v1/domains/{id}/analytics: requests, status classes, bytes and origin-time percentiles per
     * `interval` (minute ≤ 48 h, hour ≤ 31 days, day ≤ 400 days) over [`from`, `to`).
     */
    analytics(id: string, params?: DomainAnalyticsParams, options?: ReadOptions): Promise<WithResponse<DomainAnalytics>>;
}
