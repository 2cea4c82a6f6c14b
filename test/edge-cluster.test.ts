// Several edges against one Postgres (docs/edge.md, "Several edges"): two real agents with their
// own HAProxy, state directory, ports and health endpoint; the real lifecycle (API → workflow →
// Pebble). A domain is active only once every live, in-sync edge serves it; an edge that is down
// holds nothing back; a returning edge serves everything before its health endpoint says 200;
// bandwidth read over both edges adds up to the bytes that went through each.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { edgeRepository } from '../db/repositories/edge.ts';
import { sql } from '../db/pool.ts';
import { isOurHaproxy } from '../edge/agent/haproxy-supervisor.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { rawRequest } from './support/edge-bytes.ts';
import { edgeGet, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { client } from './support/http.ts';
import { createTestCa, startTestOrigin, type TestCa, type TestOrigin } from './support/origin.ts';
import { freePort } from './support/ports.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

interface ClusterEdge { process: EdgeProcess; healthPort: number }

/** `hostgate edge status` as an operator runs it: each edge's line, by id. */
function edgeStatus(databaseUrl: string): Map<string, string> {
  const run = spawnSync(process.execPath, ['cli/hostgate.ts', 'edge', 'status'], { env: { PATH: process.env.PATH ?? '', DATABASE_URL: databaseUrl }, encoding: 'utf8' });
  expect(run.status).toBe(0);
  // The health is the line's last column.
  return new Map(run.stdout.split('\n').filter((l) => /^\S+\t/.test(l)).map((l) => [l.split('\t')[0]!, l.split('\t').at(-1)!]));
}

const health = async (e: ClusterEdge) => {
  const res = await fetch(`http://127.0.0.1:${e.healthPort}/healthz`, { signal: AbortSignal.timeout(3000) });
  return { status: res.status, body: await res.json() as { edge_id: string; status: string; lag_ms: number | null } };
};

/** kill -9 of the agent and of its HAProxy (master and workers): the machine is gone. */
async function killEdge(e: ClusterEdge) {
  await e.process.kill();
  const pid = Number(readFileSync(path.join(e.process.stateDir, 'haproxy.pid'), 'utf8').trim());
  if (await isOurHaproxy(pid, path.join(e.process.stateDir, 'haproxy.cfg'))) {
    try { execFileSync('pkill', ['-KILL', '-P', String(pid)]); } catch { /* no workers left */ }
    process.kill(pid, 'SIGKILL');
  }
}

describe('two edges', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let worker: RunningWorker;
  let api: ReturnType<typeof client>;
  let originCa: TestCa;
  let origin: TestOrigin;
  let pebbleRoot: string;
  let destinationId: string;
  const edges: ClusterEdge[] = [];

  const startEdge = async () => {
    const healthPort = await freePort();
    const p = await startEdgeProcess({
      databaseUrl: t.database.url, resolvers: acme.dns.server, originCaFile: originCa.certPath,
      env: { HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: '300', HOSTGATE_EDGE_HEALTH_PORT: String(healthPort), HOSTGATE_EDGE_HEALTH_MAX_LAG_MS: '4000' },
    });
    return { process: p, healthPort };
  };
  const create = async (hostname: string) => {
    acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
    const created = await api.post('/v1/domains', { hostname, destination_id: destinationId });
    expect(created.statusCode).toBe(201);
    const id = created.json().data.id as string;
    await api.post(`/v1/domains/${id}/verify`);
    return id;
  };
  const activeAt = async (id: string) => {
    await waitFor(`${id} to be active`, async () => (await api.get(`/v1/domains/${id}`)).json().data.status === 'active', 60_000, 100);
    return Date.now();
  };
  const certificateOf = async (id: string) => await t.database.db.oneFirst(sql.unsafe`select id from certificates where domain_id = ${id} order by created_at desc limit 1`) as string;

  beforeAll(async () => {
    acme = await startAcmeStack();
    originCa = await createTestCa('Origin test CA');
    origin = await startTestOrigin(originCa, ['app.vendor.test']);
    acme.dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    t = await createTestApp({ config: { ...acme.configOverrides, HOSTGATE_EDGE_DEPLOYMENT: 'required' } });
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    edges.push(await startEdge(), await startEdge());
    pebbleRoot = await acme.pebble.rootPem();
    destinationId = (await api.post('/v1/destinations', { url: 'https://app.vendor.test:8443' })).json().data.id;
  }, 120_000);

  afterAll(async () => {
    for (const e of edges) { await e.process.stop(); await e.process.cleanup(); }
    await worker?.stop();
    await t?.close();
    await acme?.close();
    await origin?.close();
    await originCa?.close();
  });

  it('reports both edges healthy, on their endpoints and in `edge status` terms', async () => {
    for (const e of edges) {
      const h = await waitFor('a 200 from the health endpoint', async () => { const r = await health(e); return r.status === 200 ? r : null; }, 20_000, 100);
      expect(h.body).toMatchObject({ edge_id: e.process.edgeId, status: 'in_sync' });
      expect(h.body.lag_ms).toBeLessThan(4000);
    }
    const nodes = await edgeRepository(t.database.db).nodes();
    expect(nodes.map((n) => n.id).sort()).toEqual(edges.map((e) => e.process.edgeId).sort());
    for (const n of nodes) expect(n).toMatchObject({ state: 'in_sync', heartbeat_interval_ms: 1000 });
    expect((await fetch(`http://127.0.0.1:${edges[0]!.healthPort}/nope`)).status).toBe(404);
    const post = await fetch(`http://127.0.0.1:${edges[0]!.healthPort}/healthz`, { method: 'POST' });
    expect([post.status, post.headers.get('allow')]).toEqual([405, 'GET, HEAD']);
    expect((await fetch(`http://127.0.0.1:${edges[0]!.healthPort}/healthz`, { method: 'HEAD' })).status).toBe(200);
    const status = edgeStatus(t.database.url);
    for (const e of edges) expect(status.get(e.process.edgeId)).toMatch(/^healthy \(in sync, lag \d+ ms\)$/);
  });

  it('activates a domain only once both edges serve its certificate; both serve it from the first request', async () => {
    const id = await create('both.cluster-edge.test');
    await activeAt(id);
    const cert = await certificateOf(id);
    const deployment = await edgeRepository(t.database.db).deploymentOf(cert);
    expect(deployment.deployed).toBe(true);
    expect(deployment.counted.sort()).toEqual(edges.map((e) => e.process.edgeId).sort());
    // Deployments recorded before the move to active, on every edge.
    const rows = await t.database.db.any(sql.unsafe`
      select x.edge_id, x.deployed_at <= h.created_at as before from edge_deployments x
      join domain_status_history h on h.domain_id = x.domain_id and h.to_status = 'active' where x.domain_id = ${id}`) as readonly { edge_id: string; before: boolean }[];
    expect(rows.map((r) => r.edge_id).sort()).toEqual(edges.map((e) => e.process.edgeId).sort());
    expect(rows.every((r) => r.before)).toBe(true);
    for (const e of edges) {
      const r = await edgeGet(e.process.port, 'both.cluster-edge.test', { ca: pebbleRoot });
      expect(r).toMatchObject({ status: 200, authorized: true, nameMatches: true });
    }
  });

  it('holds activation back while a live, in-sync edge does not serve the certificate; releases it when that edge catches up or dies', async () => {
    // A third edge that beats and says in_sync but never deploys (its heartbeat kept fresh by hand).
    const phantom = 'edge-phantom';
    const beat = (state: string) => t.database.db.query(sql.unsafe`
      insert into edge_nodes (id, last_seen_at, heartbeat_interval_ms, state) values (${phantom}, hg_now(), 1000, ${state})
      on conflict (id) do update set last_seen_at = hg_now(), state = excluded.state`);
    await beat('in_sync');
    const beating = setInterval(() => { void beat('in_sync'); }, 300);
    try {
      const id = await create('held.cluster-edge.test');
      const cert = await waitFor('both real edges to deploy', async () => {
        const c = await t.database.db.maybeOneFirst(sql.unsafe`select id from certificates where domain_id = ${id}`) as string | null;
        if (!c) return null;
        const d = await edgeRepository(t.database.db).deploymentOf(c);
        return d.missing.length === 1 && d.counted.length === 3 ? c : null;
      }, 60_000, 100);
      await new Promise((r) => setTimeout(r, 3000));
      expect((await api.get(`/v1/domains/${id}`)).json().data.status).toBe('pending_certificate');
      expect((await edgeRepository(t.database.db).deploymentOf(cert)).missing).toEqual([phantom]);
      clearInterval(beating);
      await beat('catching_up');
      await activeAt(id);
    } finally {
      clearInterval(beating);
      await t.database.db.query(sql.unsafe`delete from edge_nodes where id = ${phantom}`);
    }
  });

  it('adds up the bandwidth of both edges: recorded bytes equal the bytes sent through each', async () => {
    const hostname = 'both.cluster-edge.test';
    const id = (await api.get(`/v1/domains?hostname=${hostname}`)).json().data[0]?.id as string | undefined
      ?? await t.database.db.oneFirst(sql.unsafe`select id from domains where hostname = ${hostname}`) as string;
    const recorded = async () => (await t.database.db.one(sql.unsafe`
      select coalesce(sum(bytes_in), 0)::int8 as bytes_in, coalesce(sum(bytes_out), 0)::int8 as bytes_out
      from domain_bandwidth_hourly where domain_id = ${id}`)) as { bytes_in: number; bytes_out: number };
    // Settled: nothing moves between two readings.
    const settle = () => waitFor('bandwidth to settle', async () => {
      const a = await recorded();
      await new Promise((r) => setTimeout(r, 900));
      const b = await recorded();
      return a.bytes_in === b.bytes_in && a.bytes_out === b.bytes_out ? b : null;
    }, 20_000, 0);
    const base = await settle();
    const perEdge = [{ sent: 0, received: 0 }, { sent: 0, received: 0 }];
    for (let i = 0; i < 12; i++) {
      const k = i % 2;
      const r = await rawRequest(edges[k]!.process.port, hostname, `/bw/${i}?pad=${'y'.repeat(i * 11)}`);
      expect(r.status).toBe(200);
      perEdge[k]!.sent += r.sent;
      perEdge[k]!.received += r.received;
    }
    const sent = perEdge[0]!.sent + perEdge[1]!.sent;
    const received = perEdge[0]!.received + perEdge[1]!.received;
    await waitFor('both edges counted', async () => {
      const now = await recorded();
      return now.bytes_in - base.bytes_in === sent && now.bytes_out - base.bytes_out === received;
    }, 20_000, 200);
    // Each edge's own counters hold its share (the baseline rows are per edge).
    const counters = await t.database.db.any(sql.unsafe`select edge_id, bytes_in from edge_bandwidth_counters where hostname = ${hostname}`) as readonly { edge_id: string; bytes_in: number }[];
    expect(counters.length).toBe(2);
    const shown = (await api.get(`/v1/domains/${id}`)).json().data.bandwidth;
    const total = await recorded();
    expect(shown).toMatchObject({ bytes_in: total.bytes_in, bytes_out: total.bytes_out });
  });

  it('with one edge down: the other serves everything, new domains go active, and the returning edge catches up before it says 200', async () => {
    const [gone, staying] = [edges[0]!, edges[1]!];
    await killEdge(gone);
    // The operator's view agrees: down once its heartbeat window (3 × 1 s) passed.
    await waitFor('edge status to say down', async () => /^down \(no heartbeat for \d+ s; holds no activation back\)$/.test(edgeStatus(t.database.url).get(gone.process.edgeId) ?? ''), 15_000, 500);
    expect((await edgeGet(staying.process.port, 'both.cluster-edge.test', { ca: pebbleRoot })).status).toBe(200);
    const id = await create('while-down.cluster-edge.test');
    await activeAt(id);
    const deployment = await edgeRepository(t.database.db).deploymentOf(await certificateOf(id));
    expect(deployment.counted).toEqual([staying.process.edgeId]);
    expect((await edgeGet(staying.process.port, 'while-down.cluster-edge.test', { ca: pebbleRoot })).status).toBe(200);

    // Returning: poll its health from the first moment; the first 200 comes only once it serves the new domain.
    const observed: { status: number; served: number | null }[] = [];
    let polling = true;
    const poller = (async () => {
      while (polling) {
        const h = await health(gone).catch(() => null);
        if (h) {
          const served = h.status === 200 ? (await edgeGet(gone.process.port, 'while-down.cluster-edge.test', { ca: pebbleRoot }).catch(() => null))?.status ?? 0 : null;
          observed.push({ status: h.status, served });
          if (h.status === 200) return;
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    await gone.process.start();
    await waitFor('the returning edge to say 200', async () => observed.some((o) => o.status === 200), 30_000, 100);
    polling = false;
    await poller;
    expect(observed.filter((o) => o.status === 200).every((o) => o.served === 200)).toBe(true);
    const nodes = await edgeRepository(t.database.db).nodes(gone.process.edgeId);
    await waitFor('the returning edge in_sync in edge_nodes', async () => (await edgeRepository(t.database.db).nodes(gone.process.edgeId))[0]?.state === 'in_sync', 10_000, 100);
    expect(nodes.length).toBe(1);
  });

  it('an edge that stops says so at once: 503 "stopping", and it no longer holds activation back', async () => {
    const e = edges[1]!;
    const stopping = e.process.stop();
    const seen = await waitFor('the stopping state', async () => {
      const row = (await edgeRepository(t.database.db).nodes(e.process.edgeId))[0];
      return row?.state === 'stopping' ? row : null;
    }, 10_000, 20);
    expect(seen.state).toBe('stopping');
    await stopping;
    const id = await create('after-stop.cluster-edge.test');
    await activeAt(id);
    const deployment = await edgeRepository(t.database.db).deploymentOf(await certificateOf(id));
    expect(deployment.counted).toEqual([edges[0]!.process.edgeId]);
    await e.process.start();
  });
});
