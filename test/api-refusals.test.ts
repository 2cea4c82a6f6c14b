// Issue 14, item 7: requests that used to be accepted (or refused with the wrong status) and now
// get a clear, stable error code.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

describe('refusals with a clear code', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  let auth: Record<string, string>;
  let destinationId: string;
  beforeAll(async () => {
    t = await createTestApp();
    auth = (await createOrgWithKey(t)).auth;
    api = client(t.app, auth);
    destinationId = (await api.post('/v1/destinations', { url: 'https://refusals.example.com' })).json().data.id;
  });
  afterAll(async () => { await t.close(); });

  const createDomain = async (hostname: string, extra: Record<string, unknown> = {}) => api.post('/v1/domains', { hostname, destination_id: destinationId, ...extra });

  it('verify on a deleting or deleted domain answers 409 domain_deleted (was 202)', async () => {
    const id: string = (await createDomain('verify-deleted.refusals.example')).json().data.id;
    expect((await api.delete(`/v1/domains/${id}`)).statusCode).toBe(202);
    let res = await api.post(`/v1/domains/${id}/verify`);
    expect([res.statusCode, res.json().error.code, res.json().error.details]).toEqual([409, 'domain_deleted', { status: 'deleting' }]);
    await domainsRepository(t.database.db).transition(id, 'deletion_finished', 'test');
    res = await api.post(`/v1/domains/${id}/verify`);
    expect([res.statusCode, res.json().error.details.status]).toEqual([409, 'deleted']);
    // Unknown stays 404, and a live domain still verifies.
    expect((await api.post('/v1/domains/dom_00000000000000000000000000/verify')).json().error.code).toBe('domain_not_found');
    const live: string = (await createDomain('verify-live.refusals.example')).json().data.id;
    expect((await api.post(`/v1/domains/${live}/verify`)).statusCode).toBe(202);
  });

  it('retrying a delivery whose endpoint is disabled or deleted is refused (was 200, then failed)', async () => {
    const endpoint = (await api.post('/v1/webhook-endpoints', { url: 'https://hooks.refusals.example.com/in' })).json().data;
    await createDomain('delivery.refusals.example');
    await webhookDeliveriesRepository(t.database.db).fanOut(100);
    const delivery = (await api.get(`/v1/webhook-deliveries?endpoint_id=${endpoint.id}`)).json().data[0];
    expect(delivery).toBeDefined();
    const retry = () => api.post(`/v1/webhook-deliveries/${delivery.id}/retry`);
    expect((await retry()).statusCode).toBe(200);
    await api.patch(`/v1/webhook-endpoints/${endpoint.id}`, { enabled: false });
    let res = await retry();
    expect([res.statusCode, res.json().error.code, res.json().error.details]).toEqual([409, 'webhook_endpoint_disabled', { endpoint_id: endpoint.id, disabled_reason: 'manual' }]);
    await api.delete(`/v1/webhook-endpoints/${endpoint.id}`);
    res = await retry();
    expect([res.statusCode, res.json().error.code]).toEqual([409, 'webhook_endpoint_deleted']);
  });

  it('a cursor of one list is refused by another', async () => {
    for (let i = 0; i < 3; i++) await api.post('/v1/destinations', { url: `https://cursor-${i}.refusals.example.com` });
    const page = (await api.get('/v1/destinations?limit=1')).json();
    expect(page.next_cursor).toEqual(expect.any(String));
    // Its own list takes it…
    expect((await api.get(`/v1/destinations?limit=1&cursor=${page.next_cursor}`)).statusCode).toBe(200);
    // …the others refuse it.
    for (const list of ['/v1/domains', '/v1/webhook-endpoints', '/v1/webhook-deliveries']) {
      const res = await api.get(`${list}?cursor=${page.next_cursor}`);
      expect([list, res.statusCode, res.json().error.code, res.json().error.param]).toEqual([list, 400, 'invalid_request', 'cursor']);
      expect(res.json().error.message).toMatch(/another list/);
    }
  });

  it('QUERY (a method with a body) on a known path answers 405 with Allow, not the body parser\'s 400', async () => {
    const id: string = (await createDomain('query-method.refusals.example')).json().data.id;
    for (const [url, allow] of [[`/v1/domains/${id}`, 'GET, PATCH, DELETE'], ['/v1/domains', 'GET, POST']] as const) {
      const res = await t.app.inject({ method: 'QUERY' as 'GET', url, headers: auth });
      expect([res.statusCode, res.json().error.code, res.headers.allow]).toEqual([405, 'method_not_allowed', allow]);
    }
  });

  it('invalid UTF-8 and lone surrogates are refused, not turned into U+FFFD', async () => {
    const post = (payload: Buffer | string) => t.app.inject({ method: 'POST', url: '/v1/domains', headers: { ...auth, 'idempotency-key': `utf8-${Math.random()}`, 'content-type': 'application/json' }, payload });
    const rawBytes = Buffer.concat([Buffer.from(`{"hostname":"utf8-a.refusals.example","destination_id":"${destinationId}","external_customer_id":"cust-`), Buffer.from([0xff, 0xfe]), Buffer.from('"}')]);
    let res = await post(rawBytes);
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'invalid_request']);
    expect(res.json().error.message).toMatch(/UTF-8/);
    res = await post(`{"hostname":"utf8-b.refusals.example","destination_id":"${destinationId}","external_customer_id":"cust-\\ud800"}`);
    expect([res.statusCode, res.json().error.param]).toEqual([400, 'external_customer_id']);
    res = await api.get('/v1/domains?external_customer_id=cust-%FF');
    expect([res.statusCode, res.json().error.param]).toEqual([400, 'external_customer_id']);
    expect(await t.database.db.oneFirst((await import('../db/pool.ts')).sql.unsafe`select count(*)::int from domains where hostname like 'utf8-%'`)).toBe(0);
    // Valid Unicode, including a proper surrogate pair, is kept as sent.
    res = await post(`{"hostname":"utf8-c.refusals.example","destination_id":"${destinationId}","external_customer_id":"clienté-\\ud83d\\ude00"}`);
    expect([res.statusCode, res.json().data.external_customer_id]).toEqual([201, 'clienté-😀']);
    expect((await api.get(`/v1/domains?external_customer_id=${encodeURIComponent('clienté-😀')}`)).json().data).toHaveLength(1);
  });

  it('an apex domain is refused with 422 apex_domains_unavailable when no edge address is configured', async () => {
    const bare = await createTestApp({ config: { HOSTGATE_EDGE_IPV4: '', HOSTGATE_EDGE_IPV6: '' } });
    try {
      const o = await createOrgWithKey(bare);
      const c = client(bare.app, o.auth);
      const dest: string = (await c.post('/v1/destinations', { url: 'https://apex.refusals.example.com' })).json().data.id;
      const apex = await c.post('/v1/domains', { hostname: 'apex-refusals.com', destination_id: dest });
      expect([apex.statusCode, apex.json().error.code, apex.json().error.param]).toEqual([422, 'apex_domains_unavailable', 'hostname']);
      expect(apex.json().error.message).toMatch(/www\.apex-refusals\.com/);
      // Read by the vendor: it names the setting (the widget's names none: test/destination-guard.test.ts).
      expect(apex.json().error.message).toMatch(/no edge address is configured \(HOSTGATE_EDGE_IPV4\/HOSTGATE_EDGE_IPV6\)/);
      expect((await c.post('/v1/domains', { hostname: 'www.apex-refusals.com', destination_id: dest })).statusCode).toBe(201);
    } finally {
      await bare.close();
    }
    // With an edge address (the default test config) the apex gets its A record.
    const withEdge = await createDomain('apex-ok-refusals.com');
    expect(withEdge.statusCode).toBe(201);
    expect(withEdge.json().data.dns_records).toEqual(expect.arrayContaining([expect.objectContaining({ type: 'A', value: '127.0.0.1' })]));
  });
});
