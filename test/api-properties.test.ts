// Property-based robustness of the whole HTTP surface. Routes are enumerated from the served
// OpenAPI document (plus the few hidden ones), and random or malformed bodies, headers, path
// params and query strings are thrown at each. The properties (docs/api-decisions.md, "Errors"):
//   - no answer is a 5xx;
//   - every non-2xx answer is `{"error": {code, message, request_id, param?, details?}}` with a
//     code from `errorStatus`, the status `errorStatus[code]`, and `request_id` equal to the
//     X-Request-Id header (the caller's when sane, else a generated `req_…`);
//   - 405 carries an Allow header that does not list the refused method; 429/503 carry Retry-After.
// Requests that once broke a property are pinned at the end, each by its exact request.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import { createBillingActivities } from '../activities/billing.ts';
import { errorStatus } from '../api/errors.ts';
import { createBillingProvider } from '../billing/create-provider.ts';
import { decodeCursor } from '../db/pagination.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { deliveryStatuses, webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createLogger } from '../logging/logger.ts';
import { domainStatuses, eventKinds } from '../model/domain-status.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

// Runs per property: bounded, whatever the seed. FC_SEED=<n> (with FC_PATH=<path>) replays a
// reported failure; FC_RUNS_FACTOR=<k> multiplies the runs for a longer local hunt.
const RUNS_FACTOR = Number(process.env.FC_RUNS_FACTOR ?? 1);
const fcParams = (numRuns: number) => ({
  numRuns: Math.max(1, Math.round(numRuns * RUNS_FACTOR)),
  ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED) } : {}),
  ...(process.env.FC_PATH ? { path: process.env.FC_PATH } : {}),
});

const ALLOWED_ERROR_KEYS = new Set(['code', 'message', 'request_id', 'param', 'details']);
const SANE_REQUEST_ID = /^[\x21-\x7e]{1,128}$/;
const GENERATED_REQUEST_ID = /^req_[0-9a-z]{24}$/;

interface Sent { method: string; url: string; headers: Record<string, string>; payload?: string | Buffer }
interface Answer { statusCode: number; headers: Record<string, unknown>; body: string }
interface Op { method: string; template: string; bodySchema: Schema | null; query: string[]; idempotent: boolean }
interface Schema { type?: string | string[]; properties?: Record<string, Schema>; required?: string[]; anyOf?: Schema[]; items?: Schema; minLength?: number; maxLength?: number; enum?: unknown[] }

function tryJson(text: string): any {
  try { return JSON.parse(text); } catch { return undefined; }
}

function safeDecode(s: string): string {
  try { return decodeURIComponent(s.replace(/\+/g, ' ')); } catch { return s; }
}

function pathOf(url: string): string { return url.split('?')[0] ?? url; }
/** The path as the server routes it (dot segments resolved, as the injected request does). */
function normalizedPath(url: string): string {
  try { return new URL(pathOf(url), 'http://localhost').pathname; } catch { return pathOf(url); }
}
function queryOf(url: string): string { const i = url.indexOf('?'); return i < 0 ? '' : url.slice(i + 1); }

function bodyText(sent: Sent): string {
  if (sent.payload === undefined) return '';
  return typeof sent.payload === 'string' ? sent.payload : sent.payload.toString('utf8');
}

function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (const ch of text) {
    if (ch === '[' || ch === '{') max = Math.max(max, ++depth);
    else if (ch === ']' || ch === '}') depth--;
  }
  return max;
}

function hasNul(sent: Sent): boolean {
  const decodedUrl = pathOf(sent.url).split('/').map(safeDecode).join('/') + '?' + queryOf(sent.url).split('&').map(safeDecode).join('&');
  const text = bodyText(sent);
  return decodedUrl.includes('\0') || text.includes('\\u0000') || text.includes('\0');
}

function decodableCursor(sent: Sent): boolean {
  const cursors = new URLSearchParams(queryOf(sent.url)).getAll('cursor');
  if (cursors.length !== 1) return false;
  try { decodeCursor(cursors[0]!); return true; } catch { return false; }
}

function allowOf(res: Answer): string[] {
  return String(res.headers.allow ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

// ---------------------------------------------------------------------------------------------
// The contract every answer must satisfy.

function describeExchange(sent: Sent, res: Answer): string {
  const payload = sent.payload === undefined ? '' : ` payload(${Buffer.byteLength(sent.payload)} B)=${JSON.stringify(bodyText(sent).slice(0, 200))}`;
  return `${sent.method} ${sent.url.slice(0, 300)} headers=${JSON.stringify(sent.headers).slice(0, 400)}${payload}\n  → ${res.statusCode} ${JSON.stringify(res.headers).slice(0, 300)} ${res.body.slice(0, 400)}`;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Asserts the contract on one exchange. */
function checkAnswer(sent: Sent, res: Answer): void {
  const fail = (why: string): never => { throw new Error(`${why}\n  ${describeExchange(sent, res)}`); };
  if (res.statusCode >= 500) fail(`5xx answer`);

  const header = res.headers['x-request-id'];
  if (typeof header !== 'string') fail('no X-Request-Id header');
  const sentId = sent.headers['x-request-id'];
  if (sentId !== undefined && SANE_REQUEST_ID.test(sentId)) {
    if (header !== sentId) fail(`X-Request-Id ${String(header)} is not the sane incoming ${sentId}`);
  } else if (!GENERATED_REQUEST_ID.test(header as string)) {
    fail(`X-Request-Id ${String(header)} is neither the incoming one nor a generated req_…`);
  }

  if (sent.method === 'HEAD') return; // no body to check
  const path = normalizedPath(sent.url);
  if (res.statusCode >= 200 && res.statusCode < 300) {
    if (path.startsWith('/v1/') && path !== '/v1/openapi.json') {
      if (!String(res.headers['content-type']).startsWith('application/json')) fail('2xx without a JSON content type');
      const body = tryJson(res.body);
      if (!isPlainObject(body) || !('data' in body)) fail('2xx body without `data`');
      if (Array.isArray(body.data) && (typeof body.has_more !== 'boolean' || !('next_cursor' in body))) fail('list without has_more/next_cursor');
    }
    return;
  }
  if (res.statusCode >= 300 && res.statusCode < 400) {
    if (!path.startsWith('/docs') || !res.headers.location) fail('unexpected redirect');
    return;
  }

  // Non-2xx: the envelope.
  if (!String(res.headers['content-type']).startsWith('application/json')) fail('error answer is not application/json');
  const body = tryJson(res.body);
  if (!isPlainObject(body)) fail('error body is not a JSON object');
  if (Object.keys(body).join() !== 'error') fail('error body has keys other than `error`');
  const e = body.error;
  if (!isPlainObject(e)) fail('`error` is not an object');
  const extra = Object.keys(e).filter((k) => !ALLOWED_ERROR_KEYS.has(k));
  if (extra.length) fail(`error has unknown keys ${extra.join(', ')}`);
  if (typeof e.code !== 'string' || !(e.code in errorStatus)) fail(`error.code ${String(e.code)} is not in errorStatus`);
  const code = e.code as keyof typeof errorStatus;
  if (res.statusCode !== errorStatus[code]) fail(`status ${res.statusCode} is not errorStatus[${code}] = ${errorStatus[code]}`);
  if (typeof e.message !== 'string' || e.message.length === 0) fail('error.message is not a non-empty string');
  if (typeof e.request_id !== 'string') fail('error.request_id is not a string');
  // Every answer, replays included, carries this request's id.
  if (e.request_id !== header) {
    fail(`error.request_id ${String(e.request_id)} differs from X-Request-Id ${String(header)}`);
  }
  if ('param' in e && typeof e.param !== 'string') fail('error.param is not a string');
  if ('details' in e && !isPlainObject(e.details)) fail('error.details is not an object');
  if (res.statusCode === 405) {
    const allow = allowOf(res);
    if (allow.length === 0) fail('405 without Allow');
    if (allow.includes(sent.method === 'HEAD' ? 'GET' : sent.method)) fail(`405 whose Allow lists the method ${sent.method}`);
  }
  if ((res.statusCode === 429 || res.statusCode === 503) && !res.headers['retry-after']) fail(`${res.statusCode} without Retry-After`);
}

// ---------------------------------------------------------------------------------------------
// Encoding helpers and generators.

/** Percent-encodes the UTF-8 bytes of `s` (lone surrogates become U+FFFD), never throws. */
function pct(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    out += /[A-Za-z0-9\-._~]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** What a header value can be on the wire: the UTF-8 bytes read as latin1, no control characters. */
function headerValue(s: string): string {
  return Buffer.from(s, 'utf8').toString('latin1').replace(/[\x00-\x08\x0a-\x1f\x7f]/g, '');
}

/** Raw (unencoded) URL text: visible ASCII except the fragment marker. */
function rawUrlText(s: string): string {
  return s.replace(/[^\x21-\x7e]|#/g, '');
}

const anyText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }),
);

const dateish = fc.oneof(
  fc.constantFrom('1', '0', '2020', '2020-01-01', '2020-13-45T00:00:00Z', 'Tue', 'Jan 1 2020', '12/31/1999', '2020-01-01 00:00:00+00',
    '-271821-04-20T00:00:00Z', '+275760-09-13T00:00:00.000Z', '2026-01-01T00:00:00.000Z', 'infinity', 'epoch'),
  fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
  anyText,
);

const extraHeaderName = fc.stringMatching(/^x-[a-z0-9-]{1,20}$/);

const contentTypes = [
  'application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'application/json; charset=utf-16',
  'APPLICATION/JSON', 'application/json;', 'application/vnd.api+json', 'application/problem+json', 'text/plain', 'text/html',
  'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded', 'application/octet-stream', '', ';', 'json',
];

interface Ctx {
  ops: Op[];
  hidden: Op[];
  ids: { destination: string[]; domain: string[]; endpoint: string[]; delivery: string[]; invoice: string[] };
  cursor: string;
  auth: { full: string; readOnly: string };
}

function allIds(ctx: Ctx): string[] {
  return [...ctx.ids.destination, ...ctx.ids.domain, ...ctx.ids.endpoint, ...ctx.ids.delivery, ...ctx.ids.invoice];
}

function idsFor(ctx: Ctx, template: string): string[] {
  if (template.startsWith('/v1/destinations')) return ctx.ids.destination;
  if (template.startsWith('/v1/domains')) return ctx.ids.domain;
  if (template.startsWith('/v1/webhook-endpoints')) return ctx.ids.endpoint;
  if (template.startsWith('/v1/webhook-deliveries')) return ctx.ids.delivery;
  if (template.startsWith('/v1/billing/invoices')) return ctx.ids.invoice;
  return allIds(ctx);
}

function idSegment(ctx: Ctx) {
  return fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom(...allIds(ctx)) },
    { weight: 3, arbitrary: anyText.map(pct) },
    { weight: 1, arbitrary: fc.constantFrom('%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80', '..', '.', '%2F', '%2e%2e', '%00', ';', '%20', '*', 'dst_', 'dom_', 'whe_', '') },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(63, 64, 65, 199, 200, 201, 400), fc.boolean()).map(([n, ascii]) => (ascii ? 'a'.repeat(n) : pct('é'.repeat(Math.ceil(n / 6))))) },
  );
}

function cursorArb(ctx: Ctx) {
  return fc.oneof(
    fc.constant(ctx.cursor),
    fc.tuple(dateish, fc.oneof(fc.constantFrom(...allIds(ctx)), anyText)).map(([d, id]) => Buffer.from(JSON.stringify([d, id])).toString('base64url')),
    fc.jsonValue({ maxDepth: 2 }).map((v) => Buffer.from(JSON.stringify(v)).toString('base64url')),
    anyText,
  );
}

function queryValue(ctx: Ctx) {
  return fc.oneof(
    fc.constantFrom('-1', '0', '1', '20', '100', '101', 'abc', '1.5', '1e2', '0x10', '', ' ', 'null', 'true', '[]', ...domainStatuses, 'sleeping'),
    anyText,
    cursorArb(ctx),
    fc.constantFrom('x'.repeat(300), 'x'.repeat(3000)),
  );
}

function queryString(ctx: Ctx) {
  const key = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('limit', 'cursor', 'status', 'hostname', 'external_customer_id') },
    { weight: 1, arbitrary: anyText },
    { weight: 1, arbitrary: fc.constantFrom('limit[]', 'limit[a]', '__proto__', 'constructor', '', 'LIMIT', 'limit ') },
  );
  return fc.oneof(
    { weight: 2, arbitrary: fc.constant('') },
    {
      weight: 5,
      arbitrary: fc.array(fc.tuple(key, queryValue(ctx), fc.boolean()), { minLength: 1, maxLength: 5 })
        .map((pairs) => '?' + pairs.map(([k, v, raw]) => (raw ? `${rawUrlText(k)}=${rawUrlText(v)}` : `${pct(k)}=${pct(v)}`)).join('&')),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom('?', '?&&&', '?=', '?limit', '?limit=', '?limit=1&limit=2', '?cursor=a&cursor=b', '?%zz=1', '?a=%E0%A4%A',
        '?limit=%00', '?hostname=%00', '?limit=-1', '?limit=abc', '?cursor=!!!', '?' + 'a=1&'.repeat(500), '?limit=1&&limit=&limit'),
    },
  );
}

function authArb(ctx: Ctx) {
  const { full, readOnly } = ctx.auth;
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 3, arbitrary: fc.constant(`Bearer ${full}`) },
    { weight: 2, arbitrary: fc.constant(`Bearer ${readOnly}`) },
    { weight: 1, arbitrary: fc.constantFrom(`bearer ${full}`, `Bearer    ${full}  `, `BEARER ${full}`, `Bearer ${full}x`, `Bearer ${full} extra`, full) },
    { weight: 2, arbitrary: anyText.map((s) => `Bearer ${headerValue(s)}`) },
    { weight: 1, arbitrary: anyText.map((s) => `Bearer hg_live_${headerValue(s)}`) },
    { weight: 1, arbitrary: anyText.map(headerValue) },
    { weight: 1, arbitrary: fc.constantFrom('Bearer', 'Bearer ', 'Basic dXNlcjpwYXNz', 'Bearer wst_abc', 'Bearer hg_live_', `Bearer ${'x'.repeat(300)}`, `Bearer hg_live_${'a'.repeat(5000)}`, 'x'.repeat(8000)) },
  );
}

const idempotencyKeyArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 4, arbitrary: fc.uuid().map((u) => `fuzz-${u}`) },
  { weight: 2, arbitrary: fc.string({ minLength: 1, maxLength: 128 }) },
  { weight: 1, arbitrary: fc.constantFrom('fuzz-reused-1', 'fuzz-reused-2') },
  { weight: 1, arbitrary: anyText.map(headerValue) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\t', 'k'.repeat(128), 'k'.repeat(129), 'k'.repeat(10_000), 'ключ', 'key\u00a0') },
);

const requestIdArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 2, arbitrary: fc.string({ unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)), minLength: 1, maxLength: 128 }) },
  { weight: 1, arbitrary: anyText.map(headerValue) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', 'x'.repeat(128), 'x'.repeat(129), 'x'.repeat(5000), 'with space', 'tab\there', 'é') },
);

const contentTypeArb = fc.oneof(
  { weight: 2, arbitrary: fc.constant<string | undefined>(undefined) },
  { weight: 4, arbitrary: fc.constantFrom('application/json', 'application/json; charset=utf-8') },
  { weight: 2, arbitrary: fc.constantFrom(...contentTypes) },
  { weight: 1, arbitrary: anyText.map(headerValue) },
);

/** Values a field accepts (valid) and values that probe its edges (often invalid). */
function fieldValues(ctx: Ctx, name: string, schema: Schema | undefined): { valid: fc.Arbitrary<unknown>; edgy: fc.Arbitrary<unknown> } {
  const wrong = fc.jsonValue({ maxDepth: 2 });
  const sized = (s: Schema | undefined) => fc.constantFrom(...[0, 1, s?.maxLength, (s?.maxLength ?? 0) + 1].filter((n): n is number => n !== undefined).map((n) => 'x'.repeat(n)));
  const valid: Record<string, fc.Arbitrary<unknown>> = {
    url: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom('https://app.example.com', 'https://app.example.com:8443', 'https://xn--bcher-kva.example', 'https://APP.example.com/') },
      { weight: 1, arbitrary: fc.domain().map((d) => `https://${d}`) },
    ),
    hostname: fc.oneof(
      { weight: 3, arbitrary: fc.tuple(fc.nat(), fc.constantFrom('example', 'example.com', 'shop.example.org', 'co.uk')).map(([n, d]) => `h${n}.${d}`) },
      { weight: 1, arbitrary: fc.domain() },
    ),
    destination_id: fc.constantFrom(...ctx.ids.destination),
    events: fc.oneof(fc.constant(['*']), fc.subarray([...eventKinds], { minLength: 1 })),
    enabled: fc.boolean(),
    // null clears it on PATCH; the create schema takes a string only.
    description: schema?.anyOf?.some((a) => a.type === 'null')
      ? fc.oneof(fc.constant(null), fc.string({ unit: 'grapheme', maxLength: 50 }))
      : fc.string({ unit: 'grapheme', maxLength: 50 }),
    external_customer_id: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 }),
    allowed_origins: fc.subarray(['https://app.props.example.com', 'http://localhost:5173', 'https://shop.props.example:8443'], { minLength: 1 }),
    // POST /v1/domains: mostly left out (undefined is dropped by JSON.stringify); "www" pairs an apex
    // (h<n>.example) and is refused (400) for a subdomain.
    also_connect: fc.constantFrom(undefined, undefined, undefined, 'www'),
    // PATCH /v1/domains/{id} (docs/domain-settings.md): values it takes, so its handler runs.
    metadata: fc.oneof(fc.constant(null), fc.dictionary(fc.stringMatching(/^[a-z_]{1,12}$/), fc.string({ maxLength: 40 }), { maxKeys: 5 })),
    redirect: fc.oneof(fc.constant(null), fc.record({ to: fc.constantFrom('https://vendor.example/', 'https://app.example.com/x?y=1'), status: fc.constantFrom(301, 302, 307, 308), preserve_path: fc.boolean() })),
    tls: fc.record({ min_version: fc.constantFrom('1.2', '1.3'), hsts: fc.oneof(fc.constant(null), fc.record({ max_age: fc.integer({ min: 0, max: 63_072_000 }), include_subdomains: fc.constant(false), preload: fc.constant(false) })) }, { requiredKeys: [] })
      .filter((t) => Object.keys(t).length > 0),
    // Billing: the test organization's return origin is https://vendor.example.
    plan: fc.constantFrom('starter', 'growth', 'scale'),
    ...Object.fromEntries(['success_url', 'cancel_url', 'return_url'].map((f) => [f, fc.constantFrom('https://vendor.example/ok', 'https://vendor.example/billing?x=1', 'https://other.example/ok')])),
  };
  const edgy: Record<string, fc.Arbitrary<unknown>> = {
    url: fc.oneof(
      fc.constantFrom('https://app.example.com:444', 'http://app.example.com', 'https://127.0.0.1', 'https://localhost', 'https://[::1]',
        'https://user:pw@app.example.com', 'https://app.example.com/path?q=1#f', 'https://xn--bcher-kva.example/in', 'https://bücher.example/in',
        'https://', 'https://./', 'javascript:alert(1)', 'https://a\u0000b.example.com', 'https://hostgate.test', 'https://edge.hostgate.test'),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      anyText.map((s) => `https://${s}.example.com`),
    ),
    hostname: fc.oneof(
      fc.constantFrom('xn--bcher-kva.example', 'bücher.example', 'localhost', '127.0.0.1', '[::1]', '*.example.com', 'a..b.example', 'hostgate.test',
        'x.hostgate.test', 'EXAMPLE.COM.', 'https://shop.example.com/', 'shop.example.com:443', `${'a'.repeat(64)}.example.com`, 'shop0.props.example'),
      anyText.map((s) => `${s}.example.com`),
    ),
    destination_id: fc.oneof(fc.constantFrom(...allIds(ctx)), anyText),
    events: fc.oneof(
      fc.array(anyText, { maxLength: 3 }),
      fc.constantFrom(['*', 'hostname.created'], [], ['hostname.created', 'hostname.created'], Array.from({ length: 33 }, (_, i) => `e${i}`)),
    ),
    description: sized(schema?.anyOf?.[0] ?? schema),
    allowed_origins: fc.oneof(fc.array(anyText, { maxLength: 3 }), fc.constantFrom([], ['*'], ['https://a.example/'], ['http://a.example'], ['https://*.a.example'], Array.from({ length: 21 }, (_, i) => `https://a${i}.example`))),
    plan: fc.constantFrom('enterprise', '', 'STARTER', 'starter '),
    ...Object.fromEntries(['success_url', 'cancel_url', 'return_url'].map((f) => [f, fc.oneof(
      fc.constantFrom('javascript:alert(1)', 'https://', 'not a url', 'https://vendor.example.evil.com/', 'http://vendor.example/', 'https://a\u0000b.example.com', '//vendor.example/x'),
      anyText.map((t) => `https://vendor.example/${t}`),
    )])),
  };
  return {
    valid: valid[name] ?? anyText,
    edgy: fc.oneof({ weight: 3, arbitrary: edgy[name] ?? anyText }, { weight: 1, arbitrary: wrong }, { weight: 1, arbitrary: sized(schema) }),
  };
}

/**
 * An object shaped like the operation's body schema: either every field valid (so handlers run to
 * completion), or the right keys with edge-case and wrong-typed values, sometimes an unknown key.
 */
function shapedBody(ctx: Ctx, op: Op): fc.Arbitrary<unknown> {
  const props = op.bodySchema?.properties ?? {};
  const names = Object.keys(props);
  if (names.length === 0) return fc.jsonValue({ maxDepth: 2 });
  const required = op.bodySchema?.required ?? [];
  const validModel: Record<string, fc.Arbitrary<unknown>> = {};
  const edgyModel: Record<string, fc.Arbitrary<unknown>> = {};
  for (const n of names) {
    const v = fieldValues(ctx, n, props[n]);
    validModel[n] = v.valid;
    edgyModel[n] = fc.oneof(v.valid, v.edgy, v.edgy);
  }
  const valid = fc.record(validModel, { requiredKeys: required }).filter((o) => Object.keys(o).length > 0);
  const edgy = fc.tuple(
    fc.record(edgyModel, { requiredKeys: [] }),
    fc.option(fc.tuple(anyText, fc.jsonValue({ maxDepth: 1 })), { freq: 8 }),
  ).map(([obj, extra]) => (extra ? { ...obj, [extra[0]]: extra[1] } : obj));
  return fc.oneof({ weight: 3, arbitrary: valid }, { weight: 1, arbitrary: edgy });
}

function payloadArb(ctx: Ctx, op: Op) {
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<string | Buffer | undefined>(undefined) },
    { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v)) },
    { weight: 4, arbitrary: shapedBody(ctx, op).map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 60_000, max: 70_000 }), fc.constantFrom('a', 'é', '💥')).map(([n, c]) => JSON.stringify({ url: c.repeat(Math.ceil(n / Buffer.byteLength(c))) })) },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.tuple(fc.integer({ min: 1, max: 20_000 }), fc.boolean()).map(([n, arr]) => (arr ? '['.repeat(n) + ']'.repeat(n) : '{"a":'.repeat(Math.min(n, 10_000)) + '1' + '}'.repeat(Math.min(n, 10_000)))) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)).chain((s) => fc.nat(s.length).map((i) => s.slice(0, i))) },
    { weight: 1, arbitrary: fc.constantFrom('{"__proto__":{"x":1}}', '{"constructor":{"prototype":{"x":1}}}', '{"url":"https://a.example.com","__proto__":null}', '', 'null', '0', '"x"', '[]', '{}', 'true', '\ufeff{}', '{"a":1}garbage') },
  );
}

/** A value the list parameter accepts. */
function listValue(ctx: Ctx, name: string): fc.Arbitrary<string> {
  switch (name) {
    case 'limit': return fc.integer({ min: 1, max: 100 }).map(String);
    case 'cursor': return fc.constant(ctx.cursor);
    case 'status': return fc.constantFrom(...domainStatuses, ...deliveryStatuses);
    case 'endpoint_id': return fc.constantFrom(...ctx.ids.endpoint);
    case 'hostname': return fc.oneof(fc.domain(), fc.constantFrom('shop0.props.example', 'SHOP1.props.example.', 'bücher.example'));
    // Analytics (docs/analytics.md): a range inside every interval's bound, whichever of the two is sent.
    case 'from': return fc.integer({ min: 2, max: 20 }).map((h) => new Date(Date.now() - h * 3_600_000).toISOString());
    case 'to': return fc.integer({ min: 0, max: 60 }).map((m) => new Date(Date.now() - m * 60_000).toISOString());
    case 'interval': return fc.constantFrom('minute', 'hour', 'day');
    case 'sort': return fc.constantFrom('requests', 'errors', 'bytes');
    default: return fc.string({ unit: 'grapheme', minLength: 1, maxLength: 30 });
  }
}

function randomPath(ctx: Ctx) {
  return fc.oneof(
    anyText.map((s) => `/v1/${pct(s)}`),
    anyText.map((s) => `/${pct(s)}`),
    fc.constantFrom('/', '//', '/v1', '/v1/', '/v1//domains', '/V1/domains', '/v1/domains/', '/v1/domains?', '/v1/./domains', '/v1/../healthz',
      '/docs/static/nope.js', '/docs/static/%2e%2e/%2e%2e/package.json', '/docs/nope', `/v1/domains/${ctx.ids.domain[0]}/nope`, '/v1/openapi.json/x'),
  ).map((p): Op => ({ method: 'GET', template: p, bodySchema: null, query: [], idempotent: false }));
}

interface Parts {
  method: string;
  seg: string;
  query: string;
  authorization: string | undefined;
  idempotencyKey: string | undefined;
  requestId: string | undefined;
  contentType: string | undefined;
  payload: string | Buffer | undefined;
  extra: [string, string] | null;
}

function fill(template: string, seg: string): string {
  return template.replace(/\{[^}]+\}/g, seg);
}

function build(op: Op, p: Parts): Sent {
  const headers: Record<string, string> = {};
  if (p.authorization !== undefined) headers.authorization = p.authorization;
  if (p.idempotencyKey !== undefined) headers['idempotency-key'] = p.idempotencyKey;
  if (p.requestId !== undefined) headers['x-request-id'] = p.requestId;
  if (p.contentType !== undefined) headers['content-type'] = p.contentType;
  if (p.extra) headers[p.extra[0]] = p.extra[1];
  const path = fill(op.template, p.seg);
  return { method: p.method, url: path + p.query, headers, ...(p.payload === undefined ? {} : { payload: p.payload }) };
}

/** Codes only a route handler answers: such an answer to an idempotent write is stored and replayed. */
const HANDLER_CODES = new Set(['destination_not_found', 'domain_not_found', 'webhook_endpoint_not_found', 'webhook_delivery_not_found', 'domain_conflict', 'destination_in_use',
  // refusals a handler makes after reading the resource (a domain deleted by an earlier run, …)
  'domain_deleted', 'webhook_endpoint_disabled', 'webhook_endpoint_deleted', 'apex_domains_unavailable', 'destination_required',
  // billing (docs/billing.md)
  'return_url_not_allowed', 'subscription_exists', 'subscription_missing', 'plan_unchanged', 'invoice_not_found',
  // the customer's own certificate, checked by its handler (docs/custom-certificates.md)
  'certificate_unparseable', 'private_key_unparseable', 'certificate_key_mismatch', 'certificate_key_too_weak', 'certificate_key_unsupported',
  'certificate_hostname_mismatch', 'certificate_expired', 'certificate_not_yet_valid', 'certificate_untrusted']);

const otherMethods = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'TRACE', 'PROPFIND'];

// ---------------------------------------------------------------------------------------------

describe('API properties: every route, random and malformed input', () => {
  let t: TestApp;
  let ctx: Ctx;
  const exercised = new Set<string>();

  async function send(sent: Sent): Promise<Answer> {
    const res = await t.app.inject({ method: sent.method as 'GET', url: sent.url, headers: sent.headers, ...(sent.payload === undefined ? {} : { payload: sent.payload }) });
    return { statusCode: res.statusCode, headers: res.headers as Record<string, unknown>, body: res.body };
  }

  async function exchange(op: Op, sent: Sent): Promise<Answer> {
    exercised.add(`${op.method} ${op.template}`);
    const res = await send(sent);
    checkAnswer(sent, res);
    return res;
  }

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
    const o = await createOrgWithKey(t);
    const readOnly = await apiKeysRepository(t.database.db).create({ organizationId: o.org.id, scopes: [] });
    const c = client(t.app, o.auth);
    const ids: Ctx['ids'] = { destination: [], domain: [], endpoint: [], delivery: [], invoice: [] };
    for (let i = 0; i < 4; i++) {
      ids.destination.push((await c.post('/v1/destinations', { url: `https://app${i}.props.example.com` })).json().data.id);
      ids.endpoint.push((await c.post('/v1/webhook-endpoints', { url: `https://hooks.props.example.com/${i}` })).json().data.id);
    }
    for (let i = 0; i < 3; i++) {
      ids.domain.push((await c.post('/v1/domains', { hostname: `shop${i}.props.example`, destination_id: ids.destination[0] })).json().data.id);
    }
    // Each domain's hostname.created event, fanned out to the endpoints: deliveries.
    await webhookDeliveriesRepository(t.database.db).fanOut(100);
    ids.delivery.push(...(await c.get('/v1/webhook-deliveries?limit=4')).json().data.map((d: { id: string }) => d.id));
    // Invoices: two periods closed as the billing workflow closes them.
    const activities = createBillingActivities({ db: t.database.db, logger: createLogger('silent', 'test'), config: t.config, provider: createBillingProvider(t.config, t.database.db) });
    for (let i = 0; i < 2; i++) {
      const usage = (await c.get('/v1/usage')).json().data;
      ids.invoice.push((await activities.closeBillingPeriod({ organizationId: o.org.id, periodStart: usage.period_start, periodEnd: usage.period_end, plan: usage.plan })).invoiceId);
    }
    for (const list of Object.values(ids)) expect(list.every((id) => typeof id === 'string')).toBe(true);
    const cursor = (await c.get('/v1/destinations?limit=1')).json().next_cursor as string;
    expect(typeof cursor).toBe('string');

    // Every documented operation, from the served document.
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const ops: Op[] = [];
    for (const [template, item] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
        if ((op.security ?? []).some((r: any) => 'widgetToken' in r)) continue; // browser endpoints: widget-api.test.ts
        const params: any[] = op.parameters ?? [];
        ops.push({
          method: method.toUpperCase(),
          template,
          bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
          query: params.filter((p) => p.in === 'query').map((p) => p.name),
          idempotent: params.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
        });
      }
    }
    expect(ops.length).toBeGreaterThanOrEqual(15);
    // Routes the document hides on purpose; each must exist.
    const hidden: Op[] = ['/healthz', '/readyz', '/v1/openapi.json', '/docs', '/docs/json', '/docs/yaml', '/docs/static/{file}']
      .map((template) => ({ method: 'GET', template, bodySchema: null, query: [], idempotent: false }));
    for (const h of hidden) expect(t.app.hasRoute({ method: 'GET', url: h.template.replace('{file}', '*') })).toBe(true);
    ctx = { ops, hidden, ids, cursor, auth: { full: o.key, readOnly: readOnly.secret } };
  });
  afterAll(async () => {
    await t?.close();
  });

  function partsArb(op: Op, overrides: Partial<{ [K in keyof Parts]: fc.Arbitrary<Parts[K]> }> = {}) {
    const segArb = op.template.includes('/docs/static/')
      ? fc.oneof(fc.constantFrom('index.css', 'swagger-ui.css', 'favicon-32x32.png', 'swagger-initializer.js', 'nope.js', '..%2f..%2fpackage.json'), anyText.map(pct))
      : idSegment(ctx);
    return fc.record<Parts>({
      method: fc.oneof({ weight: 6, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom(...otherMethods) }),
      seg: segArb,
      query: queryString(ctx),
      authorization: authArb(ctx),
      idempotencyKey: idempotencyKeyArb,
      requestId: requestIdArb,
      contentType: contentTypeArb,
      payload: payloadArb(ctx, op),
      extra: fc.option(fc.tuple(extraHeaderName, anyText.map(headerValue)), { nil: null, freq: 4 }),
      ...overrides,
    } as { [K in keyof Parts]: fc.Arbitrary<Parts[K]> });
  }

  function anyOp() {
    return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...ctx.ops) }, { weight: 1, arbitrary: fc.constantFrom(...ctx.hidden) }, { weight: 1, arbitrary: randomPath(ctx) });
  }

  it('anyone, anything: never a 5xx, every error is the envelope with a mapped status and the request id', async () => {
    await fc.assert(fc.asyncProperty(
      anyOp().chain((op) => partsArb(op).map((p) => [op, build(op, p)] as const)),
      async ([op, sent]) => { await exchange(op, sent); },
    ), fcParams(300));
  });

  it('with a valid API key (full or read-only), malformed input still never answers 5xx', async () => {
    const validAuth = fc.constantFrom(`Bearer ${ctx.auth.full}`, `Bearer ${ctx.auth.full}`, `Bearer ${ctx.auth.readOnly}`);
    const key = fc.oneof({ weight: 4, arbitrary: fc.uuid().map((u): string | undefined => `auth-${u}`) }, { weight: 1, arbitrary: idempotencyKeyArb });
    await fc.assert(fc.asyncProperty(
      fc.constantFrom(...ctx.ops).chain((op) => partsArb(op, { authorization: validAuth, idempotencyKey: key }).map((p) => [op, build(op, p)] as const)),
      async ([op, sent]) => { await exchange(op, sent); },
    ), fcParams(300));
  });

  it('with a valid API key, schema-shaped bodies, real ids and list filters reach the handlers and never answer 5xx', async () => {
    // Each operation gets its own runs, so each is sure to be exercised whatever the seed.
    // At least 20 runs each: with 30 operations, 10 runs left an operation whose filters are often
    // refused (a cursor of another list) unreached in a clean-clone run.
    const perOp = Math.max(20, Math.ceil(300 / ctx.ops.length));
    const reached = new Map<string, number>();
    for (const op of ctx.ops) {
      const k = `${op.method} ${op.template}`;
      await fc.assert(fc.asyncProperty(
        fc.record({
          seg: fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...idsFor(ctx, op.template)) }, { weight: 1, arbitrary: idSegment(ctx) }),
          body: fc.option(shapedBody(ctx, op), { nil: undefined, freq: 10 }),
          // List filters: mostly values each parameter accepts, sometimes anything.
          query: fc.uniqueArray(fc.constantFrom(...(op.query.length ? op.query : ['limit'])), { maxLength: 3 }).chain((keys) => fc.tuple(...keys.map((name) => fc.tuple(fc.constant(name), fc.oneof(
            { weight: 6, arbitrary: listValue(ctx, name) },
            { weight: 1, arbitrary: fc.oneof(fc.integer({ min: -5, max: 105 }).map(String), cursorArb(ctx), anyText) },
          ))))).map((pairs) => (pairs.length ? '?' + pairs.map(([name, v]) => `${name}=${pct(v)}`).join('&') : '')),
          key: fc.uuid(),
          readOnly: fc.nat(9).map((n) => n === 0),
        }),
        async ({ seg, body, query, key, readOnly }) => {
          const headers: Record<string, string> = { authorization: `Bearer ${readOnly ? ctx.auth.readOnly : ctx.auth.full}` };
          if (op.idempotent) headers['idempotency-key'] = `shaped-${key}`;
          let payload: string | undefined;
          if (op.bodySchema && body !== undefined) {
            headers['content-type'] = 'application/json';
            payload = JSON.stringify(body);
          }
          const sent: Sent = { method: op.method, url: fill(op.template, seg) + (op.method === 'GET' ? query : ''), headers, ...(payload === undefined ? {} : { payload }) };
          const res = await exchange(op, sent);
          const code = tryJson(res.body)?.error?.code as string | undefined;
          const fromHandler = res.statusCode < 300 || (code !== undefined && HANDLER_CODES.has(code));
          if (fromHandler) reached.set(k, (reached.get(k) ?? 0) + 1);
          // The same request again answers the same status; when the handler answered (a 2xx or
          // one of its own codes, as opposed to the router, validation or authentication), it is
          // a replay of the stored answer.
          if (op.idempotent && res.statusCode < 500) {
            const again = await send(sent);
            checkAnswer(sent, again);
            if (again.statusCode !== res.statusCode) throw new Error(`replay answered ${again.statusCode}, the original ${res.statusCode}\n  ${describeExchange(sent, again)}`);
            if (fromHandler) {
              if (again.headers['idempotent-replayed'] !== 'true') throw new Error(`replay without Idempotent-Replayed\n  ${describeExchange(sent, again)}`);
              // The same answer, except that a replayed error names the replaying request's id.
              const withoutId = (b: any) => (b?.error ? { ...b, error: { ...b.error, request_id: undefined } } : b);
              expect(withoutId(tryJson(again.body))).toEqual(withoutId(tryJson(res.body)));
              if (tryJson(again.body)?.error) expect(tryJson(again.body).error.request_id).toBe(again.headers['x-request-id']);
            }
          }
        },
      ), fcParams(perOp));
    }
    if (process.env.FC_REPORT) process.stderr.write(`handler answers per operation (of ${perOp}): ${JSON.stringify(Object.fromEntries(reached))}\n`);
    // The generators are not degenerate: every operation's handler answered at least once.
    expect(ctx.ops.map((op) => `${op.method} ${op.template}`).filter((k) => !reached.get(k))).toEqual([]);
  });

  it('a fixed sweep of malformed requests over every route, whatever the seed', async () => {
    const fullAuth = { authorization: `Bearer ${ctx.auth.full}` };
    const variants: { name: string; make: (op: Op, id: string) => Sent }[] = [
      { name: 'no headers', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: {} }) },
      { name: 'garbage auth', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { authorization: 'Bearer hg_live_nope', 'x-request-id': 'sweep-1' } }) },
      { name: 'no idempotency key', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { ...fullAuth } }) },
      { name: 'idempotency key of 129', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { ...fullAuth, 'idempotency-key': 'k'.repeat(129) } }) },
      { name: 'text/plain body', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}`, 'content-type': 'text/plain' }, payload: 'x' }) },
      { name: 'broken JSON', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}`, 'content-type': 'application/json' }, payload: '{"url": ' }) },
      { name: '70 KB JSON', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}`, 'content-type': 'application/json' }, payload: JSON.stringify({ url: 'a'.repeat(70_000) }) }) },
      { name: 'JSON array', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}`, 'content-type': 'application/json' }, payload: '[]' }) },
      { name: 'id of 65', make: (op) => ({ method: op.method, url: fill(op.template, 'x'.repeat(65)), headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}` } }) },
      { name: 'unknown id', make: (op) => ({ method: op.method, url: fill(op.template, 'dst_0000000000000000000000nope'), headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}` } }) },
      { name: 'bad query', make: (op, id) => ({ method: op.method, url: `${fill(op.template, id)}?limit=-1&limit=abc&cursor=%25%25&zzz=1`, headers: { ...fullAuth, 'idempotency-key': `sw-${Math.random()}` } }) },
      { name: 'read-only key', make: (op, id) => ({ method: op.method, url: fill(op.template, id), headers: { authorization: `Bearer ${ctx.auth.readOnly}`, 'idempotency-key': `sw-${Math.random()}` } }) },
      { name: 'PUT', make: (op, id) => ({ method: 'PUT', url: fill(op.template, id), headers: { ...fullAuth } }) },
      { name: 'OPTIONS', make: (op, id) => ({ method: 'OPTIONS', url: fill(op.template, id), headers: {} }) },
    ];
    // Valid requests, each on fresh objects: every operation answers a 2xx.
    const c = client(t.app, fullAuth);
    let n = 0;
    const fresh = async (template: string): Promise<string> => {
      n++;
      const destination = async () => (await c.post('/v1/destinations', { url: `https://sweep${n}.props.example.com` })).json().data.id as string;
      if (template.startsWith('/v1/destinations')) return destination();
      if (template.startsWith('/v1/domains')) return (await c.post('/v1/domains', { hostname: `sweep${n}.props.example`, destination_id: await destination() })).json().data.id;
      if (template.startsWith('/v1/webhook-deliveries')) {
        await c.post('/v1/domains', { hostname: `sweep-delivery${n}.props.example`, destination_id: await destination() });
        await webhookDeliveriesRepository(t.database.db).fanOut(100);
        return (await c.get('/v1/webhook-deliveries?limit=1')).json().data[0].id;
      }
      if (template.startsWith('/v1/billing/invoices')) return ctx.ids.invoice[0]!; // reads change nothing
      return (await c.post('/v1/webhook-endpoints', { url: `https://hooks.props.example.com/sweep${n}` })).json().data.id;
    };
    const examples: Record<string, () => Promise<unknown>> = {
      'POST /v1/destinations': async () => ({ url: 'https://sweep.props.example.com' }),
      'POST /v1/domains': async () => ({ hostname: `sweep-new${n}.props.example`, destination_id: await fresh('/v1/destinations') }),
      'POST /v1/webhook-endpoints': async () => ({ url: 'https://hooks.props.example.com/sweep', events: ['hostname.active'] }),
      'PATCH /v1/webhook-endpoints/{id}': async () => ({ enabled: false, description: 'paused by the sweep' }),
      'POST /v1/widget-sessions': async () => ({ external_customer_id: 'cus_sweep', allowed_origins: ['https://sweep.props.example.com'], destination_id: await fresh('/v1/destinations') }),
    };
    for (const op of ctx.ops) {
      const key = `${op.method} ${op.template}`;
      if (op.bodySchema && !examples[key]) continue; // a new operation: add an example above
      const url = op.template.includes('{id}') ? fill(op.template, await fresh(op.template)) : op.template;
      const body = await examples[key]?.();
      const sent: Sent = { method: op.method, url, headers: { ...fullAuth, 'idempotency-key': `sweep-${key}-${n}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) };
      const res = await exchange(op, sent);
      expect([key, res.statusCode >= 200 && res.statusCode < 300]).toEqual([key, true]);
    }

    for (const op of [...ctx.ops, ...ctx.hidden]) {
      const id = op.template.includes('{file}') ? 'index.css' : idsFor(ctx, op.template).at(-1)!;
      for (const v of variants) {
        const sent = v.make(op, id);
        const res = await exchange(op, sent);
        if (v.name === 'no headers' && op.template.startsWith('/v1/') && op.template !== '/v1/openapi.json') {
          expect([sent.method, sent.url, res.statusCode]).toEqual([sent.method, sent.url, 401]);
        }
      }
    }
  });

  it('exercised every documented operation and every hidden route', () => {
    const missing = [...ctx.ops, ...ctx.hidden].map((op) => `${op.method} ${op.template}`).filter((k) => !exercised.has(k));
    expect(missing).toEqual([]);
  });

  // -------------------------------------------------------------------------------------------
  // Requests that once broke the contract, each pinned exactly; every one must now meet it in full
  // (enveloped error with the request id, the status of its code, no 5xx).

  /** The full contract, and the exact status and code expected. */
  async function strict(sent: Sent, status: number, code: string): Promise<void> {
    const res = await send(sent);
    checkAnswer(sent, res);
    expect([res.statusCode, tryJson(res.body)?.error?.code]).toEqual([status, code]);
  }
  const auth = () => ({ authorization: `Bearer ${ctx.auth.full}` });

  it('malformed percent-encoding in a path (GET /v1/domains/%E0%A4%A) answers 400 invalid_request in the envelope, with X-Request-Id', async () => {
    await strict({ method: 'GET', url: '/v1/domains/%E0%A4%A', headers: {} }, 400, 'invalid_request');
  });

  it('a path param over 200 characters (GET /v1/domains/<201 × "a">) answers 400 invalid_request in the envelope, with X-Request-Id', async () => {
    await strict({ method: 'GET', url: `/v1/domains/${'a'.repeat(201)}`, headers: auth() }, 400, 'invalid_request');
  });

  it('U+0000 in a path id (GET /v1/destinations/%00) answers 400 invalid_request before Postgres sees it', async () => {
    await strict({ method: 'GET', url: '/v1/destinations/%00', headers: auth() }, 400, 'invalid_request');
  });

  it('U+0000 in a query filter (GET /v1/domains?external_customer_id=%00) answers 400 invalid_request before Postgres sees it', async () => {
    await strict({ method: 'GET', url: '/v1/domains?external_customer_id=%00', headers: auth() }, 400, 'invalid_request');
  });

  it('U+0000 in a body string (POST /v1/webhook-endpoints {"description":"a\\u0000b"}) answers 400 invalid_request before Postgres sees it', async () => {
    await strict({ method: 'POST', url: '/v1/webhook-endpoints', headers: { ...auth(), 'idempotency-key': `nul-${Date.now()}`, 'content-type': 'application/json' }, payload: JSON.stringify({ url: 'https://hooks.example.com/nul', description: 'a\u0000b' }) }, 400, 'invalid_request');
  });

  it('a cursor that decodes but names no valid position (["1","x"]) answers 400 invalid_request, not a Postgres error', async () => {
    await strict({ method: 'GET', url: `/v1/domains?cursor=${Buffer.from('["1","x"]').toString('base64url')}`, headers: auth() }, 400, 'invalid_request');
  });

  it('a JSON body nested 32000 deep (POST /v1/webhook-endpoints) answers 400 invalid_request, not a stack overflow', async () => {
    await strict({ method: 'POST', url: '/v1/webhook-endpoints', headers: { ...auth(), 'idempotency-key': `deep-${Date.now()}`, 'content-type': 'application/json' }, payload: '['.repeat(32_000) + ']'.repeat(32_000) }, 400, 'invalid_request');
  });

  it('a JSON body nested 32000 deep where none is taken (DELETE /v1/destinations/:id) is ignored, not a stack overflow: the answer is the operation\'s', async () => {
    // A body on an operation that takes none is no part of the request, nor of its idempotency fingerprint (issue 25).
    await strict({ method: 'DELETE', url: '/v1/destinations/dst_deep', headers: { ...auth(), 'idempotency-key': `deep-${Date.now()}`, 'content-type': 'application/json' }, payload: '['.repeat(32_000) + ']'.repeat(32_000) }, 404, 'destination_not_found');
  });

  it('a 4xx raised inside a plugin (GET /docs/static/%00, @fastify/static) answers with the status of its envelope code', async () => {
    await strict({ method: 'GET', url: '/docs/static/%00', headers: {} }, 404, 'not_found');
  });

  it('a missing file under /docs/ (GET /docs/static/nope.js) answers 404 not_found, not 405', async () => {
    await strict({ method: 'GET', url: '/docs/static/nope.js', headers: {} }, 404, 'not_found');
  });
});
