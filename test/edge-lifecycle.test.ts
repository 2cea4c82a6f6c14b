// End to end with the real lifecycle: the API creates a domain, the workflow verifies DNS and gets
// a certificate from Pebble, and the edge (real agent, real HAProxy) serves it over a chain that
// validates against Pebble's root, to a real HTTPS origin — HTTP/1.1, HTTP/2 and WebSocket.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http2 from 'node:http2';
import WebSocket from 'ws';
import { edgeRepository } from '../db/repositories/edge.ts';
import { sql } from '../db/pool.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { edgeGet, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { client } from './support/http.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('edge with the real domain lifecycle', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let worker: RunningWorker;
  let api: ReturnType<typeof client>;
  let originCa: TestCa;
  let origin: TestOrigin;
  let edge: EdgeProcess;
  let pebbleRoot: string;
  const hostname = 'www.customer-edge.test';
  let domainId: string;
  const signalsTo = async (id: string) => (await t.database.db.any(sql.unsafe`
    select payload->>'signal' as signal from workflow_outbox where workflow_id = ${`domain/${id}`} and kind = 'signal_domain' order by id`) as readonly { signal: string }[]).map((r) => r.signal);
  /**
   * The signals of a domain whose DNS was right from its create: the API's verify and, when the DNS
   * checker's first check found DNS right and its own verify was sent before the API's was queued
   * (otherwise the two coalesce), that one too; then the edge's `deployed`, once.
   */
  const verifiedThenDeployed = (signals: readonly string[]) => {
    expect(signals.at(-1)).toBe('deployed');
    expect(signals.filter((s) => s === 'deployed')).toHaveLength(1);
    expect([['verify'], ['verify', 'verify']]).toContainEqual(signals.slice(0, -1));
  };

  beforeAll(async () => {
    acme = await startAcmeStack();
    originCa = await createTestCa('Origin test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test']);
    acme.dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    // "Active means served": the domain is active only once the edge reports the certificate deployed.
    t = await createTestApp({ config: { ...acme.configOverrides, HOSTGATE_EDGE_DEPLOYMENT: 'required', HOSTGATE_EDGE_DEPLOY_OVERDUE_SECONDS: '2' } });
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    edge = await startEdgeProcess({ databaseUrl: t.database.url, resolvers: acme.dns.server, originCaFile: originCa.certPath, env: { HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: '500' } });
    pebbleRoot = await acme.pebble.rootPem();
  }, 90_000);

  afterAll(async () => {
    await edge?.stop();
    await edge?.cleanup();
    await worker?.stop();
    await t?.close();
    await acme?.close();
    await origin?.close();
    await originCa?.close();
  });

  it('serves a domain once it is active, over a chain that validates against Pebble\'s root', async () => {
    const destination = (await api.post('/v1/destinations', { url: 'https://app.vendor.test:8443' })).json().data;
    acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
    const created = await api.post('/v1/domains', { hostname, destination_id: destination.id });
    expect(created.statusCode).toBe(201);
    domainId = created.json().data.id;
    await api.post(`/v1/domains/${domainId}/verify`);
    await waitFor(`${hostname} to be active`, async () => (await api.get(`/v1/domains/${domainId}`)).json().data.status === 'active', 60_000, 200);

    // Served from the first request after it is active: no wait for the edge.
    const res = await edgeGet(edge.port, hostname, { path: '/first', ca: pebbleRoot });
    expect(res.status).toBe(200);
    expect(res.authorized).toBe(true);
    expect(res.nameMatches).toBe(true);
    const seen = JSON.parse(res.body);
    expect(seen).toMatchObject({ origin: 'app.vendor.test', url: '/first' });
    expect(seen.headers).toMatchObject({ host: hostname, 'x-forwarded-proto': 'https', 'x-forwarded-host': hostname, 'x-forwarded-for': '127.0.0.1', 'x-hostgate-domain-id': domainId });

    const certificateId = await t.database.db.oneFirst(sql.unsafe`select id from certificates where domain_id = ${domainId}`) as string;
    expect(await edgeRepository(t.database.db).isCertificateDeployed(certificateId)).toBe(true);
    const moves = await t.database.db.any(sql.unsafe`select to_status, reason from domain_status_history where domain_id = ${domainId} order by seq`) as readonly { to_status: string; reason: string }[];
    expect(moves.map((m) => m.to_status)).toEqual(['pending_dns', 'pending_certificate', 'active']);
    expect(moves[2]!.reason).toBe('certificate deployed at the edge');
    // The edge's report told the workflow with a signal of its own; the API's verify is the other.
    verifiedThenDeployed(await signalsTo(domainId));
  });

  it('shows the bytes the edge carried for the domain on GET /v1/domains/{id}, for the usage period', async () => {
    const recorded = async () => (await t.database.db.one(sql.unsafe`
      select coalesce(sum(bytes_in), 0)::int8 as bytes_in, coalesce(sum(bytes_out), 0)::int8 as bytes_out
      from domain_bandwidth_hourly where domain_id = ${domainId}`)) as { bytes_in: number; bytes_out: number };
    const shown = await waitFor('bandwidth on the domain', async () => {
      const b = (await api.get(`/v1/domains/${domainId}`)).json().data.bandwidth;
      return b.bytes > 0 ? b : null;
    }, 15_000, 200);
    const inDb = await recorded();
    expect(shown).toMatchObject({ bytes_in: inDb.bytes_in, bytes_out: inDb.bytes_out, bytes: inDb.bytes_in + inDb.bytes_out });
    const usage = (await api.get('/v1/usage')).json().data;
    expect(shown.period_start).toBe(usage.period_start);
    expect(shown.period_end).toBe(usage.period_end);
    expect(usage.bandwidth_bytes).toBeGreaterThanOrEqual(shown.bytes);
    // Lists and creates carry no bandwidth (one more query per row): only the item read does.
    expect((await api.get('/v1/domains?limit=1')).json().data[0].bandwidth).toBeUndefined();
  });

  it('keeps a domain in pending_certificate while no edge serves it, shows edge_not_deployed, activates when an edge returns', async () => {
    const other = 'late.customer-edge.test';
    let id = '';
    await edge.stop();
    try {
      const destination = (await api.post('/v1/destinations', { url: 'https://app.vendor.test:8443' })).json().data;
      acme.dns.set(other, [{ type: 'CNAME', value: EDGE }]);
      id = (await api.post('/v1/domains', { hostname: other, destination_id: destination.id })).json().data.id as string;
      await api.post(`/v1/domains/${id}/verify`);
      const waiting = await waitFor('edge_not_deployed on the domain', async () => {
        const d = (await api.get(`/v1/domains/${id}`)).json().data;
        return d.verification.problem?.code === 'edge_not_deployed' ? d : null;
      }, 60_000, 200);
      expect(waiting.status).toBe('pending_certificate');
      expect(waiting.verification.problem.message).toMatch(/hostgate edge status/);
      expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from certificates where domain_id = ${id}`)).toBe(1);
    } finally {
      await edge.start();
    }
    const active = await waitFor('active once the edge serves it', async () => {
      const d = (await api.get(`/v1/domains/${id}`)).json().data;
      return d.status === 'active' ? d : null;
    }, 30_000, 200);
    expect(active.verification.problem).toBeNull();
    expect((await edgeGet(edge.port, other, { path: '/late', ca: pebbleRoot })).status).toBe(200);
    // The returning edge reported everything it serves: a signal only where a deployment was new
    // and awaited, none for the domain that was active already.
    verifiedThenDeployed(await signalsTo(id));
    verifiedThenDeployed(await signalsTo(domainId));
  });

  it('speaks HTTP/2 to clients that offer it', async () => {
    const session = http2.connect(`https://127.0.0.1:${edge.port}`, { servername: hostname, ca: pebbleRoot, checkServerIdentity: () => undefined });
    try {
      const { status, body } = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = session.request({ ':path': '/over-h2', ':authority': hostname });
        let status = 0;
        let body = '';
        req.on('response', (h) => { status = Number(h[':status']); });
        req.setEncoding('utf8');
        req.on('data', (c: string) => { body += c; });
        req.on('end', () => resolve({ status, body }));
        req.on('error', reject);
        req.end();
      });
      expect(status).toBe(200);
      expect(JSON.parse(body)).toMatchObject({ url: '/over-h2', headers: { host: hostname } });
      expect(session.alpnProtocol).toBe('h2');
    } finally {
      session.close();
    }
  });

  it('passes WebSocket upgrades through (echo)', async () => {
    const ws = new WebSocket(`wss://127.0.0.1:${edge.port}/socket`, { servername: hostname, ca: pebbleRoot, headers: { host: hostname }, checkServerIdentity: () => undefined } as unknown as WebSocket.ClientOptions);
    try {
      await new Promise<void>((resolve, reject) => { ws.once('open', () => resolve()); ws.once('error', reject); });
      const echoed = await new Promise<string>((resolve, reject) => {
        ws.once('message', (data) => resolve(data.toString()));
        ws.once('error', reject);
        ws.send('hello through the edge');
      });
      expect(echoed).toBe('hello through the edge');
      const upgrade = origin.requests.find((r) => r.url === '/socket');
      expect(upgrade?.headers).toMatchObject({ host: hostname, upgrade: 'websocket', 'x-forwarded-host': hostname });
    } finally {
      ws.close();
    }
  });

  it('takes the hostname off when the domain is deleted through the API', async () => {
    expect((await api.delete(`/v1/domains/${domainId}`)).statusCode).toBeLessThan(300);
    await waitFor('the hostname to be gone from the edge', async () => (await edgeGet(edge.port, hostname)).status === 421, 15_000, 100);
  });
});
