// The edge agent's pure parts: certificate and hostname checks, the desired-state diff, counter
// deltas, HAProxy answer parsing and the generated configuration (checked by haproxy -c itself).
import { describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { certificateKeyContext as activitiesContext } from '../activities/certificates.ts';
import { counterDelta } from '../db/repositories/edge.ts';
import { destinationHosts, diff, parseRoute, routeValue, type ServedHost } from '../edge/agent/desired-diff.ts';
import { ensureDefaultCertificate, prepareStateDir, renderConfig, statePaths } from '../edge/agent/haproxy-files.ts';
import { allocatorPreload, isOurHaproxy, parseShowProc } from '../edge/agent/haproxy-supervisor.ts';
import { createListFiles } from '../edge/agent/list-files.ts';
import { ServedIndex } from '../edge/agent/served-index.ts';
import { createOriginAddresses, nextAddress, originMapContent, refreshDelayMs, type Lookup } from '../edge/agent/origin-addresses.ts';
import { certificateKeyContext, redirectValue, type DesiredHost } from '../edge/agent/snapshot.ts';
import { haproxyThreads } from '../edge/agent/settings.ts';
import { checkCertificate, checkDestination, checkHostname } from '../edge/agent/validate.ts';
import { createLogger } from '../logging/logger.ts';
import { createTestCa } from './support/origin.ts';

const run = promisify(execFile);

describe('certificate and hostname checks', () => {
  it('accepts a matching certificate and key, and returns a PEM without blank lines', async () => {
    const ca = await createTestCa();
    try {
      const { certPem, keyPem } = await ca.issue(['shop.example.test']);
      const result = checkCertificate('shop.example.test', `${certPem}\n\n${ca.pem}`, `\n${keyPem}\n`);
      expect(result.ok).toBe(true);
      if (!result.ok) return;
      expect(result.value.pem).not.toMatch(/\n\s*\n/);
      expect(result.value.pem.match(/BEGIN CERTIFICATE/g)).toHaveLength(2);
      expect(result.value.pem).toMatch(/PRIVATE KEY-----\n$/);

      const other = await ca.issue(['other.example.test']);
      expect(checkCertificate('shop.example.test', certPem, other.keyPem)).toMatchObject({ ok: false, problem: { code: 'key_mismatch' } });
      expect(checkCertificate('other.example.test', certPem, keyPem)).toMatchObject({ ok: false, problem: { code: 'certificate_name_mismatch' } });
      expect(checkCertificate('shop.example.test', 'garbage', keyPem)).toMatchObject({ ok: false, problem: { code: 'certificate_unreadable' } });
      expect(checkCertificate('shop.example.test', certPem, 'garbage')).toMatchObject({ ok: false, problem: { code: 'key_unreadable' } });
      expect(checkCertificate('shop.example.test', certPem, keyPem, new Date(Date.now() + 10 * 86_400_000))).toMatchObject({ ok: false, problem: { code: 'certificate_expired' } });
    } finally {
      await ca.close();
    }
  });

  it('refuses names that cannot go into HAProxy files as they are', () => {
    expect(checkHostname('shop.example.com')).toBeNull();
    for (const bad of ['Shop.example.com', 'shop example.com', 'shop.example.com\nx', 'a/../b.com', 'nodot', '-a.com', 'a'.repeat(64) + '.com', 'x|y.com']) {
      expect(checkHostname(bad)).toMatchObject({ code: 'invalid_hostname' });
    }
    expect(checkDestination('app.vendor.com', 443)).toBeNull();
    expect(checkDestination('app vendor', 443)).toMatchObject({ code: 'invalid_destination' });
    expect(checkDestination('app.vendor.com', 0)).toMatchObject({ code: 'invalid_destination' });
  });

  it('opens keys with the context the certificate activities sealed them with', () => {
    expect(certificateKeyContext('crt_x')).toBe(activitiesContext('crt_x'));
  });
});

describe('desired-state diff', () => {
  const host = (hostname: string, certId: string | null, mode: DesiredHost['mode'] = 'serve'): DesiredHost => ({
    hostname, domainId: `dom_${hostname}`, mode, destinationHost: 'app.vendor.test', destinationPort: 443,
    certificate: certId ? { id: certId, pem: `pem-${certId}`, serial: '01' } : null,
    redirect: null, minTls: '1.2', hsts: null,
  });
  const served = (entries: [string, ServedHost][]) => new Map(entries);

  it('adds, renews, suspends and removes, leaving what is right alone', () => {
    const desired = new Map([
      ['new.test', host('new.test', 'crt_1')],
      ['same.test', host('same.test', 'crt_2')],
      ['renewed.test', host('renewed.test', 'crt_4')],
      ['paused.test', host('paused.test', 'crt_5', 'suspended')],
    ]);
    const have = served([
      ['same.test', { route: routeValue(host('same.test', 'crt_2')), inCrtList: true }],
      ['renewed.test', { route: routeValue(host('renewed.test', 'crt_3')), inCrtList: true }],
      ['paused.test', { route: routeValue(host('paused.test', 'crt_5')), inCrtList: true }],
      ['gone.test', { route: routeValue(host('gone.test', 'crt_6')), inCrtList: true }],
    ]);
    const changes = diff(desired, have, () => true);
    const by = Object.fromEntries(changes.map((c) => [c.hostname, c]));
    expect(Object.keys(by).sort()).toEqual(['gone.test', 'new.test', 'paused.test', 'renewed.test']);
    expect(by['new.test']).toMatchObject({ putCertificate: { id: 'crt_1', listed: false }, route: routeValue(host('new.test', 'crt_1')) });
    expect(by['renewed.test']).toMatchObject({ putCertificate: { id: 'crt_4', listed: true } });
    expect(by['paused.test']!.putCertificate).toBeUndefined();
    expect(parseRoute(by['paused.test']!.route!)).toMatchObject({ mode: 'suspended', certificateId: 'crt_5' });
    expect(by['gone.test']).toMatchObject({ route: null, dropCertificate: true, domainId: 'dom_gone.test' });
  });

  it('re-sends a certificate whose route still names the old one (crash between the two)', () => {
    const want = host('a.test', 'crt_new');
    const changes = diff(new Map([['a.test', want]]), served([['a.test', { route: routeValue(host('a.test', 'crt_old')), inCrtList: true }]]), () => true);
    expect(changes[0]).toMatchObject({ putCertificate: { id: 'crt_new' }, route: routeValue(want) });
  });

  it('carries redirect and HSTS in a nine-field route, and re-lists a certificate whose TLS minimum changed (issue 23)', () => {
    const want: DesiredHost = { ...host('r.test', 'crt_r'), redirect: redirectValue({ to: 'apex.test', status: 308, preserve_path: true }), hsts: 'max-age=600_includeSubDomains' };
    expect(routeValue(want)).toBe('app.vendor.test|443|dom_r.test|serve|crt_r|308|1|https://apex.test|max-age=600_includeSubDomains');
    expect(parseRoute(routeValue(want))).toMatchObject({ domainId: 'dom_r.test', certificateId: 'crt_r' });
    expect(redirectValue({ to: 'https://x.test/a|b;c', status: 301, preserve_path: false })).toBe('301|0|https://x.test/a%7Cb%3Bc');
    const tls13: DesiredHost = { ...host('t.test', 'crt_t'), minTls: '1.3' };
    const listed = served([['t.test', { route: routeValue(tls13), inCrtList: true, tls13: false }]]);
    expect(diff(new Map([['t.test', tls13]]), listed, () => true)).toEqual([expect.objectContaining({ hostname: 't.test', relist: true, tls13: true })]);
    expect(diff(new Map([['t.test', tls13]]), served([['t.test', { route: routeValue(tls13), inCrtList: true, tls13: true }]]), () => true)).toEqual([]);
  });

  it('removes only hosts in scope on a targeted pass', () => {
    const have = served([['x.test', { route: routeValue(host('x.test', 'crt_x')), inCrtList: true }], ['y.test', { route: routeValue(host('y.test', 'crt_y')), inCrtList: true }]]);
    const changes = diff(new Map(), have, (_h, route) => parseRoute(route!)!.domainId === 'dom_x.test');
    expect(changes.map((c) => c.hostname)).toEqual(['x.test']);
  });
});

describe('bandwidth counters', () => {
  it('turns absolute counters into deltas; a reset or another worker counts from zero', () => {
    expect(counterDelta(undefined, 'w1', 500)).toBe(500);
    expect(counterDelta({ processKey: 'w1', value: 500 }, 'w1', 800)).toBe(300);
    expect(counterDelta({ processKey: 'w1', value: 500 }, 'w1', 500)).toBe(0);
    expect(counterDelta({ processKey: 'w1', value: 500 }, 'w1', 120)).toBe(120);
    expect(counterDelta({ processKey: 'w1', value: 500 }, 'w2', 900)).toBe(900);
  });
});

describe('HAProxy answers and configuration', () => {
  it('parses show proc of the master CLI', () => {
    const text = `#<PID>          <type>          <reloads>       <uptime>        <version>
23888           master          2 [failed: 1]   0d00h10m36s     2.6.12-1+deb12u4
# workers
31407           worker          0               0d00h10m08s     2.6.12-1+deb12u4
# old workers
31000           worker          1               0d00h11m08s     2.6.12-1+deb12u4
# programs
`;
    expect(parseShowProc(text)).toEqual({ masterPid: 23888, workerPid: 31407, reloads: 2, failed: 1 });
    expect(parseShowProc('Unknown command')).toBeNull();
  });

  it('runs one HAProxy thread on an edge of ≤ 2 CPUs unless told otherwise, HAProxy\'s default above', async () => {
    expect([1, 2, 3, 8].map((cpus) => haproxyThreads(0, cpus))).toEqual([1, 1, 0, 0]);
    expect([1, 2, 8].map((cpus) => haproxyThreads(4, cpus))).toEqual([4, 4, 4]);
    const dir = await mkdtemp(path.join(tmpdir(), 'hg-edge-thr-'));
    try {
      const values = { edgeId: 'edge-unit', forbiddenOrigins: null, bindAddress: '127.0.0.1', httpsPort: 18443, originCaFile: '@system-ca', resolvers: [], hstsMaxAge: 0 };
      expect(await renderConfig(statePaths(dir), { ...values, threads: haproxyThreads(0, 2) })).toMatch(/^\s*nbthread 1$/m);
      expect(await renderConfig(statePaths(dir), { ...values, threads: haproxyThreads(0, 4) })).not.toMatch(/^\s*nbthread/m);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does not take a stale pid file\'s pid for its HAProxy', async () => {
    expect(await isOurHaproxy(process.pid, '/tmp/x/haproxy.cfg')).toBe(false);
    expect(await isOurHaproxy(2 ** 22 + 12345, '/tmp/x/haproxy.cfg')).toBe(false);
  });

  it('generates a configuration HAProxy accepts, with HSTS only when asked', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hg-edge-cfg-'));
    try {
      const paths = statePaths(dir);
      await prepareStateDir(paths);
      await ensureDefaultCertificate(paths);
      await writeFile(paths.crtList, '');
      await writeFile(paths.hostMap, '');
      await writeFile(paths.originMap, 'app.vendor.test 192.0.2.10\n');
      const values = { edgeId: 'edge-unit', forbiddenOrigins: null, bindAddress: '127.0.0.1', httpsPort: 18443, originCaFile: '@system-ca', resolvers: ['127.0.0.1:5353'], hstsMaxAge: 0, threads: 1 };
      const off = await renderConfig(paths, values);
      expect(off).not.toMatch(/Strict-Transport-Security "/);
      expect(off).toMatch(/nameserver ns1 127\.0\.0\.1:5353/);
      expect(off).toMatch(/Origins on private addresses allowed/);
      expect(off).toMatch(/if \{ req\.hdr\(x-hostgate-via\) -m str edge-unit \}/);
      expect(off).toMatch(/add-header X-Hostgate-Via edge-unit/);
      const on = await renderConfig(paths, { ...values, hstsMaxAge: 31536000, resolvers: [], forbiddenOrigins: { ipv4: ['10.0.0.0/8', '203.0.113.7/32'], ipv6Allowed: '2000::/3', ipv6: ['2001:db8::/32', '2606:4700::7/128'] } });
      expect(on).toMatch(/set-header Strict-Transport-Security "max-age=31536000"/);
      expect(on).toMatch(/parse-resolv-conf/);
      expect(on).toMatch(/acl origin_ipv6 var\(txn\.dstip\) -m sub :/);
      expect(on).toMatch(/X-Hostgate-Error origin_address_forbidden .* if !origin_ipv6 \{ var\(txn\.dstip\) -m ip 10\.0\.0\.0\/8 203\.0\.113\.7\/32 \}/);
      expect(on).toMatch(/X-Hostgate-Error origin_address_forbidden .* if origin_ipv6 !\{ var\(txn\.dstip\) -m ip 2000::\/3 \} \|\| origin_ipv6 \{ var\(txn\.dstip\) -m ip 2001:db8::\/32 2606:4700::7\/128 \}/);
      for (const config of [off, on]) {
        await writeFile(paths.config, config);
        const { stdout, stderr } = await run('/usr/sbin/haproxy', ['-c', '-f', paths.config]);
        expect(`${stdout}${stderr}`).toMatch(/Configuration file is valid/);
      }
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('origin addresses (the agent looks origins up; HAProxy reads the map)', () => {
  const address = (addresses: string[], ttlMs = 60_000): Lookup => ({ kind: 'address', addresses, ttlMs });
  const served = (entries: [string, ServedHost][]) => new Map(entries);

  it('keeps the current address while the name still lists it, removes it for a name that is gone, keeps it when a lookup fails', () => {
    expect(nextAddress(undefined, address(['192.0.2.1', '192.0.2.2']))).toBe('192.0.2.1');
    expect(nextAddress('192.0.2.2', address(['192.0.2.1', '192.0.2.2']))).toBe('192.0.2.2');
    expect(nextAddress('192.0.2.9', address(['192.0.2.1']))).toBe('192.0.2.1');
    expect(nextAddress('192.0.2.9', { kind: 'none' })).toBeNull();
    expect(nextAddress('192.0.2.9', address([]))).toBeNull();
    expect(nextAddress('192.0.2.9', { kind: 'failed', code: 'ETIMEOUT' })).toBeUndefined();
    expect(nextAddress(undefined, { kind: 'failed', code: 'ESERVFAIL' })).toBeUndefined();
    // IPv6-only origins: their first address; IPv4 wins whenever the name has both.
    expect(nextAddress(undefined, address(['2001:db8::1', '2001:db8::2']))).toBe('2001:db8::1');
    expect(nextAddress('2001:db8::2', address(['2001:db8::1', '2001:db8::2']))).toBe('2001:db8::2');
    expect(nextAddress('2001:db8::2', address(['2001:db8::2', '192.0.2.1']))).toBe('192.0.2.1');
  });

  it('looks again after the TTL, within 5 s and the configured maximum', () => {
    expect(refreshDelayMs(address(['192.0.2.1'], 300_000), 30_000)).toBe(30_000);
    expect(refreshDelayMs(address(['192.0.2.1'], 12_000), 30_000)).toBe(12_000);
    expect(refreshDelayMs(address(['192.0.2.1'], 0), 30_000)).toBe(5_000);
    expect(refreshDelayMs({ kind: 'none' }, 30_000)).toBe(5_000);
    expect(refreshDelayMs(address(['192.0.2.1'], 60_000), 1_000)).toBe(1_000);
  });

  it('names the destination hosts of the served routes once each', () => {
    const have = served([
      ['a.test', { route: 'app.vendor.test|443|dom_a|serve|crt_a', inCrtList: true }],
      ['b.test', { route: 'app.vendor.test|8443|dom_b|serve|crt_b', inCrtList: true }],
      ['c.test', { route: 'other.vendor.test|443|dom_c|suspended|-', inCrtList: false }],
      ['d.test', { route: null, inCrtList: true }],
    ]);
    expect([...destinationHosts(have)].sort()).toEqual(['app.vendor.test', 'other.vendor.test']);
    expect(originMapContent(new Map([['b.test', '192.0.2.2'], ['a.test', '192.0.2.1']]))).toBe('a.test 192.0.2.1\nb.test 192.0.2.2\n');
  });

  it('writes the file before HAProxy starts, then changes HAProxy\'s map only where an address changed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hg-edge-origins-'));
    try {
      const mapFile = path.join(dir, 'origins.map');
      const answers = new Map<string, Lookup>([['app.vendor.test', address(['192.0.2.1'], 0)], ['gone.vendor.test', { kind: 'none' }]]);
      const commands: string[] = [];
      let haproxyMap = '';
      const admin = {
        master: async () => '',
        worker: async (command: string) => { commands.push(command); return command.startsWith('show map') ? haproxyMap : ''; },
      };
      const origins = createOriginAddresses({
        admin, mapFile, resolvers: [], maxRefreshMs: 1_000, logger: createLogger('silent', 'test'),
        lookup: async (host) => answers.get(host) ?? { kind: 'failed', code: 'ETIMEOUT' },
      });
      await origins.prepare(['app.vendor.test', 'gone.vendor.test']);
      expect(await readFile(mapFile, 'utf8')).toBe('app.vendor.test 192.0.2.1\n');
      expect(commands).toEqual([]);
      haproxyMap = `0x55d0 app.vendor.test 192.0.2.1\n`;
      await origins.adopt();
      expect(commands).toEqual([`show map ${mapFile}`]);

      // A new destination is looked up at once; one that is no longer used leaves the map.
      answers.set('new.vendor.test', address(['192.0.2.7']));
      await origins.track(['app.vendor.test', 'new.vendor.test']);
      expect(commands.slice(1)).toEqual([`add map ${mapFile} new.vendor.test 192.0.2.7`]);
      await origins.track(['new.vendor.test']);
      expect(commands.slice(2)).toEqual([`del map ${mapFile} app.vendor.test`]);

      // A moved address is set when its lookup is due; a failed lookup keeps the last one.
      answers.set('new.vendor.test', address(['192.0.2.8']));
      await origins.refresh();
      expect(commands.slice(3)).toEqual([]); // not due yet (TTL 60 s, at most 1 s here)
      await new Promise((r) => setTimeout(r, 1_100));
      await origins.refresh();
      expect(commands.slice(3)).toEqual([`set map ${mapFile} new.vendor.test 192.0.2.8`]);
      answers.delete('new.vendor.test');
      await new Promise((r) => setTimeout(r, 1_100));
      await origins.refresh();
      expect(commands.slice(4)).toEqual([]);
      expect(await readFile(mapFile, 'utf8')).toBe('new.vendor.test 192.0.2.8\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('does not hold HAProxy\'s start back on a DNS server that does not answer', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hg-edge-origins-'));
    try {
      const mapFile = path.join(dir, 'origins.map');
      const origins = createOriginAddresses({
        admin: { master: async () => '', worker: async () => '' }, mapFile, resolvers: [], maxRefreshMs: 30_000,
        logger: createLogger('silent', 'test'), prepareBudgetMs: 300,
        // One name answers, the other never does (a dead DNS server would take seconds per name).
        lookup: (host) => (host === 'fast.vendor.test' ? Promise.resolve(address(['192.0.2.1'])) : new Promise<Lookup>(() => {})),
      });
      const started = Date.now();
      await origins.prepare(['fast.vendor.test', 'slow.vendor.test']);
      expect(Date.now() - started).toBeLessThan(5_000);
      expect(await readFile(mapFile, 'utf8')).toBe('fast.vendor.test 192.0.2.1\n');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('one change costs the same at any size (issue 26)', () => {
  const route = (domainId: string, destination = 'app.vendor.test') => `${destination}|8443|${domainId}|serve|crt_${domainId}`;

  it('indexes a domain\'s hosts, the destinations in use and the routed count as hosts come and go', () => {
    const index = new ServedIndex();
    index.rebuild(new Map<string, ServedHost>([['a.test', { route: route('dom_a'), inCrtList: true }], ['b.test', { route: route('dom_b', 'other.test'), inCrtList: true }]]));
    expect(index.servingCount()).toBe(2);
    expect([...index.destinations()].sort()).toEqual(['app.vendor.test', 'other.test']);
    index.note('c.test', undefined, { route: route('dom_c'), inCrtList: true });
    index.note('b.test', { route: route('dom_b', 'other.test'), inCrtList: true }, undefined);
    expect(index.servingCount()).toBe(2);
    expect([...index.destinations()]).toEqual(['app.vendor.test']);
    expect([...index.hostsOf(['dom_a', 'dom_c'])].sort()).toEqual(['a.test', 'c.test']);
    // A host that left stays listed under its domain: the targeted diff checks it against `served`.
    expect([...index.hostsOf(['dom_b'])]).toEqual(['b.test']);
  });

  it('preloads jemalloc into HAProxy when installed, the system allocator when asked, a given path only if it exists', () => {
    const only = (...present: string[]) => (p: string) => present.includes(p);
    expect(allocatorPreload('auto', only('/usr/lib/x86_64-linux-gnu/libjemalloc.so.2'))).toBe('/usr/lib/x86_64-linux-gnu/libjemalloc.so.2');
    expect(allocatorPreload('auto', only())).toBeNull();
    expect(allocatorPreload('system', only('/usr/lib/x86_64-linux-gnu/libjemalloc.so.2'))).toBeNull();
    expect(allocatorPreload('/opt/tcmalloc.so', only('/opt/tcmalloc.so'))).toBe('/opt/tcmalloc.so');
    expect(() => allocatorPreload('/opt/missing.so', only())).toThrow(/HOSTGATE_EDGE_HAPROXY_MALLOC names \/opt\/missing.so/);
  });

  it('looks only at the candidate hosts on a targeted pass', () => {
    const served = new Map<string, ServedHost>([['a.test', { route: route('dom_a'), inCrtList: true }], ['b.test', { route: route('dom_b'), inCrtList: true }]]);
    const everyone = () => true;
    expect(diff(new Map(), served, everyone, ['b.test', 'gone.test']).map((c) => c.hostname)).toEqual(['b.test']);
    expect(diff(new Map(), served, everyone).map((c) => c.hostname)).toEqual(['a.test', 'b.test']);
  });

  it('appends an added host to the crt-list and map, and rewrites them for anything else', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hg-lists-'));
    try {
      const paths = statePaths(dir);
      const lists = createListFiles(paths);
      const served = new Map<string, ServedHost>([['b.test', { route: route('dom_b'), inCrtList: true }]]);
      await lists.rewrite(served);
      const before = await readFile(paths.crtList, 'utf8');
      served.set('a.test', { route: route('dom_a'), inCrtList: true, tls13: true });
      await lists.update(served, ['a.test']);
      const crt = await readFile(paths.crtList, 'utf8');
      // Appended (b before a), nothing rewritten: the old content is a prefix.
      expect(crt.startsWith(before)).toBe(true);
      expect(crt.trim().split('\n')).toEqual([
        `${paths.certificate('b.test')} [alpn h2,http/1.1] b.test`,
        `${paths.certificate('a.test')} [alpn h2,http/1.1 ssl-min-ver TLSv1.3] a.test`,
      ]);
      expect((await readFile(paths.hostMap, 'utf8')).trim().split('\n')).toEqual([`b.test ${route('dom_b')}`, `a.test ${route('dom_a')}`]);
      // A removal and a route change rewrite; an unchanged host writes nothing.
      served.delete('b.test');
      served.set('a.test', { route: route('dom_a', 'moved.test'), inCrtList: true, tls13: true });
      await lists.update(served, ['a.test', 'b.test']);
      expect((await readFile(paths.crtList, 'utf8')).trim().split('\n')).toEqual([`${paths.certificate('a.test')} [alpn h2,http/1.1 ssl-min-ver TLSv1.3] a.test`]);
      expect(await readFile(paths.hostMap, 'utf8')).toBe(`a.test ${route('dom_a', 'moved.test')}\n`);
      await lists.update(served, ['a.test']);
      expect(await readFile(paths.hostMap, 'utf8')).toBe(`a.test ${route('dom_a', 'moved.test')}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('rewrites at its first update (files it did not write may be on disk)', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'hg-lists-'));
    try {
      const paths = statePaths(dir);
      await writeFile(paths.crtList, 'stale line\n');
      await writeFile(paths.hostMap, 'stale.test x\n');
      const served = new Map<string, ServedHost>([['a.test', { route: route('dom_a'), inCrtList: false }]]);
      await createListFiles(paths).update(served, ['a.test']);
      expect(await readFile(paths.crtList, 'utf8')).toBe('');
      expect(await readFile(paths.hostMap, 'utf8')).toBe(`a.test ${route('dom_a')}\n`);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
