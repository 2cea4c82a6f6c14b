// Wildcard hostnames through the API (issue 22, docs/wildcards.md): accepted only with the
// challenge zone, their DNS records, and the isolation between organizations that the database
// enforces (migration 018's exclusion constraint), including under concurrent creates.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

const ZONE = 'challenges.hostgate.test';

describe('wildcard hostnames: API', () => {
  let t: TestApp;
  let a: ReturnType<typeof client>;
  let b: ReturnType<typeof client>;
  let dstA: string;
  let dstB: string;

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_CHALLENGE_ZONE: ZONE } });
    a = client(t.app, (await createOrgWithKey(t, undefined, 'Org A')).auth);
    b = client(t.app, (await createOrgWithKey(t, undefined, 'Org B')).auth);
    dstA = (await a.post('/v1/destinations', { url: 'https://app-a.example.com' })).json().data.id;
    dstB = (await b.post('/v1/destinations', { url: 'https://app-b.example.com' })).json().data.id;
  });
  afterAll(async () => {
    await t.close();
  });

  it('creates *.<name> with the wildcard CNAME, the ownership TXT and the delegation CNAME at <name>', async () => {
    const res = await a.post('/v1/domains', { hostname: '*.Shop.Wild-One.com', destination_id: dstA });
    expect(res.statusCode).toBe(201);
    const d = res.json().data;
    expect(d.hostname).toBe('*.shop.wild-one.com');
    const label = await t.database.db.oneFirst(sql.unsafe`select challenge_label from domains where id = ${d.id}`);
    expect(d.dns_records).toEqual([
      { type: 'CNAME', name: '*.shop.wild-one.com', value: 'edge.hostgate.test' },
      { type: 'TXT', name: '_hostgate.shop.wild-one.com', value: expect.stringMatching(/^hostgate-verification=/) },
      { type: 'CNAME', name: '_acme-challenge.shop.wild-one.com', value: `${label}.${ZONE}` },
    ]);
    // A wildcard of a registrable domain is fine (its CNAME sits at *.<apex>, which DNS allows).
    const apex = await a.post('/v1/domains', { hostname: '*.wild-two.com', destination_id: dstA });
    expect(apex.statusCode).toBe(201);
    expect(apex.json().data.dns_records[0]).toEqual({ type: 'CNAME', name: '*.wild-two.com', value: 'edge.hostgate.test' });
  });

  it.each([
    ['*.com', 'single_label'], ['*.co.uk', 'public_suffix'], ['*.*.wild-three.com', 'wildcard'], ['a.*.wild-three.com', 'wildcard'],
    ['*wild-three.com', 'wildcard'], ['*.hostgate.test', 'service_domain'], ['*.-bad.wild-three.com', 'invalid_hyphen'],
  ])('refuses %s (%s)', async (hostname, reason) => {
    const res = await a.post('/v1/domains', { hostname, destination_id: dstA });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'hostname', details: { reason } });
  });

  it('refuses also_connect with a wildcard, and a wildcard covering its own destination', async () => {
    const paired = await a.post('/v1/domains', { hostname: '*.wild-four.com', destination_id: dstA, also_connect: 'www' });
    expect(paired.statusCode).toBe(400);
    expect(paired.json().error).toMatchObject({ code: 'invalid_request', param: 'also_connect' });
    const loop = await a.post('/v1/domains', { hostname: '*.example.com', destination_id: dstA });
    expect(loop.statusCode).toBe(400);
    expect(loop.json().error.message).toMatch(/loop/);
    // Re-pointed later at a destination under it: the same loop.
    const w = (await a.post('/v1/domains', { hostname: '*.wild-loop.com', destination_id: dstA })).json().data;
    const under = (await a.post('/v1/destinations', { url: 'https://app.wild-loop.com' })).json().data.id;
    const patched = await a.patch(`/v1/domains/${w.id}`, { destination_id: under });
    expect(patched.statusCode).toBe(400);
    expect(patched.json().error).toMatchObject({ code: 'invalid_request', param: 'destination_id' });
  });

  it('another organization cannot connect a name under the wildcard; the same organization can', async () => {
    const other = await b.post('/v1/domains', { hostname: 'a.shop.wild-one.com', destination_id: dstB });
    expect(other.statusCode).toBe(409);
    expect(other.json().error).toMatchObject({ code: 'domain_conflict', param: 'hostname', details: { reason: 'covered_by_wildcard' } });
    expect(other.json().error.message).toContain('*.shop.wild-one.com');
    // Not covered by *.shop.wild-one.com: the base itself and names two labels down.
    expect((await b.post('/v1/domains', { hostname: 'shop.wild-one.com', destination_id: dstB })).statusCode).toBe(201);
    expect((await b.post('/v1/domains', { hostname: 'x.y.shop.wild-one.com', destination_id: dstB })).statusCode).toBe(201);
    // The wildcard's own organization: an exact name under it (it wins at the edge).
    expect((await a.post('/v1/domains', { hostname: 'a.shop.wild-one.com', destination_id: dstA })).statusCode).toBe(201);
    // The same wildcard again, from anyone: the name itself is taken.
    const again = await b.post('/v1/domains', { hostname: '*.shop.wild-one.com', destination_id: dstB });
    expect(again.statusCode).toBe(409);
    expect(again.json().error.code).toBe('domain_conflict');
    expect(again.json().error.details).toBeUndefined();
  });

  it('a wildcard cannot be connected over a name another organization holds', async () => {
    expect((await b.post('/v1/domains', { hostname: 'shop.wild-five.com', destination_id: dstB })).statusCode).toBe(201);
    const res = await a.post('/v1/domains', { hostname: '*.wild-five.com', destination_id: dstA });
    expect(res.statusCode).toBe(409);
    expect(res.json().error).toMatchObject({ code: 'domain_conflict', details: { reason: 'covers_hostname' } });
    expect(res.json().error.message).toContain('shop.wild-five.com');
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = '*.wild-five.com'`)).toBe(0);
  });

  it('a deleted wildcard frees the names under it', async () => {
    const w = (await a.post('/v1/domains', { hostname: '*.wild-six.com', destination_id: dstA })).json().data;
    expect((await b.post('/v1/domains', { hostname: 'x.wild-six.com', destination_id: dstB })).statusCode).toBe(409);
    await t.database.db.query(sql.unsafe`update domains set status = 'deleted', deleted_at = now() where id = ${w.id}`);
    expect((await b.post('/v1/domains', { hostname: 'x.wild-six.com', destination_id: dstB })).statusCode).toBe(201);
  });

  it('concurrent creates of a wildcard and a name under it by two organizations: exactly one wins', async () => {
    for (let round = 0; round < 5; round++) {
      const base = `race-${round}.wild-seven.com`;
      const answers = await Promise.all([
        a.post('/v1/domains', { hostname: `*.${base}`, destination_id: dstA }),
        b.post('/v1/domains', { hostname: `x.${base}`, destination_id: dstB }),
        b.post('/v1/domains', { hostname: `y.${base}`, destination_id: dstB }),
      ]);
      const codes = answers.map((r) => r.statusCode);
      const live = await t.database.db.any(sql.unsafe`select hostname, organization_id from domains where cover_parent = ${base} and status <> 'deleted'`);
      // Either the wildcard alone, or the two exact names alone: never both organizations.
      expect(new Set(live.map((r) => (r as { organization_id: string }).organization_id)).size).toBe(1);
      if (codes[0] === 201) expect(codes.slice(1)).toEqual([409, 409]);
      else expect(codes).toEqual([409, 201, 201]);
    }
  });

  it('the widget refuses a wildcard (the vendor decides on wildcards, through the server API)', async () => {
    const session = (await a.post('/v1/widget-sessions', { external_customer_id: 'cus_w', allowed_origins: ['https://vendor.example'], destination_id: dstA })).json().data;
    const res = await t.app.inject({
      method: 'POST', url: '/v1/widget/domains', payload: { hostname: '*.widget-wild.com' },
      headers: { authorization: `Bearer ${session.token}`, origin: 'https://vendor.example', 'idempotency-key': 'widget-wild-1' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'widget_request_failed', param: 'hostname' });
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where hostname = '*.widget-wild.com'`)).toBe(0);
  });

  it('the exclusion constraint holds for writes that bypass the API', async () => {
    const [orgA, orgB] = await t.database.db.anyFirst(sql.unsafe`select id from organizations order by created_at limit 2`) as string[];
    const [rowDstA] = await t.database.db.anyFirst(sql.unsafe`select id from destinations where organization_id = ${orgA!}`) as string[];
    const [rowDstB] = await t.database.db.anyFirst(sql.unsafe`select id from destinations where organization_id = ${orgB!}`) as string[];
    await t.database.db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values ('dom_wild_raw1', ${orgA!}, ${rowDstA!}, '*.wild-eight.com', false)`);
    await expect(t.database.db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values ('dom_wild_raw2', ${orgB!}, ${rowDstB!}, 'q.wild-eight.com', false)`)).rejects.toThrow(/exclusion constraint/);
  });
});

describe('wildcard hostnames without the challenge zone', () => {
  let t: TestApp;
  let api: ReturnType<typeof client>;
  beforeAll(async () => {
    t = await createTestApp();
    api = client(t.app, (await createOrgWithKey(t)).auth);
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers 422 wildcard_requires_challenge_zone and creates nothing', async () => {
    const dst = (await api.post('/v1/destinations', { url: 'https://app.example.com' })).json().data.id;
    const res = await api.post('/v1/domains', { hostname: '*.nozone.com', destination_id: dst });
    expect(res.statusCode).toBe(422);
    expect(res.json().error).toMatchObject({ code: 'wildcard_requires_challenge_zone', param: 'hostname' });
    expect(res.json().error.message).toContain('HOSTGATE_CHALLENGE_ZONE');
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains`)).toBe(0);
    // An invalid wildcard is still invalid_request first.
    expect((await api.post('/v1/domains', { hostname: '*.*.nozone.com', destination_id: dst })).json().error.code).toBe('invalid_request');
  });
});
