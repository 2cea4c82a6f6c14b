// Widget sessions (server API) and the browser endpoints of <service-widget>: tokens, origins,
// CORS, session isolation, rate limits and error codes (spec sections 4, 5, 7;
// docs/api-decisions.md "Errors", "Idempotency", "Limits", "Widget").
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHash } from 'node:crypto';
import { brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import { sql } from '../db/pool.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { widgetSessionsRepository } from '../db/repositories/widget-sessions.ts';
import { sha256 } from '../security/tokens.ts';
import { ensureWidgetBuilt } from '../widget/build.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

const ORIGIN = 'https://vendor.example';

describe('widget sessions and browser endpoints', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let orgId: string;
  let destinationId: string;
  let n = 0;

  beforeAll(async () => {
    // The API serves what the build wrote (npm run build / npm start build it before the API starts).
    await ensureWidgetBuilt();
    t = await createTestApp();
    const o = await createOrgWithKey(t);
    orgId = o.org.id;
    api = client(t.app, o.auth);
    destinationId = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id;
  });
  afterAll(async () => { await t?.close(); });

  async function newSession(body: Record<string, unknown> = {}, c = api) {
    const res = await c.post('/v1/widget-sessions', { external_customer_id: 'cus_1', allowed_origins: [ORIGIN], destination_id: destinationId, ...body });
    expect(res.statusCode).toBe(201);
    return res.json().data as { id: string; token: string; expires_at: string; expires_in: number; allowed_origins: string[] | null };
  }

  /** A browser call: bearer widget token, Origin, and an Idempotency-Key on writes. */
  function call(method: 'GET' | 'POST' | 'OPTIONS', url: string, o: { token?: string | null; origin?: string | null; payload?: unknown; key?: string | null; headers?: Record<string, string>; app?: TestApp } = {}) {
    const headers: Record<string, string> = { ...(o.headers ?? {}) };
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.origin !== null) headers.origin = o.origin ?? ORIGIN;
    if (method === 'POST' && o.key !== null) headers['idempotency-key'] = o.key ?? `w-${Date.now()}-${++n}`;
    return (o.app ?? t).app.inject({ method, url, headers, ...(o.payload === undefined ? {} : { payload: o.payload as object }) });
  }
  const create = (token: string, hostname: string, o: Parameters<typeof call>[2] = {}) => call('POST', '/v1/widget/domains', { token, payload: { hostname }, ...o });
  const codeOf = (res: { json(): any }) => res.json().error?.code as string | undefined;

  describe('POST /widget-sessions', () => {
    it('returns an opaque token valid 1800 s, stored only as a hash, with normalised origins', async () => {
      const before = Date.now();
      const s = await newSession({ allowed_origins: ['https://Vendor.Example:443', 'http://localhost:5173', 'https://shop.vendor.example:8443'] });
      expect(s.token).toMatch(/^wst_[0-9a-z]{43}$/);
      expect(s.expires_in).toBe(1800);
      const expiresAt = Date.parse(s.expires_at);
      expect(expiresAt).toBeGreaterThanOrEqual(before + 1799_000);
      expect(expiresAt).toBeLessThanOrEqual(Date.now() + 1801_000);
      expect(s.allowed_origins).toEqual(['https://vendor.example', 'http://localhost:5173', 'https://shop.vendor.example:8443']);
      const row = await t.database.db.one(sql.unsafe`select * from widget_sessions where id = ${s.id}`) as Record<string, unknown>;
      expect(Buffer.from(row.token_hash as Uint8Array).equals(sha256(s.token))).toBe(true);
      expect(JSON.stringify(row)).not.toContain(s.token.slice(4));
      expect(row).toMatchObject({ organization_id: orgId, external_customer_id: 'cus_1', destination_id: destinationId });
    });

    it('refuses origins that are not scheme://host[:port], plain http off localhost, and an empty list', async () => {
      const bad = ['http://vendor.example', 'https://vendor.example/', 'https://vendor.example/path', 'https://vendor.example?x=1', 'https://*.vendor.example', '*', 'vendor.example', 'https://user@vendor.example', 'ftp://vendor.example'];
      for (const origin of bad) {
        const res = await api.post('/v1/widget-sessions', { external_customer_id: 'cus_1', allowed_origins: [ORIGIN, origin] });
        expect([origin, res.statusCode, codeOf(res), res.json().error.param]).toEqual([origin, 400, 'invalid_request', 'allowed_origins.1']);
      }
      expect(codeOf(await api.post('/v1/widget-sessions', { external_customer_id: 'cus_1', allowed_origins: [] }))).toBe('invalid_request');
      expect(codeOf(await api.post('/v1/widget-sessions', { allowed_origins: [ORIGIN] }))).toBe('invalid_request');
      expect(codeOf(await api.post('/v1/widget-sessions', { external_customer_id: 'x'.repeat(256) }))).toBe('invalid_request');
    });

    it("answers destination_not_found for another organization's destination, and needs widget:write", async () => {
      const other = client(t.app, (await createOrgWithKey(t, undefined, 'Other org')).auth);
      const res = await other.post('/v1/widget-sessions', { external_customer_id: 'cus_x', destination_id: destinationId });
      expect([res.statusCode, codeOf(res)]).toEqual([404, 'destination_not_found']);
      const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: orgId, scopes: ['domains:write'] });
      const denied = await client(t.app, { authorization: `Bearer ${secret}` }).post('/v1/widget-sessions', { external_customer_id: 'cus_1' });
      expect([denied.statusCode, codeOf(denied), denied.json().error.details]).toEqual([403, 'insufficient_scope', { required_scope: 'widget:write' }]);
    });

    it('refuses a session that names no destination when the organization has none or several (422 destination_required), before any token exists', async () => {
      const fresh = await createOrgWithKey(t, undefined, 'No destination yet');
      const c = client(t.app, fresh.auth);
      const sessionsOf = async () => Number(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from widget_sessions where organization_id = ${fresh.org.id}`));
      const none = await c.post('/v1/widget-sessions', { external_customer_id: 'cus_none' });
      expect([none.statusCode, codeOf(none), none.json().error.param]).toEqual([422, 'destination_required', 'destination_id']);
      expect(none.json().error.message).toMatch(/destination_id/);
      const first = (await c.post('/v1/destinations', { url: 'https://one.vendor.example' })).json().data.id as string;
      // Exactly one destination: accepted without naming it (each widget create uses it).
      const one = await c.post('/v1/widget-sessions', { external_customer_id: 'cus_one', allowed_origins: [ORIGIN] });
      expect([one.statusCode, one.json().data.destination_id]).toEqual([201, null]);
      const second = (await c.post('/v1/destinations', { url: 'https://two.vendor.example' })).json().data.id as string;
      const several = await c.post('/v1/widget-sessions', { external_customer_id: 'cus_several' });
      expect([several.statusCode, codeOf(several)]).toEqual([422, 'destination_required']);
      expect(await sessionsOf()).toBe(1);
      // Naming one of them works; an unknown id is the usual not-found.
      const named = await c.post('/v1/widget-sessions', { external_customer_id: 'cus_named', allowed_origins: [ORIGIN], destination_id: second });
      expect([named.statusCode, named.json().data.destination_id]).toEqual([201, second]);
      const unknown = await c.post('/v1/widget-sessions', { external_customer_id: 'cus_unknown', destination_id: 'dst_doesnotexist' });
      expect([unknown.statusCode, codeOf(unknown), unknown.json().error.param]).toEqual([404, 'destination_not_found', 'destination_id']);
      // A domain created through the named session points at the named destination.
      const made = await create(named.json().data.token, `named-${Date.now()}.customer.example`);
      expect(made.statusCode).toBe(201);
      const row = await t.database.db.one(sql.unsafe`select destination_id from domains where id = ${made.json().data.id}`) as { destination_id: string };
      expect(row.destination_id).toBe(second);
      expect(first).not.toBe(second);
    });

    it('is idempotent: the same key replays the same session and token', async () => {
      const headers = { 'idempotency-key': `ws-replay-${Date.now()}` };
      const a = await api.post('/v1/widget-sessions', { external_customer_id: 'cus_r' }, headers);
      const b = await api.post('/v1/widget-sessions', { external_customer_id: 'cus_r' }, headers);
      expect(b.headers['idempotent-replayed']).toBe('true');
      expect(b.json()).toEqual(a.json());
    });
  });

  describe('widget token, origin and error codes', () => {
    it('missing → missing_token; malformed or unknown → invalid_widget_token; expired → widget_token_expired; bad Origin → origin_forbidden', async () => {
      const s = await newSession();
      const d = (await create(s.token, `codes-${Date.now()}.customer.example`)).json().data;
      const url = `/v1/widget/domains/${d.id}`;
      const answers = {
        missing: await call('GET', url),
        notBearer: await call('GET', url, { headers: { authorization: `Basic ${s.token}` } }),
        malformed: await call('GET', url, { token: 'abc' }),
        unknown: await call('GET', url, { token: `wst_${'0'.repeat(43)}` }),
        apiKey: await call('GET', url, { headers: { authorization: 'Bearer hg_live_xyz' } }),
        noOrigin: await call('GET', url, { token: s.token, origin: null }),
        wrongOrigin: await call('GET', url, { token: s.token, origin: 'https://evil.example' }),
        nullOrigin: await call('GET', url, { token: s.token, origin: 'null' }),
        ok: await call('GET', url, { token: s.token }),
      };
      const got = Object.fromEntries(Object.entries(answers).map(([k, r]) => [k, [r.statusCode, codeOf(r)]]));
      expect(got).toEqual({
        missing: [401, 'missing_token'],
        notBearer: [401, 'invalid_widget_token'],
        malformed: [401, 'invalid_widget_token'],
        unknown: [401, 'invalid_widget_token'],
        apiKey: [401, 'invalid_widget_token'],
        noOrigin: [403, 'origin_forbidden'],
        wrongOrigin: [403, 'origin_forbidden'],
        nullOrigin: [403, 'origin_forbidden'],
        ok: [200, undefined],
      });
      // Precedence: a missing token wins over a bad origin; an expired token wins over a bad origin.
      expect(codeOf(await call('GET', url, { origin: 'https://evil.example' }))).toBe('missing_token');
      await widgetSessionsRepository(t.database.db).expire(s.id);
      for (const req of [call('GET', url, { token: s.token }), call('GET', url, { token: s.token, origin: 'https://evil.example' }), call('POST', `${url}/verify`, { token: s.token }), create(s.token, 'late.customer.example')]) {
        const res = await req;
        expect([res.statusCode, codeOf(res)]).toEqual([401, 'widget_token_expired']);
      }
      // The browser endpoints never accept an API key, nor the server API a widget token.
      expect(codeOf(await call('GET', '/v1/domains', { token: s.token }))).toBe('invalid_api_key');
    });

    it('revoking the API key that created a session ends the session at once (invalid_widget_token); other keys\' sessions live on', async () => {
      const other = await createOrgWithKey(t);
      const keyId = await t.database.db.oneFirst(sql.unsafe`select id from api_keys where organization_id = ${other.org.id}`) as string;
      const otherApi = client(t.app, other.auth);
      const dest = (await otherApi.post('/v1/destinations', { url: 'https://app.revoked-key.example' })).json().data.id;
      const s = await newSession({ destination_id: dest }, otherApi);
      const before = await call('GET', '/v1/widget/domains', { token: s.token });
      expect(before.statusCode).toBe(200);
      await apiKeysRepository(t.database.db).revoke(keyId);
      const after = await call('GET', '/v1/widget/domains', { token: s.token });
      expect([after.statusCode, codeOf(after)]).toEqual([401, 'invalid_widget_token']);
      expect(after.json().error.message).toMatch(/API key that created this widget session has been revoked/);
      // The suite's own key is untouched: its sessions still work.
      expect((await call('GET', '/v1/widget/domains', { token: (await newSession()).token })).statusCode).toBe(200);
    });

    it('without allowed_origins: any https origin and http://localhost:*, never plain http elsewhere nor no Origin', async () => {
      const s = await newSession({ allowed_origins: undefined });
      expect(s.allowed_origins).toBeNull();
      const d = (await create(s.token, `open-${Date.now()}.customer.example`, { origin: 'https://anything.example' })).json().data;
      const url = `/v1/widget/domains/${d.id}`;
      const status = async (origin: string | null) => (await call('GET', url, { token: s.token, origin })).statusCode;
      expect(await status('https://other.example:8443')).toBe(200);
      expect(await status('http://localhost:5173')).toBe(200);
      expect(await status('http://vendor.example')).toBe(403);
      expect(await status(null)).toBe(403);
      expect(await status('http://127.0.0.2:80')).toBe(403);
    });

    it('widget errors outside the spec list are answered as widget_request_failed', async () => {
      const s = await newSession();
      const noKey = await create(s.token, 'nokey.customer.example', { key: null });
      expect([noKey.statusCode, codeOf(noKey), noKey.json().error.details]).toEqual([400, 'widget_request_failed', { cause: 'idempotency_key_missing' }]);
      const badHost = await create(s.token, 'https://shop.example.com/path');
      expect([badHost.statusCode, codeOf(badHost), badHost.json().error.param, badHost.json().error.details]).toEqual([400, 'widget_request_failed', 'hostname', { cause: 'invalid_request', reason: 'not_a_hostname' }]);
      const unknownField = await call('POST', '/v1/widget/domains', { token: s.token, payload: { hostname: 'a.customer.example', destination_id: destinationId } });
      expect([unknownField.statusCode, codeOf(unknownField), unknownField.json().error.details.cause]).toEqual([400, 'widget_request_failed', 'invalid_request']);
      const text = await call('POST', '/v1/widget/domains', { token: s.token, payload: 'hostname=x', headers: { 'content-type': 'text/plain' } });
      expect([text.statusCode, codeOf(text)]).toEqual([400, 'widget_request_failed']);
    });
  });

  describe('domains through the widget', () => {
    it("creates the domain on the session's destination with its external_customer_id, and returns records with relative names", async () => {
      const s = await newSession({ external_customer_id: 'cus_create' });
      const res = await create(s.token, 'Shop.Customer-Create.example');
      expect(res.statusCode).toBe(201);
      const d = res.json().data;
      expect(d).toMatchObject({ hostname: 'shop.customer-create.example', zone: 'customer-create.example', status: 'pending_dns' });
      expect(d.dns_records).toEqual([{ type: 'CNAME', name: 'shop.customer-create.example', relative_name: 'shop', value: 'edge.hostgate.test' }]);
      expect(d).not.toHaveProperty('external_customer_id');
      const server = (await api.get(`/v1/domains/${d.id}`)).json().data;
      expect(server).toMatchObject({ destination_id: destinationId, external_customer_id: 'cus_create', status: 'pending_dns' });
      expect(await t.database.db.oneFirst(sql.unsafe`select widget_session_id from domains where id = ${d.id}`)).toBe(s.id);
      const apex = (await create(s.token, 'customer-apex.example')).json().data;
      expect(apex.dns_records).toEqual([{ type: 'A', name: 'customer-apex.example', relative_name: '@', value: '127.0.0.1' }]);
    });

    it('is idempotent per session: the same key replays, the same key in another session is another request', async () => {
      const a = await newSession();
      const b = await newSession();
      const key = `same-${Date.now()}`;
      const first = await create(a.token, `idem-${Date.now()}.customer.example`, { key });
      const again = await create(a.token, first.json().data.hostname, { key });
      expect([again.statusCode, again.headers['idempotent-replayed'], again.json().data.id]).toEqual([201, 'true', first.json().data.id]);
      const other = await create(b.token, `idem-b-${Date.now()}.customer.example`, { key });
      expect([other.statusCode, other.headers['idempotent-replayed']]).toEqual([201, undefined]);
    });

    it("a session sees its customer's widget domains, from any of the customer's sessions; another customer's, a server-created one and another organization's answer widget_domain_not_found", async () => {
      const a = await newSession({ external_customer_id: 'cus_same' });
      const sameCustomer = await newSession({ external_customer_id: 'cus_same' });
      const b = await newSession({ external_customer_id: 'cus_not_same' });
      const mine = (await create(a.token, `iso-${Date.now()}.customer.example`)).json().data;
      const serverMade = (await api.post('/v1/domains', { hostname: `server-${Date.now()}.customer.example`, destination_id: destinationId })).json().data;
      const otherOrg = client(t.app, (await createOrgWithKey(t, undefined, 'Iso org')).auth);
      await otherOrg.post('/v1/destinations', { url: 'https://app.iso.example' });
      const foreign = await newSession({ destination_id: undefined }, otherOrg);
      const missing = await call('GET', '/v1/widget/domains/dom_00000000000000000000000000', { token: b.token });
      expect([missing.statusCode, codeOf(missing)]).toEqual([404, 'widget_domain_not_found']);
      const attempts = [
        await call('GET', `/v1/widget/domains/${mine.id}`, { token: b.token }),
        await call('POST', `/v1/widget/domains/${mine.id}/verify`, { token: b.token }),
        await call('GET', `/v1/widget/domains/${serverMade.id}`, { token: a.token }),
        await call('GET', `/v1/widget/domains/${mine.id}`, { token: foreign.token }),
      ];
      for (const res of attempts) {
        expect([res.statusCode, codeOf(res)]).toEqual([404, 'widget_domain_not_found']);
        expect(res.json().error.message.replace(/dom_\w+/, 'X')).toBe(missing.json().error.message.replace(/dom_\w+/, 'X'));
      }
      expect((await call('GET', `/v1/widget/domains/${mine.id}`, { token: a.token })).statusCode).toBe(200);
      expect((await api.get(`/v1/domains/${mine.id}`)).json().data.verification.verify_requested_at).toBeNull();
      // A later session of the same customer (a reload, a new token) reads and verifies it.
      expect((await call('GET', `/v1/widget/domains/${mine.id}`, { token: sameCustomer.token })).statusCode).toBe(200);
      expect((await call('POST', `/v1/widget/domains/${mine.id}/verify`, { token: sameCustomer.token })).statusCode).toBe(202);
    });

    it("lists the customer's widget domains, newest first, paginated, without deleted ones nor anybody else's", async () => {
      const a = await newSession({ external_customer_id: 'cus_list' });
      const b = await newSession({ external_customer_id: 'cus_list' });
      const stamp = Date.now();
      const first = (await create(a.token, `l1-${stamp}.customer.example`)).json().data;
      const second = (await create(b.token, `l2-${stamp}.customer.example`)).json().data;
      const third = (await create(b.token, `l3-${stamp}.customer.example`)).json().data;
      await create((await newSession({ external_customer_id: 'cus_list_other' })).token, `l4-${stamp}.customer.example`);
      await api.post('/v1/domains', { hostname: `l5-${stamp}.customer.example`, destination_id: destinationId, external_customer_id: 'cus_list' });
      const fresh = await newSession({ external_customer_id: 'cus_list' });
      const page1 = await call('GET', '/v1/widget/domains?limit=2', { token: fresh.token });
      expect(page1.statusCode).toBe(200);
      expect([page1.json().data.map((d: { id: string }) => d.id), page1.json().has_more]).toEqual([[third.id, second.id], true]);
      expect(page1.json().data[0]).toMatchObject({ hostname: third.hostname, hostname_unicode: third.hostname, status: 'pending_dns', dns_records: [expect.objectContaining({ relative_name: `l3-${stamp}` })] });
      const unknownParam = await call('GET', '/v1/widget/domains?status=active', { token: fresh.token });
      expect([unknownParam.statusCode, unknownParam.json().error.code, unknownParam.json().error.details]).toEqual([400, 'widget_request_failed', { cause: 'invalid_request' }]);
      expect(unknownParam.json().error.message).toMatch(/status is not a known field of the query string/);
      const page2 = await call('GET', `/v1/widget/domains?limit=2&cursor=${page1.json().next_cursor}`, { token: fresh.token });
      expect([page2.json().data.map((d: { id: string }) => d.id), page2.json().has_more]).toEqual([[first.id], false]);
      // Deleted (as the domain workflow ends a deletion): gone from the list and from the session's reach.
      await t.database.db.query(sql.unsafe`update domains set status = 'deleted' where id = ${second.id}`);
      const again = await newSession({ external_customer_id: 'cus_list' }); // a fresh rate-limit budget
      const after = await call('GET', '/v1/widget/domains', { token: again.token });
      expect(after.json().data.map((d: { id: string }) => d.id)).toEqual([third.id, first.id]);
      expect(codeOf(await call('GET', `/v1/widget/domains/${second.id}`, { token: again.token }))).toBe('widget_domain_not_found');
      expect(codeOf(await call('GET', '/v1/widget/domains', { token: again.token, origin: 'https://elsewhere.example' }))).toBe('origin_forbidden');
    });

    it('re-entering a hostname the customer already started continues with it (200, same domain); another customer gets domain_conflict', async () => {
      const a = await newSession({ external_customer_id: 'cus_again' });
      const hostname = `again-${Date.now()}.customer.example`;
      const first = await create(a.token, hostname);
      expect(first.statusCode).toBe(201);
      const sameSession = await create(a.token, hostname.toUpperCase());
      expect([sameSession.statusCode, sameSession.json().data.id]).toEqual([200, first.json().data.id]);
      const later = await create((await newSession({ external_customer_id: 'cus_again' })).token, hostname);
      expect([later.statusCode, later.json().data.id]).toEqual([200, first.json().data.id]);
      const stranger = await create((await newSession({ external_customer_id: 'cus_stranger' })).token, hostname);
      expect([stranger.statusCode, codeOf(stranger), stranger.json().error.param]).toEqual([409, 'domain_conflict', 'hostname']);
      expect(stranger.json().error.message).not.toContain('cus_again');
      // Read by the vendor's customer: it names no other organization (the server API's does).
      expect(stranger.json().error.message).toBe(`${hostname} is already connected to this service; remove it there first, or contact support`);
      // Created with the API key for the same customer: not the widget's, still a conflict.
      const serverHost = `server-again-${Date.now()}.customer.example`;
      await api.post('/v1/domains', { hostname: serverHost, destination_id: destinationId, external_customer_id: 'cus_again' });
      expect(codeOf(await create(a.token, serverHost))).toBe('domain_conflict');
    });

    it('concurrent creates of one hostname by the same customer: one 201, the others 200 with that domain, never 409', async () => {
      // Two sessions (each has a create budget of 5): several requests pass the "already started"
      // look-up before the first commits; their insert then meets the hostname taken, and the
      // domain that took it is their answer too (docs/api-decisions.md, "Re-entering a hostname").
      const sessions = [await newSession({ external_customer_id: 'cus_race' }), await newSession({ external_customer_id: 'cus_race' })];
      const hostname = `race-${Date.now()}.customer.example`;
      const answers = await Promise.all(sessions.flatMap((s) => Array.from({ length: 4 }, () => create(s.token, hostname))));
      expect(answers.map((r) => r.statusCode).sort()).toEqual([200, 200, 200, 200, 200, 200, 200, 201]);
      const id = answers.find((r) => r.statusCode === 201)!.json().data.id;
      expect(answers.map((r) => r.json().data.id)).toEqual(answers.map(() => id));
      expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = ${hostname}`)).toBe(1);
    });

    it('presents internationalised names in Unicode beside the punycode DNS needs', async () => {
      const s = await newSession({ external_customer_id: 'cus_idn' });
      const res = await create(s.token, 'Shop.Bücher-Läden.example');
      expect(res.statusCode).toBe(201);
      expect(res.json().data).toMatchObject({
        hostname: 'shop.xn--bcher-lden-w5a5z.example', hostname_unicode: 'shop.bücher-läden.example',
        zone: 'xn--bcher-lden-w5a5z.example', zone_unicode: 'bücher-läden.example',
        dns_records: [{ type: 'CNAME', name: 'shop.xn--bcher-lden-w5a5z.example', relative_name: 'shop', value: 'edge.hostgate.test' }],
      });
    });

    it("destination: the session's, else the organization's only one, else destination_not_found; conflicts answer domain_conflict", async () => {
      const lone = client(t.app, (await createOrgWithKey(t, undefined, 'Lone org')).auth);
      // No destination at all: refused at session creation already (see destination_required above).
      expect(codeOf(await lone.post('/v1/widget-sessions', { external_customer_id: 'cus_1', allowed_origins: [ORIGIN] }))).toBe('destination_required');
      const only = (await lone.post('/v1/destinations', { url: 'https://only.lone.example' })).json().data.id;
      const s = await newSession({ destination_id: undefined }, lone);
      const d = (await create(s.token, 'n2.lone.example')).json().data;
      expect((await lone.get(`/v1/domains/${d.id}`)).json().data.destination_id).toBe(only);
      await lone.post('/v1/destinations', { url: 'https://second.lone.example' });
      // A second destination added after the session was created: its widget creates cannot choose.
      const ambiguous = await create(s.token, 'n3.lone.example');
      expect([ambiguous.statusCode, codeOf(ambiguous), ambiguous.json().error.param]).toEqual([404, 'destination_not_found', undefined]);
      expect(ambiguous.json().error.message).toMatch(/^this widget session has no destination: create the session with a destination_id/);
      const conflict = await create((await newSession({ destination_id: only, external_customer_id: 'cus_lone_other' }, lone)).token, 'n2.lone.example');
      expect([conflict.statusCode, codeOf(conflict)]).toEqual([409, 'domain_conflict']);
      // The session's destination, deleted since: destination_not_found.
      const gone = (await lone.post('/v1/destinations', { url: 'https://gone.lone.example' })).json().data.id;
      const pinned = await newSession({ destination_id: gone }, lone);
      await lone.delete(`/v1/destinations/${gone}`);
      const removed = await create(pinned.token, 'n4.lone.example');
      expect([codeOf(removed), removed.json().error.message]).toEqual(['destination_not_found', 'the destination of this widget session no longer exists']);
    });

    it('verify answers 202 with the domain and records the request', async () => {
      const s = await newSession();
      const d = (await create(s.token, `verify-${Date.now()}.customer.example`)).json().data;
      const res = await call('POST', `/v1/widget/domains/${d.id}/verify`, { token: s.token });
      expect(res.statusCode).toBe(202);
      expect(res.json().data.verification.verify_requested_at).toEqual(expect.any(String));
    });

    it('hands a domain over to the next session of the same customer, and to nobody else', async () => {
      const old = await newSession({ external_customer_id: 'cus_h' });
      const d = (await create(old.token, `handover-${Date.now()}.customer.example`)).json().data;
      await widgetSessionsRepository(t.database.db).expire(old.id);
      const stranger = await newSession({ external_customer_id: 'cus_other' });
      const refused = await call('POST', `/v1/widget/domains/${d.id}/handover`, { token: stranger.token, payload: { previous_token: old.token } });
      expect([refused.statusCode, codeOf(refused)]).toEqual([404, 'widget_domain_not_found']);
      const forged = await call('POST', `/v1/widget/domains/${d.id}/handover`, { token: stranger.token, payload: { previous_token: `wst_${'1'.repeat(43)}` } });
      expect(codeOf(forged)).toBe('widget_domain_not_found');
      const next = await newSession({ external_customer_id: 'cus_h' });
      expect(codeOf(await call('GET', `/v1/widget/domains/${d.id}`, { token: stranger.token }))).toBe('widget_domain_not_found');
      const ok = await call('POST', `/v1/widget/domains/${d.id}/handover`, { token: next.token, payload: { previous_token: old.token } });
      expect([ok.statusCode, ok.json().data.id]).toEqual([200, d.id]);
      expect((await call('GET', `/v1/widget/domains/${d.id}`, { token: next.token })).statusCode).toBe(200);
      expect(await t.database.db.oneFirst(sql.unsafe`select widget_session_id from domains where id = ${d.id}`)).toBe(next.id);
    });
  });

  describe('rate limits per session', () => {
    it('5 domain creations per minute, then 429 rate_limited with Retry-After', async () => {
      const s = await newSession();
      const stamp = Date.now();
      for (let i = 0; i < 5; i++) expect((await create(s.token, `rl${i}-${stamp}.customer.example`)).statusCode).toBe(201);
      const limited = await create(s.token, `rl5-${stamp}.customer.example`);
      expect([limited.statusCode, codeOf(limited)]).toEqual([429, 'rate_limited']);
      expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
      // Another session of the same organization has its own budget.
      expect((await create((await newSession()).token, `rl-other-${stamp}.customer.example`)).statusCode).toBe(201);
    });

    it('polling: 1 request per second (bursts of 3), then 429 rate_limited', async () => {
      const s = await newSession();
      const d = (await create(s.token, `poll-${Date.now()}.customer.example`)).json().data;
      const codes = [];
      for (let i = 0; i < 4; i++) codes.push((await call('GET', `/v1/widget/domains/${d.id}`, { token: s.token })).statusCode);
      expect(codes).toEqual([200, 200, 200, 429]);
      await new Promise((r) => setTimeout(r, 1100));
      expect((await call('GET', `/v1/widget/domains/${d.id}`, { token: s.token })).statusCode).toBe(200);
    });
  });

  describe('CORS', () => {
    // Preflights carry no token: they are answered from every session's allowlist, so these run
    // on a database of their own, where no session accepts every https origin.
    let own: TestApp;
    let ownApi: ReturnType<typeof client>;
    beforeAll(async () => {
      own = await createTestApp();
      ownApi = client(own.app, (await createOrgWithKey(own)).auth);
      await ownApi.post('/v1/destinations', { url: 'https://app.cors.example' });
    });
    afterAll(async () => { await own?.close(); });
    const ownCall = (method: 'GET' | 'POST' | 'OPTIONS', url: string, o: Parameters<typeof call>[2] = {}) => call(method, url, { ...o, app: own });
    const ownSession = async (origins: string[]) => (await ownApi.post('/v1/widget-sessions', { external_customer_id: 'cus_cors', allowed_origins: origins })).json().data as { id: string; token: string };

    it('answers preflights for any origin (the call that follows decides), with Vary: Origin; refuses one without Origin', async () => {
      await ownSession(['https://cors.vendor.example']);
      const preflight = (origin: string | null) => ownCall('OPTIONS', '/v1/widget/domains/dom_x/verify', {
        origin, headers: { 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization, content-type, idempotency-key' },
      });
      const ok = await preflight('https://cors.vendor.example');
      expect(ok.statusCode).toBe(204);
      expect(ok.headers).toMatchObject({
        'access-control-allow-origin': 'https://cors.vendor.example',
        'access-control-allow-methods': expect.stringContaining('POST'),
        'access-control-allow-headers': expect.stringContaining('idempotency-key'),
        vary: expect.stringContaining('Origin'),
      });
      expect(ok.headers['access-control-allow-headers']).toContain('authorization');
      expect(ok.headers['access-control-allow-credentials']).toBeUndefined();
      for (const origin of ['https://not-allowed.example', 'http://cors.vendor.example']) {
        const passed = await preflight(origin);
        expect([origin, passed.statusCode, passed.headers['access-control-allow-origin']]).toEqual([origin, 204, origin]);
      }
      const refused = await preflight(null);
      expect([refused.statusCode, refused.headers['access-control-allow-origin'], codeOf(refused)]).toEqual([403, undefined, 'origin_forbidden']);
      expect(refused.headers.vary).toContain('Origin');
    });

    it('data only for an allowed origin; errors readable by the asking origin (that one only), without data', async () => {
      const s = await ownSession(['https://reader.vendor.example']);
      const origin = 'https://reader.vendor.example';
      const d = (await create(s.token, `cors-${Date.now()}.customer.example`, { origin, app: own })).json().data;
      const ok = await ownCall('GET', `/v1/widget/domains/${d.id}`, { token: s.token, origin });
      expect([ok.headers['access-control-allow-origin'], ok.headers.vary]).toEqual([origin, expect.stringContaining('Origin')]);
      expect(ok.headers['access-control-expose-headers']).toContain('x-request-id');
      const forbidden = await ownCall('GET', `/v1/widget/domains/${d.id}`, { token: s.token, origin: 'https://evil.example' });
      expect([forbidden.statusCode, codeOf(forbidden), forbidden.headers['access-control-allow-origin']]).toEqual([403, 'origin_forbidden', 'https://evil.example']);
      // For the vendor: which origin, and what to change; nothing of the session or the domain.
      expect(forbidden.json().error.message).toMatch(/https:\/\/evil\.example is not in the allowed_origins .*POST \/v1\/widget-sessions/);
      expect(forbidden.json()).not.toHaveProperty('data');
      expect(forbidden.body).not.toContain('reader.vendor.example');
      expect(forbidden.body).not.toContain(d.hostname);
      const unknown = await ownCall('GET', `/v1/widget/domains/${d.id}`, { token: `wst_${'2'.repeat(43)}`, origin });
      expect([codeOf(unknown), unknown.headers['access-control-allow-origin']]).toEqual(['invalid_widget_token', origin]);
      const missing = await ownCall('GET', '/v1/widget/domains', { origin: 'https://evil.example' });
      expect([missing.statusCode, codeOf(missing), missing.headers['access-control-allow-origin']]).toEqual([401, 'missing_token', 'https://evil.example']);
      await widgetSessionsRepository(own.database.db).expire(s.id);
      const expired = await ownCall('GET', `/v1/widget/domains/${d.id}`, { token: s.token, origin });
      expect([codeOf(expired), expired.headers['access-control-allow-origin']]).toEqual(['widget_token_expired', origin]);
      expect((await ownCall('OPTIONS', `/v1/widget/domains/${d.id}`, { origin, headers: { 'access-control-request-method': 'GET' } })).statusCode).toBe(204);
    });
  });

  describe('OpenAPI', () => {
    it('documents the browser endpoints with the widget token scheme, their idempotency and their codes', async () => {
      const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
      const codes = (op: any, status: number) => [...String(op.responses[status]?.description ?? '').matchAll(/`([a-z_]+)`/g)].map((m) => m[1]);
      const ops = [['get', '/v1/widget/domains'], ['post', '/v1/widget/domains'], ['get', '/v1/widget/domains/{id}'], ['post', '/v1/widget/domains/{id}/verify'], ['post', '/v1/widget/domains/{id}/handover']] as const;
      for (const [method, path] of ops) {
        const op = doc.paths[path]?.[method];
        expect([path, op?.security]).toEqual([path, [{ widgetToken: [] }]]);
        expect([path, codes(op, 401)]).toEqual([path, ['missing_token', 'invalid_widget_token', 'widget_token_expired']]);
        expect([path, codes(op, 403), codes(op, 429), codes(op, 400)]).toEqual([path, ['origin_forbidden'], ['rate_limited'], ['widget_request_failed']]);
        const key = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'idempotency-key');
        expect([path, Boolean(key?.required)]).toEqual([path, method === 'post']);
      }
      expect(codes(doc.paths['/v1/widget/domains'].post, 409)).toEqual(['domain_conflict']);
      expect(codes(doc.paths['/v1/widget/domains'].post, 404)).toEqual(['destination_not_found']);
      expect(doc.paths['/v1/widget-sessions'].post.security).toEqual([{ apiKey: [] }]);
    });
  });

  describe('the script and the demo page', () => {
    it('serves one ES module within 16 KiB gzipped, with an immutable versioned copy whose SRI hash the manifest gives', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/widget/v1/service-widget.js' });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/javascript/);
      expect(res.headers['access-control-allow-origin']).toBe('*');
      expect(res.body).toContain('customElements.define("service-widget"');
      expect(res.body).not.toMatch(/^\s*import\s|\bimport\(/m);
      expect(gzipSync(res.rawPayload, { level: 9 }).length).toBeLessThanOrEqual(16 * 1024);
      const manifest = (await t.app.inject({ method: 'GET', url: '/widget/v1/manifest.json' })).json();
      expect(manifest.integrity).toBe(`sha384-${createHash('sha384').update(res.rawPayload).digest('base64')}`);
      const versioned = await t.app.inject({ method: 'GET', url: new URL(manifest.versioned_script).pathname });
      expect(versioned.statusCode).toBe(200);
      expect(versioned.headers['cache-control']).toContain('immutable');
      expect(versioned.rawPayload.equals(res.rawPayload)).toBe(true);
      const gz = await t.app.inject({ method: 'GET', url: '/widget/v1/service-widget.js', headers: { 'accept-encoding': 'gzip' } });
      expect(gz.headers['content-encoding']).toBe('gzip');
      expect(gz.headers['content-type']).toMatch(/^text\/javascript/);
      expect(gz.headers.vary).toMatch(/accept-encoding/i);
      expect(gz.rawPayload.length).toBeLessThan(res.rawPayload.length / 2);
      expect(gunzipSync(gz.rawPayload).equals(res.rawPayload)).toBe(true);
      // Brotli where the browser takes it (every evergreen one does): smaller than gzip.
      const br = await t.app.inject({ method: 'GET', url: '/widget/v1/service-widget.js', headers: { 'accept-encoding': 'gzip, deflate, br' } });
      expect([br.headers['content-encoding'], br.headers['access-control-allow-origin'], br.headers['cache-control']]).toEqual(['br', '*', 'public, max-age=300']);
      expect(br.rawPayload.length).toBeLessThan(gz.rawPayload.length);
      expect(brotliDecompressSync(br.rawPayload).equals(res.rawPayload)).toBe(true);
      const versionedBr = await t.app.inject({ method: 'GET', url: new URL(manifest.versioned_script).pathname, headers: { 'accept-encoding': 'br' } });
      expect([versionedBr.headers['content-encoding'], versionedBr.headers['cache-control']]).toEqual(['br', 'public, max-age=31536000, immutable']);
      expect((await t.app.inject({ method: 'GET', url: '/widget/v1/service-widget.deadbeef0000.js' })).statusCode).toBe(404);
      expect((await t.app.inject({ method: 'GET', url: '/widget/v1/service-widget.js', headers: { 'if-none-match': String(res.headers.etag) } })).statusCode).toBe(304);
    });

    it('the demo page embeds the element in demo and live mode, with a session for the page origin', async () => {
      const res = await t.app.inject({ method: 'GET', url: '/widget/demo?lang=fr', headers: { host: 'localhost:3999' } });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toMatch(/^text\/html/);
      expect(res.body).toContain('<service-widget id="demo-widget" demo lang="fr">');
      const token = /token="(wst_[0-9a-z]+)"/.exec(res.body)?.[1];
      expect(token).toBeDefined();
      expect(res.body).toContain('api-base="http://127.0.0.1:3999"');
      const session = await widgetSessionsRepository(t.database.db).authenticate(token!);
      expect(session?.allowed_origins).toEqual(['http://localhost:3999']);
      // The page itself speaks the element's language.
      expect(res.body).toContain('<html lang="fr">');
      expect(res.body).toContain('<h1>Démo de &#60;service-widget&#62;</h1>');
      expect(res.body).toContain('Appelle cette API à http://127.0.0.1:3999 avec une session widget');
      expect(res.body).not.toMatch(/Demo mode|Live mode|Embed it/);
      const en = await t.app.inject({ method: 'GET', url: '/widget/demo', headers: { host: 'localhost:3999' } });
      expect(en.body).toContain('<h2 id="live-title">Live mode</h2>');
      // Each visitor is a customer of their own (a cookie): the same one on their next visit.
      const customerOf = async (page: { body: string }) => (await widgetSessionsRepository(t.database.db).authenticate(/token="(wst_[0-9a-z]+)"/.exec(page.body)![1]!))!.external_customer_id;
      const cookie = String(res.headers['set-cookie']).split(';')[0]!;
      expect(cookie).toMatch(/^hg_demo_customer=demo-[0-9a-f]{32}$/);
      expect(String(res.headers['set-cookie'])).toContain('HttpOnly');
      expect(await customerOf(en)).not.toBe(session!.external_customer_id);
      const back = await t.app.inject({ method: 'GET', url: '/widget/demo', headers: { host: 'localhost:3999', cookie } });
      expect([await customerOf(back), back.headers['set-cookie']]).toEqual([session!.external_customer_id, undefined]);
    });
  });
});
