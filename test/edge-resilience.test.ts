// The edge when things around it fail: Postgres unreachable (the agent's route to it cut), the
// agent killed and started again beside the running HAProxy, HAProxy reloaded and HAProxy
// killed — every hostname keeps or gets back its service, and the bandwidth recorded equals the
// bytes that went through (HTTP bytes in/out incl. headers, computed by the client here).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { sql } from '../db/pool.ts';
import { createAdminSocket } from '../edge/agent/admin-socket.ts';
import { isOurHaproxy } from '../edge/agent/haproxy-supervisor.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { edgeGet, insertDomain, setDomainStatus, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';
import { waitFor } from './support/wait.ts';
import { rawRequest } from './support/edge-bytes.ts';


describe('edge resilience', () => {
  let database: TestDatabase;
  let dns: TestDnsServer;
  let originCa: TestCa;
  let customerCa: TestCa;
  let origin: TestOrigin;
  let pgProxy: TcpProxy;
  let edge: EdgeProcess;
  const domains: Record<string, string> = {};
  const hostnames = ['a.resilient.test', 'b.resilient.test', 'c.resilient.test'];

  const add = async (hostname: string) => {
    const f = await insertDomain(database.db, { hostname, destinationHost: 'app.vendor.test', certificate: await customerCa.issue([hostname]) });
    domains[hostname] = f.domainId;
  };
  const servesAll = async (names: string[]) => {
    for (const h of names) {
      const r = await edgeGet(edge.port, h, { ca: customerCa.pem });
      if (r.status !== 200 || !r.authorized) return false;
    }
    return true;
  };

  beforeAll(async () => {
    database = await createTestDatabase();
    dns = await startTestDnsServer();
    originCa = await createTestCa('Origin test CA');
    customerCa = await createTestCa('Customer test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test'], { bodyBytes: 1024 });
    dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    for (const h of hostnames) await add(h);
    // The agent reaches Postgres through a proxy the test can cut.
    const u = new URL(database.url);
    pgProxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
    u.host = `127.0.0.1:${pgProxy.port}`;
    edge = await startEdgeProcess({
      databaseUrl: u.toString(), resolvers: dns.server, originCaFile: originCa.certPath,
      env: { HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: '300', HOSTGATE_EDGE_RECONCILE_INTERVAL_MS: '2000' },
    });
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await pgProxy?.close();
    await origin?.close();
    await originCa?.close();
    await customerCa?.close();
    await dns?.close();
    await database?.drop();
  });

  it('keeps serving with the control plane unreachable, and catches up when it is back', async () => {
    expect(await servesAll(hostnames)).toBe(true);
    await pgProxy.cut();
    // Changes made meanwhile cannot reach the agent.
    await add('d.resilient.test');
    await setDomainStatus(database.db, domains['c.resilient.test']!, 'suspended');
    const until = Date.now() + 3_000;
    while (Date.now() < until) {
      expect(await servesAll(hostnames)).toBe(true);
      await new Promise((r) => setTimeout(r, 200));
    }
    await pgProxy.restore();
    await waitFor('the agent to catch up', async () => (await edgeGet(edge.port, 'd.resilient.test')).status === 200
      && (await edgeGet(edge.port, 'c.resilient.test')).status === 503, 15_000, 200);
    await setDomainStatus(database.db, domains['c.resilient.test']!, 'active');
    await waitFor('c to be served again', () => servesAll([...hostnames, 'd.resilient.test']), 10_000, 100);
  });

  it('survives the agent being killed: HAProxy serves on, a new agent adopts it and applies what changed', async () => {
    await edge.kill();
    expect(await servesAll([...hostnames, 'd.resilient.test'])).toBe(true);
    await add('e.resilient.test');
    await setDomainStatus(database.db, domains['d.resilient.test']!, 'deleting');
    const from = edge.logs.length;
    await edge.start();
    expect(edge.logs.slice(from).find((l) => l.msg === 'edge agent ready')).toMatchObject({ mode: 'adopted' });
    await waitFor('e served and d gone', async () => (await servesAll([...hostnames, 'e.resilient.test']))
      && (await edgeGet(edge.port, 'd.resilient.test')).status === 421, 10_000, 100);
  });

  it('serves the complete set after a HAProxy reload (runtime changes were written to its files)', async () => {
    const admin = createAdminSocket(path.join(edge.stateDir, 'master.sock'), 5000);
    await admin.master('reload');
    await new Promise((r) => setTimeout(r, 500));
    await waitFor('the complete set after reload', () => servesAll([...hostnames, 'e.resilient.test']), 15_000, 100);
    expect((await edgeGet(edge.port, 'd.resilient.test')).status).toBe(421);
    // The files hold exactly what is served, keys readable by their owner only.
    const list = readFileSync(path.join(edge.stateDir, 'crt-list.txt'), 'utf8');
    expect(list.trim().split('\n').map((l) => l.split(' ').at(-1)).sort()).toEqual([...hostnames, 'e.resilient.test'].sort());
    const mode = execFileSync('stat', ['-c', '%a', path.join(edge.stateDir, 'certs', 'a.resilient.test.pem')], { encoding: 'utf8' }).trim();
    expect(mode).toBe('600');
  });

  it('starts HAProxy again when it dies', async () => {
    const pid = Number(readFileSync(path.join(edge.stateDir, 'haproxy.pid'), 'utf8').trim());
    process.kill(pid, 'SIGKILL');
    await waitFor('HAProxy started again', async () => {
      try { return Number(readFileSync(path.join(edge.stateDir, 'haproxy.pid'), 'utf8').trim()) !== pid && await servesAll([...hostnames, 'e.resilient.test']); } catch { return false; }
    }, 20_000, 200);
  });

  it('records bandwidth equal to the bytes transferred, across an agent restart and a reload', async () => {
    const hostname = 'b.resilient.test';
    const domainId = domains[hostname]!;
    const recorded = async () => (await database.db.one(sql.unsafe`
      select coalesce(sum(bytes_in), 0)::int8 as bytes_in, coalesce(sum(bytes_out), 0)::int8 as bytes_out
      from domain_bandwidth_hourly where domain_id = ${domainId}`)) as { bytes_in: number; bytes_out: number };
    // Earlier tests' requests were counted too: start from what is recorded once it is stable.
    let base = await recorded();
    await waitFor('the recorded total to settle', async () => {
      await new Promise((r) => setTimeout(r, 800));
      const now = await recorded();
      const same = now.bytes_in === base.bytes_in && now.bytes_out === base.bytes_out;
      base = now;
      return same;
    }, 20_000, 0);
    let sent = 0;
    let received = 0;
    const traffic = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const r = await rawRequest(edge.port, hostname, `/bytes/${i}?pad=${'x'.repeat(i * 7)}`);
        expect(r.status).toBe(200);
        sent += r.sent;
        received += r.received;
      }
    };
    const recordedMatches = () => waitFor('the recorded bandwidth to match', async () => {
      const now = await recorded();
      return now.bytes_in - base.bytes_in === sent && now.bytes_out - base.bytes_out === received ? now : null;
    }, 10_000, 100).catch(async (error: Error) => {
      const now = await recorded();
      throw new Error(`${error.message}: recorded in ${now.bytes_in - base.bytes_in} out ${now.bytes_out - base.bytes_out}, transferred in ${sent} out ${received}`);
    });

    await traffic(10);
    await recordedMatches();
    // Agent killed right after traffic (its last reading may not have happened): the new agent
    // counts those bytes from HAProxy's counters against the baseline in Postgres, once.
    await traffic(5);
    await edge.kill();
    await traffic(5);
    await edge.start();
    await recordedMatches();
    // A reload starts a new worker whose counters start at zero.
    const admin = createAdminSocket(path.join(edge.stateDir, 'master.sock'), 5000);
    await admin.master('reload');
    await waitFor('serving after reload', () => servesAll([hostname]), 15_000, 100);
    // servesAll's own request counts too: measure it the same way instead.
    base = await waitFor('the recorded total after reload', async () => {
      await new Promise((r) => setTimeout(r, 800));
      const a = await recorded();
      await new Promise((r) => setTimeout(r, 800));
      const b = await recorded();
      return a.bytes_in === b.bytes_in && a.bytes_out === b.bytes_out ? b : null;
    }, 20_000, 0);
    sent = 0;
    received = 0;
    await traffic(7);
    await recordedMatches();
    expect(sent).toBeGreaterThan(0);
  });

  // Last: it stops the agent. A frozen Postgres (SIGSTOP, a paused VM) keeps its connections open
  // and answers nothing; the LISTEN client's end() and the last bandwidth reading would wait on
  // it, the 15 s shutdown grace would run out (exit 1) and HAProxy, detached, would serve on.
  it('stops HAProxy on SIGTERM within the shutdown grace while Postgres is frozen', async () => {
    const config = path.join(edge.stateDir, 'haproxy.cfg');
    const pid = Number(readFileSync(path.join(edge.stateDir, 'haproxy.pid'), 'utf8').trim());
    expect(await isOurHaproxy(pid, config)).toBe(true);
    const from = edge.logs.length;
    pgProxy.freeze();
    // Let the loops (bandwidth every 300 ms, heartbeat and poll every second) get stuck on it.
    await new Promise((r) => setTimeout(r, 1500));
    const started = Date.now();
    const code = await edge.stop();
    const took = Date.now() - started;
    pgProxy.thaw();
    expect({ code, took: took < 15_000 }).toEqual({ code: 0, took: true });
    expect(edge.logs.slice(from).some((l) => l.msg === 'edge: last bandwidth reading failed')).toBe(true);
    await waitFor('HAProxy to be gone', async () => !(await isOurHaproxy(pid, config)), 5_000, 100);
  }, 40_000);
});
