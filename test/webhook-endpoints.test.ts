// Webhook endpoints through the HTTP API: the secret shown once and stored only sealed, event and
// URL validation, pagination, updates, delete, secret rotation, scopes, idempotency and isolation
// between organizations.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Type } from 'typebox';
import { row, sql } from '../db/pool.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { webhookEndpointsRepository, secretContext, type WebhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { SecretBox } from '../security/secret-box.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

const SECRET = /^whsec_[0-9a-z]{32}$/;
const RESOURCE_KEYS = ['created_at', 'description', 'disabled_reason', 'enabled', 'events', 'id', 'updated_at', 'url'];

describe('webhook endpoints API', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let orgId: string;
  let auth: Record<string, string>;
  let repo: WebhookEndpointsRepository;
  let box: SecretBox;

  beforeAll(async () => {
    t = await createTestApp();
    const owner = await createOrgWithKey(t);
    orgId = owner.org.id;
    auth = owner.auth;
    api = client(t.app, auth);
    box = new SecretBox(t.config.encryptionKeys);
    repo = webhookEndpointsRepository(t.database.db, box);
  });
  afterAll(async () => { await t.close(); });

  async function create(body: Record<string, unknown> = { url: 'https://hooks.example.com/hostgate' }) {
    const res = await api.post('/v1/webhook-endpoints', body);
    expect(res.statusCode).toBe(201);
    return res.json().data as Record<string, unknown> & { id: string; secret: string };
  }

  it('creates an endpoint, shows its secret once, and defaults events to ["*"]', async () => {
    const res = await api.post('/v1/webhook-endpoints', { url: 'https://Hooks.Example.com/hostgate?x=1', description: 'main' });
    expect(res.statusCode).toBe(201);
    const e = res.json().data;
    expect(e).toMatchObject({ url: 'https://hooks.example.com/hostgate?x=1', description: 'main', events: ['*'], enabled: true, disabled_reason: null });
    expect(e.id).toMatch(/^whe_[0-9a-z]{26}$/);
    expect(e.secret).toMatch(SECRET);
    expect(Object.keys(e).sort()).toEqual([...RESOURCE_KEYS, 'secret'].sort());

    const read = await api.get(`/v1/webhook-endpoints/${e.id}`);
    expect(read.statusCode).toBe(200);
    expect(Object.keys(read.json().data).sort()).toEqual(RESOURCE_KEYS);
    expect(read.body).not.toContain(e.secret);
    expect(read.body).not.toContain('secret');
    const list = await api.get('/v1/webhook-endpoints?limit=100');
    expect(list.statusCode).toBe(200);
    expect(list.json().data.map((x: { id: string }) => x.id)).toContain(e.id);
    expect(list.body).not.toContain(e.secret);
    expect(list.body).not.toContain('secret');
  });

  it('stores the secret only sealed, bound to the endpoint id', async () => {
    const e = await create();
    const raw = await t.database.db.one(sql.type(row(Type.Object({ secret_enc: Type.Unknown(), secret_key_id: Type.String(), previous_secret_enc: Type.Unknown() })))`
      select secret_enc, secret_key_id, previous_secret_enc from webhook_endpoints where id = ${e.id}`);
    const sealed = raw.secret_enc as Buffer;
    expect(Buffer.isBuffer(sealed)).toBe(true);
    expect(sealed.includes(Buffer.from(e.secret))).toBe(false);
    expect(sealed.includes(Buffer.from(e.secret.slice('whsec_'.length)))).toBe(false);
    expect(raw.secret_key_id).toBe('test1');
    expect(raw.previous_secret_enc).toBeNull();
    expect(box.open({ keyId: raw.secret_key_id, ciphertext: sealed }, secretContext(e.id)).toString()).toBe(e.secret);
    // Another row's context does not open it.
    expect(() => box.open({ keyId: raw.secret_key_id, ciphertext: sealed }, secretContext('whe_other'))).toThrow();
  });

  it('accepts a list of known event kinds', async () => {
    const e = await create({ url: 'https://hooks.example.com/a', events: ['hostname.created', 'hostname.active'] });
    expect(e.events).toEqual(['hostname.created', 'hostname.active']);
  });

  it.each([
    [['hostname.created', 'hostname.exploded']],
    [['nope']],
    [[]],
    [['hostname.created', 'hostname.created']],
    [['*', 'hostname.created']],
    ['hostname.created'],
  ])('refuses events %j with invalid_request on events', async (events) => {
    const res = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/a', events });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'events' });
  });

  it('names the unknown kinds', async () => {
    const res = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/a', events: ['hostname.created', 'hostname.exploded'] });
    expect(res.json().error.message).toContain('hostname.exploded');
    expect(res.json().error.details.unknown).toEqual(['hostname.exploded']);
  });

  it.each([
    'http://hooks.example.com/hook', 'https://user:pw@hooks.example.com/hook', 'https://127.0.0.1/hook', 'https://10.0.0.5/hook',
    'https://169.254.169.254/latest', 'https://localhost/hook', 'https://hooks.example.com/hook#frag', 'not a url', '',
  ])('refuses url %j with invalid_request on url', async (url) => {
    const res = await api.post('/v1/webhook-endpoints', { url });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'url' });
  });

  it('requires url and refuses unknown fields', async () => {
    const missing = await api.post('/v1/webhook-endpoints', { events: ['*'] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().error).toMatchObject({ code: 'invalid_request', param: 'url' });
    const extra = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/a', secret: 'whsec_mine' });
    expect(extra.statusCode).toBe(400);
    expect(extra.json().error).toMatchObject({ code: 'invalid_request', param: 'secret' });
  });

  it('lists newest first with keyset pagination', async () => {
    const other = await createOrgWithKey(t);
    const own = client(t.app, other.auth);
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await own.post('/v1/webhook-endpoints', { url: `https://hooks.example.com/${i}` });
      ids.push(res.json().data.id);
    }
    const seen: { id: string; created_at: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await own.get(`/v1/webhook-endpoints?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const page = res.json();
      expect(page.data.length).toBeLessThanOrEqual(2);
      expect(page.has_more).toBe(page.next_cursor !== null);
      seen.push(...page.data);
      cursor = page.next_cursor;
      pages++;
    } while (cursor);
    expect(pages).toBe(3);
    expect(seen.map((e) => e.id).sort()).toEqual([...ids].sort());
    // Newest first: (created_at, id) strictly descending.
    for (let i = 1; i < seen.length; i++) {
      const [a, b] = [seen[i - 1]!, seen[i]!];
      expect(a.created_at > b.created_at || (a.created_at === b.created_at && a.id > b.id)).toBe(true);
    }
    const first = (await own.get('/v1/webhook-endpoints')).json();
    expect(first.data).toHaveLength(5);
    expect(first).toMatchObject({ has_more: false, next_cursor: null });

    for (const bad of ['limit=0', 'limit=101', 'limit=abc']) {
      const res = await own.get(`/v1/webhook-endpoints?${bad}`);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'limit' });
    }
    const badCursor = await own.get('/v1/webhook-endpoints?cursor=garbage');
    expect(badCursor.statusCode).toBe(400);
    expect(badCursor.json().error).toMatchObject({ code: 'invalid_request', param: 'cursor' });
  });

  it('updates url, events, enabled and description, one at a time', async () => {
    const e = await create({ url: 'https://hooks.example.com/a', description: 'first' });
    const path = `/v1/webhook-endpoints/${e.id}`;

    let res = await api.patch(path, { url: 'https://hooks2.example.com/b' });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ url: 'https://hooks2.example.com/b', events: ['*'], enabled: true, description: 'first' });
    expect(res.body).not.toContain('secret');

    res = await api.patch(path, { events: ['hostname.deleted'] });
    expect(res.json().data).toMatchObject({ url: 'https://hooks2.example.com/b', events: ['hostname.deleted'] });

    res = await api.patch(path, { enabled: false });
    expect(res.json().data).toMatchObject({ enabled: false, disabled_reason: 'manual', events: ['hostname.deleted'] });

    res = await api.patch(path, { enabled: true });
    expect(res.json().data).toMatchObject({ enabled: true, disabled_reason: null });

    res = await api.patch(path, { description: 'second' });
    expect(res.json().data.description).toBe('second');
    res = await api.patch(path, { description: null });
    expect(res.json().data.description).toBeNull();

    const read = (await api.get(path)).json().data;
    expect(read).toMatchObject({ url: 'https://hooks2.example.com/b', events: ['hostname.deleted'], enabled: true, description: null });
    expect(Date.parse(read.updated_at)).toBeGreaterThanOrEqual(Date.parse(read.created_at));

    // The secret is untouched by updates.
    const stored = (await repo.get(orgId, e.id))!;
    expect(repo.signingSecrets(stored)).toEqual([e.secret]);
  });

  it('validates PATCH bodies like creates', async () => {
    const e = await create();
    const path = `/v1/webhook-endpoints/${e.id}`;
    for (const [body, param] of [
      [{ url: 'http://hooks.example.com/a' }, 'url'],
      [{ url: 'https://127.0.0.1/hook' }, 'url'],
      [{ events: ['hostname.nope'] }, 'events'],
      [{ events: [] }, 'events'],
      [{ enabled: 'yes' }, 'enabled'],
      [{ secret: 'x' }, 'secret'],
    ] as const) {
      const res = await api.patch(path, body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error).toMatchObject({ code: 'invalid_request', param });
    }
    const empty = await api.patch(path, {});
    expect(empty.statusCode).toBe(400);
    expect(empty.json().error.code).toBe('invalid_request');
    const missing = await api.patch('/v1/webhook-endpoints/whe_00000000000000000000000000', { enabled: false });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error.code).toBe('webhook_endpoint_not_found');
  });

  it('deletes an endpoint, which then reads as missing', async () => {
    const e = await create();
    const path = `/v1/webhook-endpoints/${e.id}`;
    const res = await api.delete(path);
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ id: e.id, url: e.url });
    expect(res.body).not.toContain('secret');

    for (const again of [await api.get(path), await api.delete(path), await api.patch(path, { enabled: false }), await api.post(`${path}/rotate-secret`)]) {
      expect(again.statusCode).toBe(404);
      expect(again.json().error).toMatchObject({ code: 'webhook_endpoint_not_found', param: 'id' });
    }
    const list = (await api.get('/v1/webhook-endpoints?limit=100')).json();
    expect(list.data.map((x: { id: string }) => x.id)).not.toContain(e.id);
    expect(await repo.getById(e.id)).toBeNull();
  });

  it('rotates the secret; the previous one signs beside it for 24 h', async () => {
    const e = await create();
    const res = await api.post(`/v1/webhook-endpoints/${e.id}/rotate-secret`);
    expect(res.statusCode).toBe(200);
    const r = res.json().data;
    expect(r.id).toBe(e.id);
    expect(r.secret).toMatch(SECRET);
    expect(r.secret).not.toBe(e.secret);
    const expiresAt = Date.parse(r.previous_secret_expires_at);
    expect(Math.abs(expiresAt - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
    expect(Object.keys(r).sort()).toEqual([...RESOURCE_KEYS, 'previous_secret_expires_at', 'secret'].sort());

    // Reads still show no secret.
    const read = await api.get(`/v1/webhook-endpoints/${e.id}`);
    expect(read.body).not.toContain(r.secret);
    expect(read.body).not.toContain(e.secret);

    const stored = (await repo.get(orgId, e.id))!;
    expect(repo.signingSecrets(stored)).toEqual([r.secret, e.secret]);
    expect(repo.signingSecrets(stored, new Date(expiresAt - 1000))).toEqual([r.secret, e.secret]);
    expect(repo.signingSecrets(stored, new Date(expiresAt + 1000))).toEqual([r.secret]);
    // Neither secret is stored in clear.
    expect(stored.secret_enc.includes(Buffer.from(r.secret))).toBe(false);
    expect(stored.previous_secret_enc!.includes(Buffer.from(e.secret))).toBe(false);

    // Once the stored expiry has passed, only the new secret signs.
    await t.database.db.query(sql.unsafe`update webhook_endpoints set previous_secret_expires_at = hg_now() - interval '1 second' where id = ${e.id}`);
    expect(repo.signingSecrets((await repo.getById(e.id))!)).toEqual([r.secret]);

    // A second rotation keeps only the secret it replaces as previous.
    const again = (await api.post(`/v1/webhook-endpoints/${e.id}/rotate-secret`)).json().data;
    expect(repo.signingSecrets((await repo.get(orgId, e.id))!)).toEqual([again.secret, r.secret]);
  });

  it('replays a create with the same Idempotency-Key instead of making a second endpoint', async () => {
    const headers = { 'idempotency-key': 'create-hook-once' };
    const first = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/once' }, headers);
    const second = await api.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/once' }, headers);
    expect(first.statusCode).toBe(201);
    expect(second.statusCode).toBe(201);
    expect(second.headers['idempotent-replayed']).toBe('true');
    expect(second.json().data.id).toBe(first.json().data.id);
  });

  it('needs the webhooks:write scope for every write', async () => {
    const e = await create();
    const otherOrg = client(t.app, (await createOrgWithKey(t, ['domains:write'])).auth);
    // Same organization, narrower key.
    const narrow = await apiKeysRepository(t.database.db).create({ organizationId: orgId, scopes: ['domains:write'] });
    const sameOrg = client(t.app, { authorization: `Bearer ${narrow.secret}` });
    for (const c of [otherOrg, sameOrg]) {
      for (const res of [
        await c.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/a' }),
        await c.patch(`/v1/webhook-endpoints/${e.id}`, { enabled: false }),
        await c.delete(`/v1/webhook-endpoints/${e.id}`),
        await c.post(`/v1/webhook-endpoints/${e.id}/rotate-secret`),
      ]) {
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toMatchObject({ code: 'insufficient_scope', details: { required_scope: 'webhooks:write' } });
      }
    }
    // Reads need no scope.
    expect((await sameOrg.get(`/v1/webhook-endpoints/${e.id}`)).statusCode).toBe(200);
    expect((await api.get(`/v1/webhook-endpoints/${e.id}`)).json().data.enabled).toBe(true);
  });

  it('needs an Idempotency-Key on every write', async () => {
    const e = await create();
    for (const [method, url, payload] of [
      ['POST', '/v1/webhook-endpoints', { url: 'https://hooks.example.com/a' }],
      ['PATCH', `/v1/webhook-endpoints/${e.id}`, { enabled: false }],
      ['DELETE', `/v1/webhook-endpoints/${e.id}`, undefined],
      ['POST', `/v1/webhook-endpoints/${e.id}/rotate-secret`, undefined],
    ] as const) {
      const res = await t.app.inject({ method, url, headers: auth, ...(payload ? { payload } : {}) });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('idempotency_key_missing');
    }
    expect((await api.get(`/v1/webhook-endpoints/${e.id}`)).json().data.enabled).toBe(true);
  });

  it('answers 404 for another organization’s endpoint, exactly as for a missing one', async () => {
    const e = await create();
    const stranger = client(t.app, (await createOrgWithKey(t, undefined, 'Other org')).auth);
    const path = `/v1/webhook-endpoints/${e.id}`;
    const missingId = 'whe_00000000000000000000000000';
    type Res = Awaited<ReturnType<typeof stranger.get>>;
    const pairs: [Res, Res][] = [
      [await stranger.get(path), await stranger.get(`/v1/webhook-endpoints/${missingId}`)],
      [await stranger.patch(path, { enabled: false }), await stranger.patch(`/v1/webhook-endpoints/${missingId}`, { enabled: false })],
      [await stranger.delete(path), await stranger.delete(`/v1/webhook-endpoints/${missingId}`)],
      [await stranger.post(`${path}/rotate-secret`), await stranger.post(`/v1/webhook-endpoints/${missingId}/rotate-secret`)],
    ];
    for (const [theirs, missing] of pairs) {
      expect(theirs.statusCode).toBe(404);
      expect(theirs.json().error).toMatchObject({ code: 'webhook_endpoint_not_found', param: 'id' });
      expect(missing.statusCode).toBe(404);
      expect(theirs.json().error.message.replace(e.id, 'ID')).toBe(missing.json().error.message.replace(missingId, 'ID'));
    }
    expect((await stranger.get('/v1/webhook-endpoints')).json().data).toEqual([]);
    // The owner's endpoint is untouched.
    const read = (await api.get(path)).json().data;
    expect(read.enabled).toBe(true);
    expect(repo.signingSecrets((await repo.get(orgId, e.id))!)).toEqual([e.secret]);
  });

  it('documents every route in the OpenAPI document without a secret on reads', async () => {
    const doc = (await t.app.inject({ method: 'GET', url: '/v1/openapi.json' })).json();
    const paths = doc.paths as Record<string, Record<string, { tags: string[]; responses: Record<string, { content?: Record<string, { schema: { properties: { data: { properties?: Record<string, unknown>; items?: { properties: Record<string, unknown> } } } } }> }> }>>;
    expect(Object.keys(paths['/v1/webhook-endpoints']!).sort()).toEqual(['get', 'post']);
    expect(Object.keys(paths['/v1/webhook-endpoints/{id}']!).sort()).toEqual(['delete', 'get', 'patch']);
    expect(Object.keys(paths['/v1/webhook-endpoints/{id}/rotate-secret']!)).toEqual(['post']);
    const get = paths['/v1/webhook-endpoints/{id}']!.get!;
    expect(get.tags).toEqual(['webhook-endpoints']);
    expect(Object.keys(get.responses)).toEqual(expect.arrayContaining(['200', '401', '404']));
    expect(JSON.stringify(get.responses['200'])).not.toContain('secret');
    expect(JSON.stringify(paths['/v1/webhook-endpoints']!.get!.responses['200'])).not.toContain('secret');
    expect(JSON.stringify(paths['/v1/webhook-endpoints']!.post!.responses['201'])).toContain('secret');
    expect(Object.keys(paths['/v1/webhook-endpoints/{id}']!.patch!.responses)).toEqual(expect.arrayContaining(['200', '400', '401', '403', '404', '409', '422']));
  });
});
