// Issue 23: suspend → resume and a re-point keep the stored certificate while more than a third of
// its life is left — no second ACME order, no second HTTP-01 validation — on real Temporal, Pebble
// and the loopback DNS server.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { run as cli } from '../cli/hostgate.ts';
import { sql } from '../db/pool.ts';
import { stillUsable } from '../model/certificate-lifetime.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('a fresh certificate is reused', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let worker: RunningWorker;
  let api: ReturnType<typeof client>;
  let dstA: string;
  let dstB: string;

  beforeAll(async () => {
    acme = await startAcmeStack();
    t = await createTestApp({ config: acme.configOverrides });
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    dstA = (await api.post('/v1/destinations', { url: 'https://a.vendor.example' })).json().data.id;
    dstB = (await api.post('/v1/destinations', { url: 'https://b.vendor.example' })).json().data.id;
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
    await acme?.close();
  });

  const read = async (id: string) => (await api.get(`/v1/domains/${id}`)).json().data;
  const statusOf = (id: string, status: string, timeoutMs = 60_000) =>
    waitFor(`${id} to be ${status}`, async () => ((await read(id)).status === status ? read(id) : null), timeoutMs, 200);
  const issued = async (domainId: string) => ({
    certificates: await t.database.db.anyFirst(sql.unsafe`select id from certificates where domain_id = ${domainId} order by created_at`),
    orders: Number(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from acme_orders where domain_id = ${domainId}`)),
  });

  it('the rule: more than a third of the lifetime left', () => {
    const day = 86_400_000;
    expect(stillUsable({ notBefore: 0, notAfter: 90 * day }, 59 * day)).toBe(true);
    expect(stillUsable({ notBefore: 0, notAfter: 90 * day }, 61 * day)).toBe(false);
  });

  it('suspend → resume: active again with the same certificate and no new order', async () => {
    acme.dns.set('shop.reuse-one.test', [{ type: 'CNAME', value: EDGE }]);
    const d = (await api.post('/v1/domains', { hostname: 'shop.reuse-one.test', destination_id: dstA })).json().data;
    await statusOf(d.id, 'active');
    const before = await issued(d.id);
    expect([before.certificates.length, before.orders]).toEqual([1, 1]);
    await cli(['domains', 'suspend', d.id, '--reason', 'test'], () => undefined, { DATABASE_URL: t.database.url });
    await t.dispatcher.kick();
    await statusOf(d.id, 'suspended', 20_000);
    await cli(['domains', 'resume', d.id], () => undefined, { DATABASE_URL: t.database.url });
    await t.dispatcher.kick();
    await statusOf(d.id, 'active');
    expect(await issued(d.id)).toEqual(before);
  });

  it('also_connect: both names go active, the www name redirecting to the apex', async () => {
    acme.dns.set('pair-reuse.test', [{ type: 'A', value: '127.0.0.1' }]);
    acme.dns.set('www.pair-reuse.test', [{ type: 'CNAME', value: EDGE }]);
    const res = await api.post('/v1/domains', { hostname: 'pair-reuse.test', destination_id: dstA, also_connect: 'www' });
    expect(res.statusCode).toBe(201);
    const { data: apex, also_connected: www } = res.json();
    await statusOf(apex.id, 'active');
    const served = await statusOf(www.id, 'active');
    expect(served.redirect).toEqual({ to: 'pair-reuse.test', status: 301, preserve_path: true });
  });

  it('a re-point keeps the domain active with its certificate', async () => {
    acme.dns.set('shop.reuse-two.test', [{ type: 'CNAME', value: EDGE }]);
    const d = (await api.post('/v1/domains', { hostname: 'shop.reuse-two.test', destination_id: dstA })).json().data;
    await statusOf(d.id, 'active');
    const before = await issued(d.id);
    const res = await api.patch(`/v1/domains/${d.id}`, { destination_id: dstB });
    expect([res.statusCode, res.json().data.status, res.json().data.destination_id]).toEqual([200, 'active', dstB]);
    await new Promise((r) => setTimeout(r, 1000));
    expect((await read(d.id)).status).toBe('active');
    expect(await issued(d.id)).toEqual(before);
  });
});
