// The error envelope, request ids and status mapping of docs/api-decisions.md ("Errors"), for every kind of failure
// the framework itself can produce, plus authentication and rate limiting.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { buildApp } from '../api/app.ts';
import { createDb } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, createTestApp, testConfig, type TestApp } from './support/app.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';

function expectEnvelope(res: { statusCode: number; json(): any; headers: Record<string, unknown> }, status: number, code: string) {
  expect(res.statusCode).toBe(status);
  const body = res.json();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(10);
  expect(body.error.request_id).toBe(res.headers['x-request-id']);
  return body.error;
}

describe('API errors', () => {
  let t: TestApp;
  let auth: Record<string, string>;
  let orgId: string;
  beforeAll(async () => {
    t = await createTestApp();
    const o = await createOrgWithKey(t);
    auth = o.auth;
    orgId = o.org.id;
  });
  afterAll(async () => { await t.close(); });

  it('echoes a sane X-Request-Id and replaces an insane one', async () => {
    const ok = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': 'abc-123' } });
    expect(ok.headers['x-request-id']).toBe('abc-123');
    expect(ok.json().error.request_id).toBe('abc-123');
    const long = await t.app.inject({ method: 'GET', url: '/v1/nope', headers: { 'x-request-id': 'x'.repeat(129) } });
    expect(long.headers['x-request-id']).toMatch(/^req_[0-9a-z]{24}$/);
  });

  it('404 not_found for unknown routes, 405 with Allow for a known path', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/unknown' }), 404, 'not_found');
    const res = await t.app.inject({ method: 'PUT', url: '/v1/domains', headers: auth });
    expectEnvelope(res, 405, 'method_not_allowed');
    expect(res.headers.allow).toBe('GET, POST');
  });

  it('401 missing_api_key and invalid_api_key (malformed, unknown, revoked)', async () => {
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/domains' }), 401, 'missing_api_key');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: 'Basic abc' } }), 401, 'invalid_api_key');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: 'Bearer hg_live_doesnotexist' } }), 401, 'invalid_api_key');
    expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: 'Bearer wst_widgettoken' } }), 401, 'invalid_api_key');
    const keys = apiKeysRepository(t.database.db);
    const { key, secret } = await keys.create({ organizationId: orgId, scopes: [] });
    expect((await t.app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: `Bearer ${secret}` } })).statusCode).toBe(200);
    await keys.revoke(key.id);
    // The running API refuses a revoked key within a bound, not at once: it kept the key in memory
    // and evicts it when the revocation's notification arrives (api/api-key-cache.ts).
    const revokedAt = Date.now();
    const call = () => t.app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: `Bearer ${secret}` } });
    let res = await call();
    while (res.statusCode === 200 && Date.now() - revokedAt < 5000) {
      await new Promise((r) => setTimeout(r, 5));
      res = await call();
    }
    expect(Date.now() - revokedAt).toBeLessThan(1000);
    expectEnvelope(res, 401, 'invalid_api_key');
  });

  it('400 invalid_request for bad JSON, empty JSON body, schema errors (with param), unknown fields and bad limits', async () => {
    const h = { ...auth, 'content-type': 'application/json', 'idempotency-key': 'k-bad-json' };
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: h, payload: '{"url": ' }), 400, 'invalid_request');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: h, payload: '' }), 400, 'invalid_request');
    let e = expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: h, payload: {} }), 400, 'invalid_request');
    expect(e.param).toBe('url');
    e = expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: h, payload: { url: 42 } }), 400, 'invalid_request');
    expect(e.param).toBe('url');
    e = expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: h, payload: { url: 'https://app.example.com', extra: 1 } }), 400, 'invalid_request');
    expect(e.param).toBe('extra');
    for (const limit of ['0', '101', 'ten', '-1', '1.5']) {
      e = expectEnvelope(await t.app.inject({ method: 'GET', url: `/v1/domains?limit=${limit}`, headers: auth }), 400, 'invalid_request');
      expect(e.param).toBe('limit');
    }
    e = expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/domains?cursor=garbage', headers: auth }), 400, 'invalid_request');
    expect(e.param).toBe('cursor');
    e = expectEnvelope(await t.app.inject({ method: 'GET', url: '/v1/domains?status=sleeping', headers: auth }), 400, 'invalid_request');
    expect(e.param).toBe('status');
  });

  it('413 payload_too_large over 64 KiB, 415 unsupported_media_type for non-JSON bodies', async () => {
    const big = JSON.stringify({ url: `https://${'a'.repeat(65 * 1024)}.example.com` });
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'big' }, payload: big }), 413, 'payload_too_large');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'content-type': 'text/plain', 'idempotency-key': 'txt' }, payload: 'url=https://x' }), 415, 'unsupported_media_type');
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded', 'idempotency-key': 'form' }, payload: 'url=https://x' }), 415, 'unsupported_media_type');
  });

  it('400 idempotency_key_missing and idempotency_key_invalid', async () => {
    expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: auth, payload: { url: 'https://app.example.com' } }), 400, 'idempotency_key_missing');
    const e = expectEnvelope(await t.app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...auth, 'idempotency-key': 'k'.repeat(129) }, payload: { url: 'https://app.example.com' } }), 400, 'idempotency_key_invalid');
    expect(e.param).toBe('Idempotency-Key');
  });

  it('429 rate_limited with Retry-After once a key exceeds its burst', async () => {
    const limited = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '1', HOSTGATE_RATE_LIMIT_BURST: '3' } });
    try {
      const o = await createOrgWithKey(limited);
      // The app's first reads (compilation, the pool's first connections) can take longer than the
      // 1 s refill; warmed with another key (its own bucket), the five below take milliseconds.
      const warm = await createOrgWithKey(limited);
      for (let i = 0; i < 2; i++) expect((await limited.app.inject({ method: 'GET', url: '/v1/domains', headers: warm.auth })).statusCode).toBe(200);
      const statuses: number[] = [];
      let last;
      for (let i = 0; i < 5; i++) {
        last = await limited.app.inject({ method: 'GET', url: '/v1/domains', headers: o.auth });
        statuses.push(last.statusCode);
      }
      expect(statuses).toEqual([200, 200, 200, 429, 429]);
      expectEnvelope(last!, 429, 'rate_limited');
      expect(Number(last!.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another key of the same organization has its own bucket.
      const other = await apiKeysRepository(limited.database.db).create({ organizationId: o.org.id, scopes: [] });
      expect((await limited.app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: `Bearer ${other.secret}` } })).statusCode).toBe(200);
    } finally {
      await limited.close();
    }
  });

  it('500 internal_error hides the cause', async () => {
    const broken = await createTestApp();
    const o = await createOrgWithKey(broken);
    // Drop a table the route needs: the driver raises a real SQL error.
    const { sql } = await import('../db/pool.ts');
    await broken.database.db.query(sql.unsafe`alter table destinations rename to destinations_gone`);
    const res = await broken.app.inject({ method: 'GET', url: '/v1/destinations', headers: o.auth });
    const e = expectEnvelope(res, 500, 'internal_error');
    expect(JSON.stringify(e)).not.toMatch(/destinations|select|relation|stack/i);
    await broken.database.db.query(sql.unsafe`alter table destinations_gone rename to destinations`);
    await broken.close();
  });

  it('503 service_unavailable with Retry-After when Postgres is unreachable', async () => {
    const target = new URL(t.database.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(t.database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const db = await createDb(viaProxy.toString(), { maximumPoolSize: 2 });
    const app = await buildApp({ config: testConfig(), db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    try {
      expect((await app.inject({ method: 'GET', url: '/v1/domains', headers: auth })).statusCode).toBe(200);
      await proxy.cut();
      const res = await app.inject({ method: 'GET', url: '/v1/domains', headers: auth });
      expectEnvelope(res, 503, 'service_unavailable');
      expect(res.headers['retry-after']).toBe('5');
    } finally {
      await app.close();
      await db.end().catch(() => undefined);
      await proxy.close();
    }
  });
});
