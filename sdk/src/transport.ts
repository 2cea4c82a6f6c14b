// One HTTP exchange with the API, and the retry policy around it:
// - reads (GET) are retried on 429 and 503, waiting what `Retry-After` asks, and on connection
//   failures, at most `maxReadRetries` times, never waiting longer than `maxRetryDelayMs` at once
//   (a server asking for longer gets the error handed to the caller instead);
// - writes are never retried here: whether a write whose answer was lost took effect is unknown,
//   and the contract leaves that decision to the caller, who retries with the same idempotency key;
// - each attempt has its own timeout; the caller's AbortSignal cancels the call, waits included.
import { errorFromResponse, HostgateConnectionError, HostgateError, HostgateTimeoutError } from './errors.ts';
import { VERSION } from './version.ts';

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
export type WithResponse<T> = T & { readonly lastResponse: ResponseMeta };

export interface Request {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  query?: Record<string, string | number | boolean | undefined | null> | undefined;
  body?: unknown;
  /** For writes: the key to send, or null for the one write that takes none (checkout). */
  idempotencyKey?: string | null;
  options?: ReadOptions | RequestOptions | undefined;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_READ_RETRIES = 2;
const DEFAULT_MAX_RETRY_DELAY_MS = 10_000;
const MAX_KEY_LENGTH = 128;

export function attachResponse<T>(value: T, meta: ResponseMeta): WithResponse<T> {
  if (value !== null && typeof value === 'object') Object.defineProperty(value, 'lastResponse', { value: meta, enumerable: false });
  return value as WithResponse<T>;
}

function checkPositive(name: string, value: number | undefined, allowZero: boolean) {
  if (value === undefined) return;
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new TypeError(`${name} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${String(value)}`);
}

/** Checks an idempotency key before anything is sent: a missing key is a bug in the caller. */
export function checkIdempotencyKey(key: unknown): string {
  if (typeof key !== 'string' || key.length === 0) {
    throw new TypeError('this write needs { idempotencyKey }: a stable key of 1–128 characters that you reuse when retrying it (or Hostgate.generateKey())');
  }
  if (key.length > MAX_KEY_LENGTH) throw new TypeError(`idempotencyKey is ${key.length} characters; at most ${MAX_KEY_LENGTH} are accepted`);
  return key;
}

const sleep = (ms: number, signal: AbortSignal | undefined) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
  const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
  signal?.addEventListener('abort', onAbort, { once: true });
});

export class Transport {
  readonly #apiKey: string;
  readonly #origin: string;
  readonly #timeoutMs: number;
  readonly #maxReadRetries: number;
  readonly #maxRetryDelayMs: number;
  readonly #fetch: typeof fetch;

  constructor(options: ClientOptions) {
    if (!options || typeof options.apiKey !== 'string' || options.apiKey.trim() === '') {
      throw new TypeError('new Hostgate({ apiKey }) needs the API key (hg_live_…); e.g. apiKey: process.env.HOSTGATE_API_KEY');
    }
    if (!/^[\x21-\x7e]+$/.test(options.apiKey)) throw new TypeError('the API key has spaces or characters that cannot go in a header: check how it was copied');
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
    if (typeof f !== 'function') throw new TypeError('no fetch implementation: Node 24 has one built in, or pass { fetch }');
    this.#fetch = f;
  }

  url(path: string, query?: Request['query']): string {
    const url = new URL(this.#origin + path);
    for (const [k, v] of Object.entries(query ?? {})) if (v !== undefined && v !== null) url.searchParams.set(k, String(v));
    return url.toString();
  }

  async request<T>(req: Request): Promise<{ body: T; meta: ResponseMeta }> {
    const read = req.method === 'GET';
    const options = req.options ?? {};
    const signal = options.signal;
    const key = read || req.idempotencyKey === null ? null : checkIdempotencyKey(req.idempotencyKey);
    checkPositive('timeoutMs', options.timeoutMs, false);
    const maxRetries = read ? Math.floor((options as ReadOptions).maxRetries ?? this.#maxReadRetries) : 0;
    const url = this.url(req.path, req.query);
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.#apiKey}`,
      accept: 'application/json',
      'user-agent': `hostgate-node/${VERSION}`,
    };
    if (req.body !== undefined) headers['content-type'] = 'application/json';
    if (key !== null) headers['idempotency-key'] = key;
    if (options.requestId) headers['x-request-id'] = options.requestId;
    const payload = req.body === undefined ? undefined : JSON.stringify(req.body);

    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw signal.reason;
      let failure: HostgateError;
      try {
        const { status, headers: h, text } = await this.#exchange(url, req.method, headers, payload, options.timeoutMs ?? this.#timeoutMs, signal, key);
        const meta: ResponseMeta = { status, requestId: h.get('x-request-id'), idempotentReplayed: h.get('idempotent-replayed') === 'true', headers: h, attempts: attempt };
        if (status >= 200 && status < 300) return { body: this.#parse<T>(text, status, h, key), meta };
        failure = errorFromResponse(status, h, text, key);
      } catch (error) {
        // A connection failure before any answer; the caller's abort and timeouts end the call.
        if (!(error instanceof HostgateConnectionError) || error instanceof HostgateTimeoutError) throw error;
        failure = error;
      }
      const retryable = failure.status === 429 || failure.status === 503 || failure.status === null;
      if (!read || !retryable) throw failure;
      if (attempt > maxRetries) throw failure;
      // The server's Retry-After when it gave one, else a short exponential backoff with jitter.
      const delay = failure.retryAfterSeconds !== null ? failure.retryAfterSeconds * 1000 : Math.min(this.#maxRetryDelayMs, 500 * 2 ** (attempt - 1) * (0.75 + Math.random() / 2));
      if (delay > this.#maxRetryDelayMs) throw failure;
      await sleep(delay, signal);
    }
  }

  async #exchange(url: string, method: string, headers: Record<string, string>, payload: string | undefined, timeoutMs: number, signal: AbortSignal | undefined, key: string | null) {
    const timeout = AbortSignal.timeout(timeoutMs);
    const combined = signal ? AbortSignal.any([signal, timeout]) : timeout;
    try {
      const res = await this.#fetch(url, { method, headers, body: payload ?? null, signal: combined, redirect: 'error' });
      // Read within the same deadline: a body that stalls halfway is a timeout too.
      const text = await res.text();
      return { status: res.status, headers: res.headers, text };
    } catch (error) {
      if (signal?.aborted) throw signal.reason;
      if (timeout.aborted) {
        throw new HostgateTimeoutError({ code: 'timeout', status: null, message: `no answer from ${method} ${new URL(url).pathname} within ${timeoutMs} ms`, idempotencyKey: key, cause: error });
      }
      const detail = (error as { cause?: { code?: string; message?: string } }).cause;
      throw new HostgateConnectionError({
        code: 'connection_error', status: null, idempotencyKey: key, cause: error,
        message: `could not reach the Hostgate API at ${new URL(url).origin} (${detail?.code ?? detail?.message ?? (error as Error).message})`,
      });
    }
  }

  #parse<T>(text: string, status: number, headers: Headers, key: string | null): T {
    if (text === '') return undefined as T;
    try {
      return JSON.parse(text) as T;
    } catch (error) {
      throw new HostgateError({ code: 'invalid_response', status, message: `the API answered ${status} with a body that is not JSON`, requestId: headers.get('x-request-id'), idempotencyKey: key, headers, cause: error });
    }
  }
}
