import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp } from '../api/app.ts';
import { createDb } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { nativeClientProvider } from '../temporal/connection.ts';
import { createTestApp, testConfig, type TestApp } from './support/app.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';
import { waitFor } from './support/wait.ts';

describe('health and readiness', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp(); });
  afterAll(async () => { await t.close(); });

  it('/healthz answers while the process is up', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
    expect(res.headers['x-request-id']).toMatch(/^req_/);
  });

  it('/readyz is 200 when Postgres and Temporal answer', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/readyz', headers: { 'x-request-id': 'probe-1' } });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
    expect(res.headers['x-request-id']).toBe('probe-1');
  });

  it('/readyz is 503 with the envelope when Postgres is down', async () => {
    // The API reaches Postgres through a loopback proxy; cutting it takes Postgres away for real.
    const target = new URL(t.database.url);
    const proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(t.database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const db = await createDb(viaProxy.toString(), { maximumPoolSize: 1 });
    const app = await buildApp({ config: testConfig(), db, temporal: { client: t.temporal.client }, dispatcher: null, logger: createLogger('silent', 'test') });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
      await proxy.cut();
      const res = await app.inject({ method: 'GET', url: '/readyz', headers: { 'x-request-id': 'probe-2' } });
      expect(res.statusCode).toBe(503);
      expect(res.headers['retry-after']).toBe('5');
      const body = res.json();
      expect(body.error.code).toBe('service_unavailable');
      expect(body.error.request_id).toBe('probe-2');
      expect(body.error.message).toMatch(/postgres/);
      expect(Object.keys(body.error.details).sort()).toEqual(['checks', 'postgres']);
      expect(body.error.details.checks).toEqual({ postgres: 'unreachable', temporal: 'ok' });
      expect(JSON.stringify(body)).not.toContain(viaProxy.toString());
      expect(JSON.stringify(body.error.details)).not.toMatch(/127\.0\.0\.1|ECONNREFUSED/);
      // Back up: ready again without a restart.
      await proxy.restore();
      expect((await app.inject({ method: 'GET', url: '/readyz' })).statusCode).toBe(200);
    } finally {
      await app.close();
      await db.end().catch(() => undefined);
      await proxy.close();
    }
  });

  it('/readyz is 200 degraded when only Temporal is away (creates go through the outbox); strict=1 is 503', async () => {
    // A real Temporal connection through a loopback proxy, then the proxy cut: Temporal away for real.
    const [host, port] = t.temporal.address.split(':') as [string, string];
    const proxy = await startTcpProxy(host, Number(port));
    // The API's own kind of client (api/server.ts): the Rust core's connection.
    const temporal = nativeClientProvider(`127.0.0.1:${proxy.port}`, 'default');
    const app = await buildApp({ config: testConfig(), db: t.database.db, temporal: { client: temporal.get }, dispatcher: null, logger: createLogger('silent', 'test') });
    try {
      expect((await app.inject({ method: 'GET', url: '/readyz?strict=1' })).json()).toEqual({ status: 'ready', checks: { postgres: 'ok', temporal: 'ok' } });
      await proxy.cut();
      const started = Date.now();
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(Date.now() - started).toBeLessThan(5000);
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'degraded', checks: { postgres: 'ok', temporal: 'unreachable' } });
      expect(res.json().details.temporal).toMatch(/^Temporal (did not answer within 2000 ms|refused or failed the check) \(details in the API log\)$/);
      // Unauthenticated callers never see where our dependencies live.
      expect(JSON.stringify(res.json())).not.toMatch(/127\.0\.0\.1|:\d{4,5}\b/);
      const strict = await app.inject({ method: 'GET', url: '/readyz?strict=1' });
      expect(strict.statusCode).toBe(503);
      expect(strict.headers['retry-after']).toBe('5');
      expect(strict.json().error.code).toBe('service_unavailable');
      expect(strict.json().error.details.checks).toEqual({ postgres: 'ok', temporal: 'unreachable' });
      await proxy.restore();
      await waitFor('Temporal reachable again', async () => (await app.inject({ method: 'GET', url: '/readyz?strict=1' })).statusCode === 200, 20_000, 200);
    } finally {
      await app.close();
      await temporal.close();
      await proxy.close();
    }
  }, 30_000);

  it('/readyz is degraded when Temporal is not configured, 503 when strict; a bad strict value is 400', async () => {
    const app = await buildApp({ config: testConfig(), db: t.database.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    try {
      const res = await app.inject({ method: 'GET', url: '/readyz' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: 'degraded', checks: { postgres: 'ok', temporal: 'not_configured' } });
      const strict = await app.inject({ method: 'GET', url: '/readyz?strict=true' });
      expect(strict.statusCode).toBe(503);
      expect(strict.json().error.details).toHaveProperty('temporal');
      expect((await app.inject({ method: 'GET', url: '/readyz?strict=yes' })).statusCode).toBe(400);
    } finally {
      await app.close();
    }
  });

  it('unknown routes answer the error envelope with a generated request id', async () => {
    const res = await t.app.inject({ method: 'GET', url: '/nowhere', headers: { 'x-request-id': 'bad id with spaces' } });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.code).toBe('not_found');
    expect(res.json().error.request_id).toMatch(/^req_/);
  });
});
