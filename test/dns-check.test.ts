// The DNS check activity against a real DNS server on loopback and a real database: what it finds
// is judged, stored in domains.verification and shown as `verification` on reads.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { ApplicationFailure } from '@temporalio/common';
import { createDnsCheckActivities } from '../activities/dns-check.ts';
import { presentDomain } from '../api/presenters/domain.ts';
import type { Config } from '../config/index.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { sql } from '../db/pool.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { freePort } from './support/ports.ts';

describe('checkDns activity', () => {
  let dns: TestDnsServer;
  let database: TestDatabase;
  let config: Config;
  let checkDns: ReturnType<typeof createDnsCheckActivities>['checkDns'];
  let organizationId: string;
  let destinationId: string;

  beforeAll(async () => {
    dns = await startTestDnsServer();
    database = await createTestDatabase();
    config = testConfig({ HOSTGATE_DNS_SERVERS: dns.server, HOSTGATE_CNAME_TARGET: 'edge.hostgate.test', HOSTGATE_EDGE_IPV4: '127.0.0.1' });
    checkDns = createDnsCheckActivities({ db: database.db, config }).checkDns;
    organizationId = (await organizationsRepository(database.db).create({ name: 'DNS check org' })).id;
    destinationId = (await destinationsRepository(database.db).create({ organizationId, url: 'https://app.vendor.example', host: 'app.vendor.example', port: 443 })).id;
    dns.set('edge.hostgate.test', [{ type: 'A', value: '127.0.0.1' }]);
  });
  afterAll(async () => {
    await dns.close();
    await database.drop();
  });

  async function domain(hostname: string, isApex = false): Promise<string> {
    const { domain } = await domainsRepository(database.db).create({ organizationId, destinationId, hostname, isApex });
    return domain.id;
  }

  async function verification(domainId: string) {
    const row = await domainsRepository(database.db).getById(domainId);
    return presentDomain(row!, config).verification;
  }

  it('CNAME to our target: ok, and the verification is stored and shown', async () => {
    dns.set('shop.ok.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
    const id = await domain('shop.ok.test');
    const before = Date.now();
    const result = await checkDns({ domainId: id });
    expect(result).toEqual({ ok: true, problem: null, retryable: false, checked_at: expect.any(String) });
    expect(Date.parse(result.checked_at)).toBeGreaterThanOrEqual(before - 5);
    expect(await verification(id)).toEqual({
      checked_at: result.checked_at,
      expected: [{ type: 'CNAME', name: 'shop.ok.test', value: 'edge.hostgate.test' }],
      found: [{ type: 'CNAME', name: 'shop.ok.test', value: 'edge.hostgate.test' }],
      problem: null,
      verify_requested_at: null,
      dns_broken: false,
    });
  });

  it('a name not yet in DNS: nxdomain', async () => {
    dns.set('other.nx.test', [{ type: 'A', value: '192.0.2.1' }]);
    const id = await domain('shop.nx.test');
    const result = await checkDns({ domainId: id });
    expect(result).toMatchObject({ ok: false, retryable: false, problem: { code: 'nxdomain' } });
    expect(result.problem?.message).toBe('shop.nx.test does not exist in DNS yet. Add a CNAME record for shop.nx.test pointing to edge.hostgate.test.');
    expect(await verification(id)).toMatchObject({ found: [], problem: { code: 'nxdomain' } });
  });

  it('a name that exists without records: no_records', async () => {
    dns.set('deeper.shop.empty.test', [{ type: 'TXT', value: 'x' }]);
    const id = await domain('shop.empty.test');
    expect(await checkDns({ domainId: id })).toMatchObject({ ok: false, problem: { code: 'no_records' } });
  });

  it('a CNAME to another host: wrong_target, saying what to change', async () => {
    dns.set('shop.wrong.test', [{ type: 'CNAME', value: 'old-host.example.test' }]);
    dns.set('old-host.example.test', [{ type: 'A', value: '192.0.2.7' }]);
    const id = await domain('shop.wrong.test');
    const result = await checkDns({ domainId: id });
    expect(result.problem).toEqual({ code: 'wrong_target', message: 'shop.wrong.test points to old-host.example.test. Change its CNAME record to edge.hostgate.test.' });
    expect((await verification(id)).found).toEqual([
      { type: 'CNAME', name: 'shop.wrong.test', value: 'old-host.example.test' },
      { type: 'A', name: 'old-host.example.test', value: '192.0.2.7' },
    ]);
  });

  it('a CNAME loop is reported, not followed forever', async () => {
    dns.set('a.loop.test', [{ type: 'CNAME', value: 'b.loop.test' }]);
    dns.set('b.loop.test', [{ type: 'CNAME', value: 'a.loop.test' }]);
    const id = await domain('a.loop.test');
    expect(await checkDns({ domainId: id })).toMatchObject({ ok: false, problem: { code: 'wrong_target', message: expect.stringMatching(/loop/) } });
  });

  it('apex with our A: ok', async () => {
    dns.set('apex-ok.test', [{ type: 'A', value: '127.0.0.1' }]);
    const id = await domain('apex-ok.test', true);
    expect(await checkDns({ domainId: id })).toMatchObject({ ok: true, problem: null });
    expect((await verification(id)).found).toEqual([{ type: 'A', name: 'apex-ok.test', value: '127.0.0.1' }]);
  });

  it('apex with an extra AAAA: conflicting_records', async () => {
    dns.set('apex-v6.test', [{ type: 'A', value: '127.0.0.1' }, { type: 'AAAA', value: '2001:db8::1' }]);
    const id = await domain('apex-v6.test', true);
    const result = await checkDns({ domainId: id });
    expect(result).toMatchObject({ ok: false, problem: { code: 'conflicting_records', message: expect.stringMatching(/AAAA record 2001:db8::1/) } });
  });

  it('CAA on the parent naming another CA: caa_forbids_ca', async () => {
    dns.set('shop.caa-other.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
    dns.set('caa-other.test', [{ type: 'CAA', tag: 'issue', value: 'digicert.com' }]);
    const id = await domain('shop.caa-other.test');
    const result = await checkDns({ domainId: id });
    expect(result).toMatchObject({ ok: false, retryable: false, problem: { code: 'caa_forbids_ca', message: expect.stringMatching(/caa-other\.test.*digicert\.com.*0 issue "letsencrypt\.org"/) } });
    expect(dns.queries).toEqual(expect.arrayContaining([{ name: 'caa-other.test', type: 'CAA' }]));
  });

  it('CAA on the parent naming letsencrypt.org: ok', async () => {
    dns.set('shop.caa-le.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
    dns.set('caa-le.test', [{ type: 'CAA', tag: 'issue', value: 'letsencrypt.org' }, { type: 'CAA', tag: 'iodef', value: 'mailto:sec@caa-le.test' }]);
    const id = await domain('shop.caa-le.test');
    expect(await checkDns({ domainId: id })).toMatchObject({ ok: true, problem: null });
  });

  it('the closest CAA set wins: one on the name itself overrides the parent', async () => {
    dns.set('shop.caa-near.test', [{ type: 'A', value: '127.0.0.1' }, { type: 'CAA', tag: 'issue', value: 'letsencrypt.org' }]);
    dns.set('caa-near.test', [{ type: 'CAA', tag: 'issue', value: 'digicert.com' }]);
    const id = await domain('shop.caa-near.test');
    expect(await checkDns({ domainId: id })).toMatchObject({ ok: true, problem: null });
  });

  it('a CNAME into Cloudflare: proxied_by_cdn', async () => {
    dns.set('shop.cf.test', [{ type: 'CNAME', value: 'shop.cf.test.cdn.cloudflare.net' }]);
    dns.set('shop.cf.test.cdn.cloudflare.net', [{ type: 'A', value: '104.16.1.1' }]);
    const id = await domain('shop.cf.test');
    const result = await checkDns({ domainId: id });
    expect(result).toMatchObject({ ok: false, problem: { code: 'proxied_by_cdn', message: expect.stringMatching(/turn off the Cloudflare proxy \(orange cloud\) for this record/) } });
  });

  it('keeps other verification keys (dns_broken) when storing a check', async () => {
    dns.set('shop.keep.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
    const id = await domain('shop.keep.test');
    await database.db.query(sql.unsafe`update domains set verification = '{"dns_broken": true}'::jsonb where id = ${id}`);
    await checkDns({ domainId: id });
    const row = await domainsRepository(database.db).getById(id);
    expect(row!.verification).toMatchObject({ dns_broken: true, problem: null });
  });

  it('DNS server down: lookup_failed, retryable, and stored', async () => {
    const closed = await freePort();
    const down = createDnsCheckActivities({ db: database.db, config: testConfig({ HOSTGATE_DNS_SERVERS: `127.0.0.1:${closed}`, HOSTGATE_CNAME_TARGET: 'edge.hostgate.test', HOSTGATE_EDGE_IPV4: '127.0.0.1' }) });
    const id = await domain('shop.down.test');
    const result = await down.checkDns({ domainId: id });
    expect(result).toMatchObject({ ok: false, retryable: true, problem: { code: 'lookup_failed', message: expect.stringMatching(/could not be checked/) } });
    expect(await verification(id)).toMatchObject({ checked_at: result.checked_at, problem: { code: 'lookup_failed' } });
  });

  it('a periodic probe whose lookups fail inside its budget (DNS server down) defers to the DNS task queue, storing nothing', async () => {
    // c-ares ends a try by itself after ~5x the server's recent answer time, often before the
    // probe's 1 s budget: such a probe learned nothing and must not count as a check (CI flake of
    // dns-slow-resolver.test.ts, where the slow domains then never reached the DNS task queue).
    const closed = await freePort();
    const down = createDnsCheckActivities({ db: database.db, config: testConfig({ HOSTGATE_DNS_SERVERS: `127.0.0.1:${closed}`, HOSTGATE_CNAME_TARGET: 'edge.hostgate.test', HOSTGATE_EDGE_IPV4: '127.0.0.1' }) });
    const id = await domain('shop.down-probe.test');
    const row = (await domainsRepository(database.db).getById(id))!;
    const probe = await down.verifyDns({ domainId: id, expectedSeq: row.status_seq, hostname: 'shop.down-probe.test', isApex: false, probe: true });
    expect(probe).toMatchObject({ deferred: true, ok: false, problem: { code: 'lookup_failed' }, state: { status: 'pending_dns', seq: row.status_seq } });
    expect((await domainsRepository(database.db).getById(id))!.verification).toBeNull();
    // The same check on the background lane stores what it found.
    const background = await down.recheckDns({ domainId: id, expectedSeq: row.status_seq, hostname: 'shop.down-probe.test', isApex: false });
    expect(background).toMatchObject({ ok: false, problem: { code: 'lookup_failed' } });
    expect(background).not.toHaveProperty('deferred');
    expect(await verification(id)).toMatchObject({ problem: { code: 'lookup_failed' } });
  });

  it('a missing or deleted domain fails permanently', async () => {
    await expect(checkDns({ domainId: 'dom_missing' })).rejects.toMatchObject({ nonRetryable: true, type: 'DomainNotFound' });
    dns.set('shop.gone.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
    const id = await domain('shop.gone.test');
    await database.db.query(sql.unsafe`update domains set status = 'deleted' where id = ${id}`);
    const failure = await checkDns({ domainId: id }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect(failure).toMatchObject({ nonRetryable: true });
  });

  describe('bounded lookups (a slow resolver cannot hold the worker)', () => {
    const slowConfig = (overrides: Record<string, string>) => testConfig({ HOSTGATE_DNS_SERVERS: dns.server, HOSTGATE_CNAME_TARGET: 'edge.hostgate.test', HOSTGATE_EDGE_IPV4: '127.0.0.1', HOSTGATE_DNS_QUERY_TIMEOUT_MS: '10000', HOSTGATE_DNS_TRIES: '1', ...overrides });
    afterAll(() => dns.setDelay(null));

    it('a local check gives up at its budget with lookup_failed (retryable), stored', async () => {
      dns.set('shop.slow-local.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
      dns.setDelay((name) => (name.endsWith('slow-local.test') ? 3000 : 0));
      const activities = createDnsCheckActivities({ db: database.db, config: slowConfig({ HOSTGATE_DNS_LOCAL_BUDGET_MS: '500' }) });
      const id = await domain('shop.slow-local.test');
      const started = Date.now();
      const result = await activities.checkDns({ domainId: id });
      const took = Date.now() - started;
      expect(took).toBeGreaterThanOrEqual(450);
      expect(took).toBeLessThan(1500);
      expect(result).toMatchObject({ ok: false, retryable: true, problem: { code: 'lookup_failed' } });
      expect(await verification(id)).toMatchObject({ problem: { code: 'lookup_failed' } });
    });

    it('at most HOSTGATE_DNS_LOCAL_CONCURRENCY local checks reach DNS at once; the others give up at the budget', async () => {
      dns.setDelay((name) => (name.endsWith('slow-many.test') ? 2000 : 0));
      const activities = createDnsCheckActivities({ db: database.db, config: slowConfig({ HOSTGATE_DNS_LOCAL_BUDGET_MS: '1000', HOSTGATE_DNS_LOCAL_CONCURRENCY: '2' }) });
      const ids = await Promise.all([1, 2, 3, 4, 5].map((i) => domain(`shop${i}.slow-many.test`)));
      const asked = () => dns.queries.filter((q) => q.name.endsWith('slow-many.test')).length;
      const started = Date.now();
      const checks = Promise.all(ids.map((id) => activities.checkDns({ domainId: id })));
      await new Promise((r) => setTimeout(r, 300));
      // Each check begins with its CNAME question and waits there: two checks, two questions.
      expect(asked()).toBe(2);
      const results = await checks;
      expect(Date.now() - started).toBeLessThan(2500);
      for (const r of results) expect(r).toMatchObject({ ok: false, retryable: true, problem: { code: 'lookup_failed' } });
      // The three that never got a permit never asked anything.
      expect(asked()).toBe(2);
    });

    it('a periodic check probing the local path gives up within a second on slow DNS, storing nothing; answers on fast DNS', async () => {
      dns.set('shop.slow-probe.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
      dns.set('shop.fast-probe.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
      dns.setDelay((name) => (name.endsWith('slow-probe.test') ? 3000 : 0));
      const activities = createDnsCheckActivities({ db: database.db, config: slowConfig({ HOSTGATE_DNS_LOCAL_BUDGET_MS: '3000' }) });
      const slowId = await domain('shop.slow-probe.test');
      const slowRow = (await domainsRepository(database.db).getById(slowId))!;
      const started = Date.now();
      const slow = await activities.verifyDns({ domainId: slowId, expectedSeq: slowRow.status_seq, hostname: 'shop.slow-probe.test', isApex: false, probe: true });
      expect(Date.now() - started).toBeLessThan(1500);
      expect(slow).toMatchObject({ deferred: true, ok: false, state: { status: 'pending_dns', seq: slowRow.status_seq } });
      expect((await domainsRepository(database.db).getById(slowId))!.verification).toBeNull();
      const fastId = await domain('shop.fast-probe.test');
      const fastRow = (await domainsRepository(database.db).getById(fastId))!;
      const fast = await activities.verifyDns({ domainId: fastId, expectedSeq: fastRow.status_seq, hostname: 'shop.fast-probe.test', isApex: false, probe: true });
      expect(fast).toMatchObject({ ok: true, state: { status: 'pending_certificate' } });
      expect(fast.deferred).toBeUndefined();
    });

    it('the periodic (background) check waits for a slow but working resolver and moves the domain', async () => {
      dns.set('shop.slow-bg.test', [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
      dns.setDelay((name) => (name.endsWith('slow-bg.test') ? 1500 : 0));
      const activities = createDnsCheckActivities({ db: database.db, config: slowConfig({ HOSTGATE_DNS_LOCAL_BUDGET_MS: '3000', HOSTGATE_DNS_BACKGROUND_BUDGET_MS: '10000' }) });
      // A worker that has seen fast answers: c-ares now times a try out on its shared channel after
      // 5x their average (about 1 s), whatever the configured 10 s — so the local lane, with 3 s of
      // budget, cannot wait for a 1.5 s answer ...
      for (let i = 1; i <= 3; i++) {
        dns.set(`shop${i}.fast-bg.test`, [{ type: 'CNAME', value: 'edge.hostgate.test' }]);
        expect(await activities.checkDns({ domainId: await domain(`shop${i}.fast-bg.test`) })).toMatchObject({ ok: true });
      }
      const id = await domain('shop.slow-bg.test');
      const local = await activities.checkDns({ domainId: id });
      expect(local).toMatchObject({ ok: false, problem: { code: 'lookup_failed' } });
      // ... and the background lane, on a channel of its own per check, can.
      const row = (await domainsRepository(database.db).getById(id))!;
      const started = Date.now();
      const result = await activities.recheckDns({ domainId: id, expectedSeq: row.status_seq, hostname: 'shop.slow-bg.test', isApex: false });
      expect(Date.now() - started).toBeGreaterThanOrEqual(1400);
      expect(result).toMatchObject({ ok: true, problem: null, state: { status: 'pending_certificate', seq: row.status_seq + 1 } });
      expect(result).not.toHaveProperty('hostname');
    });
  });
});
