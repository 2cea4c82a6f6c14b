// One HTTP exchange with the API, and the retry policy around it:
// - reads (GET) are retried on 429 and 503, waiting what `Retry-After` asks, and on connection
//   failures, at most `maxReadRetries` times, never waiting longer than `maxRetryDelayMs` at once
//   (a server asking for longer gets the error handed to the caller instead);
// - writes are never retried here: whether a write whose answer was lost took effect is unknown,
//   and the contract leaves that decision to the caller, who retries with the same idempotency key;
// - each attempt has its own timeout; the caller's AbortSignal cancels the call, waits included.
import { errorFromResponse, HostgateConnectionError, HostgateError, HostgateTimeoutError } from "./errors.js";
import { VERSION } from "./version.js";
const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_READ_RETRIES = 2;
const DEFAULT_MAX_RETRY_DELAY_MS = 10_000;
const MAX_KEY_LENGTH = 128;
export function attachResponse(value, meta) {
    if (value !== null && typeof value === 'object')
        Object.defineProperty(value, 'lastResponse', { value: meta, enumerable: false });
    return value;
}
function checkPositive(name, value, allowZero) {
    if (value === undefined)
        return;
    if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0))
        throw new TypeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${String(value)}`);
}
/** Checks an idempotency key before anything is sent: a missing key is a bug in the caller. */
export function checkIdempotencyKey(key) {
    if (typeof key !== 'string' || key.length === 0) {
        throw new TypeError('this write needs { idempotencyKey }: a stable key of 1–128 characters that you reuse when retrying it (or Hostgate.generateKey())');
    }
    if (key.length > MAX_KEY_LENGTH)
        throw new TypeError(`idempotencyKey is ${key.length} characters; at most ${MAX_KEY_LENGTH} are accepted`);
    return key;
}
const sleep = (ms, signal) => new Promise((resolve, reject) => {
    if (signal?.aborted)
        return reject(signal.reason);
    const onAbort = () => { clearTimeout(timer); reject(signal.reason); };
    const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
});
export class Transport {
    #apiKey;
    #origin;
    #timeoutMs;
    #maxReadRetries;
    #maxRetryDelayMs;
    #fetch;
    constructor(options) {
        if (!options || typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
            throw new TypeError('new Hostgate({ apiKey }) needs the API key (hg_live_…); e.g. apiKey: process.env.HOSTGATE_API_KEY');
        }
        if (!/^[\x21-\x7e]+$/.test(options.apiKey))
            throw new TypeError('the API key has spaces or characters that cannot go in a header: check how it was copied');
        if (typeof options.baseUrl !== 'string' || !/^https?:\/\/[^/]+/i.test(options.baseUrl)) {
            throw new TypeError(`new Hostgate({ baseUrl }) needs the API origin, e.g. https://api.example.com; got ${JSON.stringify(options.baseUrl)}`);
        }
        checkPositive('timeoutMs', options.timeoutMs, false);
        checkPositive('maxReadRetries', options.maxReadRetries, true);
        checkPositive('maxRetryDelayMs', options.maxRetryDelayMs, true);
        this.#apiKey = options.apiKey;
        this.#origin = options.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
        this.#timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
        this.#maxReadRetries = Math.floor(options.maxReadRetries ?? DEFAULT_MAX_READ_RETRIES);
        this.#maxRetryDelayMs = options.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS;
        const f = options.fetch ?? globalThis.fetch;
        if (typeof f !== 'function')
            throw new TypeError('no fetch implementation: Node 24 has one built in, or pass { fetch }');
        this.#fetch = f;
    }
    url(path, query) {
        const url = new URL(this.#origin + path);
        for (const [k, v] of Object.entries(query ?? {}))
            if (v !== undefined && v !== null)
                url.searchParams.set(k, String(v));
        return url.toString();
    }
    async request(req) {
        const read = req.method === 'GET';
        const options = req.options ?? {};
        const signal = options.signal;
        const key = read || req.idempotencyKey === null ? null : checkIdempotencyKey(req.idempotencyKey);
        checkPositive('timeoutMs', options.timeoutMs, false);
        const maxRetries = read ? Math.floor(options.maxRetries ?? this.#maxReadRetries) : 0;
        const url = this.url(req.path, req.query);
        const headers = {
            authorization: `Bearer ${this.#apiKey}`,
            accept: 'application/json',
            'user-agent': `hostgate-node/${VERSION}`,
        };
        if (req.body !== undefined)
            headers['content-type'] = 'application/json';
        if (key !== null)
            headers['idempotency-key'] = key;
        if (options.requestId)
            headers['x-request-id'] = options.requestId;
        const payload = req.body === undefined ? undefined : JSON.stringify(req.body);
        for (let attempt = 1;; attempt++) {
            if (signal?.aborted)
                throw signal.reason;
            let failure;
            try {
                const { status, headers: h, text } = await this.#exchange(url, req.method, headers, payload, options.timeoutMs ?? this.#timeoutMs, signal, key);
                const meta = { status, requestId: h.get('x-request-id'), idempotentReplayed: h.get('idempotent-replayed') === 'true', headers: h, attempts: attempt };
                if (status >= 200 && status < 300)
                    return { body: this.#parse(text, status, h, key), meta };
                failure = errorFromResponse(status, h, text, key);
            }
            catch (error) {
                // A connection failure before any answer; the caller's abort and timeouts end the call.
                if (!(error instanceof HostgateConnectionError) || error instanceof HostgateTimeoutError)
                    throw error;
                failure = error;
            }
            const retryable = failure.status === 429 || failure.status === 503 || failure.status === null;
            if (!read || !retryable)
                throw failure;
            if (attempt > maxRetries)
                throw failure;
            // The server's Retry-After when it gave one, else a short exponential backoff with jitter.
            const delay = failure.retryAfterSeconds !== null ? failure.retryAfterSeconds * 1000 : Math.min(this.#maxRetryDelayMs, 500 * 2 ** (attempt - 1) * (0.75 + Math.random() / 2));
            if (delay > this.#maxRetryDelayMs)
                throw failure;
            await sleep(delay, signal);
        }
    }
    async #exchange(url, method, headers, payload, timeoutMs, signal, key) {
        const timeout = AbortSignal.timeout(timeoutMs);
        const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
        try {
            const res = await this.#fetch(url, { method, headers, body: payload ?? null, signal: combined, redirect: 'error' });
            // Read within the same deadline: a body that stalls halfway is a timeout too.
            const text = await res.text();
            return { status: res.status, headers: res.headers, text };
        }
        catch (error) {
            if (signal?.aborted)
                throw signal.reason;
            if (timeout.aborted) {
                throw new HostgateTimeoutError({ code: 'timeout', status: null, message: `no answer from ${method} ${new URL(url).pathname} within ${timeoutMs} ms`, idempotencyKey: key, cause: error });
            }
            const detail = error.cause;
            throw new HostgateConnectionError({
                code: 'connection_error', status: null, idempotencyKey: key, cause: error,
                message: `could not reach the Hostgate API at ${new URL(url).origin} (${detail?.code ?? detail?.message ?? error.message})`,
            });
        }
    }
    #parse(text, status, headers, key) {
        if (text === '')
            return undefined;
        try {
            return JSON.parse(text);
        }
        catch (error) {
            throw new HostgateError({ code: 'invalid_response', status, message: `the API answered ${status} with a body that is not JSON`, requestId: headers.get('x-request-id'), idempotencyKey: key, headers, cause: error });
        }
    }
}
