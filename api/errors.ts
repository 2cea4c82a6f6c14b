// Every error code the API can answer: its HTTP status and an example of its answer
// (docs/api-decisions.md, "Errors"). Clients branch on `code`; the codes never change meaning.
// This catalogue is the one source of the statuses (ApiError), of the error responses each
// route's OpenAPI entry lists and of their example bodies (api/schemas/responses.ts).
interface CatalogueEntry { status: number; example: string; param?: string; details?: Record<string, unknown> }

export const errorCatalogue = {
  invalid_request: { status: 400, example: 'destination_id is required', param: 'destination_id' },
  api_key_in_query: { status: 400, example: 'credentials are not accepted in the URL (query parameter "api_key"): send the API key as `Authorization: Bearer hg_live_…`, and rotate a key that was sent in a URL', param: 'api_key' },
  idempotency_key_missing: { status: 400, example: 'this write needs an Idempotency-Key header: a stable business key of 1–128 characters, reused on retries' },
  idempotency_key_invalid: { status: 400, example: 'Idempotency-Key must be 1–128 printable ASCII characters', param: 'Idempotency-Key' },
  missing_api_key: { status: 401, example: 'send your API key as `Authorization: Bearer hg_live_…`' },
  invalid_api_key: { status: 401, example: 'the API key is not valid or has been revoked: create a new key with `hostgate keys create`' },
  missing_token: { status: 401, example: 'send the widget token as `Authorization: Bearer wst_…` (create one with POST /v1/widget-sessions on your server and set it as the token attribute of <service-widget>)' },
  invalid_widget_token: { status: 401, example: 'the widget token is not valid: create a new widget session on your server and set the token attribute' },
  widget_token_expired: { status: 401, example: 'the widget token has expired: create a new widget session on your server and replace the token attribute' },
  insufficient_scope: { status: 403, example: 'this API key lacks the domains:write scope; create a key with it (hostgate keys create --scopes domains:write)', details: { required_scope: 'domains:write' } },
  origin_forbidden: { status: 403, example: "this page's origin https://elsewhere.example is not in the allowed_origins of this widget session: add it to allowed_origins in POST /v1/widget-sessions on your server" },
  not_found: { status: 404, example: 'no route GET /v1/domain; see /v1/openapi.json for the API' },
  destination_not_found: { status: 404, example: 'destination dst_4n2m8k0c6x1v does not exist', param: 'destination_id' },
  domain_not_found: { status: 404, example: 'domain dom_7q3w9e1r5t2y does not exist', param: 'id' },
  webhook_endpoint_not_found: { status: 404, example: 'webhook endpoint whe_2k8d6f4h0j1l does not exist', param: 'id' },
  webhook_delivery_not_found: { status: 404, example: 'webhook delivery whd_9z7x5c3v1b2n does not exist', param: 'id' },
  widget_domain_not_found: { status: 404, example: 'domain dom_7q3w9e1r5t2y does not exist for this widget session', param: 'id' },
  method_not_allowed: { status: 405, example: 'PUT is not allowed on /v1/domains; allowed: GET, POST' },
  domain_conflict: { status: 409, example: 'shop.customer.com is already connected (here or in another organization); delete it there first', param: 'hostname' },
  domain_deleted: { status: 409, example: 'domain dom_7q3w9e1r5t2y is deleted: there is nothing to verify; connect the hostname again with POST /v1/domains', param: 'id', details: { status: 'deleted' } },
  destination_in_use: { status: 409, example: 'destination dst_4n2m8k0c6x1v still has domains pointing at it; delete or move them first' },
  webhook_endpoint_disabled: { status: 409, example: 'the endpoint of delivery whd_9z7x5c3v1b2n (whe_2k8d6f4h0j1l) is disabled (manual); enable it with PATCH /v1/webhook-endpoints/whe_2k8d6f4h0j1l {"enabled": true}, then retry', param: 'id' },
  webhook_endpoint_deleted: { status: 409, example: 'the endpoint of delivery whd_9z7x5c3v1b2n (whe_2k8d6f4h0j1l) was deleted; nothing can be delivered to it', param: 'id', details: { endpoint_id: 'whe_2k8d6f4h0j1l' } },
  idempotency_key_in_use: { status: 409, example: 'a request with this Idempotency-Key is still being processed; retry shortly' },
  request_timeout: { status: 408, example: 'the request (headers and body) was not received in time; send it at once, without pauses' },
  payload_too_large: { status: 413, example: 'request body is larger than 64 KiB' },
  unsupported_media_type: { status: 415, example: 'content type "text/plain" is not supported: send application/json' },
  idempotency_key_reused: { status: 422, example: 'this Idempotency-Key was used for a different request (method, path or body); use a new key for a new request' },
  apex_domains_unavailable: { status: 422, example: 'customer.com is an apex domain, which needs A/AAAA records to this service\'s edge, and no edge address is configured (HOSTGATE_EDGE_IPV4/HOSTGATE_EDGE_IPV6); connect a subdomain such as www.customer.com instead', param: 'hostname' },
  // A wildcard hostname without the challenge zone its DNS-01 needs (issue 22, docs/wildcards.md).
  wildcard_requires_challenge_zone: { status: 422, example: '*.customer.com is a wildcard, whose certificate needs DNS-01 through the challenge zone, and none is configured (HOSTGATE_CHALLENGE_ZONE); connect each hostname separately or configure the challenge zone', param: 'hostname' },
  // A widget session that names no destination while the organization has none or several (issue 18).
  destination_required: { status: 422, example: 'destination_id is required: the organization does not have exactly one destination, so the widget could not tell where domains point. Pass the destination_id of one of your destinations (GET /v1/destinations).', param: 'destination_id' },
  // Traffic analytics (issue 24, docs/analytics.md).
  analytics_range_invalid: { status: 400, example: 'from (2026-11-27T00:00:00.000Z) must be before to (2026-11-26T00:00:00.000Z)', param: 'from' },
  analytics_range_too_long: { status: 400, example: 'a range of minute buckets spans at most 48 h; this one spans 72 h: use interval=hour, or a shorter range', param: 'interval', details: { interval: 'minute', max_hours: 48 } },
  // The customer's own certificate (issue 22, part B; docs/custom-certificates.md): one code per refusal.
  certificate_unparseable: { status: 422, example: 'certificate holds no PEM certificate (-----BEGIN CERTIFICATE-----)', param: 'certificate' },
  private_key_unparseable: { status: 422, example: 'private_key is not a readable PEM private key: error:1E08010C:DECODER routines::unsupported', param: 'private_key' },
  certificate_key_mismatch: { status: 422, example: 'private_key does not belong to the first certificate of the chain (the leaf)', param: 'private_key' },
  certificate_key_too_weak: { status: 422, example: 'the RSA key has 1024 bits; at least 2048 are required', param: 'private_key' },
  certificate_key_unsupported: { status: 422, example: 'the EC key is on curve secp521r1; P-256 (prime256v1) or P-384 (secp384r1) is required', param: 'private_key' },
  certificate_hostname_mismatch: { status: 422, example: "the certificate's names (DNS:www.customer.com) do not cover shop.customer.com", param: 'certificate' },
  certificate_expired: { status: 422, example: 'the certificate expired at 2026-10-01T00:00:00.000Z', param: 'certificate' },
  certificate_not_yet_valid: { status: 422, example: 'the certificate is valid only from 2026-12-01T00:00:00.000Z', param: 'certificate' },
  certificate_untrusted: { status: 422, example: 'the certificate is self-signed; send one issued by a public CA (or by a CA the operator configured in HOSTGATE_CUSTOM_CERT_CA_FILE)', param: 'certificate' },
  rate_limited: { status: 429, example: 'too many requests for this API key; retry after 1 s' },
  headers_too_large: { status: 431, example: 'the request headers are larger than 16 KiB' },
  internal_error: { status: 500, example: 'an internal error occurred; retry later, and quote the request id if it persists' },
  service_unavailable: { status: 503, example: 'a backing service is unavailable; retry shortly' },
  // The widget API's answer for any code that is not one of its own; the original in details.cause.
  widget_request_failed: { status: 400, example: 'hostname is not a valid hostname', param: 'hostname', details: { cause: 'invalid_request' } },
  // Billing (issue 13, docs/billing.md).
  return_url_not_allowed: { status: 400, example: 'success_url must be on one of this organization\'s return origins (https://app.example.com)', param: 'success_url', details: { origin: 'https://elsewhere.example' } },
  invalid_signature: { status: 400, example: 'the Stripe-Signature does not match this body and the endpoint secret (or its timestamp is too old)' },
  billing_session_not_found: { status: 404, example: 'this billing page does not exist or has expired; start again from your application' },
  invoice_not_found: { status: 404, example: 'invoice inv_local_4n2m8k0c6x1v9z7b5q3w1e2r does not exist', param: 'id' },
  subscription_exists: { status: 409, example: 'this organization already has a active growth subscription: change plans with POST /v1/billing/plan, or manage it through POST /v1/billing/portal-session' },
  subscription_missing: { status: 409, example: 'this organization has no subscription yet: start one with POST /v1/billing/checkout-session' },
  plan_unchanged: { status: 409, example: 'the subscription is already on the growth plan', param: 'plan' },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof errorCatalogue;

/** The HTTP status of each code. */
export const errorStatus = Object.fromEntries(Object.entries(errorCatalogue).map(([code, e]) => [code, e.status])) as { readonly [C in ErrorCode]: (typeof errorCatalogue)[C]['status'] };

export class ApiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly param: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, extra: { param?: string; details?: Record<string, unknown>; headers?: Record<string, string>; status?: number } = {}) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.status = extra.status ?? errorStatus[code];
    this.param = extra.param;
    this.details = extra.details;
    this.headers = extra.headers ?? {};
  }
}

export interface ErrorBody {
  error: { code: string; message: string; request_id: string; param?: string; details?: Record<string, unknown> };
}

export function errorBody(error: ApiError, requestId: string): ErrorBody {
  return {
    error: {
      code: error.code,
      message: error.message,
      request_id: requestId,
      ...(error.param !== undefined ? { param: error.param } : {}),
      ...(error.details !== undefined ? { details: error.details } : {}),
    },
  };
}
