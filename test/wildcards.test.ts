// Wildcard hostnames end to end (issue 22, docs/wildcards.md) with real services: PowerDNS serving
// the challenge zone from our Postgres, Pebble validating DNS-01 for `*.<name>` through the
// customer's `_acme-challenge.<name>` CNAME (its DNS server follows the CNAME into PowerDNS), the
// domain workflow, and the edge (real agent, real HAProxy): any single-label name under the
// wildcard is served with its certificate and routed to its destination; an exact hostname under
// it is served with its own.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { trafficRepository } from '../db/repositories/traffic.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { edgeGet, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { client } from './support/http.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { freePort } from './support/ports.ts';
import { startPowerDns, type PowerDns } from './support/powerdns.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

const ZONE = 'challenges.hostgate.test';
const BASE = 'wild.test';

describe('wildcard hostnames end to end', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let pdns: PowerDns;
  let worker: RunningWorker;
  let originCa: TestCa;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let pebbleRoot: string;
  let api: ReturnType<typeof client>;
  let destinationId: string;
  let wildcardId: string;
  let wildcardSerial: string;

  /** Asks for a check now and waits until `done` holds for the domain read. */
  async function verifyUntil(id: string, what: string, done: (d: any) => boolean, timeoutMs = 60_000) {
    await api.post(`/v1/domains/${id}/verify`);
    let last: unknown = null;
    try {
      return await waitFor(what, async () => {
        const d = (await api.get(`/v1/domains/${id}`)).json().data;
        last = { status: d.status, verification: d.verification.problem, certificate: d.certificate };
        return done(d) ? d : null;
      }, timeoutMs, 100);
    } catch (error) {
      throw new Error(`${(error as Error).message}; last read: ${JSON.stringify(last)}`);
    }
  }

  beforeAll(async () => {
    acme = await startAcmeStack();
    originCa = await createTestCa('Origin test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test', 'other.vendor.test']);
    acme.dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    acme.dns.set('other.vendor.test', [{ type: 'A', value: origin.ip }]);
    const pdnsPort = await freePort();
    t = await createTestApp({
      config: {
        ...acme.configOverrides,
        HOSTGATE_EDGE_DEPLOYMENT: 'required',
        HOSTGATE_CHALLENGE_ZONE: ZONE,
        HOSTGATE_CHALLENGE_DNS_SERVER: `127.0.0.1:${pdnsPort}`,
      },
    });
    pdns = await startPowerDns({ databaseUrl: t.database.url, db: t.database.db, zone: ZONE, port: pdnsPort });
    acme.dns.forwardZone(ZONE, pdns.server);
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    destinationId = (await api.post('/v1/destinations', { url: 'https://app.vendor.test:8443' })).json().data.id;
    edge = await startEdgeProcess({
      databaseUrl: t.database.url, resolvers: acme.dns.server, originCaFile: originCa.certPath,
      env: { HOSTGATE_EDGE_ANALYTICS_FLUSH_MS: '200', HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: '200' },
    });
    pebbleRoot = await acme.pebble.rootPem();
  }, 120_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await worker?.stop();
    await pdns?.stop();
    await t?.close();
    await acme?.close();
    await origin?.close();
    await originCa?.close();
  });

  it('checks a random name under the wildcard and the delegation: each missing piece is its own problem', async () => {
    const res = await api.post('/v1/domains', { hostname: `*.${BASE}`, destination_id: destinationId });
    expect(res.statusCode).toBe(201);
    const d = res.json().data;
    wildcardId = d.id;
    const delegation = d.dns_records.find((r: { name: string }) => r.name === `_acme-challenge.${BASE}`);
    expect(delegation.value).toMatch(new RegExp(`\\.${ZONE.replace(/\./g, '\\.')}$`));

    // Nothing set yet: the wildcard's own record is missing (named as *.<name>, not the probe).
    const first = await verifyUntil(wildcardId, 'nxdomain for the wildcard', (x) => x.verification.problem?.code === 'nxdomain');
    expect(first.verification.problem.message).toContain(`*.${BASE}`);
    expect(first.verification.expected).toEqual([
      { type: 'CNAME', name: `*.${BASE}`, value: EDGE },
      { type: 'CNAME', name: `_acme-challenge.${BASE}`, value: delegation.value },
    ]);

    // The wildcard alone (as an A record to the edge): the delegation is what is missing now.
    acme.dns.set(`*.${BASE}`, [{ type: 'A', value: '127.0.0.1' }]);
    const second = await verifyUntil(wildcardId, 'delegation_cname_missing', (x) => x.verification.problem?.code === 'delegation_cname_missing');
    expect(second.status).toBe('pending_dns');
    expect(second.verification.problem.message).toContain(delegation.value);
    // The check asked a fresh random name under the wildcard, never the `*` label itself.
    const probes = acme.dns.queries.filter((q) => q.name.endsWith(`.${BASE}`) && q.name.startsWith('hostgate-check-'));
    expect(probes.length).toBeGreaterThan(0);
    expect(acme.dns.queries.some((q) => q.name === `*.${BASE}` && q.type !== 'CAA')).toBe(false);

    // As a CNAME: without a record of its own, `_acme-challenge.<name>` is answered by the
    // wildcard too (RFC 4592), so the delegation reads as a CNAME to the edge.
    acme.dns.set(`*.${BASE}`, [{ type: 'CNAME', value: EDGE }]);
    const synthesized = await verifyUntil(wildcardId, 'delegation_cname_wrong (the wildcard answers it)', (x) => x.verification.problem?.code === 'delegation_cname_wrong');
    expect(synthesized.verification.problem.message).toContain(`is a CNAME to ${EDGE}`);
    acme.dns.set(`_acme-challenge.${BASE}`, [{ type: 'CNAME', value: 'somewhere-else.example' }]);
    await verifyUntil(wildcardId, 'delegation_cname_wrong', (x) => x.verification.problem?.message.includes('somewhere-else.example'));

    // Right: DNS-01 through the delegation, the edge deploys, active; a.<name> and b.<name> are
    // served with the *.<name> certificate.
    acme.dns.set(`_acme-challenge.${BASE}`, [{ type: 'CNAME', value: delegation.value }]);
    const started = Date.now();
    await api.post(`/v1/domains/${wildcardId}/verify`);
    const served = await waitFor('a.<name> served with the wildcard certificate', async () => {
      const r = await edgeGet(edge.port, `a.${BASE}`, { ca: pebbleRoot }).catch(() => null);
      return r && r.status === 200 && r.authorized ? r : null;
    }, 60_000, 50);
    const verifyToServedMs = Date.now() - started;
    const active = await verifyUntil(wildcardId, 'active', (x) => x.status === 'active');
    expect(active.certificate).toMatchObject({ status: 'deployed', method: 'dns-01', serial: expect.any(String) });
    console.log(`wildcard verify → a.${BASE} served: ${verifyToServedMs} ms`);
    expect(served.san).toBe(`DNS:*.${BASE}`);
    expect(served.nameMatches).toBe(true);
    wildcardSerial = served.serial;
    const b = await edgeGet(edge.port, `b.${BASE}`, { ca: pebbleRoot, path: '/b' });
    expect(b).toMatchObject({ status: 200, authorized: true, nameMatches: true, serial: wildcardSerial, san: `DNS:*.${BASE}` });
    // Routed to the wildcard's destination, with the visitor's hostname and the wildcard's domain id.
    const seen = JSON.parse(b.body);
    expect(seen).toMatchObject({ origin: 'app.vendor.test', url: '/b', headers: { host: `b.${BASE}`, 'x-hostgate-domain-id': wildcardId } });
    // The order was a DNS-01 one (no HTTP-01 token was ever stored for it).
    const orders = await t.database.db.any(sql.unsafe`select hostname, status from acme_orders where domain_id = ${wildcardId}`);
    expect(orders).toEqual([{ hostname: `*.${BASE}`, status: 'completed' }]);
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from acme_challenges where domain_id = ${wildcardId}`)).toBe(0);

    // Not covered: the base itself and a name two labels down.
    expect((await edgeGet(edge.port, BASE, { ca: pebbleRoot })).status).toBe(421);
    expect((await edgeGet(edge.port, `x.y.${BASE}`, { ca: pebbleRoot })).status).toBe(421);
  }, 180_000);

  it('an exact hostname under the wildcard is served with its own certificate and route', async () => {
    const other = (await api.post('/v1/destinations', { url: 'https://other.vendor.test:8443' })).json().data.id;
    const hostname = `exact.${BASE}`;
    acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
    const res = await api.post('/v1/domains', { hostname, destination_id: other });
    expect(res.statusCode).toBe(201);
    const id = res.json().data.id;
    await verifyUntil(id, 'the exact hostname active', (x) => x.status === 'active', 90_000);
    const own = await waitFor('exact served with its own certificate', async () => {
      const r = await edgeGet(edge.port, hostname, { ca: pebbleRoot, path: '/exact' });
      return r.serial !== wildcardSerial ? r : null;
    }, 30_000, 100);
    expect(own).toMatchObject({ status: 200, authorized: true, nameMatches: true, san: `DNS:${hostname}` });
    expect(JSON.parse(own.body)).toMatchObject({ headers: { host: hostname, 'x-hostgate-domain-id': id } });
    expect(origin.requests.at(-1)?.headers.host).toBe(hostname);
    // The other names under the wildcard keep the wildcard's certificate and route.
    const a = await edgeGet(edge.port, `a.${BASE}`, { ca: pebbleRoot });
    expect(a).toMatchObject({ status: 200, serial: wildcardSerial });
    expect(JSON.parse(a.body).headers['x-hostgate-domain-id']).toBe(wildcardId);

    // Analytics and billed bytes: requests for names under the wildcard count to the wildcard
    // domain, the exact hostname's to its own.
    const from = new Date(Date.now() - 10 * 60_000);
    const to = new Date(Date.now() + 2 * 60_000);
    const requestsOf = async (domainId: string) => (await trafficRepository(t.database.db).series(domainId, 'minute', from, to)).reduce((n, b) => n + b.counters.requests, 0);
    const bytesOf = async (domainId: string) => Number(await t.database.db.oneFirst(sql.unsafe`select coalesce(sum(bytes_out), 0)::int8 from domain_bandwidth_hourly where domain_id = ${domainId}`));
    await waitFor('the wildcard\'s requests and bytes counted to it', async () => (await requestsOf(wildcardId) >= 3 && await bytesOf(wildcardId) > 0) || null, 20_000, 200);
    await waitFor('the exact hostname\'s counted to it', async () => (await requestsOf(id) >= 1 && await bytesOf(id) > 0) || null, 20_000, 200);

    // A new agent adopting the running HAProxy reads the wildcard back (`show map`, `show ssl
    // crt-list` with the `*.<name>` filter) as what it should serve: nothing to repair.
    await edge.kill();
    const mark = edge.logs.length;
    await edge.start();
    await edge.waitForLog('edge: serving', mark);
    expect(edge.logs.slice(mark).find((l) => l.msg === 'edge: serving')).toMatchObject({ mode: 'adopted' });
    expect(edge.logs.slice(mark).filter((l) => l.msg === 'edge: reconcile repaired drift')).toEqual([]);
    expect(await edgeGet(edge.port, `c.${BASE}`, { ca: pebbleRoot })).toMatchObject({ status: 200, serial: wildcardSerial });
  }, 180_000);

  it('a wildcard moves with no downtime: ownership TXT and DNS-01 at <name> before the switch, one certificate in all', async () => {
    const base = 'moving-wild.test';
    acme.dns.set(`*.${base}`, [{ type: 'A', value: '192.0.2.80' }]);
    const created = (await api.post('/v1/domains', { hostname: `*.${base}`, destination_id: destinationId })).json().data;
    const txt = created.dns_records.find((r: { type: string }) => r.type === 'TXT');
    const cname = created.dns_records.find((r: { name: string }) => r.name === `_acme-challenge.${base}`);
    expect(txt.name).toBe(`_hostgate.${base}`);
    acme.dns.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    acme.dns.set(cname.name, [{ type: 'CNAME', value: cname.value }]);
    const held = await verifyUntil(created.id, 'the move\'s certificate deployed before the switch', (d) => d.certificate.status === 'deployed');
    expect(held).toMatchObject({ status: 'pending_dns', ownership: { status: 'verified' }, certificate: { method: 'dns-01' }, verification: { problem: { code: 'wrong_target' } } });
    const early = await edgeGet(edge.port, `early.${base}`, { ca: pebbleRoot });
    expect(early).toMatchObject({ status: 200, authorized: true, san: `DNS:*.${base}` });
    acme.dns.set(`*.${base}`, [{ type: 'CNAME', value: EDGE }]);
    await verifyUntil(created.id, 'active after the switch', (d) => d.status === 'active');
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from certificates where domain_id = ${created.id}`)).toBe(1);
  }, 180_000);

  it('another organization cannot connect a name under the wildcard, nor a wildcard over the names of this one', async () => {
    const other = client(t.app, (await createOrgWithKey(t, undefined, 'Other org')).auth);
    const dst = (await other.post('/v1/destinations', { url: 'https://other.vendor.test:8443' })).json().data.id;
    const under = await other.post('/v1/domains', { hostname: `c.${BASE}`, destination_id: dst });
    expect(under.statusCode).toBe(409);
    expect(under.json().error).toMatchObject({ code: 'domain_conflict', details: { reason: 'covered_by_wildcard' } });
    acme.dns.set('shop.other-wild.test', [{ type: 'CNAME', value: EDGE }]);
    expect((await api.post('/v1/domains', { hostname: 'shop.other-wild.test', destination_id: destinationId })).statusCode).toBe(201);
    const over = await other.post('/v1/domains', { hostname: '*.other-wild.test', destination_id: dst });
    expect(over.statusCode).toBe(409);
    expect(over.json().error).toMatchObject({ code: 'domain_conflict', details: { reason: 'covers_hostname' } });
  });
});
