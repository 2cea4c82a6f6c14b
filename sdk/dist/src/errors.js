// Every failure the client reports is a HostgateError: the API's error envelope
// (`{"error": {"code", "message", "request_id", "param"?, "details"?}}`) as a typed class per status
// family, or a connection failure or timeout (status null). Branch on `instanceof` or `code`.
//
// A caller's own AbortSignal is not an error of ours: an aborted call rejects with the signal's
// reason (an `AbortError` DOMException by default), as `fetch` does.
export class HostgateError extends Error {
    constructor(fields) {
        super(fields.message, fields.cause === undefined ? undefined : { cause: fields.cause });
        this.name = new.target.name;
        this.code = fields.code;
        this.status = fields.status;
        this.param = fields.param ?? null;
        this.requestId = fields.requestId ?? null;
        this.details = fields.details ?? null;
        this.retryAfterSeconds = fields.retryAfterSeconds ?? null;
        this.idempotencyKey = fields.idempotencyKey ?? null;
        this.headers = fields.headers ?? null;
    }
}
/** 400, 405, 413, 415, 422: the request is wrong (`invalid_request`, `idempotency_key_reused`, …); do not retry it as is. */
export class HostgateInvalidRequestError extends HostgateError {
}
/** 401: `missing_api_key`, `invalid_api_key`. */
export class HostgateAuthenticationError extends HostgateError {
}
/** 403: `insufficient_scope` (the key lacks the write scope). */
export class HostgatePermissionError extends HostgateError {
}
/** 404: `domain_not_found`, `destination_not_found`, … (also another organization's ids). */
export class HostgateNotFoundError extends HostgateError {
}
/** 409: `domain_conflict`, `destination_in_use`, `idempotency_key_in_use`. */
export class HostgateConflictError extends HostgateError {
}
/** 429 `rate_limited`; `retryAfterSeconds` says when to come back. */
export class HostgateRateLimitError extends HostgateError {
}
/** 500 and other unexpected statuses. */
export class HostgateInternalError extends HostgateError {
}
/** 503 `service_unavailable`; `retryAfterSeconds` says when to come back. */
export class HostgateUnavailableError extends HostgateError {
}
/** No answer: the connection failed or broke (code `connection_error`). A write may or may not have been applied: retry it with the same idempotency key. */
export class HostgateConnectionError extends HostgateError {
}
/** No answer within `timeoutMs` (code `timeout`). Like a connection error, the outcome of a write is unknown. */
export class HostgateTimeoutError extends HostgateConnectionError {
}
const byStatus = {
    400: HostgateInvalidRequestError,
    401: HostgateAuthenticationError,
    403: HostgatePermissionError,
    404: HostgateNotFoundError,
    405: HostgateInvalidRequestError,
    409: HostgateConflictError,
    413: HostgateInvalidRequestError,
    415: HostgateInvalidRequestError,
    422: HostgateInvalidRequestError,
    429: HostgateRateLimitError,
    503: HostgateUnavailableError,
};
/** The class for an HTTP status: the family's, else invalid request (4xx) or internal (5xx). */
export function errorClassFor(status) {
    return byStatus[status] ?? (status >= 400 && status < 500 ? HostgateInvalidRequestError : HostgateInternalError);
}
/** `Retry-After` as seconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value, now = Date.now()) {
    if (value === null || value.trim() === '')
        return null;
    if (/^\d+$/.test(value.trim()))
        return Number(value.trim());
    // HTTP dates (all three RFC 9110 forms) start with a day name; Date.parse alone would take "-3" as a year.
    if (!/^[A-Za-z]{3}/.test(value.trim()))
        return null;
    const at = Date.parse(value);
    return Number.isNaN(at) ? null : Math.max(0, Math.ceil((at - now) / 1000));
}
/** The error for a non-2xx answer, from its envelope when it has one. */
export function errorFromResponse(status, headers, bodyText, idempotencyKey) {
    let envelope;
    try {
        const parsed = JSON.parse(bodyText);
        if (parsed && typeof parsed === 'object' && parsed.error && typeof parsed.error === 'object')
            envelope = parsed.error;
    }
    catch {
        // Not JSON: an answer from something in front of the API (a proxy's 502 page).
    }
    const str = (v) => (typeof v === 'string' ? v : null);
    const Class = errorClassFor(status);
    return new Class({
        status,
        code: str(envelope?.code) ?? `http_${status}`,
        message: str(envelope?.message) ?? `the API answered HTTP ${status} without an error envelope${bodyText ? `: ${bodyText.slice(0, 200)}` : ''}`,
        requestId: str(envelope?.request_id) ?? headers.get('x-request-id'),
        param: str(envelope?.param),
        details: envelope?.details && typeof envelope.details === 'object' ? envelope.details : null,
        retryAfterSeconds: parseRetryAfter(headers.get('retry-after')),
        idempotencyKey,
        headers,
    });
}
