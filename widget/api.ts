// The widget's view of the browser endpoints (`/v1/widget/…`), behind one interface that the demo
// mode implements locally. (The API's handover endpoint is not used: a new token of the same
// customer reads the customer's domains directly.) Writes carry an Idempotency-Key chosen per user action by the caller,
// which reuses it when it retries after a network failure.

export interface DnsRecord { type: string; name: string; relative_name?: string; value: string }

export interface Verification {
  checked_at: string | null;
  expected: DnsRecord[];
  found: DnsRecord[] | null;
  problem: { code: string; message: string } | null;
  verify_requested_at: string | null;
}

/** One track of a zero-downtime move: its status and what blocks it. */
export interface Track { status: string; problem: { code: string; message: string } | null }

export interface WidgetDomain {
  id: string;
  /** As DNS knows it: punycode for internationalised names. */
  hostname: string;
  /** As the customer typed it (the API decodes punycode; the browser has no IDNA decoder). */
  hostname_unicode: string;
  zone: string;
  zone_unicode: string;
  status: string;
  dns_records: DnsRecord[];
  verification: Verification;
  /** Zero-downtime moves (docs/zero-downtime-moves.md); absent from older API answers and the demo. */
  ownership?: Track;
  certificate?: Track & { method: string | null };
  created_at: string;
  updated_at: string;
}

export interface WidgetApi {
  /** The domains the widget created for this session's customer, newest first (resume after a reload). */
  list(): Promise<WidgetDomain[]>;
  /** `created` is false when the customer had already started this hostname: the widget continues with it. */
  create(hostname: string, key: string, typed: string): Promise<{ domain: WidgetDomain; created: boolean }>;
  get(id: string, signal?: AbortSignal): Promise<WidgetDomain>;
  verify(id: string, key: string): Promise<WidgetDomain>;
}

/** A failed call: `code` is the API's (or widget_request_failed for a network failure). */
export class WidgetApiError extends Error {
  readonly code: string;
  readonly status: number;
  readonly retryAfter: number;
  readonly reason: string | undefined;
  readonly underlying: string | undefined;
  constructor(code: string, message: string, status = 0, retryAfter = 0, details: Record<string, unknown> = {}) {
    super(message);
    this.code = code;
    this.status = status;
    this.retryAfter = retryAfter;
    this.reason = typeof details.reason === 'string' ? details.reason : undefined;
    this.underlying = typeof details.cause === 'string' ? details.cause : undefined;
  }
  /** Worth retrying with the same Idempotency-Key: the request may not have been processed. */
  get transient(): boolean {
    return this.status === 0 || this.status >= 500 || this.underlying === 'idempotency_key_in_use';
  }
}

export function newIdempotencyKey(): string {
  // getRandomValues, not randomUUID: the latter is missing on pages that are not secure contexts.
  return `wgt-${Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')}`;
}

export function httpApi(base: string, token: string): WidgetApi {
  const root = `${base.replace(/\/+$/, '')}/v1/widget/domains`;
  async function call<T = WidgetDomain>(method: string, path: string, options: { key?: string; body?: unknown; signal?: AbortSignal | undefined } = {}): Promise<[T, number]> {
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    if (options.key) headers['idempotency-key'] = options.key;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await fetch(root + path, {
        method, headers, mode: 'cors', credentials: 'omit',
        ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
        ...(options.signal ? { signal: options.signal } : {}),
      });
    } catch (error) {
      if ((error as Error)?.name === 'AbortError') throw error;
      throw new WidgetApiError('widget_request_failed', 'network error', 0);
    }
    let body: { data?: T; error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null = null;
    try { body = await response.json(); } catch { body = null; }
    if (response.ok && body?.data) return [body.data, response.status];
    const e = body?.error;
    throw new WidgetApiError(e?.code ?? 'widget_request_failed', e?.message ?? `HTTP ${response.status}`, response.status, Number(response.headers.get('retry-after')) || 0, e?.details ?? {});
  }
  const at = (id: string) => `/${encodeURIComponent(id)}`;
  return {
    list: async () => (await call<WidgetDomain[]>('GET', '?limit=100'))[0],
    create: async (hostname, key) => {
      const [domain, status] = await call('POST', '', { key, body: { hostname } });
      return { domain, created: status === 201 };
    },
    get: async (id, signal) => (await call('GET', at(id), { signal }))[0],
    verify: async (id, key) => (await call('POST', `${at(id)}/verify`, { key }))[0],
  };
}
