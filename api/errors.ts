// Every error code the API can answer, with its HTTP status (docs/api-decisions.md, "Errors"). Clients
// branch on `code`; the codes never change meaning.
export const errorStatus = {
  invalid_request: 400,
  api_key_in_query: 400,
  idempotency_key_missing: 400,
  idempotency_key_invalid: 400,
  missing_api_key: 401,
  invalid_api_key: 401,
  missing_token: 401,
  invalid_widget_token: 401,
  widget_token_expired: 401,
  insufficient_scope: 403,
  origin_forbidden: 403,
  not_found: 404,
  destination_not_found: 404,
  domain_not_found: 404,
  webhook_endpoint_not_found: 404,
  webhook_delivery_not_found: 404,
  widget_domain_not_found: 404,
  method_not_allowed: 405,
  domain_conflict: 409,
  domain_deleted: 409,
  destination_in_use: 409,
  webhook_endpoint_disabled: 409,
  webhook_endpoint_deleted: 409,
  idempotency_key_in_use: 409,
  request_timeout: 408,
  payload_too_large: 413,
  unsupported_media_type: 415,
  idempotency_key_reused: 422,
  apex_domains_unavailable: 422,
  // A widget session that names no destination while the organization has none or several (issue 18).
  destination_required: 422,
  rate_limited: 429,
  headers_too_large: 431,
  internal_error: 500,
  service_unavailable: 503,
  widget_request_failed: 400,
  // Billing (issue 13, docs/billing.md).
  return_url_not_allowed: 400,
  invalid_signature: 400,
  billing_session_not_found: 404,
  subscription_exists: 409,
  subscription_missing: 409,
  plan_unchanged: 409,
} as const;

export type ErrorCode = keyof typeof errorStatus;

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
