// A large edge's fresh start in two stages (issue 26): with more hostnames than
// HOSTGATE_EDGE_BOOT_FIRST_HOSTS, HAProxy starts on the busiest few (by the last day's bytes) and
// serves them while the agent writes the rest and reloads; then every hostname is served, the
// files hold them all, and changes made meanwhile are applied. Real HAProxy and origin.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from '../db/pool.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { edgeGet, insertDomain, setDomainStatus, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { waitFor } from './support/wait.ts';

describe('edge staged boot', () => {
  let database: TestDatabase;
  let dns: TestDnsServer;
  let originCa: TestCa;
  let customerCa: TestCa;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  const domains: Record<string, string> = {};
  const hostnames = ['a', 'b', 'c', 'd', 'e', 'f'].map((x) => `${x}.staged.test`);

  const add = async (hostname: string) => {
    domains[hostname] = (await insertDomain(database.db, { hostname, destinationHost: 'app.vendor.test', certificate: await customerCa.issue([hostname]) })).domainId;
  };
  const served = async (h: string) => {
    const r = await edgeGet(edge.port, h, { ca: customerCa.pem });
    return r.status === 200 && r.authorized;
  };
  const crtListHosts = () => readFileSync(path.join(edge.stateDir, 'crt-list.txt'), 'utf8').trim().split('\n').filter(Boolean).map((l) => l.split(' ').at(-1)).sort();

  beforeAll(async () => {
    database = await createTestDatabase();
    dns = await startTestDnsServer();
    originCa = await createTestCa('Origin test CA');
    customerCa = await createTestCa('Customer test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test']);
    dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    for (const h of hostnames) await add(h);
    // f.staged.test had the most traffic yesterday: it is among the first served.
    await database.db.query(sql.unsafe`
      insert into domain_bandwidth_hourly (domain_id, hour, bytes_in, bytes_out)
      values (${domains['f.staged.test']!}, date_trunc('hour', now()), 1000, 5000000)`);
    edge = await startEdgeProcess({
      databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath,
      env: { HOSTGATE_EDGE_BOOT_FIRST_HOSTS: '2', HOSTGATE_EDGE_RECONCILE_INTERVAL_MS: '60000' },
    });
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await origin?.close();
    await originCa?.close();
    await customerCa?.close();
    await dns?.close();
    await database?.drop();
  });

  it('starts HAProxy on the busiest hostnames, then serves them all after loading the rest', async () => {
    const serving = edge.logs.find((l) => l.msg === 'edge: serving');
    expect(serving).toMatchObject({ mode: 'started', serving: 2, staged: true });
    expect(await served('f.staged.test')).toBe(true);
    await waitFor('the staged boot finished', async () => edge.logs.some((l) => l.msg === 'edge: staged boot: serving every hostname'), 30_000, 100);
    await waitFor('every hostname served', async () => (await Promise.all(hostnames.map(served))).every(Boolean), 15_000, 100);
    expect(crtListHosts()).toEqual(hostnames);
    // HAProxy runs with jemalloc (HOSTGATE_EDGE_HAPROXY_MALLOC=auto; .ci/run installs libjemalloc2).
    const pid = Number(readFileSync(path.join(edge.stateDir, 'haproxy.pid'), 'utf8').trim());
    expect(readFileSync(`/proc/${pid}/maps`, 'utf8')).toMatch(/libjemalloc\.so\.2/);
  }, 60_000);

  it('adds a hostname with an append and removes one with a rewrite, files equal to what is served', async () => {
    await add('g.staged.test');
    await waitFor('g served', () => served('g.staged.test'), 10_000, 50);
    // The files follow the runtime change a moment later (applyChanges writes them after HAProxy took it).
    await waitFor('g in the files', async () => crtListHosts().includes('g.staged.test'), 5_000, 20);
    expect(crtListHosts()).toEqual([...hostnames, 'g.staged.test']);
    const map = readFileSync(path.join(edge.stateDir, 'hosts.map'), 'utf8');
    // Appended at the end, after the sorted rest.
    expect(map.trim().split('\n').at(-1)).toMatch(/^g\.staged\.test /);
    await setDomainStatus(database.db, domains['a.staged.test']!, 'deleting');
    await waitFor('a gone', async () => (await edgeGet(edge.port, 'a.staged.test')).status === 421, 10_000, 50);
    // The crt-list and then the map are rewritten (writeLists, one after the other): wait for both.
    const mapHasA = () => /^a\.staged\.test /m.test(readFileSync(path.join(edge.stateDir, 'hosts.map'), 'utf8'));
    await waitFor('a out of the files', async () => !crtListHosts().includes('a.staged.test') && !mapHasA(), 5_000, 50);
    expect(crtListHosts()).not.toContain('a.staged.test');
    expect(readFileSync(path.join(edge.stateDir, 'hosts.map'), 'utf8')).not.toMatch(/^a\.staged\.test /m);
  }, 40_000);
});
