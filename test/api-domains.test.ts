// Destinations and domains through the HTTP API, with a real worker receiving the workflow
// starts and signals.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { stateQuery } from '../workflows/domain/signals.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('destinations and domains API', () => {
  let t: TestApp;
  let worker: RunningWorker;
  let api: ReturnType<typeof client>;
  let destinationId: string;

  beforeAll(async () => {
    t = await createTestApp();
    worker = await startTestWorker(t.temporal, t.database.db);
    api = client(t.app, (await createOrgWithKey(t)).auth);
  });
  afterAll(async () => {
    await worker.stop();
    await t.close();
  });

  it('creates a destination with its effective port', async () => {
    const res = await api.post('/v1/destinations', { url: 'https://App.Example.com' });
    expect(res.statusCode).toBe(201);
    const d = res.json().data;
    expect(d).toMatchObject({ url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    expect(d.id).toMatch(/^dst_[0-9a-z]{26}$/);
    expect(Date.parse(d.created_at)).not.toBeNaN();
    destinationId = d.id;
    const alt = await api.post('/v1/destinations', { url: 'https://app.example.com:8443' });
    expect(alt.json().data.port).toBe(8443);
    expect((await api.get(`/v1/destinations/${alt.json().data.id}`)).json().data.url).toBe('https://app.example.com:8443');
  });

  it.each([
    'http://app.example.com', 'https://app.example.com:444', 'https://app.example.com/path', 'https://app.example.com/?q=1',
    'https://user:pw@app.example.com', 'https://127.0.0.1', 'https://10.1.2.3', 'https://169.254.169.254', 'https://localhost', 'not a url',
  ])('refuses destination url %s with invalid_request on url', async (url) => {
    const res = await api.post('/v1/destinations', { url });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'url' });
  });

  it('creates a subdomain with a CNAME record and starts its workflow', async () => {
    const res = await api.post('/v1/domains', { hostname: 'Shop.Customer-One.com.', destination_id: destinationId, external_customer_id: 'cus_1' });
    expect(res.statusCode).toBe(201);
    const d = res.json().data;
    expect(d).toMatchObject({
      hostname: 'shop.customer-one.com', destination_id: destinationId, status: 'pending_dns', external_customer_id: 'cus_1',
      dns_records: [{ type: 'CNAME', name: 'shop.customer-one.com', value: 'edge.hostgate.test' }],
    });
    expect(d.verification).toMatchObject({ checked_at: null, found: null, problem: null, expected: d.dns_records });
    const handle = t.temporal.client.workflow.getHandle(`domain/${d.id}`);
    await waitFor('the domain workflow to start', async () => (await t.database.db.oneFirst(sql.unsafe`select workflow_started_at from domains where id = ${d.id}`)) !== null);
    expect((await handle.describe()).status.name).toBe('RUNNING');

    const verify = await api.post(`/v1/domains/${d.id}/verify`);
    expect(verify.statusCode).toBe(202);
    expect(verify.json().data.verification.verify_requested_at).not.toBeNull();
    await waitFor('the verify signal', async () => (await handle.query(stateQuery)).verifyRequests === 1);

    const read = await api.get(`/v1/domains/${d.id}`);
    expect(read.statusCode).toBe(200);
    expect(read.json().data.dns_records).toEqual(d.dns_records);

    const del = await api.delete(`/v1/domains/${d.id}`);
    expect(del.statusCode).toBe(202);
    expect(del.json().data.status).toBe('deleting');
    await handle.result();
    expect((await api.get(`/v1/domains/${d.id}`)).json().data.status).toBe('deleted');
    // Deleting again is harmless.
    expect((await api.delete(`/v1/domains/${d.id}`)).json().data.status).toBe('deleted');
    // The hostname is free again.
    expect((await api.post('/v1/domains', { hostname: 'shop.customer-one.com', destination_id: destinationId })).statusCode).toBe(201);
  });

  it('answers a create with the domain as stored: the 201 is what a read shows (one-statement create, issue 26)', async () => {
    const created = await api.post('/v1/domains', { hostname: 'as-stored.customer-one.com', destination_id: destinationId, external_customer_id: 'cus_stored' });
    expect(created.statusCode).toBe(201);
    const answer = created.json().data;
    const read = (await api.get(`/v1/domains/${answer.id}`)).json().data;
    // What the workflow may have moved meanwhile (its first DNS check) aside, every field is the same.
    // (A read also shows the period's bandwidth, which a create does not.)
    const settled = ({ status: _s, verification: _v, ownership: _o, certificate: _c, updated_at: _u, bandwidth: _b, ...rest }: Record<string, unknown>) => rest;
    expect(settled(answer)).toEqual(settled(read));
    expect(answer.ownership?.record ?? null).toEqual(read.ownership?.record ?? null);
    const stored = await t.database.db.one(sql.unsafe`select created_at, updated_at, status_seq, ownership_token, challenge_label, tls_min_version from domains where id = ${answer.id}`) as Record<string, unknown>;
    expect(stored.created_at).toBe(answer.created_at);
    expect(stored).toMatchObject({ ownership_token: expect.stringMatching(/^[0-9a-f]{32}$/), challenge_label: expect.stringMatching(/^[0-9a-f]{32}$/), tls_min_version: '1.2' });
    // Its first history row and its hostname.created event came with it.
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domain_status_history where domain_id = ${answer.id} and seq = 0 and to_status = 'pending_dns'`)).toBe(1);
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from events where domain_id = ${answer.id} and kind = 'hostname.created'`)).toBe(1);
  });

  it('gives an apex domain A records to the edge', async () => {
    const res = await api.post('/v1/domains', { hostname: 'customer-two.co.uk', destination_id: destinationId });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.dns_records).toEqual([{ type: 'A', name: 'customer-two.co.uk', value: '127.0.0.1' }]);
  });

  it('converts IDNs to punycode', async () => {
    const res = await api.post('/v1/domains', { hostname: 'shop.bücher.example', destination_id: destinationId });
    expect(res.statusCode).toBe(201);
    expect(res.json().data.hostname).toBe('shop.xn--bcher-kva.example');
  });

  it.each([
    ['*.*.wild.example.com', 'wildcard'], ['shop.*.example.com', 'wildcard'], ['1.2.3.4', 'ip_literal'], ['co.uk', 'public_suffix'], ['localhostonly', 'single_label'],
    ['api.hostgate.test', 'service_domain'], [`${'a'.repeat(64)}.example.com`, 'label_too_long'], ['bad_chars!.example.com', 'invalid_characters'],
  ])('refuses hostname %s (%s)', async (hostname, reason) => {
    const res = await api.post('/v1/domains', { hostname, destination_id: destinationId });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'hostname', details: { reason } });
  });

  it('404 destination_not_found and 409 domain_conflict (across organizations)', async () => {
    const missing = await api.post('/v1/domains', { hostname: 'x.customer-three.com', destination_id: 'dst_missing' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().error).toMatchObject({ code: 'destination_not_found', param: 'destination_id', message: 'destination dst_missing does not exist' });

    expect((await api.post('/v1/domains', { hostname: 'taken.customer-three.com', destination_id: destinationId })).statusCode).toBe(201);
    const other = client(t.app, (await createOrgWithKey(t, undefined, 'Other')).auth);
    const otherDest = (await other.post('/v1/destinations', { url: 'https://other.example.com' })).json().data.id;
    const conflict = await other.post('/v1/domains', { hostname: 'TAKEN.customer-three.com', destination_id: otherDest });
    expect(conflict.statusCode).toBe(409);
    expect(conflict.json().error).toMatchObject({ code: 'domain_conflict', param: 'hostname' });
    // Read by the vendor (the widget's names nobody: test/widget-api.test.ts).
    expect(conflict.json().error.message).toBe('taken.customer-three.com is already connected (here or in another organization); delete it there first');
  });

  it('409 destination_in_use while a live domain points at it; deletable afterwards', async () => {
    const dest = (await api.post('/v1/destinations', { url: 'https://inuse.example.com' })).json().data.id;
    const dom = (await api.post('/v1/domains', { hostname: 'a.in-use.example', destination_id: dest })).json().data;
    const refused = await api.delete(`/v1/destinations/${dest}`);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().error.code).toBe('destination_in_use');
    await api.delete(`/v1/domains/${dom.id}`);
    await waitFor('the domain to be deleted', async () => (await api.get(`/v1/domains/${dom.id}`)).json().data.status === 'deleted');
    const ok = await api.delete(`/v1/destinations/${dest}`);
    expect(ok.statusCode).toBe(200);
    expect((await api.get(`/v1/destinations/${dest}`)).json().error.code).toBe('destination_not_found');
    expect((await api.post('/v1/domains', { hostname: 'b.in-use.example', destination_id: dest })).json().error.code).toBe('destination_not_found');
  });

  it('404 domain_not_found for reads, verify and delete of unknown ids', async () => {
    for (const res of [await api.get('/v1/domains/dom_nope'), await api.post('/v1/domains/dom_nope/verify'), await api.delete('/v1/domains/dom_nope')]) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('domain_not_found');
    }
  });

  it('filters the list by status, hostname and external_customer_id', async () => {
    await api.post('/v1/domains', { hostname: 'f1.filters.example', destination_id: destinationId, external_customer_id: 'cus_f' });
    await api.post('/v1/domains', { hostname: 'f2.filters.example', destination_id: destinationId, external_customer_id: 'cus_f' });
    const byCustomer = (await api.get('/v1/domains?external_customer_id=cus_f')).json();
    expect(byCustomer.data.map((d: { hostname: string }) => d.hostname)).toEqual(['f2.filters.example', 'f1.filters.example']);
    expect((await api.get('/v1/domains?hostname=F1.Filters.Example')).json().data).toHaveLength(1);
    const deleted = (await api.get('/v1/domains?status=deleted')).json().data;
    expect(deleted.length).toBeGreaterThanOrEqual(1);
    expect(deleted.every((d: { status: string }) => d.status === 'deleted')).toBe(true);
  });
});
