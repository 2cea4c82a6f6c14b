import type { components, paths } from './openapi.ts';
type Schemas = components['schemas'];
type Json<R> = R extends {
    content: {
        'application/json': infer B;
    };
} ? B : never;
/** The JSON body of an operation's 2xx answer. */
type SuccessBody<O> = O extends {
    responses: infer R;
} ? Json<R[Extract<keyof R, 200 | 201 | 202>]> : never;
type DataOfOp<O> = SuccessBody<O> extends {
    data: infer D;
} ? D : never;
type BodyOfOp<O> = O extends {
    requestBody?: infer B;
} ? Json<NonNullable<B>> : never;
type QueryOfOp<O> = O extends {
    parameters: {
        query?: infer Q;
    };
} ? NonNullable<Q> : never;
type Path = keyof paths;
/** `data` of the 2xx answer of `METHOD path`. */
export type ResponseData<P extends Path, M extends keyof paths[P]> = DataOfOp<paths[P][M]>;
/** The JSON request body of `METHOD path`. */
export type RequestBody<P extends Path, M extends keyof paths[P]> = BodyOfOp<paths[P][M]>;
/** The query parameters of `METHOD path`. */
export type QueryParams<P extends Path, M extends keyof paths[P]> = QueryOfOp<paths[P][M]>;
/** A route without a request body takes an empty object (never `never`, which no call could pass). */
type BodyOrEmpty<O> = [BodyOfOp<O>] extends [never] ? Record<string, never> : BodyOfOp<O>;
/** One page of a list: newest first; pass `next_cursor` as `cursor` for the next one. */
export interface PageBody<T> {
    data: T[];
    has_more: boolean;
    next_cursor: string | null;
}
/** Parameters every list accepts. */
export interface ListParams {
    limit?: number;
    cursor?: string;
}
/** The error envelope of every non-2xx answer (`HostgateError` carries its fields). */
export type ApiErrorBody = Schemas['Error'];
export type Destination = Schemas['Destination'];
export type DestinationCreateParams = RequestBody<'/v1/destinations', 'post'>;
export type DestinationListParams = QueryParams<'/v1/destinations', 'get'>;
export type DestinationUpdateParams = RequestBody<'/v1/destinations/{id}', 'patch'>;
export type Domain = Schemas['Domain'];
/** `domains.retrieve`: the domain with the bytes the edge carried for it this period. */
export type DomainDetail = Schemas['DomainDetail'];
export type DomainBandwidth = Schemas['DomainBandwidth'];
export type DomainStatus = Schemas['DomainStatus'];
export type DnsRecord = Schemas['DnsRecord'];
export type DnsRecordType = Schemas['DnsRecordType'];
export type DomainVerification = Schemas['Verification'];
export type OwnershipTrack = Schemas['OwnershipTrack'];
export type CertificateTrack = Schemas['CertificateTrack'];
export type DomainCreateParams = RequestBody<'/v1/domains', 'post'>;
/** GET /v1/domains's filters, with one `metadata[key]` filter typed as the API takes it (`{ 'metadata[plan]': 'pro' }`). */
export type DomainListParams = QueryParams<'/v1/domains', 'get'> & {
    [key: `metadata[${string}]`]: string;
};
export type DomainUpdateParams = RequestBody<'/v1/domains/{id}', 'patch'>;
export type DomainCertificateParams = RequestBody<'/v1/domains/{id}/certificate', 'put'>;
export type DomainMetadata = Schemas['DomainMetadata'];
export type DomainRedirect = Schemas['DomainRedirect'];
export type DomainTls = Schemas['DomainTls'];
export type DomainHsts = Schemas['DomainHsts'];
/** POST /v1/domains with `also_connect`: the domain and its partner (redirecting to it). */
export type DomainPair = {
    domain: Domain;
    also_connected: Domain;
};
export type WebhookEndpoint = Schemas['WebhookEndpoint'];
/** The endpoint as creation answers it: with `secret`, shown only then. */
export type WebhookEndpointWithSecret = Schemas['WebhookEndpointWithSecret'];
export type RotatedWebhookEndpoint = Schemas['RotatedWebhookEndpoint'];
/** An entry of an endpoint's `events`: an event kind, or `*`. */
export type SubscribedEvent = Schemas['SubscribedEvent'];
export type WebhookEndpointCreateParams = RequestBody<'/v1/webhook-endpoints', 'post'>;
export type WebhookEndpointUpdateParams = RequestBody<'/v1/webhook-endpoints/{id}', 'patch'>;
export type WebhookEndpointListParams = QueryParams<'/v1/webhook-endpoints', 'get'>;
export type WebhookDelivery = Schemas['WebhookDelivery'];
export type WebhookDeliveryStatus = Schemas['WebhookDeliveryStatus'];
export type WebhookDeliveryListParams = QueryParams<'/v1/webhook-deliveries', 'get'>;
export type WebhookAttempt = Schemas['WebhookAttempt'];
export type WebhookAttemptListParams = QueryParams<'/v1/webhook-deliveries/{id}/attempts', 'get'>;
/** The kind of a webhook event (`hostname.active`, …). */
export type EventKind = Schemas['EventKind'];
export type WidgetSession = Schemas['WidgetSession'];
export type WidgetSessionCreateParams = RequestBody<'/v1/widget-sessions', 'post'>;
export type Usage = Schemas['Usage'];
export type Plan = Schemas['Plan'];
export type BillingStatus = Schemas['BillingStatus'];
export type CheckoutSessionCreateParams = BodyOrEmpty<paths['/v1/billing/checkout-session']['post']>;
export type CheckoutSession = Schemas['BillingSession'];
export type PortalSessionCreateParams = BodyOrEmpty<paths['/v1/billing/portal-session']['post']>;
export type PortalSession = Schemas['BillingSession'];
export type PlanChangeParams = BodyOrEmpty<paths['/v1/billing/plan']['post']>;
/** `billing.changePlan` answers the usage with the new plan. */
export type PlanChangeResult = Schemas['Usage'];
export type Invoice = Schemas['Invoice'];
export type InvoiceItem = Schemas['InvoiceItem'];
export type InvoiceListParams = QueryParams<'/v1/billing/invoices', 'get'>;
/** `domains.analytics`: a domain's traffic over a range (totals and buckets, summed over edges). */
export type DomainAnalytics = Schemas['DomainAnalytics'];
export type DomainAnalyticsParams = QueryParams<'/v1/domains/{id}/analytics', 'get'>;
export type AnalyticsBucket = Schemas['AnalyticsBucket'];
export type AnalyticsTotals = Schemas['AnalyticsTotals'];
export type AnalyticsInterval = Schemas['AnalyticsInterval'];
/** `analytics.retrieve`: the organization's traffic totals and a page of its top hostnames. */
export type OrganizationAnalytics = Schemas['OrganizationAnalytics'];
export type OrganizationAnalyticsParams = QueryParams<'/v1/analytics', 'get'>;
export type TopHostname = Schemas['TopHostname'];
export {};
