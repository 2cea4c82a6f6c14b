// The edge on real HAProxy with real TLS: what each kind of hostname gets (served, unknown,
// suspended, deleted, origin down, origin with a certificate for another name, broken row),
// renewal under load, and what the agent reports. Rows are inserted directly here; the full
// lifecycle with Pebble is test/edge-lifecycle.test.ts.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFile } from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import { run as cli } from '../cli/hostgate.ts';
import { edgeRepository } from '../db/repositories/edge.ts';
import { sql } from '../db/pool.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { edgeGet, insertDomain, serialOf, setDomainStatus, startEdgeProcess, storeCertificate, type EdgeProcess } from './support/haproxy-edge.ts';
import { createTestCa, randomLoopback, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { waitFor } from './support/wait.ts';

describe('edge serving', () => {
  let database: TestDatabase;
  let dns: TestDnsServer;
  let originCa: TestCa;
  let customerCa: TestCa;
  let origin: TestOrigin;
  let wrongOrigin: TestOrigin;
  let edge: EdgeProcess;
  const hosts: Record<string, string> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    dns = await startTestDnsServer();
    originCa = await createTestCa('Origin test CA');
    customerCa = await createTestCa('Customer test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test']);
    // Reachable under its name, but its certificate names another host.
    wrongOrigin = await startTestOrigin(originCa, ['someone-else.test']);
    dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    dns.set('wrong.vendor.test', [{ type: 'A', value: wrongOrigin.ip }]);
    dns.set('down.vendor.test', [{ type: 'A', value: randomLoopback() }]); // nothing listens there
    const db = database.db;
    const serve = async (hostname: string, destinationHost: string, status = 'active') => {
      const f = await insertDomain(db, { hostname, destinationHost, status, certificate: await customerCa.issue([hostname]) });
      hosts[hostname] = f.domainId;
      return f;
    };
    await serve('shop.one.test', 'app.vendor.test');
    await serve('paused.two.test', 'app.vendor.test', 'suspended');
    await serve('gone.three.test', 'app.vendor.test');
    await serve('down.four.test', 'down.vendor.test');
    await serve('wrong.five.test', 'wrong.vendor.test');
    await serve('deploying.six.test', 'app.vendor.test', 'pending_certificate');
    await serve('nxdomain.eight.test', 'nowhere.vendor.test'); // no DNS record for the origin
    // Broken row: the stored key belongs to another certificate.
    const other = await customerCa.issue(['broken.seven.test']);
    const cert = await customerCa.issue(['broken.seven.test']);
    const broken = await insertDomain(db, { hostname: 'broken.seven.test', destinationHost: 'app.vendor.test', certificate: { certPem: cert.certPem, keyPem: other.keyPem } });
    hosts['broken.seven.test'] = broken.domainId;
    // Origin addresses looked up again every second (default 30 s): the address-change test waits on it.
    edge = await startEdgeProcess({ databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath, env: { HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS: '1000' } });
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await origin?.close();
    await wrongOrigin?.close();
    await originCa?.close();
    await customerCa?.close();
    await dns?.close();
    await database?.drop();
  });

  it('serves an active hostname: its certificate by SNI, the origin\'s answer, the documented headers', async () => {
    const res = await edgeGet(edge.port, 'shop.one.test', { path: '/hello?x=1', ca: customerCa.pem });
    expect(res.authorized).toBe(true);
    expect(res.nameMatches).toBe(true);
    expect(res.status).toBe(200);
    const seen = JSON.parse(res.body);
    expect(seen.origin).toBe('app.vendor.test');
    expect(seen.url).toBe('/hello?x=1');
    expect(seen.headers).toMatchObject({
      host: 'shop.one.test',
      'x-forwarded-for': '127.0.0.1',
      'x-forwarded-proto': 'https',
      'x-forwarded-host': 'shop.one.test',
      'x-hostgate-domain-id': hosts['shop.one.test'],
    });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('replaces client-sent X-Forwarded-* instead of passing them on', async () => {
    const res = await edgeGet(edge.port, 'shop.one.test', { ca: customerCa.pem, headers: { 'x-forwarded-for': '6.6.6.6', 'x-forwarded-host': 'evil.test', 'x-hostgate-domain-id': 'dom_fake' } });
    const seen = JSON.parse(res.body).headers;
    expect(seen['x-forwarded-for']).toBe('127.0.0.1');
    expect(seen['x-forwarded-host']).toBe('shop.one.test');
    expect(seen['x-hostgate-domain-id']).toBe(hosts['shop.one.test']);
  });

  it('serves a pending_certificate domain whose certificate is stored (deploying)', async () => {
    const res = await edgeGet(edge.port, 'deploying.six.test', { ca: customerCa.pem });
    expect(res.authorized).toBe(true);
    expect(res.status).toBe(200);
  });

  it('answers an unknown SNI/Host with the neutral 421 page over the default certificate', async () => {
    const res = await edgeGet(edge.port, 'nobody.example.test', { ca: customerCa.pem });
    expect(res.authorized).toBe(false);
    expect(res.status).toBe(421);
    expect(res.headers['x-hostgate-error']).toBe('unknown_host');
    expect(res.body).toMatch(/Site not found/);
  });

  it('refuses a Host that differs from the SNI the connection was opened for', async () => {
    const res = await edgeGet(edge.port, 'shop.one.test', { ca: customerCa.pem, headers: { host: 'deploying.six.test' } });
    expect(res.status).toBe(421);
    expect(res.headers['x-hostgate-error']).toBe('misdirected_request');
  });

  it('answers a suspended hostname with the 503 page', async () => {
    const res = await edgeGet(edge.port, 'paused.two.test', { ca: customerCa.pem });
    expect(res.status).toBe(503);
    expect(res.headers['x-hostgate-error']).toBe('domain_suspended');
    expect(res.body).toMatch(/suspended/);
  });

  it('answers 502 naming the origin when it cannot be reached', async () => {
    const res = await edgeGet(edge.port, 'down.four.test', { ca: customerCa.pem });
    expect(res.status).toBe(502);
    expect(res.headers['x-hostgate-error']).toBe('origin_unreachable');
    expect(res.body).toMatch(/origin server of this site \(down\.vendor\.test:8443\) could not be reached/);
  });

  it('answers 502 naming the problem when the origin\'s certificate is for another name', async () => {
    const res = await edgeGet(edge.port, 'wrong.five.test', { ca: customerCa.pem });
    expect(res.status).toBe(502);
    expect(res.headers['x-hostgate-error']).toBe('origin_certificate_invalid');
    expect(res.body).toMatch(/wrong\.vendor\.test:8443\) presented a TLS certificate that is not valid for wrong\.vendor\.test/);
    expect(wrongOrigin.requests).toHaveLength(0);
  });

  it('answers 502 naming the origin when its name does not resolve', async () => {
    const res = await edgeGet(edge.port, 'nxdomain.eight.test', { ca: customerCa.pem });
    expect(res.status).toBe(502);
    expect(res.headers['x-hostgate-error']).toBe('origin_dns_failed');
    expect(res.body).toMatch(/origin server of this site \(nowhere\.vendor\.test\) could not be resolved/);
  });

  it('skips a broken certificate row, reports it, and serves the others', async () => {
    const res = await edgeGet(edge.port, 'broken.seven.test', { ca: customerCa.pem });
    expect(res.status).toBe(421);
    const [node] = await edgeRepository(database.db).nodes(edge.edgeId);
    expect(node!.problems).toEqual(expect.arrayContaining([expect.objectContaining({ domain_id: hosts['broken.seven.test'], code: 'key_mismatch' })]));
    expect(edge.logs.some((l) => l.msg === 'edge: domain row skipped' && l.code === 'key_mismatch')).toBe(true);
    // Nothing of the key leaked into the logs.
    expect(JSON.stringify(edge.logs)).not.toMatch(/PRIVATE KEY/);
  });

  it('records the deployed certificates and a heartbeat', async () => {
    const repo = edgeRepository(database.db);
    const shop = await database.db.oneFirst(sql.unsafe`select id from certificates where domain_id = ${hosts['shop.one.test']!}`) as string;
    expect(await repo.isCertificateDeployed(shop)).toBe(true);
    const [node] = await repo.nodes(edge.edgeId);
    expect(node!.last_sync_at).not.toBeNull();
    expect(node!.serving_hostnames).toBe(7); // everything but the broken row
    // The operator's view.
    const lines: string[] = [];
    await cli(['edge', 'status', edge.edgeId], (l) => lines.push(l), { DATABASE_URL: database.url, HOSTGATE_ENV: 'test' });
    expect(lines[0]).toMatch(new RegExp(`^${edge.edgeId}\tlast seen .*\tserving 7 hostnames\t7 certificates deployed\t1 problems`));
    expect(lines).toEqual(expect.arrayContaining([expect.stringMatching(/^  problem\tbroken\.seven\.test\tkey_mismatch\t/), expect.stringMatching(/^  serves\tshop\.one\.test\tactive\tcertificate crt_/)]));
  });

  it('takes a deleted hostname off within seconds', async () => {
    expect((await edgeGet(edge.port, 'gone.three.test', { ca: customerCa.pem })).status).toBe(200);
    const started = Date.now();
    await setDomainStatus(database.db, hosts['gone.three.test']!, 'deleting');
    await waitFor('gone.three.test to be gone', async () => (await edgeGet(edge.port, 'gone.three.test')).status === 421, 5_000, 50);
    expect(Date.now() - started).toBeLessThan(3_000);
    const res = await edgeGet(edge.port, 'gone.three.test', { ca: customerCa.pem });
    expect(res.authorized).toBe(false); // its certificate is gone too
    const cert = await database.db.oneFirst(sql.unsafe`select id from certificates where domain_id = ${hosts['gone.three.test']!}`) as string;
    await waitFor('its deployment row to go', async () => !(await edgeRepository(database.db).isCertificateDeployed(cert)), 5_000, 50);
  });

  it('suspends and resumes within seconds', async () => {
    await setDomainStatus(database.db, hosts['shop.one.test']!, 'suspended');
    await waitFor('shop.one.test suspended', async () => (await edgeGet(edge.port, 'shop.one.test')).status === 503, 5_000, 50);
    await setDomainStatus(database.db, hosts['shop.one.test']!, 'active');
    await waitFor('shop.one.test served again', async () => (await edgeGet(edge.port, 'shop.one.test')).status === 200, 5_000, 50);
  });

  it('renews under load: zero failed requests, the new serial served afterwards', async () => {
    const hostname = 'shop.one.test';
    const before = await edgeGet(edge.port, hostname, { ca: customerCa.pem });
    const renewed = await customerCa.issue([hostname]);
    let stop = false;
    const results: { ok: boolean; serial: string; detail?: string }[] = [];
    const loop = async () => {
      while (!stop) {
        try {
          const r = await edgeGet(edge.port, hostname, { ca: customerCa.pem });
          results.push({ ok: r.status === 200 && r.authorized, serial: r.serial, detail: `${r.status}` });
        } catch (error) {
          results.push({ ok: false, serial: '', detail: String(error) });
        }
      }
    };
    const clients = [loop(), loop(), loop(), loop()];
    await new Promise((r) => setTimeout(r, 300));
    await storeCertificate(database.db, hosts[hostname]!, renewed.certPem, renewed.keyPem);
    await waitFor('the new serial to be served', async () => results.at(-1)?.serial === serialOf(renewed.certPem), 5_000, 20);
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(clients);
    expect(results.filter((r) => !r.ok)).toEqual([]);
    expect(results.length).toBeGreaterThan(20);
    expect(results.some((r) => r.serial === before.serial)).toBe(true);
    expect(results.at(-1)!.serial).toBe(serialOf(renewed.certPem));
  });

  it('looks origins up in the agent, not per request, and follows an origin whose address changes', async () => {
    // HAProxy 2.6's do-resolve alone cost one DNS query per request here (its answer is freed
    // with the request); the origin map answers instead, looked up once a second in this suite.
    const from = dns.queries.length;
    for (let i = 0; i < 40; i++) expect((await edgeGet(edge.port, 'shop.one.test', { ca: customerCa.pem })).status).toBe(200);
    const lookups = dns.queries.slice(from).filter((q) => q.name === 'app.vendor.test').length;
    expect(lookups).toBeLessThan(20);

    // The origin moves (here: to an address where nothing listens, then back).
    const status = async () => (await edgeGet(edge.port, 'shop.one.test', { ca: customerCa.pem })).headers['x-hostgate-error'] ?? 'ok';
    try {
      dns.set('app.vendor.test', [{ type: 'A', value: randomLoopback() }]);
      await waitFor('the edge to use the new origin address', async () => (await status()) === 'origin_unreachable', 20_000, 200);
    } finally {
      dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    }
    await waitFor('the edge to use the origin address again', async () => (await status()) === 'ok', 20_000, 200);
  });

  // Last: these add hostnames and edges the tests above do not expect.
  it('stops a request that comes back to this edge (a destination pointing at a hostname served here) with 508', async () => {
    // The origin of loop.nine.test is loop.nine.test itself: its name resolves to an address whose
    // port 8443 (a destination port) leads back into this edge, and its certificate is one the
    // edge trusts as an origin's. Without the guard each pass would open another, without end.
    const loopIp = randomLoopback();
    let passes = 0;
    const sockets = new Set<net.Socket>();
    const backIntoEdge = net.createServer((socket) => {
      passes++;
      sockets.add(socket);
      const upstream = net.connect(edge.port, '127.0.0.1');
      socket.pipe(upstream).pipe(socket);
      socket.on('error', () => upstream.destroy());
      upstream.on('error', () => socket.destroy());
    });
    await new Promise<void>((resolve, reject) => { backIntoEdge.once('error', reject); backIntoEdge.listen(8443, loopIp, resolve); });
    try {
      dns.set('loop.nine.test', [{ type: 'A', value: loopIp }]);
      await insertDomain(database.db, { hostname: 'loop.nine.test', destinationHost: 'loop.nine.test', destinationPort: 8443, certificate: await originCa.issue(['loop.nine.test']) });
      await waitFor('loop.nine.test served', async () => (await edgeGet(edge.port, 'loop.nine.test', { ca: originCa.pem })).status !== 421, 20_000, 200);
      passes = 0;
      const res = await edgeGet(edge.port, 'loop.nine.test', { ca: originCa.pem });
      expect([res.status, res.headers['x-hostgate-error']]).toEqual([508, 'request_loop']);
      expect(res.body).toMatch(/came back to the server that had already forwarded it/);
      // One trip back into the edge, where it stopped.
      expect(passes).toBe(1);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => backIntoEdge.close(r));
    }
    // The header our edge adds is what stops it; a client sending it gets the same, for itself only.
    const spoofed = await edgeGet(edge.port, 'shop.one.test', { ca: customerCa.pem, headers: { 'x-hostgate-via': edge.edgeId } });
    expect(spoofed.status).toBe(508);
    expect((await edgeGet(edge.port, 'shop.one.test', { ca: customerCa.pem, headers: { 'x-hostgate-via': 'another-edge' } })).status).toBe(200);
  });

  it('serves a destination that has only an IPv6 address (AAAA): the agent looks it up and HAProxy connects over IPv6; in production a non-public IPv6 origin is refused', async () => {
    // Port 8443 as every destination here (destinations take 443 or 8443); ::1 is this test's own.
    const v6 = await startTestOrigin(originCa, ['v6.vendor.test'], { ip: '::1' });
    try {
      dns.set('v6.vendor.test', [{ type: 'AAAA', value: '::1' }]);
      const fixture = await insertDomain(database.db, { hostname: 'shop.ten.test', destinationHost: 'v6.vendor.test', destinationPort: v6.port, certificate: await customerCa.issue(['shop.ten.test']) });
      hosts['shop.ten.test'] = fixture.domainId;
      // The agent's map holds the IPv6 address (each request reads it; no per-request lookup).
      await waitFor('the IPv6 origin address in the agent\'s map', async () => (await readFile(path.join(edge.stateDir, 'origins.map'), 'utf8').catch(() => '')).includes('v6.vendor.test ::1'), 20_000, 200);
      const res = await edgeGet(edge.port, 'shop.ten.test', { ca: customerCa.pem });
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ origin: 'v6.vendor.test', headers: { host: 'shop.ten.test' } });
      expect(v6.requests.at(-1)?.remoteAddress).toBe('::1');

      // A name that later answers with a cloud metadata service's IPv6 address (AWS: fd00:ec2::254).
      dns.set('metadata.vendor.test', [{ type: 'AAAA', value: 'fd00:ec2::254' }]);
      const metadata = await insertDomain(database.db, { hostname: 'shop.eleven.test', destinationHost: 'metadata.vendor.test', certificate: await customerCa.issue(['shop.eleven.test']) });
      hosts['shop.eleven.test'] = metadata.domainId;
      const strict = await startEdgeProcess({ databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath, env: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'false' } });
      try {
        const before = v6.requests.length;
        for (const hostname of ['shop.ten.test', 'shop.eleven.test']) {
          const refused = await edgeGet(strict.port, hostname, { ca: customerCa.pem });
          expect([hostname, refused.status, refused.headers['x-hostgate-error']]).toEqual([hostname, 502, 'origin_address_forbidden']);
        }
        expect(v6.requests.length).toBe(before);
      } finally {
        await strict.stop();
        await strict.cleanup();
      }
    } finally {
      await v6.close();
    }
  }, 90_000);

  it('with private targets not allowed (production), refuses an origin on a private address: 502 origin_address_forbidden, nothing sent', async () => {
    const strict = await startEdgeProcess({ databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath, env: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'false' } });
    try {
      const before = origin.requests.length;
      const res = await edgeGet(strict.port, 'shop.one.test', { ca: customerCa.pem });
      expect([res.status, res.headers['x-hostgate-error']]).toEqual([502, 'origin_address_forbidden']);
      expect(res.body).toMatch(/app\.vendor\.test\) resolves to an address this service does not connect to/);
      expect(origin.requests.length).toBe(before);
    } finally {
      await strict.stop();
      await strict.cleanup();
    }
  }, 60_000);
});
