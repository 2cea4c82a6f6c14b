export declare const SIGNATURE_HEADER = "Service-Signature";
export declare const EVENT_ID_HEADER = "Service-Event-Id";
/** How far a signature's timestamp may be from now, either way (the spec's default). */
export declare const DEFAULT_TOLERANCE_SECONDS = 300;
export type WebhookEventKind = 'hostname.created' | 'hostname.verified' | 'hostname.active' | 'hostname.failed' | 'hostname.suspended' | 'hostname.deleting' | 'hostname.deleted' | 'hostname.dns_broken' | 'hostname.updated' | 'hostname.certificate_renewed' | 'hostname.certificate_expiring' | 'hostname.certificate_failed';
/** The JSON body of every delivery. `id` (`evt_…`) is the same on every retry of one event. */
export interface WebhookEvent {
    id: string;
    event: WebhookEventKind;
    /** ISO 8601 with offset: when the event happened (not when it was sent). */
    created_at: string;
    data: {
        id: string;
        hostname: string;
        status: string;
        destination_id: string;
        external_customer_id: string | null;
        /** Your metadata of the domain (PATCH /v1/domains/{id}); null when none is set. */
        metadata: Record<string, string> | null;
        /** `hostname.updated` only: the fields that changed (destination_id, metadata, redirect, external_customer_id, tls). */
        changes?: string[];
        /** `hostname.certificate_*` events only: the certificate (timestamps ISO 8601). */
        certificate?: {
            serial: string;
            issuer: string;
            source: 'managed' | 'custom';
            not_before: string;
            not_after: string;
            renews_at: string;
        };
        /** `hostname.certificate_expiring` only: 14 or 3. */
        days_left?: number;
        /** `hostname.certificate_failed` only: why the renewal fails. */
        problem?: {
            code: string;
            message: string;
        };
    };
}
export type WebhookVerificationErrorCode = 'missing_header' | 'malformed_header' | 'timestamp_outside_tolerance' | 'no_matching_signature' | 'invalid_payload';
export declare class WebhookVerificationError extends Error {
    readonly code: WebhookVerificationErrorCode;
    constructor(code: WebhookVerificationErrorCode, message: string);
}
export interface VerifyOptions {
    /** Maximum distance between the signature's timestamp and now, in seconds (default 300). */
    toleranceSeconds?: number;
    /** Now, in unix seconds (tests). */
    now?: number;
}
/**
 * The raw request body: a string, or its bytes (a Node `Buffer` is a `Uint8Array`). Typed without
 * Node's `Buffer`, so the declarations type-check in a project without `@types/node`.
 */
export type RawBody = string | Uint8Array;
/** The hex HMAC-SHA256 of `<timestamp>.<body>` keyed with `secret`. */
export declare function computeSignature(body: RawBody, secret: string, timestamp: number): string;
/**
 * The `Service-Signature` value for `body`: `t=<timestamp>,v1=<sig>` with one `v1` per secret
 * (newest first). Used by Hostgate to sign deliveries, and by receivers to build test requests.
 */
export declare function signatureHeader(body: RawBody, secrets: string | readonly string[], timestamp?: number): string;
/**
 * Verifies a delivery and returns its event. Throws `WebhookVerificationError` (answer 400 and
 * do not process the body) when the header is missing or malformed, its timestamp is more than
 * `toleranceSeconds` away from now (stale or from the future), or no `v1` signature matches any of
 * the given secrets. Signatures are compared in constant time.
 */
export declare function verifyWebhook(rawBody: RawBody, header: string | readonly string[] | null | undefined, secret: string | readonly string[], options?: VerifyOptions): WebhookEvent;
