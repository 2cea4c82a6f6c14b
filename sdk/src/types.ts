// Named types of the API's resources and parameters, all derived from the generated
// `openapi.ts` (never written by hand, except the one marked block below), so a change to a route
// schema reaches the client through `npm run sdk:generate` alone.
import type { paths } from './openapi.ts';

type Json<R> = R extends { content: { 'application/json': infer B } } ? B : never;
/** The JSON body of an operation's 2xx answer. */
type SuccessBody<O> = O extends { responses: infer R } ? Json<R[Extract<keyof R, 200 | 201 | 202>]> : never;
type DataOfOp<O> = SuccessBody<O> extends { data: infer D } ? D : never;
type BodyOfOp<O> = O extends { requestBody?: infer B } ? Json<NonNullable<B>> : never;
type QueryOfOp<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

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
export interface PageBody<T> { data: T[]; has_more: boolean; next_cursor: string | null }
/** Parameters every list accepts. */
export interface ListParams { limit?: number; cursor?: string }

export type Destination = ResponseData<'/v1/destinations/{id}', 'get'>;
export type DestinationCreateParams = RequestBody<'/v1/destinations', 'post'>;
export type DestinationListParams = QueryParams<'/v1/destinations', 'get'>;

export type Domain = ResponseData<'/v1/domains/{id}', 'get'>;
export type DomainStatus = Domain['status'];
export type DnsRecord = Domain['dns_records'][number];
export type DomainVerification = Domain['verification'];
export type DomainCreateParams = RequestBody<'/v1/domains', 'post'>;
export type DomainListParams = QueryParams<'/v1/domains', 'get'>;

export type WebhookEndpoint = ResponseData<'/v1/webhook-endpoints/{id}', 'get'>;
/** The endpoint as creation and secret rotation answer it: with `secret`, shown only then. */
export type WebhookEndpointWithSecret = ResponseData<'/v1/webhook-endpoints', 'post'>;
export type WebhookEndpointCreateParams = RequestBody<'/v1/webhook-endpoints', 'post'>;
export type WebhookEndpointUpdateParams = RequestBody<'/v1/webhook-endpoints/{id}', 'patch'>;
export type WebhookEndpointListParams = QueryParams<'/v1/webhook-endpoints', 'get'>;
export type RotatedWebhookEndpoint = ResponseData<'/v1/webhook-endpoints/{id}/rotate-secret', 'post'>;

export type WebhookDelivery = ResponseData<'/v1/webhook-deliveries/{id}', 'get'>;
export type WebhookDeliveryListParams = QueryParams<'/v1/webhook-deliveries', 'get'>;
export type WebhookAttempt = ResponseData<'/v1/webhook-deliveries/{id}/attempts', 'get'>[number];
export type WebhookAttemptListParams = QueryParams<'/v1/webhook-deliveries/{id}/attempts', 'get'>;

export type WidgetSession = ResponseData<'/v1/widget-sessions', 'post'>;
export type WidgetSessionCreateParams = RequestBody<'/v1/widget-sessions', 'post'>;

export type Usage = ResponseData<'/v1/usage', 'get'>;
export type Plan = Usage['plan'];
export type BillingStatus = Usage['billing_status'];
export type CheckoutSessionCreateParams = BodyOrEmpty<paths['/v1/billing/checkout-session']['post']>;
export type CheckoutSession = ResponseData<'/v1/billing/checkout-session', 'post'>;
export type PortalSessionCreateParams = BodyOrEmpty<paths['/v1/billing/portal-session']['post']>;
export type PortalSession = ResponseData<'/v1/billing/portal-session', 'post'>;
export type PlanChangeParams = BodyOrEmpty<paths['/v1/billing/plan']['post']>;
export type PlanChangeResult = ResponseData<'/v1/billing/plan', 'post'>;
export type Invoice = ResponseData<'/v1/billing/invoices/{id}', 'get'>;
export type InvoiceItem = Invoice['items'][number];
export type InvoiceListParams = QueryParams<'/v1/billing/invoices', 'get'>;
