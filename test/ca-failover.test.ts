// A second CA (issue 22), on real services: two Pebble instances (one account each), a loopback
// DNS server, our challenge listener on the one HTTP-01 port both Pebbles validate on, the API and
// a Temporal worker. The first CA stopped → the domain is active with a certificate from the
// second, and reads show the second's issuer; CAA naming only the second CA → ordered there while
// the first is up; a first CA answering rateLimited with Retry-After → the second, and the pause
// is shared: the next domain does not ask the first CA at all; a move's DNS-01 order follows CAA
// to the second CA too (real PowerDNS answering the delegated challenge).
import { X509Certificate } from 'node:crypto';
import http from 'node:http';
import type net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { createChallengeServer } from '../edge/challenge-server.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { client } from './support/http.ts';
import { startPebble, type Pebble } from './support/pebble.ts';
import { freePort } from './support/ports.ts';
import { startPowerDns, type PowerDns } from './support/powerdns.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

const EDGE = 'edge.hostgate.test';

interface Stack {
  dns: TestDnsServer; t: TestApp; worker: RunningWorker; api: ReturnType<typeof client>; destinationId: string;
  challenges: http.Server; close(): Promise<void>;
}

/** The app and a worker ordering from `directories` (HOSTGATE_ACME_DIRECTORIES), challenges served on `httpPort`. */
async function startStack(dns: TestDnsServer, httpPort: number, directories: object[], extra: Record<string, string> = {}): Promise<Stack> {
  dns.set(EDGE, [{ type: 'A', value: '127.0.0.1' }]);
  const t = await createTestApp({ config: {
    HOSTGATE_DNS_SERVERS: dns.server, HOSTGATE_CNAME_TARGET: EDGE, HOSTGATE_EDGE_IPV4: '127.0.0.1', HOSTGATE_HTTP_PORT: String(httpPort),
    HOSTGATE_ACME_DIRECTORIES: JSON.stringify(directories), ...extra,
  } });
  const challenges = createChallengeServer({ db: t.database.db, logger: createLogger('silent', 'test-challenges') });
  await new Promise<void>((resolve) => challenges.listen(httpPort, '127.0.0.1', resolve));
  const worker = await startTestWorker(t.temporal, t.database.db, t.config);
  const api = client(t.app, (await createOrgWithKey(t)).auth);
  const destinationId = (await api.post('/v1/destinations', { url: 'https://app.vendor.example' })).json().data.id as string;
  return {
    dns, t, worker, api, destinationId, challenges,
    async close() {
      await worker.stop();
      challenges.closeAllConnections();
      await new Promise((resolve) => challenges.close(resolve));
      await t.close();
    },
  };
}

async function connect(s: Stack, hostname: string, records: Parameters<TestDnsServer['set']>[1] = []): Promise<string> {
  s.dns.set(hostname, [{ type: 'CNAME', value: EDGE }, ...records]);
  const d = (await s.api.post('/v1/domains', { hostname, destination_id: s.destinationId })).json().data;
  await s.api.post(`/v1/domains/${d.id}/verify`);
  return d.id as string;
}

async function activeDomain(s: Stack, id: string, timeoutMs = 60_000) {
  return await waitFor(`domain ${id} active`, async () => {
    const d = (await s.api.get(`/v1/domains/${id}`)).json().data;
    if (d.status === 'failed') throw new Error(`domain failed: ${JSON.stringify(d.verification)}`);
    return d.status === 'active' ? d : null;
  }, timeoutMs, 200);
}

const issuerOf = async (pebble: Pebble) => new X509Certificate(await pebble.intermediatePem()).subject.split('\n').join(', ');

async function certificateRow(s: Stack, domainId: string) {
  return await s.t.database.db.one(sql.unsafe`
    select c.ca_name, c.issuer, o.directory_url from certificates c join acme_orders o on o.certificate_id = c.id where c.domain_id = ${domainId}`) as { ca_name: string; issuer: string; directory_url: string };
}

describe('two CAs: CAA picks the CA, and the first stopped fails over to the second', () => {
  let dns: TestDnsServer;
  let first: Pebble;
  let second: Pebble;
  let s: Stack;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    const httpPort = await freePort();
    [first, second] = await Promise.all([startPebble({ dnsServer: dns.server, httpPort }), startPebble({ dnsServer: dns.server, httpPort })]);
    s = await startStack(dns, httpPort, [
      { name: 'first', url: first.directoryUrl, ca_bundle: first.caBundlePath, caa: ['first-ca.test'] },
      { name: 'second', url: second.directoryUrl, ca_bundle: second.caBundlePath, caa: ['second-ca.test'] },
    ]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await first?.stop();
    await second?.stop();
    await dns?.close();
  });

  it('orders from the first CA when nothing says otherwise, and from the second when CAA names only it', async () => {
    const plain = await connect(s, 'plain.two-cas.test');
    dns.set('caa-second.test', [{ type: 'CAA', tag: 'issue', value: 'second-ca.test' }]);
    const steered = await connect(s, 'shop.caa-second.test');
    const [a, b] = await Promise.all([activeDomain(s, plain), activeDomain(s, steered)]);
    expect(a.certificate.issuer).toBe(await issuerOf(first));
    expect(await certificateRow(s, plain)).toMatchObject({ ca_name: 'first', directory_url: first.directoryUrl });
    // The second's issuer on the read; no order of this domain ever went to the first.
    expect(b.certificate.issuer).toBe(await issuerOf(second));
    expect(b.certificate.issuer).not.toBe(a.certificate.issuer);
    expect(await certificateRow(s, steered)).toMatchObject({ ca_name: 'second', directory_url: second.directoryUrl });
    expect(await s.t.database.db.anyFirst(sql.unsafe`select distinct directory_url from acme_orders where domain_id = ${steered}`)).toEqual([second.directoryUrl]);
  }, 90_000);

  it('CAA naming neither CA: the DNS check says so (caa_forbids_ca) and nothing is ordered', async () => {
    dns.set('caa-neither.test', [{ type: 'CAA', tag: 'issue', value: 'other-ca.example' }]);
    const id = await connect(s, 'shop.caa-neither.test');
    const d = await waitFor('the CAA problem', async () => {
      const r = (await s.api.get(`/v1/domains/${id}`)).json().data;
      return r.verification.problem?.code === 'caa_forbids_ca' ? r : null;
    }, 30_000, 200);
    expect(d.verification.problem.message).toMatch(/first-ca\.test|second-ca\.test/);
    expect(await s.t.database.db.oneFirst(sql.unsafe`select count(*)::int from acme_orders where domain_id = ${id}`)).toBe(0);
  }, 60_000);

  it('the first CA stopped: the domain is active with a certificate from the second, and the first is paused for every worker', async () => {
    await first.stop();
    const t0 = Date.now();
    const id = await connect(s, 'failover.two-cas.test');
    const d = await activeDomain(s, id);
    console.log(JSON.stringify({ figure: 'failover_verify_to_active_ms', ms: Date.now() - t0 }));
    expect(d.certificate.issuer).toBe(await issuerOf(second));
    expect(await certificateRow(s, id)).toMatchObject({ ca_name: 'second', directory_url: second.directoryUrl });
    const paused = await s.t.database.db.one(sql.unsafe`
      select reason, (extract(epoch from paused_until) * 1000)::float8 as until from ca_status where directory_url = ${first.directoryUrl}`) as { reason: string; until: number };
    expect(paused.reason).toMatch(/ECONNREFUSED|reach/);
    expect(paused.until).toBeGreaterThan(Date.now());
  }, 90_000);
});

/** A CA that takes accounts and answers every new order with rateLimited and a Retry-After. */
async function startRateLimitedCa(retryAfterSeconds: number): Promise<{ url: string; newOrders: () => number; close(): Promise<void> }> {
  let orders = 0;
  let nonce = 0;
  const server = http.createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
    const headers = { 'replay-nonce': `nonce-${++nonce}`, 'cache-control': 'no-store' };
    req.resume();
    req.on('end', () => {
      if (req.url === '/dir') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ newNonce: `${base}/nonce`, newAccount: `${base}/account`, newOrder: `${base}/order`, revokeCert: `${base}/revoke`, keyChange: `${base}/key` }));
      } else if (req.url === '/nonce') {
        res.writeHead(204, headers).end();
      } else if (req.url === '/account') {
        res.writeHead(201, { ...headers, 'content-type': 'application/json', location: `${base}/account/1` });
        res.end(JSON.stringify({ status: 'valid' }));
      } else if (req.url === '/order') {
        orders++;
        res.writeHead(429, { ...headers, 'content-type': 'application/problem+json', 'retry-after': String(retryAfterSeconds) });
        res.end(JSON.stringify({ type: 'urn:ietf:params:acme:error:rateLimited', detail: 'too many new orders recently', status: 429 }));
      } else {
        res.writeHead(404).end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/dir`,
    newOrders: () => orders,
    async close() { server.closeAllConnections(); await new Promise((resolve) => server.close(resolve)); },
  };
}

describe('the first CA answering rateLimited', () => {
  let dns: TestDnsServer;
  let limited: Awaited<ReturnType<typeof startRateLimitedCa>>;
  let second: Pebble;
  let s: Stack;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    const httpPort = await freePort();
    limited = await startRateLimitedCa(600);
    second = await startPebble({ dnsServer: dns.server, httpPort });
    s = await startStack(dns, httpPort, [
      { name: 'limited', url: limited.url, caa: ['first-ca.test'] },
      { name: 'second', url: second.directoryUrl, ca_bundle: second.caBundlePath, caa: ['second-ca.test'] },
    ]);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await limited?.close();
    await second?.stop();
    await dns?.close();
  });

  it('goes to the second CA; the Retry-After is stored and the next domain does not ask the first', async () => {
    const id = await connect(s, 'one.rate-limited.test');
    const d = await activeDomain(s, id);
    expect(d.certificate.issuer).toBe(await issuerOf(second));
    expect(limited.newOrders()).toBe(1);
    const paused = await s.t.database.db.one(sql.unsafe`
      select reason, (extract(epoch from paused_until) * 1000)::float8 as until from ca_status where directory_url = ${limited.url}`) as { reason: string; until: number };
    expect(paused.reason).toMatch(/rateLimited/);
    // Retry-After: 600 s from about now.
    expect(paused.until - Date.now()).toBeGreaterThan(500_000);
    expect(paused.until - Date.now()).toBeLessThanOrEqual(600_000);

    const next = await connect(s, 'two.rate-limited.test');
    expect((await activeDomain(s, next)).certificate.issuer).toBe(await issuerOf(second));
    expect(limited.newOrders()).toBe(1);
  }, 90_000);
});

describe('a move (DNS-01 before DNS points here) with two CAs', () => {
  const ZONE = 'challenges.hostgate.test';
  let dns: TestDnsServer;
  let first: Pebble;
  let second: Pebble;
  let pdns: PowerDns;
  let s: Stack;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    const httpPort = await freePort();
    const pdnsPort = await freePort();
    [first, second] = await Promise.all([startPebble({ dnsServer: dns.server, httpPort }), startPebble({ dnsServer: dns.server, httpPort })]);
    s = await startStack(dns, httpPort, [
      { name: 'first', url: first.directoryUrl, ca_bundle: first.caBundlePath, caa: ['first-ca.test'] },
      { name: 'second', url: second.directoryUrl, ca_bundle: second.caBundlePath, caa: ['second-ca.test'] },
    ], { HOSTGATE_CHALLENGE_ZONE: ZONE, HOSTGATE_CHALLENGE_DNS_SERVER: `127.0.0.1:${pdnsPort}` });
    pdns = await startPowerDns({ databaseUrl: s.t.database.url, db: s.t.database.db, zone: ZONE, port: pdnsPort });
    dns.forwardZone(ZONE, pdns.server);
  }, 120_000);
  afterAll(async () => {
    await s?.close();
    await pdns?.stop();
    await first?.stop();
    await second?.stop();
    await dns?.close();
  });

  it('CAA naming only the second CA: the move\'s certificate is ordered there', async () => {
    const hostname = 'www.move-second.test';
    dns.set('move-second.test', [{ type: 'CAA', tag: 'issue', value: 'second-ca.test' }]);
    dns.set(hostname, [{ type: 'A', value: '192.0.2.80' }]);
    const created = (await s.api.post('/v1/domains', { hostname, destination_id: s.destinationId })).json().data;
    const records = created.dns_records as Array<{ type: string; name: string; value: string }>;
    const txt = records.find((r) => r.type === 'TXT' && r.name.startsWith('_hostgate.'))!;
    const cname = records.find((r) => r.type === 'CNAME' && r.name.startsWith('_acme-challenge.'))!;
    dns.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    dns.set(cname.name, [{ type: 'CNAME', value: cname.value }]);
    await s.api.post(`/v1/domains/${created.id}/verify`);
    await waitFor('the move\'s certificate', async () => {
      const d = (await s.api.get(`/v1/domains/${created.id}`)).json().data;
      return ['issued', 'deployed'].includes(d.certificate.status) ? d : null;
    }, 60_000, 250);
    const row = await s.t.database.db.one(sql.unsafe`select ca_name, issuer from certificates where domain_id = ${created.id}`) as { ca_name: string; issuer: string };
    expect(row).toEqual({ ca_name: 'second', issuer: await issuerOf(second) });
  }, 90_000);
});
