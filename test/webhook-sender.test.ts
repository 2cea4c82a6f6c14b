// One webhook POST against real loopback servers, and how its outcome is classified: the first
// 1 KiB of a body kept as valid text, deadlines, redirects, 410, Retry-After.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { responseText, sendWebhook, type SendResult } from '../activities/webhook-sender.ts';
import { classify, parseRetryAfter } from '../activities/webhooks.ts';
import { HOUR, MAX_ATTEMPTS, plannedDelay } from '../model/webhook-schedule.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

describe('webhook sender', () => {
  let receiver: Receiver;
  let raw: http.Server;
  let rawPort: number;
  beforeAll(async () => {
    receiver = await startReceiver();
    // Answers that the receiver helper cannot produce: huge and slow bodies.
    raw = http.createServer((req, res) => {
      req.resume();
      if (req.url === '/huge') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        const chunk = 'x'.repeat(64 * 1024);
        let sent = 0;
        const pump = () => { while (sent < 200 && res.write(chunk)) sent++; if (sent < 200) res.once('drain', pump); else res.end(); };
        pump();
      } else if (req.url === '/trickle') {
        res.writeHead(200, { 'content-type': 'text/plain' });
        res.write('partial');
        // …and never finishes.
      }
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', r));
    rawPort = (raw.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await receiver?.close();
    raw?.closeAllConnections();
    await new Promise((r) => raw?.close(r));
  });

  const send = (url: string, timeoutMs = 2_000) => sendWebhook({ url, body: '{"id":"evt_1"}', headers: { 'content-type': 'application/json', 'service-event-id': 'evt_1' }, timeoutMs, allowPrivate: true });

  it('POSTs the body and headers, and reads the answer', async () => {
    receiver.on('/ok', () => ({ status: 202, body: 'accepted' }));
    const result = await send(receiver.url('/ok?x=1'));
    expect(result).toMatchObject({ statusCode: 202, body: 'accepted', error: null, refused: null });
    const [r] = receiver.received('/ok');
    expect(r!.body).toBe('{"id":"evt_1"}');
    expect(r!.headers).toMatchObject({ 'content-type': 'application/json', 'service-event-id': 'evt_1', 'content-length': '14' });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
  });

  it('keeps at most 1 KiB of a huge body and does not download the rest', async () => {
    const started = Date.now();
    const result = await send(`http://127.0.0.1:${rawPort}/huge`);
    expect(result.statusCode).toBe(500);
    expect(result.body).toBe('x'.repeat(1024));
    expect(Date.now() - started).toBeLessThan(1_000);
  });

  it('turns any bytes into at most 1024 bytes of valid text without NUL', () => {
    const text = responseText(Buffer.concat([Buffer.from('a'.repeat(1023)), Buffer.from('é')]));
    expect(Buffer.byteLength(text)).toBeLessThanOrEqual(1024);
    expect(text).toBe('a'.repeat(1023));
    expect(responseText(Buffer.from([0x61, 0x00, 0x62]))).toBe('a\uFFFDb');
    expect(responseText(Buffer.from([0xff, 0xfe, 0x41]))).toBe('\uFFFD\uFFFDA');
    const emoji = responseText(Buffer.from('💥'.repeat(400)));
    expect(Buffer.byteLength(emoji)).toBe(1024);
  });

  it('a response head within the deadline is the answer, even if the body never ends', async () => {
    const result = await send(`http://127.0.0.1:${rawPort}/trickle`, 500);
    expect(result).toMatchObject({ statusCode: 200, body: 'partial', error: null });
  });

  it('no response head within the deadline is a timeout', async () => {
    receiver.on('/hang', () => ({ hang: true }));
    const result = await send(receiver.url('/hang'), 300);
    expect(result).toMatchObject({ statusCode: null, error: 'timed out after 300 ms without a response' });
    expect(result.durationMs).toBeGreaterThanOrEqual(295);
  });

  it('a closed port is a connection error', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const result = await send(`http://127.0.0.1:${port}/`);
    expect(result).toMatchObject({ statusCode: null, error: `connection refused by 127.0.0.1:${port}` });
  });

  it('does not follow redirects', async () => {
    receiver.on('/moved', () => ({ status: 301, headers: { location: receiver.url('/elsewhere') } }));
    const result = await send(receiver.url('/moved'));
    expect(result.statusCode).toBe(301);
    expect(receiver.received('/elsewhere')).toHaveLength(0);
  });
});

describe('classifying an attempt', () => {
  const base: SendResult = { startedAt: new Date(), durationMs: 5, statusCode: null, body: null, headers: {}, error: null, refused: null, errorCode: null };
  const answer = (statusCode: number, headers: Record<string, string> = {}): SendResult => ({ ...base, statusCode, headers });

  it('2xx succeeds; 410 stops (and disables the endpoint); others wait the planned delay', () => {
    expect(classify(answer(200), 5_000)).toMatchObject({ outcome: 'succeeded', nextDelayMs: null, error: null });
    expect(classify(answer(299), 5_000)).toMatchObject({ outcome: 'succeeded' });
    expect(classify(answer(410), 5_000)).toMatchObject({ outcome: 'gone', nextDelayMs: null, error: expect.stringMatching(/410 Gone/) });
    expect(classify(answer(500), 5_000)).toMatchObject({ outcome: 'failed', nextDelayMs: 5_000, error: 'the endpoint answered 500', attemptError: null });
    expect(classify(answer(302, { location: 'https://x.example/' }), 5_000)).toMatchObject({ outcome: 'failed', nextDelayMs: 5_000, attemptError: expect.stringMatching(/^redirect \(302 to https:\/\/x\.example\/\) not followed/) });
    expect(classify({ ...base, error: 'timed out after 15000 ms without a response' }, 5_000)).toMatchObject({ outcome: 'failed', nextDelayMs: 5_000, responseCode: null });
    // The last attempt, or a refused URL, ends the delivery.
    expect(classify(answer(500), null)).toMatchObject({ outcome: 'failed', nextDelayMs: null });
    expect(classify({ ...base, error: 'refused: …', refused: 'url' }, 5_000)).toMatchObject({ outcome: 'failed', nextDelayMs: null });
    expect(classify({ ...base, error: 'refused: …', refused: 'address' }, 5_000)).toMatchObject({ outcome: 'failed', nextDelayMs: 5_000 });
  });

  it('honours Retry-After on 429 and 503 (seconds or a date), up to the longest gap of the schedule', () => {
    expect(classify(answer(429, { 'retry-after': '60' }), 5_000).nextDelayMs).toBe(60_000);
    expect(classify(answer(503, { 'retry-after': '1' }), 5_000).nextDelayMs).toBe(5_000);
    expect(classify(answer(503, { 'retry-after': String(7 * 24 * 3600) }), 5_000).nextDelayMs).toBe(10 * HOUR);
    expect(classify(answer(500, { 'retry-after': '60' }), 5_000).nextDelayMs).toBe(5_000);
    expect(classify(answer(429, { 'retry-after': 'soon' }), 5_000).nextDelayMs).toBe(5_000);
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:02:00 GMT', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 31 Dec 2025 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(undefined, now)).toBeNull();
  });

  it('plans 8 attempts: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h apart, ±10 %', () => {
    const mid = () => 0.5;
    expect(Array.from({ length: MAX_ATTEMPTS }, (_, i) => plannedDelay(i + 1, mid))).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, null]);
    expect(plannedDelay(1, () => 0)).toBe(4_500);
    expect(plannedDelay(1, () => 0.999999)).toBe(5_500);
  });
});
