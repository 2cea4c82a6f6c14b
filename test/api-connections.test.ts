// Issue 14, item 5: a slow sender is cut off, and what Node's HTTP parser or a draining server
// answers carries the API's envelope and a request id. Real sockets against a listening app
// (inject() has no parser and no timeouts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net from 'node:net';
import { buildApp, type App } from '../api/app.ts';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { loggerOptions } from '../logging/logger.ts';
import { createOrgWithKey, testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';

interface RawAnswer { status: number; headers: Record<string, string>; body: string; elapsedMs: number }

/** Writes `chunks` (with pauses between them) and collects the raw answer until the server closes. */
function rawRequest(port: number, chunks: Array<string | number>): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = net.connect(port, '127.0.0.1');
    let data = '';
    let stopped = false;
    socket.on('data', (d) => { data += d.toString('latin1'); });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      stopped = true;
      const [head = '', body = ''] = data.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      if (!statusLine) return reject(new Error('closed without an answer'));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body, elapsedMs: Date.now() - started });
    });
    void (async () => {
      for (const c of chunks) {
        if (stopped) return;
        if (typeof c === 'number') await new Promise((r) => setTimeout(r, c));
        else socket.write(c);
      }
    })();
  });
}

function expectEnvelope(answer: RawAnswer, status: number, code: string) {
  expect(answer.status).toBe(status);
  expect(answer.headers['content-type']).toMatch(/^application\/json/);
  const body = JSON.parse(answer.body);
  expect(body.error.code).toBe(code);
  expect(body.error.request_id).toMatch(/^req_[0-9a-z]{24}$/);
  expect(answer.headers['x-request-id']).toBe(body.error.request_id);
  return body.error;
}

describe('connection-level limits and answers', () => {
  let t: TestDatabase;
  let app: App;
  let port: number;
  let release: () => void = () => undefined;
  let authorization = '';
  const logLines: string[] = [];
  beforeAll(async () => {
    t = await createTestDatabase();
    const sink = new Writable({ write(chunk, _enc, done) { logLines.push(chunk.toString()); done(); } });
    app = await buildApp({ config: testConfig({ HOSTGATE_REQUEST_TIMEOUT_MS: '1500' }), db: t.db, temporal: null, dispatcher: null, logger: pino(loggerOptions('info', 'api'), sink) });
    // A route that holds its request until the test lets it go: keeps the server draining.
    app.get('/test-hold', async () => { await new Promise<void>((r) => { release = r; }); return { ok: true }; });
    await app.listen({ host: '127.0.0.1', port: 0 });
    authorization = (await createOrgWithKey({ database: t })).auth.authorization;
    port = (app.server.address() as net.AddressInfo).port;
  });
  afterAll(async () => {
    release();
    await app.close().catch(() => undefined);
    await t.drop();
  });

  it('cuts off a body sent one byte at a time: 408 request_timeout with the envelope, within the bound', async () => {
    const body = JSON.stringify({ url: 'https://slow.example.com' });
    const drip: Array<string | number> = [`POST /v1/destinations HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nIdempotency-Key: slow-1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`];
    for (const ch of body) drip.push(400, ch);
    const answer = await rawRequest(port, drip);
    const error = expectEnvelope(answer, 408, 'request_timeout');
    expect(error.message).toMatch(/not received in time/);
    // 1.5 s limit, checked every 375 ms: answered long before the ~12 s the drip would take.
    expect(answer.elapsedMs).toBeLessThan(1500 + 375 + 1000);
    expect(answer.headers.connection).toBe('close');
  });

  it('headers that never end are cut off the same way', async () => {
    const answer = await rawRequest(port, ['GET /v1/domains HTTP/1.1\r\nHost: x\r\n', 600, 'X-A: 1\r\n', 600, 'X-B: 2\r\n', 600, 'X-C: 3\r\n', 600, 'X-D: 4\r\n']);
    expectEnvelope(answer, 408, 'request_timeout');
  });

  it('431 headers_too_large and 400 invalid_request from the parser carry the envelope', async () => {
    const big = await rawRequest(port, [`GET /v1/domains HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`]);
    expectEnvelope(big, 431, 'headers_too_large');
    const garbage = await rawRequest(port, ['NOT HTTP AT ALL\r\n\r\n']);
    expectEnvelope(garbage, 400, 'invalid_request');
  });

  it('a client that hangs up mid-body is logged at info as "client closed", not as an error 503', async () => {
    logLines.length = 0;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /v1/destinations HTTP/1.1\r\nHost: x\r\nAuthorization: ${authorization}\r\nIdempotency-Key: hangup-1\r\nX-Request-Id: hangup-1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"url":`);
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const mine = logLines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'hangup-1');
    expect(mine.some((l) => l.msg === 'client closed the connection' && l.level === 30)).toBe(true);
    expect(mine.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('the widget routes too: a hang-up mid-body is "client closed" at info, not an error', async () => {
    const headers = { authorization, 'content-type': 'application/json' };
    const destination = (await app.inject({ method: 'POST', url: '/v1/destinations', headers: { ...headers, 'idempotency-key': 'hangup-dest' }, payload: { url: 'https://app.hangup.example' } })).json().data.id;
    const token = (await app.inject({ method: 'POST', url: '/v1/widget-sessions', headers: { ...headers, 'idempotency-key': 'hangup-session' }, payload: { external_customer_id: 'cus_hangup', allowed_origins: ['https://vendor.example'], destination_id: destination } })).json().data.token as string;
    logLines.length = 0;
    const socket = net.connect(port, '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /v1/widget/domains HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nOrigin: https://vendor.example\r\nIdempotency-Key: hangup-w\r\nX-Request-Id: hangup-2\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"hostname":`);
    await new Promise((r) => setTimeout(r, 200));
    socket.destroy();
    await new Promise((r) => setTimeout(r, 300));
    const mine = logLines.map((l) => JSON.parse(l)).filter((l) => l.reqId === 'hangup-2');
    expect(mine.some((l) => l.msg === 'client closed the connection' && l.level === 30)).toBe(true);
    expect(mine.filter((l) => l.level >= 50)).toEqual([]);
  });

  it('a request that arrives while the server drains gets 503 with Retry-After and the envelope', async () => {
    const held = fetch(`http://127.0.0.1:${port}/test-hold`);
    await new Promise((r) => setTimeout(r, 100));
    // A second connection with its request half sent, so closing does not reap it as idle.
    const late = rawRequest(port, ['GET /v1/domains HTTP/1.1\r\nHost: x\r\nX-Request-Id: late-1\r\n', 400, '\r\n']);
    await new Promise((r) => setTimeout(r, 100));
    const closing = app.close();
    const answer = await late;
    expect(answer.status).toBe(503);
    expect(answer.headers['retry-after']).toBe('2');
    const body = JSON.parse(answer.body);
    expect(body.error).toMatchObject({ code: 'service_unavailable', request_id: 'late-1' });
    release();
    expect((await held).status).toBe(200);
    await closing;
  });
});
