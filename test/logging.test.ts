// Logs carry request ids and never a credential: API keys, webhook secrets and Authorization
// headers stay out of every line, even at trace level.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { buildApp, type App } from '../api/app.ts';
import { loggerOptions } from '../logging/logger.ts';
import { createOrgWithKey, testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

describe('logging', () => {
  let t: TestDatabase;
  let app: App;
  const lines: string[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(chunk.toString()); done(); } });
    const logger = pino(loggerOptions('trace', 'api'), sink);
    app = await buildApp({ config: testConfig(), db: t.db, temporal: null, dispatcher: null, logger });
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  it('logs JSON lines with the request id, and no key or secret', async () => {
    const { key } = await createOrgWithKey({ database: t });
    const res = await app.inject({ method: 'POST', url: '/v1/webhook-endpoints', headers: { authorization: `Bearer ${key}`, 'idempotency-key': 'log-1', 'x-request-id': 'log-req-1' }, payload: { url: 'https://hooks.example.com/log' } });
    expect(res.statusCode).toBe(201);
    const secret: string = res.json().data.secret;
    await app.inject({ method: 'GET', url: '/v1/domains', headers: { authorization: `Bearer ${key}x` } }); // a rejected key is not logged either
    const all = lines.join('');
    expect(lines.length).toBeGreaterThan(2);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(lines.some((l) => JSON.parse(l).reqId === 'log-req-1' || JSON.parse(l).request_id === 'log-req-1' || l.includes('"log-req-1"'))).toBe(true);
    expect(all).not.toContain(key);
    expect(all).not.toContain(key.slice(8));
    expect(all).not.toContain(secret);
    expect(all).not.toMatch(/authorization/i);
  });
});

describe('credentials in URLs (issue 14, item 6)', () => {
  let t: TestDatabase;
  let app: App;
  const lines: string[] = [];
  beforeAll(async () => {
    t = await createTestDatabase();
    const sink = new Writable({ write(chunk, _enc, done) { lines.push(chunk.toString()); done(); } });
    app = await buildApp({ config: testConfig(), db: t.db, temporal: null, dispatcher: null, logger: pino(loggerOptions('info', 'api'), sink) });
  });
  afterAll(async () => {
    await app.close();
    await t.drop();
  });

  it('refuses a key in the query string with 400 api_key_in_query and never logs it', async () => {
    const { key } = await createOrgWithKey({ database: t });
    for (const url of [`/v1/domains?api_key=${key}`, `/v1/domains?limit=5&Api-Key=${encodeURIComponent(key)}`, `/v1/domains?access_token=abc123secret`, `/v1/nope?x=${key}`]) {
      const res = await app.inject({ method: 'GET', url, headers: { 'x-request-id': 'q-key' } });
      expect([url, res.statusCode, res.json().error.code, res.json().error.request_id]).toEqual([url, 400, 'api_key_in_query', 'q-key']);
      expect(res.body).not.toContain(key);
    }
    // Even with a valid Authorization header: the key in the URL is already exposed.
    const both = await app.inject({ method: 'GET', url: `/v1/domains?token=${key}`, headers: { authorization: `Bearer ${key}` } });
    expect([both.statusCode, both.json().error.param]).toEqual([400, 'token']);
    const all = lines.join('');
    expect(all).toContain('api_key=[redacted]');
    expect(all).toContain('"url":"/v1/domains?limit=5&Api-Key=[redacted]"');
    expect(all).not.toContain(key.slice(8));
    expect(all).not.toContain('abc123secret');
  });

  it('redacts the local billing pages\' ids (bearer capabilities) from logged paths', async () => {
    const capability = 'ps_local_abcdefghijklmnopqrstuvwx';
    await app.inject({ method: 'GET', url: `/v1/billing/local/portal/${capability}` });
    await app.inject({ method: 'POST', url: '/v1/billing/local/checkout/cs_local_zyxwvutsrqponmlkjihgfedc/pay' });
    const all = lines.join('');
    expect(all).toContain('/v1/billing/local/portal/ps_local_[redacted]');
    expect(all).toContain('/v1/billing/local/checkout/cs_local_[redacted]/pay');
    expect(all).not.toContain(capability);
    expect(all).not.toContain('zyxwvutsrqponmlkjihgfedc');
  });

  it('leaves ordinary query parameters alone', async () => {
    const { auth } = await createOrgWithKey({ database: t });
    const res = await app.inject({ method: 'GET', url: '/v1/domains?limit=5&hostname=token.example.com', headers: auth });
    expect(res.statusCode).toBe(200);
    expect(lines.join('')).toContain('/v1/domains?limit=5&hostname=token.example.com');
  });
});
