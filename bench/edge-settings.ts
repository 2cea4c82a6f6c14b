// `npm run bench:edge-settings [-- --samples 50 --duration 10 --connections 32]`: issue 23's
// figures on real HAProxy driven by the real agent, Postgres and two HTTPS origins on loopback.
//   repoint    a domain's destination changed (the same UPDATE PATCH /v1/domains/{id} commits) →
//              first answer from the new origin, `--samples` times, alternating A ↔ B: p50/p99.
//   redirect   keep-alive load on a redirecting hostname (the edge answers 301 itself) and on a
//              proxied one, same client and settings, same run: answers/s of each.
// Not a test: it prints figures and exits 0 (1 only when it cannot run). The machine is shared;
// read the figures as this machine's, not a target. The last line is one JSON object.
import { parseArgs } from 'node:util';
import { migrate } from '../db/migrate.ts';
import { createDb } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { startTestDnsServer } from '../test/support/dns-server.ts';
import { edgeGet, insertDomain, startEdgeProcess } from '../test/support/haproxy-edge.ts';
import { createTestCa, startTestOrigin } from '../test/support/origin.ts';
import { h2loadAvailable, runLoad } from './support/http-load.ts';
import { connectBenchPostgres, intArg, onCleanup, progress, runBenchmark, sleep } from './support/run.ts';
import { distribution } from './support/stats.ts';

const { values: args } = parseArgs({
  options: {
    samples: { type: 'string', default: '50' },
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
  },
});
const samples = intArg('samples', args.samples, 1, 10_000);
const duration = intArg('duration', args.duration, 1, 600);
const connections = intArg('connections', args.connections, 1, 1000);
const round = (n: number, digits = 1) => Number(n.toFixed(digits));

async function main() {
  const runId = `edgeset${Date.now().toString(36)}`;
  const { admin, dbName, benchUrl } = await connectBenchPostgres(runId);
  await admin.query(`create database ${dbName}`);
  onCleanup('scratch database', () => admin.query(`drop database if exists ${dbName} with (force)`));
  await migrate(benchUrl);
  const db = await createDb(benchUrl, { maximumPoolSize: 4 });
  onCleanup('bench pool', () => db.end());

  const dns = await startTestDnsServer();
  onCleanup('dns', () => dns.close());
  const originCa = await createTestCa('Bench origin CA');
  onCleanup('origin CA', () => originCa.close());
  const customerCa = await createTestCa('Bench customer CA');
  onCleanup('customer CA', () => customerCa.close());
  const originA = await startTestOrigin(originCa, ['a.origin.bench'], { bodyBytes: 1024 });
  onCleanup('origin A', () => originA.close());
  const originB = await startTestOrigin(originCa, ['b.origin.bench'], { bodyBytes: 1024 });
  onCleanup('origin B', () => originB.close());
  dns.set('a.origin.bench', [{ type: 'A', value: originA.ip }]);
  dns.set('b.origin.bench', [{ type: 'A', value: originB.ip }]);

  const moving = await insertDomain(db, { hostname: 'moving.settings.bench', destinationHost: 'a.origin.bench', certificate: await customerCa.issue(['moving.settings.bench']) });
  const org = moving.organizationId;
  const dstB = await destinationsRepository(db).create({ organizationId: org, url: 'https://b.origin.bench:8443', host: 'b.origin.bench', port: 8443 });
  await insertDomain(db, { hostname: 'plain.settings.bench', destinationHost: 'a.origin.bench', certificate: await customerCa.issue(['plain.settings.bench']), organizationId: org });
  const redirecting = await insertDomain(db, { hostname: 'www.settings.bench', destinationHost: 'a.origin.bench', certificate: await customerCa.issue(['www.settings.bench']), organizationId: org });
  await db.transaction((tx) => domainsRepository(db).update(tx, org, redirecting.domainId, { redirect: { to: 'settings.bench', status: 301, preserve_path: true } }));

  const edge = await startEdgeProcess({ databaseUrl: benchUrl, resolvers: dns.server, originCaFile: originCa.certPath });
  onCleanup('edge', async () => { await edge.stop(); await edge.cleanup(); });
  progress(`edge on :${edge.port}; ${samples} re-points`);

  const originNow = async () => {
    try {
      const res = await edgeGet(edge.port, 'moving.settings.bench', { ca: customerCa.pem, timeoutMs: 5000 });
      return res.status === 200 ? (JSON.parse(res.body) as { origin: string }).origin : `status ${res.status}`;
    } catch { return 'error'; }
  };
  const destinations = [{ id: dstB.id, origin: 'b.origin.bench' }, { id: moving.destinationId, origin: 'a.origin.bench' }];
  const propagation: number[] = [];
  let timeouts = 0;
  for (let i = 0; i < samples; i++) {
    const to = destinations[i % 2]!;
    await db.transaction((tx) => domainsRepository(db).update(tx, org, moving.domainId, { destinationId: to.id }));
    const committed = performance.now();
    let seen = false;
    while (performance.now() - committed < 10_000) {
      if ((await originNow()) === to.origin) { seen = true; break; }
    }
    if (seen) propagation.push(performance.now() - committed);
    else timeouts++;
    await sleep(50);
  }
  const repoint = distribution(propagation);
  progress(`re-point → new origin: p50 ${round(repoint.p50)} ms, p99 ${round(repoint.p99)} ms, max ${round(repoint.max)} ms (${propagation.length} runs, ${timeouts} over 10 s)`);

  const client = h2loadAvailable() ? 'h2load' : 'autocannon';
  const target = (hostname: string) => ({ address: '127.0.0.1', port: edge.port, hostname });
  await runLoad(client, target('www.settings.bench'), connections, Math.min(3, duration)); // warm-up
  const redirect = await runLoad(client, target('www.settings.bench'), connections, duration);
  const proxied = await runLoad(client, target('plain.settings.bench'), connections, duration);
  progress(`redirect ${round(redirect.rps, 0)} answers/s (p99 ${redirect.p99Ms} ms) vs proxied ${round(proxied.rps, 0)}/s (p99 ${proxied.p99Ms} ms), ${client}, ${connections} connections, ${duration} s each`);

  return {
    repoint_runs: propagation.length, repoint_timeouts: timeouts,
    repoint_p50_ms: round(repoint.p50), repoint_p99_ms: round(repoint.p99), repoint_max_ms: round(repoint.max),
    redirect_rps: round(redirect.rps, 0), proxied_rps: round(proxied.rps, 0),
    redirect_p99_ms: redirect.p99Ms, proxied_p99_ms: proxied.p99Ms, load_client: client, connections, duration_s: duration,
  };
}

void runBenchmark(main, 'edge, origins, scratch database');
