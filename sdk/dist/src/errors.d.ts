export interface HostgateErrorFields {
    code: string;
    message: string;
    /** HTTP status; null when no answer came (connection failure, timeout). */
    status: number | null;
    /** The request field the error is about, when there is one. */
    param?: string | null;
    /** The request id (`X-Request-Id`): quote it to support. Null when no answer came. */
    requestId?: string | null;
    details?: Record<string, unknown> | null;
    /** Seconds the server asked to wait before retrying (`Retry-After` on 429 and 503). */
    retryAfterSeconds?: number | null;
    /** The Idempotency-Key the request carried: retry the write with this same key. */
    idempotencyKey?: string | null;
    headers?: Headers | null;
    cause?: unknown;
}
export declare class HostgateError extends Error {
    readonly code: string;
    readonly status: number | null;
    readonly param: string | null;
    readonly requestId: string | null;
    readonly details: Record<string, unknown> | null;
    readonly retryAfterSeconds: number | null;
    readonly idempotencyKey: string | null;
    readonly headers: Headers | null;
    constructor(fields: HostgateErrorFields);
}
/** 400, 405, 413, 415, 422: the request is wrong (`invalid_request`, `idempotency_key_reused`, …); do not retry it as is. */
export declare class HostgateInvalidRequestError extends HostgateError {
}
/** 401: `missing_api_key`, `invalid_api_key`. */
export declare class HostgateAuthenticationError extends HostgateError {
}
/** 403: `insufficient_scope` (the key lacks the write scope). */
export declare class HostgatePermissionError extends HostgateError {
}
/** 404: `domain_not_found`, `destination_not_found`, … (also another organization's ids). */
export declare class HostgateNotFoundError extends HostgateError {
}
/** 409: `domain_conflict`, `destination_in_use`, `idempotency_key_in_use`. */
export declare class HostgateConflictError extends HostgateError {
}
/** 429 `rate_limited`; `retryAfterSeconds` says when to come back. */
export declare class HostgateRateLimitError extends HostgateError {
}
/** 500 and other unexpected statuses. */
export declare class HostgateInternalError extends HostgateError {
}
/** 503 `service_unavailable`; `retryAfterSeconds` says when to come back. */
export declare class HostgateUnavailableError extends HostgateError {
}
/** No answer: the connection failed or broke (code `connection_error`). A write may or may not have been applied: retry it with the same idempotency key. */
export declare class HostgateConnectionError extends HostgateError {
}
/** No answer within `timeoutMs` (code `timeout`). Like a connection error, the outcome of a write is unknown. */
export declare class HostgateTimeoutError extends HostgateConnectionError {
}
/** The class for an HTTP status: the family's, else invalid request (4xx) or internal (5xx). */
export declare function errorClassFor(status: number): typeof HostgateError;
/** `Retry-After` as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export declare function parseRetryAfter(value: string | null, now?: number): number | null;
/** The error for a non-2xx answer, from its envelope when it has one. */
export declare function errorFromResponse(status: number, headers: Headers, bodyText: string, idempotencyKey: string | null): HostgateError;
