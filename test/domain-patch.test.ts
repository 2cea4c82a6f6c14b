// Issue 23, the API: PATCH /v1/domains/{id} and /v1/destinations/{id}, also_connect, metadata
// (limits, filter, events, never in the widget) and every refusal, against real Postgres and
// Temporal (the edge side is test/edge-settings.test.ts).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from 'slonik';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { eventPayload } from '../activities/webhooks.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

describe('changing a connected domain (issue 23)', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let orgId: string;
  let auth: Record<string, string>;
  let dstA: string;
  let dstB: string;
  beforeAll(async () => {
    t = await createTestApp();
    const o = await createOrgWithKey(t);
    orgId = o.org.id;
    auth = o.auth;
    api = client(t.app, o.auth);
    dstA = (await api.post('/v1/destinations', { url: 'https://a.patch.example.com' })).json().data.id;
    dstB = (await api.post('/v1/destinations', { url: 'https://b.patch.example.com' })).json().data.id;
  });
  afterAll(async () => { await t?.close(); });

  const create = async (hostname: string, extra: Record<string, unknown> = {}) => {
    const res = await api.post('/v1/domains', { hostname, destination_id: dstA, ...extra });
    expect(res.statusCode).toBe(201);
    return res.json();
  };
  const err = (res: { statusCode: number; json(): any }) => [res.statusCode, res.json().error?.code, res.json().error?.param];
  const events = async (domainId: string) => t.database.db.any(sql.unsafe`select kind, data from events where domain_id = ${domainId} order by created_at, id`) as Promise<Array<{ kind: string; data: any }>>;

  it('a new domain reads with no metadata, no redirect, TLS 1.2 and no HSTS', async () => {
    const { data } = await create('defaults.patch.example');
    expect([data.metadata, data.redirect, data.tls]).toEqual([null, null, { min_version: '1.2', hsts: null }]);
  });

  it('changes destination, metadata, customer reference, redirect and TLS; each change is a hostname.updated event', async () => {
    const { data: d } = await create('all.patch.example');
    await create('sibling.patch.example');
    const res = await api.patch(`/v1/domains/${d.id}`, {
      destination_id: dstB, metadata: { plan: 'pro', team: 'x' }, external_customer_id: 'cus_9',
      redirect: { to: 'sibling.patch.example', status: 308, preserve_path: true },
      tls: { min_version: '1.3', hsts: { max_age: 600, include_subdomains: true, preload: false } },
    });
    expect(res.statusCode).toBe(200);
    const got = res.json().data;
    expect([got.destination_id, got.metadata, got.external_customer_id, got.redirect, got.tls, got.status]).toEqual([
      dstB, { plan: 'pro', team: 'x' }, 'cus_9', { to: 'sibling.patch.example', status: 308, preserve_path: true },
      { min_version: '1.3', hsts: { max_age: 600, include_subdomains: true, preload: false } }, 'pending_dns',
    ]);
    expect((await api.get(`/v1/domains/${d.id}`)).json().data.metadata).toEqual({ plan: 'pro', team: 'x' });
    const updated = (await events(d.id)).filter((e) => e.kind === 'hostname.updated');
    expect(updated).toHaveLength(1);
    expect(updated[0]!.data).toMatchObject({ id: d.id, destination_id: dstB, metadata: { plan: 'pro', team: 'x' }, external_customer_id: 'cus_9' });
    expect([...updated[0]!.data.changes].sort()).toEqual(['destination_id', 'external_customer_id', 'metadata', 'redirect', 'tls']);
    // The same values again change nothing: no event.
    expect((await api.patch(`/v1/domains/${d.id}`, { metadata: { plan: 'pro', team: 'x' } })).statusCode).toBe(200);
    expect((await events(d.id)).filter((e) => e.kind === 'hostname.updated')).toHaveLength(1);
    // null clears; a URL redirect keeps its query.
    const cleared = (await api.patch(`/v1/domains/${d.id}`, { metadata: null, external_customer_id: null, redirect: { to: 'https://example.org/landing?x=1', status: 302, preserve_path: false }, tls: { hsts: null } })).json().data;
    expect([cleared.metadata, cleared.external_customer_id, cleared.redirect, cleared.tls]).toEqual([null, null, { to: 'https://example.org/landing?x=1', status: 302, preserve_path: false }, { min_version: '1.3', hsts: null }]);
  });

  it('webhook bodies carry metadata, and changes on hostname.updated', async () => {
    const { data: d } = await create('payload.patch.example');
    await api.patch(`/v1/domains/${d.id}`, { metadata: { crm: 'acct_1' } });
    const rows = await t.database.db.any(sql.unsafe`select id, kind, data, created_at from events where domain_id = ${d.id} order by created_at, id`) as any[];
    const bodies = rows.map((r) => eventPayload({ ...r, organization_id: orgId, domain_id: d.id } as never));
    expect(bodies.map((b) => [b.event, b.data.metadata, b.data.changes])).toEqual([['hostname.created', null, undefined], ['hostname.updated', { crm: 'acct_1' }, ['metadata']]]);
  });

  it('metadata is in the events of status moves (hostname.active) too', async () => {
    const { data: d } = await create('status-event.patch.example');
    await api.patch(`/v1/domains/${d.id}`, { metadata: { tier: 'gold' } });
    await domainsRepository(t.database.db).transition(d.id, 'dns_verified', 'test');
    await domainsRepository(t.database.db).transition(d.id, 'certificate_issued', 'test');
    const active = (await events(d.id)).find((e) => e.kind === 'hostname.active');
    expect(active?.data.metadata).toEqual({ tier: 'gold' });
  });

  it('filters lists on one metadata key', async () => {
    const { data: d } = await create('filter.patch.example');
    await api.patch(`/v1/domains/${d.id}`, { metadata: { segment: 'enterprise-42' } });
    const page = (await api.get('/v1/domains?metadata[segment]=enterprise-42')).json();
    expect(page.data.map((x: any) => x.id)).toEqual([d.id]);
    expect((await api.get('/v1/domains?metadata[segment]=nobody')).json().data).toEqual([]);
    expect(err(await api.get('/v1/domains?metadata[a]=1&metadata[b]=2'))).toEqual([400, 'invalid_request', 'metadata[b]']);
  });

  it('refuses metadata beyond its limits, naming the param', async () => {
    const { data: d } = await create('limits.patch.example');
    const patch = (metadata: unknown) => api.patch(`/v1/domains/${d.id}`, { metadata });
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, 'v']));
    expect(err(await patch(many))).toEqual([400, 'invalid_request', 'metadata']);
    expect(err(await patch({ ['k'.repeat(41)]: 'v' }))).toEqual([400, 'invalid_request', `metadata.${'k'.repeat(41)}`]);
    expect(err(await patch({ long: 'v'.repeat(501) }))).toEqual([400, 'invalid_request', 'metadata.long']);
    expect(err(await patch({ n: 5 }))).toEqual([400, 'invalid_request', 'metadata.n']);
    const big = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`key${i}`, 'v'.repeat(450)]));
    expect(err(await patch(big))).toEqual([400, 'invalid_request', 'metadata']);
    expect(err(await patch(['a']))[0]).toBe(400);
  });

  it('refuses bad patches: empty, unknown fields, bad redirect and TLS values, foreign destination', async () => {
    const { data: d } = await create('refusals.patch.example');
    const patch = (body: unknown) => api.patch(`/v1/domains/${d.id}`, body);
    expect(err(await patch({}))).toEqual([400, 'invalid_request', 'body']);
    expect(err(await patch({ tls: {} }))).toEqual([400, 'invalid_request', 'tls']);
    expect(err(await patch({ hostname: 'x.example' }))[0]).toBe(400);
    expect(err(await patch({ redirect: { to: 'http://plain.example', status: 301, preserve_path: false } }))).toEqual([400, 'invalid_request', 'redirect.to']);
    expect(err(await patch({ redirect: { to: 'https://u:p@x.example/', status: 301, preserve_path: false } }))).toEqual([400, 'invalid_request', 'redirect.to']);
    expect(err(await patch({ redirect: { to: 'https://refusals.patch.example/x', status: 301, preserve_path: false } }))).toEqual([400, 'invalid_request', 'redirect.to']);
    expect(err(await patch({ redirect: { to: 'refusals.patch.example', status: 301, preserve_path: false } }))).toEqual([400, 'invalid_request', 'redirect.to']);
    expect(err(await patch({ redirect: { to: 'not-ours.example', status: 301, preserve_path: false } }))).toEqual([400, 'invalid_request', 'redirect.to']);
    expect(err(await patch({ redirect: { to: 'https://x.example', status: 303, preserve_path: false } }))[0]).toBe(400);
    expect(err(await patch({ tls: { min_version: '1.1' } }))[0]).toBe(400);
    expect(err(await patch({ tls: { hsts: { max_age: 60, include_subdomains: false, preload: true } } }))).toEqual([400, 'invalid_request', 'tls.hsts.preload']);
    expect(err(await patch({ destination_id: 'dst_00000000000000000000000000' }))).toEqual([404, 'destination_not_found', 'destination_id']);
    // A destination on the domain's own hostname (made before the domain existed) would loop.
    const loop = await destinationsRepository(t.database.db).create({ organizationId: orgId, url: 'https://refusals.patch.example', host: 'refusals.patch.example', port: 443 });
    expect(err(await patch({ destination_id: loop.id }))).toEqual([400, 'invalid_request', 'destination_id']);
    const other = client(t.app, (await createOrgWithKey(t, undefined, 'Other org')).auth);
    const foreign = (await other.post('/v1/destinations', { url: 'https://foreign.patch.example.com' })).json().data.id;
    expect(err(await patch({ destination_id: foreign }))).toEqual([404, 'destination_not_found', 'destination_id']);
    expect(err(await other.patch(`/v1/domains/${d.id}`, { metadata: { a: 'b' } }))).toEqual([404, 'domain_not_found', 'id']);
    expect(err(await api.patch('/v1/domains/dom_00000000000000000000000000', { metadata: { a: 'b' } }))).toEqual([404, 'domain_not_found', 'id']);
    // Deleting or deleted: 409 domain_deleted.
    await api.delete(`/v1/domains/${d.id}`);
    expect(err(await patch({ metadata: { a: 'b' } }))).toEqual([409, 'domain_deleted', 'id']);
    await domainsRepository(t.database.db).transition(d.id, 'deletion_finished', 'test');
    const gone = await patch({ metadata: { a: 'b' } });
    expect([...err(gone), gone.json().error.details]).toEqual([409, 'domain_deleted', 'id', { status: 'deleted' }]);
  });

  it('needs domains:write and an Idempotency-Key; a replay answers the same', async () => {
    const { data: d } = await create('scope.patch.example');
    const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: orgId, scopes: ['destinations:write'] });
    const denied = await client(t.app, { authorization: `Bearer ${secret}` }).patch(`/v1/domains/${d.id}`, { metadata: { a: 'b' } });
    expect([denied.statusCode, denied.json().error.code]).toEqual([403, 'insufficient_scope']);
    const noKey = await t.app.inject({ method: 'PATCH', url: `/v1/domains/${d.id}`, headers: { authorization: auth.authorization! }, payload: { metadata: { a: 'b' } } });
    expect([noKey.statusCode, noKey.json().error.code]).toEqual([400, 'idempotency_key_missing']);
    const first = await api.patch(`/v1/domains/${d.id}`, { metadata: { n: '1' } }, { 'idempotency-key': 'patch-replay' });
    await api.patch(`/v1/domains/${d.id}`, { metadata: { n: '2' } });
    const replay = await api.patch(`/v1/domains/${d.id}`, { metadata: { n: '1' } }, { 'idempotency-key': 'patch-replay' });
    expect(replay.json()).toEqual(first.json());
  });

  it('also_connect creates both names in one request, the second redirecting to the first; replay gives the same pair', async () => {
    const key = { 'idempotency-key': 'pair-apex' };
    const res = await api.post('/v1/domains', { hostname: 'pairshop.example', destination_id: dstA, also_connect: 'www' }, key);
    expect(res.statusCode).toBe(201);
    const { data, also_connected: www } = res.json();
    expect([data.hostname, data.redirect, www.hostname, www.redirect]).toEqual(['pairshop.example', null, 'www.pairshop.example', { to: 'pairshop.example', status: 301, preserve_path: true }]);
    expect(www.dns_records.length).toBeGreaterThan(0);
    const replay = await api.post('/v1/domains', { hostname: 'pairshop.example', destination_id: dstA, also_connect: 'www' }, key);
    expect(replay.json()).toEqual(res.json());
    // The reverse: a www. name with its apex.
    const rev = (await api.post('/v1/domains', { hostname: 'www.pairrev.example', destination_id: dstA, also_connect: 'apex' })).json();
    expect([rev.data.hostname, rev.also_connected.hostname, rev.also_connected.redirect.to]).toEqual(['www.pairrev.example', 'pairrev.example', 'www.pairrev.example']);
    // The partner's records follow what it is: A for an apex, a CNAME for the parent of a deeper www.
    expect(rev.also_connected.dns_records.map((r: any) => r.type)).toEqual(['A']);
    const deep = (await api.post('/v1/domains', { hostname: 'www.shop.pairdeep.example', destination_id: dstA, also_connect: 'apex' })).json();
    expect([deep.also_connected.hostname, deep.also_connected.dns_records.map((r: any) => r.type)]).toEqual(['shop.pairdeep.example', ['CNAME']]);
  });

  it('also_connect: a conflict on the second name leaves nothing behind; wrong shapes are refused', async () => {
    await create('www.taken.example');
    const res = await api.post('/v1/domains', { hostname: 'taken.example', destination_id: dstA, also_connect: 'www' });
    expect(err(res)).toEqual([409, 'domain_conflict', 'also_connect']);
    expect((await api.get('/v1/domains?hostname=taken.example')).json().data).toEqual([]);
    expect(err(await api.post('/v1/domains', { hostname: 'sub.notapex.example', destination_id: dstA, also_connect: 'www' }))).toEqual([400, 'invalid_request', 'also_connect']);
    expect(err(await api.post('/v1/domains', { hostname: 'shop.notwww.example', destination_id: dstA, also_connect: 'apex' }))).toEqual([400, 'invalid_request', 'also_connect']);
    expect(err(await api.post('/v1/domains', { hostname: 'x.example', destination_id: dstA, also_connect: 'both' }))[0]).toBe(400);
  });

  it('PATCH /v1/destinations/{id} changes the URL with the creation rules; refusals', async () => {
    const dst = (await api.post('/v1/destinations', { url: 'https://c.patch.example.com' })).json().data;
    const res = await api.patch(`/v1/destinations/${dst.id}`, { url: 'https://d.patch.example.com:8443' });
    expect(res.statusCode).toBe(200);
    expect([res.json().data.url, res.json().data.host, res.json().data.port]).toEqual(['https://d.patch.example.com:8443', 'd.patch.example.com', 8443]);
    expect(err(await api.patch(`/v1/destinations/${dst.id}`, { url: 'http://d.patch.example.com' }))).toEqual([400, 'invalid_request', 'url']);
    expect(err(await api.patch(`/v1/destinations/${dst.id}`, { url: 'https://d.patch.example.com:9000' }))).toEqual([400, 'invalid_request', 'url']);
    expect(err(await api.patch(`/v1/destinations/${dst.id}`, { url: 'https://edge.hostgate.test' }))).toEqual([400, 'invalid_request', 'url']);
    await create('served.patch.example');
    expect(err(await api.patch(`/v1/destinations/${dst.id}`, { url: 'https://served.patch.example' }))).toEqual([400, 'invalid_request', 'url']);
    expect(err(await api.patch(`/v1/destinations/${dst.id}`, {}))[0]).toBe(400);
    expect(err(await api.patch(`/v1/destinations/${dst.id}`, { url: 'https://e.example.com', extra: 1 }))[0]).toBe(400);
    expect(err(await api.patch('/v1/destinations/dst_00000000000000000000000000', { url: 'https://e.example.com' }))).toEqual([404, 'destination_not_found', 'id']);
  });

  it('widget reads carry redirect and TLS, never metadata', async () => {
    const s = (await api.post('/v1/widget-sessions', { external_customer_id: 'cus_w', allowed_origins: ['https://vendor.example'], destination_id: dstA })).json().data;
    const made = await t.app.inject({ method: 'POST', url: '/v1/widget/domains', headers: { authorization: `Bearer ${s.token}`, origin: 'https://vendor.example', 'idempotency-key': 'w-meta' }, payload: { hostname: 'widget.patch.example' } });
    const id = made.json().data.id;
    await api.patch(`/v1/domains/${id}`, { metadata: { secret_note: 'private' }, tls: { min_version: '1.3' } });
    const read = await t.app.inject({ method: 'GET', url: `/v1/widget/domains/${id}`, headers: { authorization: `Bearer ${s.token}`, origin: 'https://vendor.example' } });
    expect(read.statusCode).toBe(200);
    expect(read.json().data.tls).toEqual({ min_version: '1.3', hsts: null });
    expect(read.json().data).not.toHaveProperty('metadata');
    expect(read.body).not.toContain('private');
  });
});
