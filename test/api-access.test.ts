// Scopes and organization isolation: every write × every key that lacks its scope, read-only
// keys, and another organization's ids answering exactly like missing ones.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { apiKeysRepository, scopes, type Scope } from '../db/repositories/api-keys.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

describe('scopes and organization isolation', () => {
  let t: TestApp;
  let a: ReturnType<typeof client>;
  let orgA: Awaited<ReturnType<typeof createOrgWithKey>>;
  let ids: { destination: string; domain: string; endpoint: string };

  beforeAll(async () => {
    t = await createTestApp();
    orgA = await createOrgWithKey(t);
    a = client(t.app, orgA.auth);
    const destination = (await a.post('/v1/destinations', { url: 'https://a.example.com' })).json().data.id;
    const domain = (await a.post('/v1/domains', { hostname: 'shop.org-a.example', destination_id: destination })).json().data.id;
    const endpoint = (await a.post('/v1/webhook-endpoints', { url: 'https://hooks.a.example.com/in' })).json().data.id;
    ids = { destination, domain, endpoint };
  });
  afterAll(async () => { await t.close(); });

  // Every write of the server API and the scope it needs.
  const writes: { name: string; scope: Scope; call: (c: ReturnType<typeof client>) => ReturnType<ReturnType<typeof client>['post']> }[] = [
    { name: 'POST /destinations', scope: 'destinations:write', call: (c) => c.post('/v1/destinations', { url: 'https://scoped.example.com' }) },
    { name: 'DELETE /destinations/:id', scope: 'destinations:write', call: (c) => c.delete(`/v1/destinations/${ids.destination}`) },
    { name: 'POST /domains', scope: 'domains:write', call: (c) => c.post('/v1/domains', { hostname: 'scoped.org-a.example', destination_id: ids.destination }) },
    { name: 'DELETE /domains/:id', scope: 'domains:write', call: (c) => c.delete(`/v1/domains/${ids.domain}`) },
    { name: 'POST /domains/:id/verify', scope: 'domains:write', call: (c) => c.post(`/v1/domains/${ids.domain}/verify`) },
    { name: 'POST /webhook-endpoints', scope: 'webhooks:write', call: (c) => c.post('/v1/webhook-endpoints', { url: 'https://hooks.example.com/x' }) },
    { name: 'PATCH /webhook-endpoints/:id', scope: 'webhooks:write', call: (c) => c.patch(`/v1/webhook-endpoints/${ids.endpoint}`, { enabled: false }) },
    { name: 'DELETE /webhook-endpoints/:id', scope: 'webhooks:write', call: (c) => c.delete(`/v1/webhook-endpoints/${ids.endpoint}`) },
    { name: 'POST /webhook-endpoints/:id/rotate-secret', scope: 'webhooks:write', call: (c) => c.post(`/v1/webhook-endpoints/${ids.endpoint}/rotate-secret`) },
    { name: 'POST /widget-sessions', scope: 'widget:write', call: (c) => c.post('/v1/widget-sessions', { external_customer_id: 'cus_scope' }) },
    { name: 'POST /webhook-deliveries/:id/retry', scope: 'webhooks:write', call: (c) => c.post('/v1/webhook-deliveries/whd_00000000000000000000000000/retry') },
  ];

  for (const w of writes) {
    for (const held of scopes.filter((s) => s !== w.scope)) {
      it(`${w.name} with only ${held} → 403 insufficient_scope`, async () => {
        // A key of org A itself, so only the scope is wrong.
        const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: orgA.org.id, scopes: [held] });
        const res = await w.call(client(t.app, { authorization: `Bearer ${secret}` }));
        expect(res.statusCode).toBe(403);
        expect(res.json().error).toMatchObject({ code: 'insufficient_scope', details: { required_scope: w.scope } });
      });
    }
  }

  it('a key with no scopes reads everything of its organization', async () => {
    const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: orgA.org.id, scopes: [] });
    const ro = client(t.app, { authorization: `Bearer ${secret}` });
    expect((await ro.get('/v1/destinations')).json().data.map((d: { id: string }) => d.id)).toContain(ids.destination);
    expect((await ro.get(`/v1/destinations/${ids.destination}`)).statusCode).toBe(200);
    expect((await ro.get('/v1/domains')).json().data.map((d: { id: string }) => d.id)).toContain(ids.domain);
    expect((await ro.get(`/v1/domains/${ids.domain}`)).statusCode).toBe(200);
    expect((await ro.get(`/v1/webhook-endpoints/${ids.endpoint}`)).statusCode).toBe(200);
    expect((await ro.get('/v1/webhook-endpoints')).json().data).toHaveLength(1);
  });

  it("another organization can neither read, list, change, delete nor verify org A's objects", async () => {
    const b = client(t.app, (await createOrgWithKey(t, scopes, 'Org B')).auth);
    const missingDomain = await b.get('/v1/domains/dom_00000000000000000000000000');
    for (const res of [await b.get(`/v1/domains/${ids.domain}`), await b.post(`/v1/domains/${ids.domain}/verify`), await b.delete(`/v1/domains/${ids.domain}`)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('domain_not_found');
      expect(res.json().error.message.replace(ids.domain, 'X')).toBe(missingDomain.json().error.message.replace('dom_00000000000000000000000000', 'X'));
    }
    for (const res of [await b.get(`/v1/destinations/${ids.destination}`), await b.delete(`/v1/destinations/${ids.destination}`)]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('destination_not_found');
    }
    // Attaching a domain to A's destination is the same as a missing destination.
    const attach = await b.post('/v1/domains', { hostname: 'steal.org-b.example', destination_id: ids.destination });
    expect(attach.json().error.code).toBe('destination_not_found');
    expect((await b.get('/v1/domains')).json().data).toEqual([]);
    expect((await b.get('/v1/destinations')).json().data).toEqual([]);
    expect((await b.get(`/v1/domains?hostname=shop.org-a.example`)).json().data).toEqual([]);
    // A's objects are untouched.
    expect((await a.get(`/v1/domains/${ids.domain}`)).json().data.status).toBe('pending_dns');
    expect((await a.get(`/v1/domains/${ids.domain}`)).json().data.verification.verify_requested_at).toBeNull();
  });
});
