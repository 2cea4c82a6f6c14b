// The official client (sdk/) against the real API: the app built in-process, listening on a
// loopback port, over this file's Postgres and the shared Temporal server. No mocks: the 503 comes
// from Postgres really cut (test/support/tcp-proxy.ts), the 429 from the API's own rate limiter
// (configured to 1 request/s), the timeout from a TCP peer that never answers. `fetch` is wrapped
// only to count the HTTP requests each call makes.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net from 'node:net';
import { buildApp, type App } from '../api/app.ts';
import { createDb } from '../db/pool.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createLogger } from '../logging/logger.ts';
import {
  Hostgate, HostgateAuthenticationError, HostgateConflictError, HostgateConnectionError, HostgateError,
  HostgateInvalidRequestError, HostgateNotFoundError, HostgatePermissionError, HostgateRateLimitError,
  HostgateTimeoutError, HostgateUnavailableError, type ClientOptions,
} from '../sdk/src/index.ts';
import { parseRetryAfter } from '../sdk/src/errors.ts';
import { createOrgWithKey, createTestApp, testConfig, type TestApp } from './support/app.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

/** A fetch that records "METHOD /path" of every request it passes on to the real fetch. */
function countingFetch() {
  const calls: string[] = [];
  const f: typeof fetch = (input, init) => {
    calls.push(`${init?.method ?? 'GET'} ${new URL(String(input)).pathname}`);
    return fetch(input, init);
  };
  return { calls, fetch: f };
}

async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address() as net.AddressInfo;
  return `http://127.0.0.1:${address.port}`;
}

/** Rejects with what `promise` rejects with (fails the test if it resolves). */
async function failure<E = HostgateError>(promise: Promise<unknown>): Promise<E> {
  try {
    await promise;
  } catch (error) {
    return error as E;
  }
  throw new Error('expected the call to fail, it succeeded');
}

let n = 0;
const uniq = () => `${Date.now().toString(36)}${++n}`;
const key = (label = 'k') => ({ idempotencyKey: `sdk-test-${label}-${uniq()}` });

describe('Retry-After', () => {
  it('is read as delta-seconds or as an HTTP date; anything else is no answer', () => {
    const now = Date.parse('2026-11-26T06:00:00Z');
    expect(parseRetryAfter('5', now)).toBe(5);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Thu, 26 Nov 2026 06:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('Thu, 26 Nov 2026 05:59:00 GMT', now)).toBe(0);
    for (const bad of [null, '', 'soon', '-3', '1.5']) expect([bad, parseRetryAfter(bad, now)]).toEqual([bad, null]);
  });
});

describe('Hostgate client against the real API', () => {
  let t: TestApp;
  let baseUrl: string;
  let apiKey: string;
  let orgId: string;
  let hg: Hostgate;
  const client = (extra: Partial<ClientOptions> = {}) => new Hostgate({ apiKey, baseUrl, ...extra });

  beforeAll(async () => {
    // Many requests per key in a burst: only the rate-limit test's own app limits.
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
    baseUrl = await listen(t.app);
    const o = await createOrgWithKey(t);
    apiKey = o.key;
    orgId = o.org.id;
    hg = client();
  });
  afterAll(async () => { await t?.close(); });

  describe('resources', () => {
    it('destinations: create, retrieve, list, delete', async () => {
      const created = await hg.destinations.create({ url: 'https://app.example.com:8443' }, key('dst'));
      expect(created).toMatchObject({ id: expect.stringMatching(/^dst_/), url: 'https://app.example.com:8443', port: 8443 });
      expect(created.lastResponse).toMatchObject({ status: 201, idempotentReplayed: false, attempts: 1, requestId: expect.stringMatching(/^req_/) });
      const read = await hg.destinations.retrieve(created.id);
      expect(read).toEqual(created);
      expect(read.lastResponse.status).toBe(200);
      const listed = await hg.destinations.list().toArray();
      expect(listed.map((d) => d.id)).toContain(created.id);
      const deleted = await hg.destinations.delete(created.id, key('dst-del'));
      expect(deleted.id).toBe(created.id);
      expect((await hg.destinations.list().toArray()).map((d) => d.id)).not.toContain(created.id);
    });

    it('domains: create, retrieve, list with filters, verify, delete', async () => {
      const destination = await hg.destinations.create({ url: `https://dom-${uniq()}.example.com` }, key());
      const hostname = `shop-${uniq()}.sdk-client.example`;
      const domain = await hg.domains.create({ hostname, destination_id: destination.id, external_customer_id: 'cus_sdk' }, key('dom'));
      expect(domain).toMatchObject({ hostname, destination_id: destination.id, status: 'pending_dns', external_customer_id: 'cus_sdk' });
      expect(domain.dns_records).toEqual([{ type: 'CNAME', name: hostname, value: 'edge.hostgate.test' }]);
      expect(domain.lastResponse.status).toBe(201);
      expect((await hg.domains.retrieve(domain.id)).hostname).toBe(hostname);
      const filtered = await hg.domains.list({ hostname: hostname.toUpperCase() }).toArray();
      expect(filtered.map((d) => d.id)).toEqual([domain.id]);
      expect((await hg.domains.list({ external_customer_id: 'cus_sdk', status: 'pending_dns' }).toArray()).map((d) => d.id)).toContain(domain.id);
      const verified = await hg.domains.verify(domain.id, key('verify'));
      expect(verified.lastResponse.status).toBe(202);
      expect(verified.verification.verify_requested_at).toEqual(expect.any(String));
      const deleting = await hg.domains.delete(domain.id, key('dom-del'));
      expect(deleting.lastResponse.status).toBe(202);
      expect(deleting.status).toBe('deleting');
    });

    it('domains.update, domains.createPair, destinations.update (issue 23)', async () => {
      const first = await hg.destinations.create({ url: `https://upd-${uniq()}.example.com` }, key());
      const second = await hg.destinations.create({ url: `https://upd-${uniq()}.example.com` }, key());
      const apex = `pair-${uniq()}.sdk-client.example`;
      const pair = await hg.domains.createPair({ hostname: `www.${apex}`, destination_id: first.id, also_connect: 'apex' }, key('pair'));
      expect([pair.domain.hostname, pair.also_connected.hostname, pair.also_connected.redirect]).toEqual([`www.${apex}`, apex, { to: `www.${apex}`, status: 301, preserve_path: true }]);
      const changed = await hg.domains.update(pair.domain.id, { destination_id: second.id, metadata: { plan: 'pro' }, tls: { min_version: '1.3' } }, key('upd'));
      expect([changed.destination_id, changed.metadata, changed.tls]).toEqual([second.id, { plan: 'pro' }, { min_version: '1.3', hsts: null }]);
      expect((await hg.domains.list({ 'metadata[plan]': 'pro' }).toArray()).map((d) => d.id)).toEqual([pair.domain.id]);
      const moved = await hg.destinations.update(second.id, { url: `https://moved-${uniq()}.example.com:8443` }, key('dst-upd'));
      expect(moved.port).toBe(8443);
    });

    it('webhook endpoints: create (secret once), retrieve, list, update, rotateSecret, delete', async () => {
      const endpoint = await hg.webhookEndpoints.create({ url: 'https://hooks.example.com/sdk', events: ['hostname.active'], description: 'sdk' }, key('whe'));
      expect(endpoint).toMatchObject({ id: expect.stringMatching(/^whe_/), events: ['hostname.active'], enabled: true, secret: expect.stringMatching(/^whsec_/) });
      const read = await hg.webhookEndpoints.retrieve(endpoint.id);
      expect(read).not.toHaveProperty('secret');
      expect((await hg.webhookEndpoints.list({ limit: 100 }).toArray()).map((e) => e.id)).toContain(endpoint.id);
      const paused = await hg.webhookEndpoints.update(endpoint.id, { enabled: false }, key('whe-upd'));
      expect(paused).toMatchObject({ enabled: false, disabled_reason: 'manual' });
      const rotated = await hg.webhookEndpoints.rotateSecret(endpoint.id, key('whe-rot'));
      expect(rotated.secret).toMatch(/^whsec_/);
      expect(rotated.secret).not.toBe(endpoint.secret);
      await hg.webhookEndpoints.delete(endpoint.id, key('whe-del'));
      expect(await failure(hg.webhookEndpoints.retrieve(endpoint.id))).toBeInstanceOf(HostgateNotFoundError);
    });

    it('webhook deliveries: list by endpoint, retrieve, attempts, retry', async () => {
      // An organization of its own: the events of the other tests are not fanned out to it.
      const hg = new Hostgate({ apiKey: (await createOrgWithKey(t, undefined, 'Deliveries org')).key, baseUrl });
      const endpoint = await hg.webhookEndpoints.create({ url: `https://hooks.example.com/${uniq()}` }, key());
      const destination = await hg.destinations.create({ url: `https://whd-${uniq()}.example.com` }, key());
      await hg.domains.create({ hostname: `whd-${uniq()}.sdk-client.example`, destination_id: destination.id }, key());
      // The event (hostname.created) fanned out to the endpoint, as the worker's sweep does.
      await webhookDeliveriesRepository(t.database.db).fanOut(100);
      const deliveries = await hg.webhookDeliveries.list({ endpoint_id: endpoint.id }).toArray();
      expect(deliveries).toHaveLength(1);
      const delivery = deliveries[0]!;
      expect(delivery).toMatchObject({ endpoint_id: endpoint.id, event: 'hostname.created' });
      expect((await hg.webhookDeliveries.retrieve(delivery.id)).id).toBe(delivery.id);
      const attempts = await hg.webhookDeliveries.attempts(delivery.id, { limit: 5 }).firstPage();
      expect(attempts).toMatchObject({ data: expect.any(Array), has_more: false, next_cursor: null });
      const retried = await hg.webhookDeliveries.retry(delivery.id, key('retry'));
      expect(retried).toMatchObject({ id: delivery.id, status: 'pending', attempt_count: 0 });
      expect(await failure(hg.webhookDeliveries.attempts('whd_doesnotexist').firstPage())).toMatchObject({ status: 404, code: 'webhook_delivery_not_found' });
    });

    it('widget sessions: create', async () => {
      const destination = await hg.destinations.create({ url: `https://wss-${uniq()}.example.com` }, key());
      const session = await hg.widgetSessions.create({ external_customer_id: 'cus_widget', allowed_origins: ['https://app.example.com'], destination_id: destination.id }, key('wss'));
      expect(session).toMatchObject({ token: expect.stringMatching(/^wst_/), expires_in: 1800, external_customer_id: 'cus_widget', allowed_origins: ['https://app.example.com'] });
    });
  });

  it('usage and billing: the requests the contract asks for (checkout without Idempotency-Key), typed answers where served', async () => {
    // Against the built-in local provider: usage and checkout answer; with no subscription yet,
    // the portal and a plan change are refused with subscription_missing (409).
    const sent: { method: string; path: string; idempotencyKey: string | null; body: unknown }[] = [];
    const recording: typeof fetch = (input, init) => {
      const headers = new Headers(init?.headers);
      sent.push({ method: init?.method ?? 'GET', path: new URL(String(input)).pathname, idempotencyKey: headers.get('idempotency-key'), body: init?.body ? JSON.parse(String(init.body)) : null });
      return fetch(input, init);
    };
    const c = client({ fetch: recording });

    const usage = await c.usage.retrieve();
    expect(usage).toMatchObject({ plan: expect.any(String), billing_status: 'inactive', active_hostnames: expect.any(Number), peak_hostnames: expect.any(Number) });
    const checkout = await c.billing.createCheckoutSession({ plan: 'growth' });
    expect(checkout).toMatchObject({ id: expect.any(String), url: expect.any(String) });
    expect(await failure(c.billing.createPortalSession({}, key('portal')))).toMatchObject({ name: 'HostgateConflictError', status: 409, code: 'subscription_missing' });
    expect(await failure(c.billing.changePlan({ plan: 'scale' }, key('plan')))).toMatchObject({ name: 'HostgateConflictError', status: 409, code: 'subscription_missing' });

    expect(sent.map(({ method, path, idempotencyKey, body }) => [method, path, idempotencyKey === null ? 'no key' : 'key', body])).toEqual([
      ['GET', '/v1/usage', 'no key', null],
      ['POST', '/v1/billing/checkout-session', 'no key', { plan: 'growth' }],
      ['POST', '/v1/billing/portal-session', 'key', {}],
      ['POST', '/v1/billing/plan', 'key', { plan: 'scale' }],
    ]);
    // @ts-expect-error -- a JavaScript caller passing a key to checkout is told it is not taken
    await expect(c.billing.createCheckoutSession({ plan: 'growth' }, { idempotencyKey: 'k' })).rejects.toThrow(/takes no idempotencyKey/);
    expect(sent).toHaveLength(4);
  });

  it('analytics: a domain\'s series and the organization\'s totals, with the query the contract names', async () => {
    const sent: string[] = [];
    const recording: typeof fetch = (input, init) => { const u = new URL(String(input)); sent.push(`${init?.method ?? 'GET'} ${u.pathname}${u.search}`); return fetch(input, init); };
    const c = client({ fetch: recording });
    const destination = await c.destinations.create({ url: `https://an-${uniq()}.example.com` }, key());
    const domain = await c.domains.create({ hostname: `an-${uniq()}.customer-sdk.com`, destination_id: destination.id }, key('dom'));
    const series = await c.domains.analytics(domain.id, { interval: 'minute', from: '2026-11-26T10:00:00Z', to: '2026-11-26T11:00:00Z' });
    expect(series).toMatchObject({ domain_id: domain.id, interval: 'minute', start: '2026-11-26T10:00:00.000Z', end: '2026-11-26T11:00:00.000Z', buckets: [] });
    expect(series.totals.requests).toBe(0);
    const org = await c.analytics.retrieve({ sort: 'errors', limit: 5 });
    expect(org).toMatchObject({ sort: 'errors', interval: 'hour', has_more: false, next_cursor: null });
    expect(await failure(c.domains.analytics(domain.id, { interval: 'minute', from: '2026-11-20T00:00:00Z', to: '2026-11-26T00:00:00Z' }))).toMatchObject({ status: 400, code: 'analytics_range_too_long' });
    expect(sent.slice(-3)).toEqual([
      `GET /v1/domains/${domain.id}/analytics?interval=minute&from=2026-11-26T10%3A00%3A00Z&to=2026-11-26T11%3A00%3A00Z`,
      'GET /v1/analytics?sort=errors&limit=5',
      `GET /v1/domains/${domain.id}/analytics?interval=minute&from=2026-11-20T00%3A00%3A00Z&to=2026-11-26T00%3A00%3A00Z`,
    ]);
  });

  it('lists walk every page with keyset cursors, newest first; one page on demand', async () => {
    const own = await createOrgWithKey(t, undefined, 'Pagination org');
    const { calls, fetch } = countingFetch();
    const c = new Hostgate({ apiKey: own.key, baseUrl, fetch });
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await c.destinations.create({ url: `https://page-${i}-${uniq()}.example.com` }, key('page'))).id);
    calls.length = 0;

    const pages = [];
    for await (const page of c.destinations.list({ limit: 2 })) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([2, 2, 1]);
    expect(pages.map((p) => p.has_more)).toEqual([true, true, false]);
    expect(pages[2]!.next_cursor).toBeNull();
    expect(pages.flatMap((p) => p.data.map((d) => d.id))).toEqual([...ids].reverse());
    // One request per page, each carrying the previous page's cursor.
    expect(calls).toEqual(Array(3).fill('GET /v1/destinations'));

    const first = await c.destinations.list({ limit: 2 }).firstPage();
    expect(first.data.map((d) => d.id)).toEqual([ids[4], ids[3]]);
    const second = await c.destinations.list({ limit: 2, cursor: first.next_cursor! }).firstPage();
    expect(second.data.map((d) => d.id)).toEqual([ids[2], ids[1]]);
    const items: string[] = [];
    for await (const d of c.destinations.list({ limit: 3 }).items()) items.push(d.id);
    expect(items).toEqual([...ids].reverse());
    await expect(c.destinations.list({ limit: 1 }).toArray(3)).rejects.toThrow(RangeError);
    const bad = await failure(c.destinations.list({ cursor: 'not-a-cursor' }).firstPage());
    expect(bad).toBeInstanceOf(HostgateInvalidRequestError);
    expect(bad).toMatchObject({ status: 400, code: 'invalid_request', param: 'cursor' });
  });

  it('idempotent replay: the same key and request answers the original; another request with it is refused', async () => {
    const k = key('replay');
    const first = await hg.destinations.create({ url: 'https://replay.example.com' }, k);
    const again = await hg.destinations.create({ url: 'https://replay.example.com' }, k);
    expect(again.id).toBe(first.id);
    expect(first.lastResponse.idempotentReplayed).toBe(false);
    expect(again.lastResponse).toMatchObject({ status: 201, idempotentReplayed: true });
    const reused = await failure(hg.destinations.create({ url: 'https://other.example.com' }, k));
    expect(reused).toBeInstanceOf(HostgateInvalidRequestError);
    expect(reused).toMatchObject({ status: 422, code: 'idempotency_key_reused', idempotencyKey: k.idempotencyKey });
    expect(typeof Hostgate.generateKey()).toBe('string');
    expect(Hostgate.generateKey('order-42')).toMatch(/^order-42_[0-9a-f-]{36}$/);
    expect(Hostgate.generateKey()).not.toBe(Hostgate.generateKey());
  });

  describe('typed errors', () => {
    it('404, 400 with param, 401, 403, 409: each its class, with code, status, param and request id', async () => {
      const notFound = await failure(hg.domains.retrieve('dom_doesnotexist', { requestId: 'sdk-test-404' }));
      expect(notFound).toBeInstanceOf(HostgateNotFoundError);
      expect(notFound).toMatchObject({ name: 'HostgateNotFoundError', status: 404, code: 'domain_not_found', requestId: 'sdk-test-404', param: 'id' });
      expect(notFound.message).toMatch(/dom_doesnotexist/);

      const invalid = await failure(hg.destinations.create({ url: 'http://plain.example.com' }, key()));
      expect(invalid).toBeInstanceOf(HostgateInvalidRequestError);
      expect(invalid).toMatchObject({ status: 400, code: 'invalid_request', param: 'url', requestId: expect.stringMatching(/^req_/) });

      const unauthenticated = await failure(new Hostgate({ apiKey: 'hg_live_doesnotexist', baseUrl }).domains.list().firstPage());
      expect(unauthenticated).toBeInstanceOf(HostgateAuthenticationError);
      expect(unauthenticated).toMatchObject({ status: 401, code: 'invalid_api_key' });

      const readOnly = await apiKeysRepository(t.database.db).create({ organizationId: orgId, scopes: [] });
      const forbidden = await failure(new Hostgate({ apiKey: readOnly.secret, baseUrl }).destinations.create({ url: 'https://ro.example.com' }, key()));
      expect(forbidden).toBeInstanceOf(HostgatePermissionError);
      expect(forbidden).toMatchObject({ status: 403, code: 'insufficient_scope' });

      const destination = await hg.destinations.create({ url: `https://conflict-${uniq()}.example.com` }, key());
      const hostname = `conflict-${uniq()}.sdk-client.example`;
      await hg.domains.create({ hostname, destination_id: destination.id }, key());
      const conflict = await failure(hg.domains.create({ hostname, destination_id: destination.id }, key()));
      expect(conflict).toBeInstanceOf(HostgateConflictError);
      expect(conflict).toMatchObject({ status: 409, code: 'domain_conflict' });
      const inUse = await failure(hg.destinations.delete(destination.id, key()));
      expect(inUse).toMatchObject({ status: 409, code: 'destination_in_use' });
      for (const e of [notFound, invalid, unauthenticated, forbidden, conflict]) expect(e).toBeInstanceOf(HostgateError);
    });

    it('a write without an idempotency key (or a call without an id) is refused before anything is sent', async () => {
      const { calls, fetch } = countingFetch();
      const c = client({ fetch });
      const noKey = { url: 'https://nokey.example.com' };
      // @ts-expect-error -- what a JavaScript caller could do
      await expect(c.destinations.create(noKey)).rejects.toThrow(/idempotencyKey/);
      // @ts-expect-error -- idem
      await expect(c.domains.delete('dom_x', {})).rejects.toThrow(TypeError);
      await expect(c.destinations.create(noKey, { idempotencyKey: 'k'.repeat(129) })).rejects.toThrow(/at most 128/);
      await expect(c.domains.retrieve('')).rejects.toThrow(/expected an id/);
      expect(calls).toEqual([]);
    });

    it('connection refused: HostgateConnectionError; reads retried (bounded), writes not', async () => {
      const closed = net.createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
      const port = (closed.address() as net.AddressInfo).port;
      await new Promise<void>((r) => closed.close(() => r()));
      const { calls, fetch } = countingFetch();
      const c = new Hostgate({ apiKey, baseUrl: `http://127.0.0.1:${port}`, fetch, maxReadRetries: 2 });
      const read = await failure(c.domains.retrieve('dom_x'));
      expect(read).toBeInstanceOf(HostgateConnectionError);
      expect(read).toMatchObject({ code: 'connection_error', status: null, requestId: null });
      expect(calls).toEqual(Array(3).fill('GET /v1/domains/dom_x'));
      calls.length = 0;
      const k = key('conn');
      const write = await failure(c.destinations.create({ url: 'https://x.example.com' }, k));
      expect(write).toBeInstanceOf(HostgateConnectionError);
      expect(write.idempotencyKey).toBe(k.idempotencyKey);
      expect(calls).toEqual(['POST /v1/destinations']);
    });

    it('timeouts and AbortSignal: a peer that never answers', async () => {
      const sockets = new Set<net.Socket>();
      const silent = net.createServer((s) => { sockets.add(s); s.on('error', () => undefined); });
      await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
      const silentUrl = `http://127.0.0.1:${(silent.address() as net.AddressInfo).port}`;
      try {
        const { calls, fetch } = countingFetch();
        const c = new Hostgate({ apiKey, baseUrl: silentUrl, fetch, timeoutMs: 300 });
        const started = performance.now();
        const timedOut = await failure(c.domains.list().firstPage());
        expect(timedOut).toBeInstanceOf(HostgateTimeoutError);
        expect(timedOut).toBeInstanceOf(HostgateConnectionError);
        expect(timedOut).toMatchObject({ code: 'timeout', status: null });
        expect(performance.now() - started).toBeGreaterThanOrEqual(280);
        expect(performance.now() - started).toBeLessThan(3000);
        // A timed-out call is not repeated: the caller chose that budget.
        expect(calls).toHaveLength(1);

        // Per-call timeout overrides the client's.
        const slowClient = new Hostgate({ apiKey, baseUrl: silentUrl, timeoutMs: 60_000 });
        expect(await failure(slowClient.domains.retrieve('dom_x', { timeoutMs: 200 }))).toBeInstanceOf(HostgateTimeoutError);

        // The caller's signal: the call rejects with the signal's reason, as fetch does.
        const controller = new AbortController();
        setTimeout(() => controller.abort(), 100);
        const aborted = await failure<Error>(slowClient.domains.list({}, { signal: controller.signal }).firstPage());
        expect(aborted.name).toBe('AbortError');
        const ctl = new AbortController();
        setTimeout(() => ctl.abort(), 100);
        const abortedRead = await failure<Error>(slowClient.domains.retrieve('dom_x', { signal: ctl.signal }));
        expect(abortedRead.name).toBe('AbortError');
        expect(abortedRead).not.toBeInstanceOf(HostgateError);
        const reason = new Error('shutting down');
        const ctl2 = new AbortController();
        setTimeout(() => ctl2.abort(reason), 100);
        expect(await failure(slowClient.destinations.create({ url: 'https://a.example.com' }, { ...key(), signal: ctl2.signal }))).toBe(reason);

        // Already aborted: nothing is sent.
        calls.length = 0;
        const pre = await failure<Error>(c.domains.retrieve('dom_x', { signal: AbortSignal.abort() }));
        expect(pre.name).toBe('AbortError');
        expect(calls).toEqual([]);
      } finally {
        for (const s of sockets) s.destroy();
        await new Promise<void>((r) => silent.close(() => r()));
      }
    });
  });

  describe('503 from the API with Postgres cut', () => {
    let proxy: TcpProxy;
    let app: App;
    let url: string;
    beforeAll(async () => {
      // The same database reached through a TCP proxy that the test can cut.
      const target = new URL(t.database.url);
      proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
      const viaProxy = new URL(t.database.url);
      viaProxy.host = `127.0.0.1:${proxy.port}`;
      const db = await createDb(viaProxy.toString(), { maximumPoolSize: 2 });
      app = await buildApp({ config: testConfig(), db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
      app.addHook('onClose', async () => { await db.end().catch(() => undefined); });
      url = await listen(app);
    });
    afterAll(async () => {
      await app?.close();
      await proxy?.close();
    });

    it('a write that gets 503 is not retried; the error carries Retry-After and the key to retry with', async () => {
      const { calls, fetch } = countingFetch();
      const c = new Hostgate({ apiKey, baseUrl: url, fetch });
      expect((await c.domains.list().firstPage()).lastResponse.status).toBe(200);
      await proxy.cut();
      try {
        calls.length = 0;
        const k = key('503');
        const error = await failure(c.destinations.create({ url: 'https://unavailable.example.com' }, k));
        expect(error).toBeInstanceOf(HostgateUnavailableError);
        expect(error).toMatchObject({ status: 503, code: 'service_unavailable', retryAfterSeconds: 5, idempotencyKey: k.idempotencyKey });
        expect(calls).toEqual(['POST /v1/destinations']);

        // A read is retried, but not sooner than Retry-After: above maxRetryDelayMs it is not waited for.
        calls.length = 0;
        const impatient = new Hostgate({ apiKey, baseUrl: url, fetch, maxRetryDelayMs: 1000 });
        expect(await failure(impatient.domains.list().firstPage())).toBeInstanceOf(HostgateUnavailableError);
        expect(calls).toEqual(['GET /v1/domains']);
      } finally {
        await proxy.restore();
      }
    });

    it('a read that gets 503 is retried after Retry-After and succeeds once Postgres is back', async () => {
      await proxy.cut();
      const { calls, fetch } = countingFetch();
      const c = new Hostgate({ apiKey, baseUrl: url, fetch, maxReadRetries: 1 });
      const started = performance.now();
      const pending = c.domains.list().firstPage();
      await new Promise((r) => setTimeout(r, 1000));
      await proxy.restore();
      const page = await pending;
      const elapsed = performance.now() - started;
      expect(page.lastResponse).toMatchObject({ status: 200, attempts: 2 });
      expect(calls).toEqual(['GET /v1/domains', 'GET /v1/domains']);
      expect(elapsed).toBeGreaterThanOrEqual(4900); // Retry-After: 5
      expect(elapsed).toBeLessThan(9000);
    }, 20_000);
  });

  describe('429 from the API rate limiter (one request per 4 s, burst 1)', () => {
    let app: App;
    let url: string;
    beforeAll(async () => {
      // Slow enough that a busy machine cannot let the bucket refill between two requests (at
      // 1/s, a second between them was enough).
      const config = testConfig();
      app = await buildApp({ config: { ...config, api: { ...config.api, rateLimit: { perSecond: 0.25, burst: 1 } } }, db: t.database.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
      url = await listen(app);
    });
    afterAll(async () => { await app?.close(); });

    it('a read that gets 429 is retried once, after the Retry-After delay; a write is not retried', async () => {
      const own = await createOrgWithKey(t, undefined, 'Rate-limited org');
      const { calls, fetch } = countingFetch();
      const c = new Hostgate({ apiKey: own.key, baseUrl: url, fetch });
      await c.domains.list().firstPage(); // takes the only token
      calls.length = 0;
      const started = performance.now();
      const page = await c.domains.list().firstPage();
      const elapsed = performance.now() - started;
      expect(page.lastResponse).toMatchObject({ status: 200, attempts: 2 });
      expect(calls).toEqual(['GET /v1/domains', 'GET /v1/domains']);
      expect(elapsed).toBeGreaterThanOrEqual(3950); // Retry-After: 4
      expect(elapsed).toBeLessThan(8000);

      calls.length = 0;
      const limited = await failure(c.destinations.create({ url: 'https://limited.example.com' }, key('429')));
      expect(limited).toBeInstanceOf(HostgateRateLimitError);
      expect(limited).toMatchObject({ status: 429, code: 'rate_limited', retryAfterSeconds: 4 });
      expect(calls).toEqual(['POST /v1/destinations']);

      // No retries asked: the 429 is the caller's.
      await new Promise((r) => setTimeout(r, 4100));
      const noRetry = new Hostgate({ apiKey: own.key, baseUrl: url, fetch, maxReadRetries: 0 });
      await noRetry.domains.list().firstPage();
      calls.length = 0;
      expect(await failure(noRetry.domains.retrieve('dom_x'))).toBeInstanceOf(HostgateRateLimitError);
      expect(calls).toHaveLength(1);
    }, 30_000);
  });
});
