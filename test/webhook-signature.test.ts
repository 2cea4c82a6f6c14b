// The receiver's verifier (sdk/webhooks.ts): valid deliveries pass, and every way a request can be
// forged, replayed or garbled is refused with a stable code.
import { describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import { computeSignature, signatureHeader, verifyWebhook, WebhookVerificationError, type WebhookVerificationErrorCode } from '../sdk/webhooks.ts';

const SECRET = 'whsec_0123456789abcdefghjkmnpqrstvwx';
const OLD_SECRET = 'whsec_zyxwvtsrqpnmkjhgfedcba98765432';
const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z
const body = JSON.stringify({
  id: 'evt_01jgx5v7k8q2w3e4r5t6y7u8i9', event: 'hostname.active', created_at: '2026-01-01T00:00:00.000Z',
  data: { id: 'dom_01jgx5v7k8q2w3e4r5t6y7u8i9', hostname: 'shop.customer.com', status: 'active', destination_id: 'dst_01jgx5v7k8q2w3e4r5t6y7u8i9', external_customer_id: null },
});

function codeOf(fn: () => unknown): WebhookVerificationErrorCode | 'no error' {
  try {
    fn();
    return 'no error';
  } catch (error) {
    if (error instanceof WebhookVerificationError) return error.code;
    throw error;
  }
}

describe('verifyWebhook', () => {
  const header = signatureHeader(body, [SECRET], NOW);

  it('accepts a valid delivery and returns the event', () => {
    const event = verifyWebhook(body, header, SECRET, { now: NOW });
    expect(event).toMatchObject({ id: 'evt_01jgx5v7k8q2w3e4r5t6y7u8i9', event: 'hostname.active', data: { hostname: 'shop.customer.com' } });
    // Buffers, Uint8Arrays and header arrays (as some frameworks deliver them) work the same.
    expect(verifyWebhook(Buffer.from(body), header, SECRET, { now: NOW }).id).toBe(event.id);
    expect(verifyWebhook(new Uint8Array(Buffer.from(body)), [header], SECRET, { now: NOW }).id).toBe(event.id);
    // Within the default tolerance of 300 s, both ways.
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW + 300 }))).toBe('no error');
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW - 300 }))).toBe('no error');
  });

  it('signs exactly HMAC-SHA256(secret, "<t>.<body>") in hex', () => {
    const expected = createHmac('sha256', SECRET).update(`${NOW}.${body}`).digest('hex');
    expect(computeSignature(body, SECRET, NOW)).toBe(expected);
    expect(header).toBe(`t=${NOW},v1=${expected}`);
  });

  it('refuses a tampered body', () => {
    expect(codeOf(() => verifyWebhook(body.replace('shop.customer.com', 'evil.example.com'), header, SECRET, { now: NOW }))).toBe('no_matching_signature');
    expect(codeOf(() => verifyWebhook(`${body} `, header, SECRET, { now: NOW }))).toBe('no_matching_signature');
    // A body parsed and re-serialized with other spacing is another text.
    expect(codeOf(() => verifyWebhook(JSON.stringify(JSON.parse(body), null, 2), header, SECRET, { now: NOW }))).toBe('no_matching_signature');
  });

  it('refuses the wrong secret, and a timestamp moved without re-signing', () => {
    expect(codeOf(() => verifyWebhook(body, header, 'whsec_wrongwrongwrongwrongwrongwrong', { now: NOW }))).toBe('no_matching_signature');
    const moved = header.replace(`t=${NOW}`, `t=${NOW + 10}`);
    expect(codeOf(() => verifyWebhook(body, moved, SECRET, { now: NOW }))).toBe('no_matching_signature');
  });

  it('refuses stale and far-future timestamps (replays, clock skew), with a configurable tolerance', () => {
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW + 301 }))).toBe('timestamp_outside_tolerance');
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW - 301 }))).toBe('timestamp_outside_tolerance');
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW + 3600 * 24 }))).toBe('timestamp_outside_tolerance');
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW + 30, toleranceSeconds: 10 }))).toBe('timestamp_outside_tolerance');
    expect(codeOf(() => verifyWebhook(body, header, SECRET, { now: NOW + 3000, toleranceSeconds: 3600 }))).toBe('no error');
    // The real clock is used by default: a header signed now verifies, one from an hour ago does not.
    const fresh = signatureHeader(body, SECRET);
    expect(codeOf(() => verifyWebhook(body, fresh, SECRET))).toBe('no error');
    const old = signatureHeader(body, SECRET, Math.floor(Date.now() / 1000) - 3600);
    expect(codeOf(() => verifyWebhook(body, old, SECRET))).toBe('timestamp_outside_tolerance');
    expect(() => verifyWebhook(body, header, SECRET, { toleranceSeconds: -1 })).toThrow(TypeError);
  });

  it('during a rotation, accepts either secret: every v1 value is checked', () => {
    const rotated = signatureHeader(body, [SECRET, OLD_SECRET], NOW);
    expect(rotated.split(',').filter((p) => p.startsWith('v1='))).toHaveLength(2);
    expect(codeOf(() => verifyWebhook(body, rotated, SECRET, { now: NOW }))).toBe('no error');
    expect(codeOf(() => verifyWebhook(body, rotated, OLD_SECRET, { now: NOW }))).toBe('no error');
    expect(codeOf(() => verifyWebhook(body, rotated, 'whsec_neitherneitherneitherneither', { now: NOW }))).toBe('no_matching_signature');
    // A receiver rotating on its side passes both of its secrets.
    expect(codeOf(() => verifyWebhook(body, header, ['whsec_neitherneitherneitherneither', SECRET], { now: NOW }))).toBe('no error');
    // The matching signature may come in any position, and unknown schemes are ignored.
    const reordered = `t=${NOW},v0=abc,v1=${computeSignature(body, OLD_SECRET, NOW)},v1=${computeSignature(body, SECRET, NOW)}`;
    expect(codeOf(() => verifyWebhook(body, reordered, SECRET, { now: NOW }))).toBe('no error');
  });

  it('refuses missing and malformed headers', () => {
    const sig = computeSignature(body, SECRET, NOW);
    const cases: [unknown, WebhookVerificationErrorCode][] = [
      [undefined, 'missing_header'],
      [null, 'missing_header'],
      ['', 'missing_header'],
      ['   ', 'missing_header'],
      [`v1=${sig}`, 'malformed_header'], // no timestamp
      [`t=${NOW}`, 'malformed_header'], // no signature
      [`t=${NOW},v2=${sig}`, 'malformed_header'], // only an unknown scheme
      [`t=abc,v1=${sig}`, 'malformed_header'],
      [`t=${NOW}.5,v1=${sig}`, 'malformed_header'],
      [`t=-${NOW},v1=${sig}`, 'malformed_header'],
      [`t=${NOW},t=${NOW},v1=${sig}`, 'malformed_header'],
      [`t=${NOW},v1=${sig.slice(0, 63)}`, 'malformed_header'],
      [`t=${NOW},v1=${sig.toUpperCase()}`, 'malformed_header'],
      [`t=${NOW},v1=${sig}zz`, 'malformed_header'],
      [`t=${NOW};v1=${sig}`, 'malformed_header'],
      [`t=${NOW},v1`, 'malformed_header'],
      [`t=${NOW},=x,v1=${sig}`, 'malformed_header'],
      [`t=${NOW},${'v1=' + sig + ','.repeat(0)}`.padEnd(9000, ' '), 'malformed_header'],
      [`garbage`, 'malformed_header'],
    ];
    for (const [h, code] of cases) {
      expect([h, codeOf(() => verifyWebhook(body, h as string, SECRET, { now: NOW }))]).toEqual([h, code]);
    }
    // Whitespace around elements is tolerated.
    expect(codeOf(() => verifyWebhook(body, ` t=${NOW} , v1=${sig} `, SECRET, { now: NOW }))).toBe('no error');
  });

  it('refuses a signed body that is not an event, and misuse of the API', () => {
    const notJson = 'hello';
    expect(codeOf(() => verifyWebhook(notJson, signatureHeader(notJson, SECRET, NOW), SECRET, { now: NOW }))).toBe('invalid_payload');
    const notEvent = '[1,2]';
    expect(codeOf(() => verifyWebhook(notEvent, signatureHeader(notEvent, SECRET, NOW), SECRET, { now: NOW }))).toBe('invalid_payload');
    expect(() => verifyWebhook(JSON.parse(body) as never, header, SECRET, { now: NOW })).toThrow(/raw request body/);
    expect(() => verifyWebhook(body, header, '', { now: NOW })).toThrow(TypeError);
    expect(() => verifyWebhook(body, header, [], { now: NOW })).toThrow(TypeError);
  });
});
