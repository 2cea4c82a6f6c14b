// Issue 23 at the edge, on real HAProxy with real TLS and two HTTPS origins on loopback: a
// re-point under load (no failed request, the new origin within 2 s, the same certificate), a
// destination's new URL, redirects (status, path, URL or sibling hostname, HTTP/1.1 and HTTP/2,
// the hostname's own certificate), TLS 1.3-only hostnames and per-hostname HSTS. Changes go
// through the repositories the PATCH routes use (test/domain-patch.test.ts covers the API).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http2 from 'node:http2';
import tls from 'node:tls';
import { sql } from 'slonik';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository, type DomainPatch } from '../db/repositories/domains.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { edgeGet, insertDomain, serialOf, startEdgeProcess, type EdgeProcess, type ServedFixture } from './support/haproxy-edge.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { waitFor } from './support/wait.ts';

describe('edge: re-point, redirects and TLS settings (issue 23)', () => {
  let database: TestDatabase;
  let dns: TestDnsServer;
  let originCa: TestCa;
  let customerCa: TestCa;
  let originA: TestOrigin;
  let originB: TestOrigin;
  let edge: EdgeProcess;
  const fx: Record<string, ServedFixture & { serial: string }> = {};

  beforeAll(async () => {
    database = await createTestDatabase();
    dns = await startTestDnsServer();
    originCa = await createTestCa('Origin test CA');
    customerCa = await createTestCa('Customer test CA');
    originA = await startTestOrigin(originCa, ['app-a.vendor.test']);
    originB = await startTestOrigin(originCa, ['app-b.vendor.test', 'app-c.vendor.test']);
    dns.set('app-a.vendor.test', [{ type: 'A', value: originA.ip }]);
    dns.set('app-b.vendor.test', [{ type: 'A', value: originB.ip }]);
    dns.set('app-c.vendor.test', [{ type: 'A', value: originB.ip }]);
    const org = (await insertDomain(database.db, { hostname: 'plain.settings.test', destinationHost: 'app-a.vendor.test', certificate: await customerCa.issue(['plain.settings.test']) }));
    fx['plain.settings.test'] = { ...org, serial: '' };
    for (const hostname of ['repoint.settings.test', 'moved.settings.test', 'www.shop.settings.test', 'shop.settings.test', 'go.settings.test', 'modern.settings.test', 'strict.settings.test']) {
      const cert = await customerCa.issue([hostname]);
      fx[hostname] = { ...(await insertDomain(database.db, { hostname, destinationHost: 'app-a.vendor.test', certificate: cert, organizationId: org.organizationId })), serial: serialOf(cert.certPem) };
    }
    edge = await startEdgeProcess({ databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath, env: { HOSTGATE_EDGE_ORIGIN_DNS_REFRESH_MS: '1000' } });
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await originA?.close();
    await originB?.close();
    await originCa?.close();
    await customerCa?.close();
    await dns?.close();
    await database?.drop();
  });

  const patch = async (hostname: string, p: DomainPatch) => {
    const f = fx[hostname]!;
    const result = await database.db.transaction((tx) => domainsRepository(database.db).update(tx, f.organizationId, f.domainId, p));
    expect(result.result).toBe('updated');
  };
  const originOf = async (hostname: string, path = '/') => JSON.parse((await edgeGet(edge.port, hostname, { path, ca: customerCa.pem })).body).origin as string;
  const certificates = async () => Number(await database.db.oneFirst(sql.unsafe`select count(*)::int from certificates`));

  it('re-points under load: no failed request, the new origin within 2 s, the same certificate', async () => {
    const host = 'repoint.settings.test';
    expect(await originOf(host)).toBe('app-a.vendor.test');
    const certsBefore = await certificates();
    const dstB = await destinationsRepository(database.db).create({ organizationId: fx[host]!.organizationId, url: 'https://app-b.vendor.test:8443', host: 'app-b.vendor.test', port: 8443 });
    let stop = false;
    let failed = 0;
    const answers: Array<{ at: number; origin: string; serial: string }> = [];
    const loop = async () => {
      while (!stop) {
        try {
          const res = await edgeGet(edge.port, host, { ca: customerCa.pem });
          if (res.status !== 200) failed++;
          else answers.push({ at: Date.now(), origin: JSON.parse(res.body).origin, serial: res.serial });
        } catch { failed++; }
      }
    };
    const loops = [loop(), loop(), loop(), loop()];
    await new Promise((r) => setTimeout(r, 300));
    const patchedAt = Date.now();
    await patch(host, { destinationId: dstB.id });
    await waitFor('the change at the edge', async () => answers.some((a) => a.at > patchedAt && a.origin === 'app-b.vendor.test'), 5000);
    await new Promise((r) => setTimeout(r, 300));
    stop = true;
    await Promise.all(loops);
    const firstB = answers.find((a) => a.origin === 'app-b.vendor.test')!;
    expect(failed).toBe(0);
    expect(firstB.at - patchedAt).toBeLessThan(2000);
    // Once switched, it stays switched; the certificate never changed and none was ordered.
    expect(answers.filter((a) => a.at > firstB.at + 50 && a.origin !== 'app-b.vendor.test')).toEqual([]);
    expect(new Set(answers.map((a) => a.serial))).toEqual(new Set([fx[host]!.serial]));
    expect(await certificates()).toBe(certsBefore);
  }, 30_000);

  it("a destination's new URL re-routes its domains within 2 s", async () => {
    const host = 'moved.settings.test';
    expect(await originOf(host)).toBe('app-a.vendor.test');
    const at = Date.now();
    await database.db.transaction((tx) => destinationsRepository(database.db).update(fx[host]!.organizationId, fx[host]!.destinationId, { url: 'https://app-c.vendor.test:8443', host: 'app-c.vendor.test', port: 8443 }, tx));
    await waitFor('the change at the edge', async () => (await originOf(host)) === 'app-b.vendor.test', 5000);
    expect(Date.now() - at).toBeLessThan(2000);
  }, 15_000);

  it('redirects to a sibling hostname keeping path and query, and to a URL without, with the hostname\'s own certificate', async () => {
    await patch('www.shop.settings.test', { redirect: { to: 'shop.settings.test', status: 308, preserve_path: true } });
    await patch('go.settings.test', { redirect: { to: 'https://example.org/landing', status: 301, preserve_path: false } });
    await waitFor('the change at the edge', async () => (await edgeGet(edge.port, 'go.settings.test', { ca: customerCa.pem })).status === 301, 5000);
    const seenBefore = originA.requests.length;
    const www = await edgeGet(edge.port, 'www.shop.settings.test', { path: '/cart/1?x=2&y=3', ca: customerCa.pem });
    expect([www.status, www.headers.location, www.serial, www.authorized]).toEqual([308, 'https://shop.settings.test/cart/1?x=2&y=3', fx['www.shop.settings.test']!.serial, true]);
    const go = await edgeGet(edge.port, 'go.settings.test', { path: '/anything?q=1', ca: customerCa.pem });
    expect([go.status, go.headers.location, go.serial]).toEqual([301, 'https://example.org/landing', fx['go.settings.test']!.serial]);
    // The sibling itself is proxied as before; nothing reached the origin for the redirecting names.
    expect(await originOf('shop.settings.test')).toBe('app-a.vendor.test');
    expect(originA.requests.slice(seenBefore).some((r) => r.headers.host === 'www.shop.settings.test' || r.headers.host === 'go.settings.test')).toBe(false);
    // HTTP/2: the same answer.
    const h2 = await http2Get(edge.port, 'www.shop.settings.test', '/a?b=c', customerCa.pem);
    expect([h2.status, h2.location]).toEqual([308, 'https://shop.settings.test/a?b=c']);
    // 302/307 and the redirect removed again.
    await patch('go.settings.test', { redirect: { to: 'https://example.org/', status: 307, preserve_path: true } });
    await waitFor('the change at the edge', async () => (await edgeGet(edge.port, 'go.settings.test', { path: '/p?q', ca: customerCa.pem })).headers.location === 'https://example.org/p?q', 5000);
    await patch('go.settings.test', { redirect: null });
    await waitFor('the change at the edge', async () => (await edgeGet(edge.port, 'go.settings.test', { ca: customerCa.pem })).status === 200, 5000);
  }, 30_000);

  it('min_version 1.3 refuses a TLS 1.2 handshake for that hostname only', async () => {
    await patch('modern.settings.test', { tlsMinVersion: '1.3' });
    await waitFor('the change at the edge', async () => (await handshake(edge.port, 'modern.settings.test', 'TLSv1.2')) !== 'TLSv1.2', 5000);
    expect(await handshake(edge.port, 'modern.settings.test', 'TLSv1.2')).toMatch(/^refused/);
    expect(await handshake(edge.port, 'modern.settings.test', 'TLSv1.3')).toBe('TLSv1.3');
    expect(await handshake(edge.port, 'plain.settings.test', 'TLSv1.2')).toBe('TLSv1.2');
    // Served as before over 1.3, with its own certificate.
    const res = await edgeGet(edge.port, 'modern.settings.test', { ca: customerCa.pem });
    expect([res.status, res.serial]).toEqual([200, fx['modern.settings.test']!.serial]);
    // And back to 1.2.
    await patch('modern.settings.test', { tlsMinVersion: '1.2' });
    await waitFor('the change at the edge', async () => (await handshake(edge.port, 'modern.settings.test', 'TLSv1.2')) === 'TLSv1.2', 5000);
  }, 20_000);

  it('sends HSTS with the given values only where set', async () => {
    await patch('strict.settings.test', { hsts: { max_age: 31536000, include_subdomains: true, preload: true } });
    await waitFor('the change at the edge', async () => (await edgeGet(edge.port, 'strict.settings.test', { ca: customerCa.pem })).headers['strict-transport-security'] !== undefined, 5000);
    expect((await edgeGet(edge.port, 'strict.settings.test', { ca: customerCa.pem })).headers['strict-transport-security']).toBe('max-age=31536000;includeSubDomains;preload');
    expect((await edgeGet(edge.port, 'plain.settings.test', { ca: customerCa.pem })).headers['strict-transport-security']).toBeUndefined();
    await patch('strict.settings.test', { hsts: null });
    await waitFor('the change at the edge', async () => (await edgeGet(edge.port, 'strict.settings.test', { ca: customerCa.pem })).headers['strict-transport-security'] === undefined, 5000);
  }, 20_000);
});

/** The TLS version a handshake for `servername` capped at `max` got, or `refused: …`. */
function handshake(port: number, servername: string, max: 'TLSv1.2' | 'TLSv1.3'): Promise<string> {
  return new Promise((resolve) => {
    const socket = tls.connect({ host: '127.0.0.1', port, servername, maxVersion: max, minVersion: 'TLSv1.2', rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] }, () => {
      const version = socket.getProtocol() ?? 'unknown';
      socket.end();
      resolve(version);
    });
    socket.setTimeout(5000, () => { socket.destroy(); resolve('refused: timeout'); });
    socket.on('error', (error) => resolve(`refused: ${error.message}`));
  });
}

function http2Get(port: number, hostname: string, path: string, ca: string): Promise<{ status: number; location: string | undefined }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`https://${hostname}:${port}`, { createConnection: () => tls.connect({ host: '127.0.0.1', port, servername: hostname, ca, ALPNProtocols: ['h2'] }) });
    session.on('error', reject);
    const req = session.request({ ':path': path, ':authority': hostname });
    req.on('response', (headers) => {
      resolve({ status: Number(headers[':status']), location: headers.location as string | undefined });
      req.close();
      session.close();
    });
    req.on('error', reject);
    req.end();
  });
}
