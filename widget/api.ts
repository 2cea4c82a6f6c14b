// The widget's view of the browser endpoints (`/v1/widget/…`), behind one interface that the demo
// mode implements locally. Writes carry an Idempotency-Key chosen per user action by the caller,
// which reuses it when it retries after a network failure.

export interface DnsRecord { type: string; name: string; relative_name?: string; value: string }

export interface Verification {
  checked_at: string | null;
  expected: DnsRecord[];
  found: DnsRecord[] | null;
  problem: { code: string; message: string } | null;
  verify_requested_at: string | null;
}

export interface WidgetDomain {
  id: string;
  hostname: string;
  zone: string;
  status: string;
  dns_records: DnsRecord[];
  verification: Verification;
  created_at: string;
  updated_at: string;
}

export interface WidgetApi {
  create(hostname: string, key: string, signal?: AbortSignal): Promise<WidgetDomain>;
  get(id: string, signal?: AbortSignal): Promise<WidgetDomain>;
  verify(id: string, key: string, signal?: AbortSignal): Promise<WidgetDomain>;
  /** Moves a domain created under `previousToken` to this token's session (after a token change). */
  handover(id: string, previousToken: string, key: string, signal?: AbortSignal): Promise<WidgetDomain>;
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
  return `wgt-${crypto.randomUUID()}`;
}

export function httpApi(base: string, token: string): WidgetApi {
  const root = `${base.replace(/\/+$/, '')}/v1/widget/domains`;
  async function call(method: string, path: string, options: { key?: string; body?: unknown; signal?: AbortSignal | undefined } = {}): Promise<WidgetDomain> {
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
    let body: { data?: WidgetDomain; error?: { code?: string; message?: string; details?: Record<string, unknown> } } | null = null;
    try { body = await response.json(); } catch { body = null; }
    if (response.ok && body?.data) return body.data;
    const e = body?.error;
    throw new WidgetApiError(e?.code ?? 'widget_request_failed', e?.message ?? `HTTP ${response.status}`, response.status, Number(response.headers.get('retry-after')) || 0, e?.details ?? {});
  }
  const at = (id: string) => `/${encodeURIComponent(id)}`;
  return {
    create: (hostname, key, signal) => call('POST', '', { key, body: { hostname }, signal }),
    get: (id, signal) => call('GET', at(id), { signal }),
    verify: (id, key, signal) => call('POST', `${at(id)}/verify`, { key, signal }),
    handover: (id, previousToken, key, signal) => call('POST', `${at(id)}/handover`, { key, body: { previous_token: previousToken }, signal }),
  };
}
