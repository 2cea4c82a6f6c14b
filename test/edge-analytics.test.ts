// Traffic analytics on the real edge (issue 24): HAProxy's request log → the agent over loopback
// HAProxy's log ring → TCP → minute rows in Postgres. Known statuses from a real origin (200, 404, 500, a controlled
// delay), 502 with the origin down, 503 suspended, 421 unknown; percentiles within the histogram's
// error; an agent killed mid-minute (no double counting, lost lines counted); a clean stop whose
// final reading and flush land, with the billing bytes and the analytics bytes equal.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import https from 'node:https';
import { sql } from '../db/pool.ts';
import { trafficRepository } from '../db/repositories/traffic.ts';
import { emptyCounters, histogramQuantile, mergeCounters, summarize, type TrafficCounters } from '../model/analytics-counters.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer, type TestDnsServer } from './support/dns-server.ts';
import { edgeGet, insertDomain, startEdgeProcess, type EdgeProcess } from './support/haproxy-edge.ts';
import { createTestCa, randomLoopback, type TestCa } from './support/origin.ts';
import { waitFor } from './support/wait.ts';

/** An origin answering `/status/<code>` with that status and `/delay/<ms>` after that many ms. */
async function startScriptedOrigin(ca: TestCa, name: string): Promise<{ ip: string; close(): Promise<void> }> {
  const { certPem, keyPem } = await ca.issue([name]);
  const ip = randomLoopback();
  const server = https.createServer({ cert: certPem, key: keyPem }, (req, res) => {
    req.resume();
    const status = /^\/status\/(\d{3})/.exec(req.url ?? '')?.[1];
    const delay = /^\/delay\/(\d+)/.exec(req.url ?? '')?.[1];
    const answer = () => { res.writeHead(status ? Number(status) : 200, { 'content-type': 'text/plain' }); res.end(`hello from ${req.url}`); };
    if (delay) setTimeout(answer, Number(delay)); else answer();
  });
  await new Promise<void>((resolve) => server.listen(8443, ip, () => resolve()));
  return { ip, close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }) };
}

describe('edge traffic analytics', () => {
  let database: TestDatabase;
  let dns: TestDnsServer;
  let originCa: TestCa;
  let customerCa: TestCa;
  let origin: { ip: string; close(): Promise<void> };
  let edge: EdgeProcess;
  const ids: Record<string, string> = {};

  const windowFrom = () => new Date(Date.now() - 10 * 60_000);
  const windowTo = () => new Date(Date.now() + 2 * 60_000);
  /** A domain's counters over the last minutes, summed (requests may straddle a minute). */
  async function countersOf(domainId: string): Promise<TrafficCounters> {
    const series = await trafficRepository(database.db).series(domainId, 'minute', windowFrom(), windowTo());
    return series.reduce((sum, b) => mergeCounters(sum, b.counters), emptyCounters());
  }
  const waitForRequests = (domainId: string, n: number) =>
    waitFor(`${n} requests of ${domainId} in the minute rows`, async () => { const c = await countersOf(domainId); return c.requests >= n ? c : null; }, 20_000, 100);

  beforeAll(async () => {
    database = await createTestDatabase();
    dns = await startTestDnsServer();
    originCa = await createTestCa('Origin test CA');
    customerCa = await createTestCa('Customer test CA');
    origin = await startScriptedOrigin(originCa, 'app.vendor.test');
    dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);
    dns.set('down.vendor.test', [{ type: 'A', value: randomLoopback() }]);
    const serve = async (hostname: string, destinationHost: string, status = 'active') => {
      const f = await insertDomain(database.db, { hostname, destinationHost, status, certificate: await customerCa.issue([hostname]) });
      ids[hostname] = f.domainId;
    };
    await serve('shop.one.test', 'app.vendor.test');
    await serve('slow.two.test', 'app.vendor.test');
    await serve('down.three.test', 'down.vendor.test');
    await serve('paused.four.test', 'app.vendor.test', 'suspended');
    await serve('again.five.test', 'app.vendor.test');
    edge = await startEdgeProcess({
      databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath,
      env: { HOSTGATE_EDGE_ANALYTICS_FLUSH_MS: '200', HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: '200' },
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

  it('counts each status class, edge answers and bytes exactly; bytes agree with the billing counters', async () => {
    const get = (host: string, p = '/') => edgeGet(edge.port, host, { path: p, ca: customerCa.pem });
    const statuses: number[] = [];
    for (let i = 0; i < 5; i++) statuses.push((await get('shop.one.test', '/status/200')).status);
    for (let i = 0; i < 3; i++) statuses.push((await get('shop.one.test', '/status/404')).status);
    for (let i = 0; i < 2; i++) statuses.push((await get('shop.one.test', '/status/500')).status);
    statuses.push((await get('shop.one.test', '/status/301')).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 404, 404, 404, 500, 500, 301]);
    for (let i = 0; i < 2; i++) expect((await get('down.three.test')).status).toBe(502);
    expect((await get('paused.four.test')).status).toBe(503);
    expect((await get('nobody.example.test')).status).toBe(421);

    const shop = await waitForRequests(ids['shop.one.test']!, 11);
    expect(shop).toMatchObject({ requests: 11, status_2xx: 5, status_3xx: 1, status_4xx: 3, status_5xx: 2, edge_answers: 0, no_answer: 0, http1: 11, http2: 0 });
    expect(shop.tls12 + shop.tls13).toBe(11);
    expect(Object.values(shop.origin_ms).reduce((a, b) => a + b, 0)).toBe(11);
    const down = await waitForRequests(ids['down.three.test']!, 2);
    expect(down).toMatchObject({ requests: 2, status_5xx: 2, edge_answers: 2 });
    expect(down.origin_ms).toEqual({});
    const paused = await waitForRequests(ids['paused.four.test']!, 1);
    expect(paused).toMatchObject({ requests: 1, status_5xx: 1, edge_answers: 1 });
    // The 421 belongs to no domain: counted for the edge only.
    await waitFor('the unknown host counted for the edge', async () => {
      const [t] = await trafficRepository(database.db).edgeTotals(windowFrom(), windowTo());
      return t && t.unattributed >= 1 ? t : null;
    });

    // The billing counters (stick table, read every 200 ms) carry the same bytes as the log lines.
    const billed = await waitFor('the bandwidth reading of shop.one.test', async () => {
      const r = await database.db.one(sql.unsafe`select coalesce(sum(bytes_in), 0)::int8 as i, coalesce(sum(bytes_out), 0)::int8 as o from domain_bandwidth_hourly where domain_id = ${ids['shop.one.test']!}`) as { i: number; o: number };
      return r.o >= shop.bytes_out && r.o > 0 ? r : null;
    });
    expect(shop.bytes_out).toBe(billed.o);
    expect(shop.bytes_in).toBe(billed.i);
  });

  it('percentiles of a controlled origin delay (50 ms and 200 ms halves) within the histogram error', async () => {
    const host = 'slow.two.test';
    const runs = Array.from({ length: 40 }, (_, i) => (i % 2 === 0 ? 50 : 200));
    // Each request's whole time at the client (TLS handshake included) is at least HAProxy's
    // origin time for it, so the client's quantiles bound the true ones from above — on a loaded
    // machine too, where the origin's own delay grows (68 ms for a 50 ms delay at load 14).
    const clientMs: number[] = [];
    for (const ms of runs) {
      const started = performance.now();
      expect((await edgeGet(edge.port, host, { path: `/delay/${ms}`, ca: customerCa.pem })).status).toBe(200);
      clientMs.push(performance.now() - started);
    }
    clientMs.sort((a, b) => a - b);
    const c = await waitForRequests(ids[host]!, 40);
    // HAProxy's origin time = the delay + a few ms of loopback and a busy machine; reading it
    // back from its bucket adds at most 2.5 % (model/analytics-counters.ts). Nearest rank, as
    // histogramQuantile; + 1 ms for HAProxy's whole-millisecond times.
    const near = (q: number, ms: number) => {
      const v = histogramQuantile(c.origin_ms, q)!;
      expect(v).toBeGreaterThanOrEqual(ms * 0.975);
      expect(v).toBeLessThanOrEqual(clientMs[Math.ceil(q * clientMs.length) - 1]! * 1.025 + 1);
    };
    near(0.25, 50);
    near(0.75, 200);
    const s = summarize(c);
    expect(s.origin_ms_p50).toBeGreaterThanOrEqual(50 * 0.975);
    expect(s.origin_ms_p50).toBeLessThanOrEqual(200 * 1.025 + 15);
    // p95 and p99 of 40 are the two slowest requests: on a loaded machine one can be a scheduling
    // outlier (230 ms seen for a 200 ms delay in a clean-clone CI run), so only from below.
    expect(histogramQuantile(c.origin_ms, 0.95)!).toBeGreaterThanOrEqual(200 * 0.975);
    expect(s.origin_ms_p99).toBeGreaterThanOrEqual(200 * 0.975);
  });

  // HAProxy's ring holds the lines while the agent is away and its forwarder, reconnected, goes on
  // from where it stopped: the 5 meanwhile arrive late instead of being lost (a ring that filled
  // up would lose its oldest, seen as completeness < 1), and none arrives twice.
  it('an agent killed mid-minute: HAProxy serves on, the ring keeps the lines meanwhile, nothing counted twice', async () => {
    const host = 'again.five.test';
    const get = () => edgeGet(edge.port, host, { ca: customerCa.pem });
    for (let i = 0; i < 4; i++) expect((await get()).status).toBe(200);
    await waitForRequests(ids[host]!, 4);
    // Wait for the flush that also holds the stick table's count of those four.
    const before = await waitFor('the completeness tally to catch up', async () => {
      const [t] = await trafficRepository(database.db).edgeTotals(windowFrom(), windowTo());
      return t && t.counted_requests === t.counted_lines ? t : null;
    });
    await edge.kill();
    for (let i = 0; i < 5; i++) expect((await get()).status).toBe(200);
    await edge.start();
    for (let i = 0; i < 3; i++) expect((await get()).status).toBe(200);
    const after = await waitForRequests(ids[host]!, 12);
    await new Promise((r) => setTimeout(r, 600));
    expect((await countersOf(ids[host]!)).requests).toBe(12);
    const t = await waitFor('the completeness tally to catch up', async () => {
      const [row] = await trafficRepository(database.db).edgeTotals(windowFrom(), windowTo());
      return row && row.counted_requests - before.counted_requests === 8 ? row : null;
    });
    expect(t.counted_lines - before.counted_lines).toBe(8);
    expect(after.status_2xx).toBe(12);
  });

  it('a clean stop lands the final bandwidth reading and analytics flush: stored bytes equal the bytes sent', async () => {
    // A second edge with the default (minute) intervals: only the stop's own reading and flush
    // can store this traffic.
    const quiet = await startEdgeProcess({ databaseUrl: database.url, resolvers: dns.server, originCaFile: originCa.certPath });
    try {
      const host = 'shop.one.test';
      const beforeBytes = await database.db.oneFirst(sql.unsafe`select coalesce(sum(bytes_out), 0)::int8 from domain_bandwidth_hourly where domain_id = ${ids[host]!}`) as number;
      const beforeLog = (await countersOf(ids[host]!));
      let sent = 0;
      for (let i = 0; i < 6; i++) {
        const res = await edgeGet(quiet.port, host, { path: '/status/200', ca: customerCa.pem });
        expect(res.status).toBe(200);
        sent += Buffer.byteLength(res.body);
      }
      expect(await quiet.stop()).toBe(0);
      expect(quiet.logs.filter((l) => /failed/.test(String(l.msg)))).toEqual([]);
      const afterBytes = await database.db.oneFirst(sql.unsafe`select coalesce(sum(bytes_out), 0)::int8 from domain_bandwidth_hourly where domain_id = ${ids[host]!}`) as number;
      const afterLog = await countersOf(ids[host]!);
      expect(afterLog.requests - beforeLog.requests).toBe(6);
      // HTTP bytes incl. headers: at least the bodies, and exactly what the log lines carried.
      expect(afterBytes - beforeBytes).toBeGreaterThan(sent);
      expect(afterLog.bytes_out - beforeLog.bytes_out).toBe(afterBytes - beforeBytes);
    } finally {
      await quiet.stop();
      await quiet.cleanup();
    }
  }, 60_000);
});
