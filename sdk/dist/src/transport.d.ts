export interface ClientOptions {
    /** Server API key `hg_live_…`: keep it on your server. */
    apiKey: string;
    /** The API origin, e.g. `https://api.example.com` or `http://localhost:3000` (a trailing `/v1` is accepted). */
    baseUrl: string;
    /** Per attempt, from sending the request to the end of the answer's body (default 30 000). */
    timeoutMs?: number;
    /** Retries of a read after 429, 503 or a connection failure (default 2; 0 disables). Writes are never retried. */
    maxReadRetries?: number;
    /** The longest single wait before a read retry (default 10 000). A `Retry-After` beyond it is not waited for: the error is thrown. */
    maxRetryDelayMs?: number;
    /** A `fetch` implementation (default: the global one). */
    fetch?: typeof fetch;
}
export interface RequestOptions {
    /** Cancels the call (including a wait before a retry); it then rejects with the signal's reason. */
    signal?: AbortSignal;
    /** Overrides the client's per-attempt timeout for this call. */
    timeoutMs?: number;
    /** Sent as `X-Request-Id` (1–128 visible ASCII): your own id for tracing this call in Hostgate's logs. */
    requestId?: string;
}
export interface ReadOptions extends RequestOptions {
    /** Overrides the client's `maxReadRetries` for this call. */
    maxRetries?: number;
}
export interface WriteOptions extends RequestOptions {
    /**
     * Required: a stable business key of 1–128 characters (e.g. `domain-${customerId}-${hostname}`),
     * reused when you retry this same request. The API answers a replay with the original result.
     * `Hostgate.generateKey()` makes a random one; keep it until the write has succeeded.
     */
    idempotencyKey: string;
}
/** What the API answered besides the body. */
export interface ResponseMeta {
    status: number;
    requestId: string | null;
    /** True when this answer is a replay of an earlier request with the same Idempotency-Key. */
    idempotentReplayed: boolean;
    headers: Headers;
    /** How many HTTP requests the call took (1 + retries). */
    attempts: number;
}
/** A result with its response metadata, as a non-enumerable `lastResponse` property. */
export type WithResponse<T> = T & {
    readonly lastResponse: ResponseMeta;
};
export interface Request {
    method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
    path: string;
    query?: Record<string, string | number | boolean | undefined | null> | undefined;
    body?: unknown;
    /** For writes: the key to send, or null for the one write that takes none (checkout). */
    idempotencyKey?: string | null;
    options?: ReadOptions | RequestOptions | undefined;
}
export declare function attachResponse<T>(value: T, meta: ResponseMeta): WithResponse<T>;
/** Checks an idempotency key before anything is sent: a missing key is a bug in the caller. */
export declare function checkIdempotencyKey(key: unknown): string;
export declare class Transport {
    #private;
    constructor(options: ClientOptions);
    url(path: string, query?: Request['query']): string;
    request<T>(req: Request): Promise<{
        body: T;
        meta: ResponseMeta;
    }>;
}
