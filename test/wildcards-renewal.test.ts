// A wildcard's renewal (issue 22, docs/wildcards.md): like its first certificate, through DNS-01 in
// the challenge zone (PowerDNS, Pebble with 45-second certificates: renewal due at 30 s).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { sql } from '../db/pool.ts';
import { certificateLifecycleRepository } from '../db/repositories/certificate-lifecycle.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { freePort } from './support/ports.ts';
import { startPowerDns, type PowerDns } from './support/powerdns.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

const ZONE = 'challenges.hostgate.test';

describe('wildcard renewal', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let pdns: PowerDns;
  let worker: RunningWorker;
  let api: ReturnType<typeof client>;

  beforeAll(async () => {
    acme = await startAcmeStack({ certificateValidityPeriod: 45 });
    const pdnsPort = await freePort();
    t = await createTestApp({ config: { ...acme.configOverrides, HOSTGATE_CHALLENGE_ZONE: ZONE, HOSTGATE_CHALLENGE_DNS_SERVER: `127.0.0.1:${pdnsPort}` } });
    pdns = await startPowerDns({ databaseUrl: t.database.url, db: t.database.db, zone: ZONE, port: pdnsPort });
    acme.dns.forwardZone(ZONE, pdns.server);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
  }, 120_000);
  afterAll(async () => {
    await worker?.stop();
    await pdns?.stop();
    await t?.close();
    await acme?.close();
  });

  it('renews *.<name> by DNS-01 through the delegation', async () => {
    const destination = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id;
    const base = 'renew-wild.test';
    const d = (await api.post('/v1/domains', { hostname: `*.${base}`, destination_id: destination })).json().data;
    const delegation = d.dns_records.find((r: { name: string }) => r.name === `_acme-challenge.${base}`);
    acme.dns.set(`*.${base}`, [{ type: 'CNAME', value: EDGE }]);
    acme.dns.set(delegation.name, [{ type: 'CNAME', value: delegation.value }]);
    await api.post(`/v1/domains/${d.id}/verify`);
    await waitFor('active', async () => (await api.get(`/v1/domains/${d.id}`)).json().data.status === 'active', 60_000, 200);
    await waitFor('a renewal in the history', async () => (await certificateLifecycleRepository(t.database.db).history(d.id)).some((h) => h.kind === 'renewed'), 90_000, 500);
    const orders = await t.database.db.any(sql.unsafe`select hostname, status from acme_orders where domain_id = ${d.id} order by created_at`) as readonly { hostname: string; status: string }[];
    expect(orders.length).toBeGreaterThanOrEqual(2);
    expect(orders.slice(0, 2)).toEqual([{ hostname: `*.${base}`, status: 'completed' }, { hostname: `*.${base}`, status: 'completed' }]);
    const certs = await t.database.db.anyFirst(sql.unsafe`select chain_pem from certificates where domain_id = ${d.id} order by not_before`) as readonly string[];
    expect(certs.length).toBeGreaterThanOrEqual(2);
    for (const pem of certs) expect(new X509Certificate(pem).subjectAltName).toBe(`DNS:*.${base}`);
    // Pebble asked for the TXT through the delegation for each order; no HTTP-01 token was stored.
    expect(acme.dns.queries.filter((q) => q.name === delegation.name && q.type === 'TXT').length).toBeGreaterThanOrEqual(2);
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from acme_challenges where domain_id = ${d.id}`)).toBe(0);
  }, 180_000);
});
