// Failed authentications per client address (api/auth-failure-limit.ts, docs/api-decisions.md,
// "Limits"), with the production default (burst 20, 1/s). The apps here reach Postgres through a
// loopback proxy that can freeze it: while frozen, any request that queries ends as 503 after the
// bounds below, so a 429 then proves the answer came without a query.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp, type App } from '../api/app.ts';
import { clientKey } from '../api/auth-failure-limit.ts';
import { TokenBuckets } from '../api/rate-limit.ts';
import { createDb, type Db } from '../db/pool.ts';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { createLogger, loggerOptions } from '../logging/logger.ts';
import { authFailures } from '../metrics/http.ts';
import { createTestDatabase } from './support/db.ts';
import { createOrgWithKey, createTestApp, testConfig, type TestApp } from './support/app.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const BURST = 20;
const ORIGIN = 'https://vendor.example';
const limits = { statementTimeoutMs: 1500, connectTimeoutMs: 1500, acquireTimeoutMs: 1500, idleInTransactionTimeoutMs: 5000 };

describe('failed authentications per client address', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let widgetToken: string;
  let proxy: TcpProxy;
  let db: Db;
  const apps: App[] = [];

  /** A fresh app (fresh buckets) over the freezable path, with the production default budget. */
  async function appWith(config: Record<string, string> = {}): Promise<App> {
    const app = await buildApp({ config: testConfig({ HOSTGATE_AUTH_FAILURE_BURST: String(BURST), HOSTGATE_AUTH_FAILURE_PER_SECOND: '1', ...config }), db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    apps.push(app);
    return app;
  }
  const getDomains = (app: App, remoteAddress: string, authorization: string, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: '/v1/domains', remoteAddress, headers: { authorization, ...headers } });
  const getWidget = (app: App, remoteAddress: string, token: string) =>
    app.inject({ method: 'GET', url: '/v1/widget/domains', remoteAddress, headers: { authorization: `Bearer ${token}`, origin: ORIGIN } });
  const badKey = (i: number | string) => `Bearer hg_live_unknown${i}`;

  async function frozen<T>(fn: () => Promise<T>): Promise<T> {
    proxy.freeze();
    try { return await fn(); } finally { proxy.thaw(); }
  }

  beforeAll(async () => {
    t = await createTestApp();
    auth = (await createOrgWithKey(t)).auth;
    const destination = (await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'idempotency-key': 'afl-dest' }, payload: { url: 'https://app.afl.example' } })).json().data.id;
    widgetToken = (await t.app.inject({ method: 'POST', url: '/v1/widget-sessions', headers: { ...auth, 'idempotency-key': 'afl-session' }, payload: { external_customer_id: 'cus_afl', allowed_origins: [ORIGIN], destination_id: destination } })).json().data.token;
    const target = new URL(t.database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(t.database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    db = await createDb(viaProxy.toString(), { maximumPoolSize: 4, ...limits });
  });
  afterAll(async () => {
    proxy?.thaw();
    for (const app of apps) await app.close();
    await db?.end().catch(() => undefined);
    await proxy?.close();
    await t?.close();
  });

  it(`${BURST} unknown keys from one address answer 401; the next answers 429 with Retry-After without querying Postgres, a valid key from that address too; other addresses are unaffected`, async () => {
    const app = await appWith();
    const ip = '198.51.100.7';
    for (let i = 0; i < BURST; i++) {
      const res = await getDomains(app, ip, badKey(i));
      expect([i, res.statusCode, res.json().error.code]).toEqual([i, 401, 'invalid_api_key']);
    }
    const [over, validFromSameIp, validElsewhere] = await frozen(async () => {
      const over = await getDomains(app, ip, badKey('over'));
      const validFromSameIp = await getDomains(app, ip, auth.authorization!);
      // The control: the same valid key from another address does query, and so cannot answer.
      const validElsewhere = await getDomains(app, '198.51.100.8', auth.authorization!);
      return [over, validFromSameIp, validElsewhere];
    });
    for (const res of [over, validFromSameIp]) {
      expect(res.statusCode).toBe(429);
      expect(res.json().error.code).toBe('rate_limited');
      expect(res.json().error.message).toMatch(/too many failed authentications from this address; retry after 1 s/);
      expect(res.headers['retry-after']).toBe('1');
    }
    expect([validElsewhere.statusCode, validElsewhere.json().error.code]).toEqual([503, 'service_unavailable']);

    // Another address keeps its own budget.
    expect((await getDomains(app, '203.0.113.9', badKey('other'))).statusCode).toBe(401);
    expect((await getDomains(app, '203.0.113.10', auth.authorization!)).statusCode).toBe(200);

    // After Retry-After the valid key is served again from the exhausted address; only failures
    // spend the budget, so it keeps working.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    for (let i = 0; i < 3; i++) expect((await getDomains(app, ip, auth.authorization!)).statusCode).toBe(200);
  });

  it('a malformed or missing credential costs no lookup and spends nothing', async () => {
    const app = await appWith();
    const ip = '198.51.100.20';
    for (let i = 0; i < BURST * 2; i++) {
      const malformed = await getDomains(app, ip, `Bearer nope${i}`);
      expect(malformed.json().error.code).toBe('invalid_api_key');
      const missing = await app.inject({ method: 'GET', url: '/v1/domains', remoteAddress: ip });
      expect(missing.json().error.code).toBe('missing_api_key');
      const malformedWidget = await getWidget(app, ip, `nope${i}`);
      expect(malformedWidget.json().error.code).toBe('invalid_widget_token');
    }
    expect((await getDomains(app, ip, auth.authorization!)).statusCode).toBe(200);
  });

  it('widget tokens: unknown ones spend the same budget (shared with API keys); the 429 is readable by the page; a valid token from a fresh address works', async () => {
    const app = await appWith();
    const ip = '198.51.100.30';
    for (let i = 0; i < BURST / 2; i++) expect((await getDomains(app, ip, badKey(i))).statusCode).toBe(401);
    for (let i = 0; i < BURST / 2; i++) {
      const res = await getWidget(app, ip, `wst_unknown${i}`);
      expect([i, res.statusCode, res.json().error.code]).toEqual([i, 401, 'invalid_widget_token']);
    }
    const over = await frozen(() => getWidget(app, ip, widgetToken));
    expect([over.statusCode, over.json().error.code, over.headers['retry-after']]).toEqual([429, 'rate_limited', '1']);
    expect(over.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect((await getWidget(app, '198.51.100.31', widgetToken)).statusCode).toBe(200);
  });

  it('without trusted proxies X-Forwarded-For is ignored: the socket peer is the client', async () => {
    const app = await appWith();
    for (let i = 0; i < BURST; i++) {
      expect((await getDomains(app, '127.0.0.1', badKey(i), { 'x-forwarded-for': `192.0.2.${i + 1}` })).statusCode).toBe(401);
    }
    const res = await frozen(() => getDomains(app, '127.0.0.1', badKey('over'), { 'x-forwarded-for': '192.0.2.200' }));
    expect([res.statusCode, res.json().error.code]).toEqual([429, 'rate_limited']);
  });

  it('with HOSTGATE_TRUSTED_PROXIES=127.0.0.1 the client named in X-Forwarded-For by that proxy is the one limited; other peers cannot name one', async () => {
    const app = await appWith({ HOSTGATE_TRUSTED_PROXIES: '127.0.0.1' });
    for (let i = 0; i < BURST; i++) {
      expect((await getDomains(app, '127.0.0.1', badKey(i), { 'x-forwarded-for': '192.0.2.1' })).statusCode).toBe(401);
    }
    const [limited, otherClient] = await frozen(async () => [
      await getDomains(app, '127.0.0.1', badKey('over'), { 'x-forwarded-for': '192.0.2.1' }),
      // A client spoofing an address in front of it: the proxy appends the real one, which decides.
      await getDomains(app, '127.0.0.1', auth.authorization!, { 'x-forwarded-for': '203.0.113.50, 192.0.2.1' }),
    ]);
    expect([limited.statusCode, limited.json().error.code]).toEqual([429, 'rate_limited']);
    expect([otherClient.statusCode, otherClient.json().error.code]).toEqual([429, 'rate_limited']);
    // Another client behind the same proxy has its own budget.
    expect((await getDomains(app, '127.0.0.1', auth.authorization!, { 'x-forwarded-for': '192.0.2.2' })).statusCode).toBe(200);
    // A peer that is not a trusted proxy is the client itself, whatever it says.
    for (let i = 0; i < BURST; i++) {
      expect((await getDomains(app, '10.9.9.9', badKey(i), { 'x-forwarded-for': `192.0.2.${100 + i}` })).statusCode).toBe(401);
    }
    const spoofing = await frozen(() => getDomains(app, '10.9.9.9', badKey('over'), { 'x-forwarded-for': '192.0.2.250' }));
    expect(spoofing.statusCode).toBe(429);
  });
});

describe('failed-authentication budget: what the operator sees', () => {
  it('one warning per address per episode (not per refused request) naming the address, and counters of failures and refusals', async () => {
    const database = await createTestDatabase();
    const lines: string[] = [];
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(chunk.toString()); done(); } });
    const app = await buildApp({ config: testConfig({ HOSTGATE_AUTH_FAILURE_BURST: '2', HOSTGATE_AUTH_FAILURE_PER_SECOND: '1' }), db: database.db, temporal: null, dispatcher: null, logger: pino(loggerOptions('info', 'api'), sink) });
    try {
      const counter = async (outcome: string) => (await authFailures.get()).values.find((v) => v.labels.outcome === outcome)?.value ?? 0;
      const [failedBefore, refusedBefore] = [await counter('failed'), await counter('refused')];
      const get = (ip: string, i: number) => app.inject({ method: 'GET', url: '/v1/domains', remoteAddress: ip, headers: { authorization: `Bearer hg_live_unknown${i}` } });
      const warnings = () => lines.map((l) => JSON.parse(l) as { msg: string; client?: string; level: number }).filter((l) => /spent its failed-authentication budget/.test(l.msg));
      for (let i = 0; i < 2; i++) expect((await get('198.51.100.20', i)).statusCode).toBe(401);
      for (let i = 0; i < 3; i++) expect((await get('198.51.100.20', i)).statusCode).toBe(429);
      expect((await get('198.51.100.21', 0)).statusCode).toBe(401);
      expect(warnings().map((w) => w.client)).toEqual(['198.51.100.20']);
      expect(warnings()[0]!.level).toBe(40);
      expect(await counter('failed')).toBe(failedBefore + 3);
      expect(await counter('refused')).toBe(refusedBefore + 3);
      // Refilled (1/s), allowed again, spent again: a new episode, a new warning.
      await new Promise((r) => setTimeout(r, 1100));
      expect((await get('198.51.100.20', 9)).statusCode).toBe(401);
      for (let i = 0; i < 3; i++) await get('198.51.100.20', 10 + i);
      expect(warnings().map((w) => w.client)).toEqual(['198.51.100.20', '198.51.100.20']);
      // The unknown keys themselves are never logged.
      expect(lines.join('')).not.toMatch(/hg_live_unknown/);
    } finally {
      await app.close();
      await database.drop();
    }
  });
});

describe('TokenBuckets.check and client keys', () => {
  it('check never takes a token nor makes a bucket', () => {
    const buckets = new TokenBuckets(1, 2);
    for (let i = 0; i < 5; i++) expect(buckets.check('a', 0).allowed).toBe(true);
    buckets.take('a', 0);
    buckets.take('a', 0);
    expect(buckets.check('a', 0)).toEqual({ allowed: false, retryAfterSeconds: 1 });
    expect(buckets.check('a', 999).allowed).toBe(false);
    expect(buckets.check('a', 1000).allowed).toBe(true);
  });

  it('IPv6 clients share their /64; IPv4-mapped addresses count as IPv4', () => {
    expect(clientKey('192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('::ffff:192.0.2.1')).toBe('192.0.2.1');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('2001:db8:1:3::1')).not.toBe(clientKey('2001:db8:1:2::1'));
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});
