// `npm run bench:edge [-- --duration 10 --connections 32 --hostnames 10000 --samples 50]`: the HTTPS
// edge on this machine — real HAProxy driven by the real agent process (edge/agent-main.ts), a
// real HTTPS origin (Node, own process) and Postgres. Not a test: it prints figures and exits 0
// whether or not targets are met (1 only when it cannot run). The last line is one JSON object.
//
// Phases:
//   throughput   autocannon (this process), keep-alive, GET of a 1 KB response: through the edge,
//                then directly to the same origin, same settings → edge_vs_direct (req/s ratio),
//                p99 added by the edge.
//   handshakes   new TLS connections per second to the edge (full handshake each, no resumption;
//                the client's own handshake cost is part of the figure).
//   deployment   a domain + certificate committed → first 200 at the edge (LISTEN/NOTIFY path).
//   scale        N hostnames with certificates (self-signed EC P-256, one key): a fresh agent's
//                boot to serving all, HAProxy RSS, then adding one hostname at runtime (commit →
//                served) p50/p99 beside the N.
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes, webcrypto } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { parseArgs } from 'node:util';
import * as x509 from '@peculiar/x509';
import { migrate } from '../db/migrate.ts';
import { newId } from '../db/ids.ts';
import { createDb, sql, type Db } from '../db/pool.ts';
import { createAdminSocket } from '../edge/agent/admin-socket.ts';
import { certificateKeyContext } from '../edge/agent/snapshot.ts';
import { SecretBox } from '../security/secret-box.ts';
import { testConfig } from '../test/support/app.ts';
import { startTestDnsServer } from '../test/support/dns-server.ts';
import { edgeGet, startEdgeProcess, type EdgeProcess } from '../test/support/haproxy-edge.ts';
import { createTestCa, randomLoopback } from '../test/support/origin.ts';
import { cleanup, connectBenchPostgres, errorText, intArg, onCleanup, progress } from './support/run.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    hostnames: { type: 'string', default: '10000' },
    samples: { type: 'string', default: '50' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('usage: npm run bench:edge -- [--duration s (10)] [--connections n (32)] [--hostnames n (10000)] [--samples n (50)]');
  process.exit(0);
}
const duration = intArg('duration', args.duration, 1, 600);
const connections = intArg('connections', args.connections, 1, 1000);
const scaleHostnames = intArg('hostnames', args.hostnames, 10, 200_000);
const samples = intArg('samples', args.samples, 5, 10_000);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! : Number.NaN;
};
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

// --- certificates, fast: WebCrypto ECDSA P-256, one leaf key shared by every hostname ----------
x509.cryptoProvider.set(webcrypto as Crypto);
const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const leafKeys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
const leafKeyPem = `-----BEGIN PRIVATE KEY-----\n${Buffer.from(await webcrypto.subtle.exportKey('pkcs8', leafKeys.privateKey)).toString('base64').match(/.{1,64}/g)!.join('\n')}\n-----END PRIVATE KEY-----\n`;
async function selfSigned(hostname: string): Promise<string> {
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomBytes(8).toString('hex').replace(/^[89a-f]/, '1'),
    name: `CN=${hostname}`,
    notBefore: new Date(Date.now() - 60_000),
    notAfter: new Date(Date.now() + 7 * 86_400_000),
    keys: leafKeys as CryptoKeyPair,
    signingAlgorithm: alg,
    extensions: [new x509.SubjectAlternativeNameExtension([{ type: 'dns', value: hostname }])],
  });
  return cert.toString('pem');
}

const box = new SecretBox(testConfig().encryptionKeys);

/** Domains with certificates, in bulk (one statement each for domains and certificates). */
async function insertServed(db: Db, organizationId: string, destinationId: string, items: { hostname: string; certPem: string }[]): Promise<string[]> {
  const domainIds = items.map(() => newId('domain'));
  const certIds = items.map(() => newId('certificate'));
  const sealed = certIds.map((id) => box.seal(leafKeyPem, certificateKeyContext(id)));
  await db.transaction(async (tx) => {
    await tx.query(sql.unsafe`
      insert into domains (id, organization_id, destination_id, hostname, is_apex, status)
      select d, ${organizationId}, ${destinationId}, h, false, 'active'
      from unnest(${sql.array(domainIds, 'text')}, ${sql.array(items.map((i) => i.hostname), 'text')}) as t (d, h)`);
    await tx.query(sql.unsafe`
      insert into certificates (id, domain_id, serial, issuer, not_before, not_after, chain_pem, private_key_enc, key_id)
      select c, d, c, 'bench', now() - interval '1 minute', now() + interval '7 days', pem, decode(k, 'base64'), ${sealed[0]!.keyId}
      from unnest(${sql.array(certIds, 'text')}, ${sql.array(domainIds, 'text')}, ${sql.array(items.map((i) => i.certPem), 'text')},
                  ${sql.array(sealed.map((s) => s.ciphertext.toString('base64')), 'text')}) as t (c, d, pem, k)`);
  });
  return domainIds;
}

function rssOf(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try { kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0); } catch { /* gone */ }
  }
  return kb * 1024;
}

// autocannon ships no types; this is the part used here.
type Autocannon = (o: Record<string, unknown>) => PromiseLike<{ requests: { average: number; total: number }; latency: { p50: number; p99: number }; non2xx: number; errors: number }>;
const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

async function load(url: string, servername: string, host: string) {
  const r = await autocannon({ url, servername, headers: { host }, connections, duration, pipelining: 1 });
  return { rps: r.requests.average, total: r.requests.total, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors };
}

async function handshakes(port: number, servername: string, seconds: number, concurrency = 16): Promise<number> {
  const until = Date.now() + seconds * 1000;
  let done = 0;
  const one = () => new Promise<void>((resolve) => {
    const s = tls.connect({ host: '127.0.0.1', port, servername, rejectUnauthorized: false, ALPNProtocols: ['http/1.1'] });
    s.once('secureConnect', () => { done++; s.destroy(); resolve(); });
    s.once('error', () => { s.destroy(); resolve(); });
  });
  await Promise.all(Array.from({ length: concurrency }, async () => { while (Date.now() < until) await one(); }));
  return done / seconds;
}

async function main(): Promise<Record<string, unknown>> {
  const runId = randomBytes(4).toString('hex');
  const { admin, dbName, benchUrl, pgHost } = await connectBenchPostgres(runId);
  await admin.query(`create database ${dbName}`);
  onCleanup('scratch database', () => admin.query(`drop database if exists ${dbName} with (force)`));
  await migrate(benchUrl);
  const db = await createDb(benchUrl, { maximumPoolSize: 4 });
  onCleanup('bench pool', () => db.end());
  progress(`scratch database ${dbName} on ${pgHost} migrated`);

  // Origin: its own process, a CA of its own, 1 KB answers, on a loopback address at :8443.
  const dns = await startTestDnsServer();
  onCleanup('dns', () => dns.close());
  const originCa = await createTestCa('Bench origin CA');
  onCleanup('origin CA', () => originCa.close());
  const { certPem, keyPem } = await originCa.issue(['origin.bench.test']);
  const originIp = randomLoopback();
  dns.set('origin.bench.test', [{ type: 'A', value: originIp }]);
  const originScript = `
    const https = require('node:https');
    const body = Buffer.alloc(1024, 'x');
    const s = https.createServer({ cert: process.env.C, key: process.env.K }, (req, res) => {
      req.resume(); req.on('end', () => { res.writeHead(200, { 'content-type': 'text/plain', 'content-length': body.length }); res.end(body); });
    });
    s.keepAliveTimeout = 60000;
    s.listen(8443, process.env.IP, () => console.log('ready'));`;
  const origin: ChildProcess = spawn(process.execPath, ['-e', originScript], { env: { C: certPem, K: keyPem, IP: originIp }, stdio: ['ignore', 'pipe', 'inherit'] });
  onCleanup('origin', async () => { origin.kill(); });
  await new Promise<void>((resolve, reject) => { origin.stdout!.once('data', () => resolve()); origin.once('exit', () => reject(new Error('origin exited'))); });

  const org = newId('organization');
  await db.query(sql.unsafe`insert into organizations (id, name) values (${org}, 'bench')`);
  const destination = newId('destination');
  await db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values (${destination}, ${org}, 'https://origin.bench.test:8443', 'origin.bench.test', 8443)`);
  await insertServed(db, org, destination, [{ hostname: 'shop.bench.test', certPem: await selfSigned('shop.bench.test') }]);

  const edgeEnv = { HOSTGATE_EDGE_THREADS: '0', HOSTGATE_EDGE_START_TIMEOUT_MS: '600000' };
  let edge: EdgeProcess = await startEdgeProcess({ databaseUrl: benchUrl, resolvers: dns.server, originCaFile: originCa.certPath, env: edgeEnv });
  onCleanup('edge', async () => { await edge.stop(); await edge.cleanup(); });
  progress(`edge on 127.0.0.1:${edge.port} (HAProxy ${os.cpus().length > 1 ? `${os.cpus().length} threads` : '1 thread'}), origin on ${originIp}:8443`);

  // --- throughput ---------------------------------------------------------------------------
  const first = await edgeGet(edge.port, 'shop.bench.test');
  if (first.status !== 200) throw new Error(`the edge does not serve the bench hostname (status ${first.status}): ${first.body.slice(0, 200)}`);
  await load(`https://127.0.0.1:${edge.port}/`, 'shop.bench.test', 'shop.bench.test'); // warm-up
  progress(`throughput: ${connections} keep-alive connections, ${duration} s each, through the edge then direct`);
  const viaEdge = await load(`https://127.0.0.1:${edge.port}/`, 'shop.bench.test', 'shop.bench.test');
  const direct = await load(`https://${originIp}:8443/`, 'origin.bench.test', 'origin.bench.test');
  progress(`  edge ${round(viaEdge.rps, 0)} req/s (p99 ${viaEdge.p99} ms, non-2xx ${viaEdge.non2xx}, errors ${viaEdge.errors}); direct ${round(direct.rps, 0)} req/s (p99 ${direct.p99} ms)`);

  // --- handshakes ---------------------------------------------------------------------------
  const hs = await handshakes(edge.port, 'shop.bench.test', Math.min(duration, 5));
  progress(`handshakes: ${round(hs, 0)} new TLS connections/s`);

  // --- deployment latency -------------------------------------------------------------------
  const deploy = async (n: number, prefix: string): Promise<number[]> => {
    const latencies: number[] = [];
    for (let i = 0; i < n; i++) {
      const hostname = `${prefix}-${i}-${runId}.bench.test`;
      const pem = await selfSigned(hostname);
      await insertServed(db, org, destination, [{ hostname, certPem: pem }]);
      const committed = performance.now();
      for (;;) {
        const r = await edgeGet(edge.port, hostname).catch(() => null);
        if (r?.status === 200) break;
        if (performance.now() - committed > 30_000) throw new Error(`${hostname} not served 30 s after its commit`);
        await sleep(2);
      }
      latencies.push(performance.now() - committed);
    }
    return latencies;
  };
  const deployment = await deploy(samples, 'deploy');
  progress(`deployment latency (commit → served), ${samples} samples: p50 ${round(pct(deployment, 50))} ms, p99 ${round(pct(deployment, 99))} ms`);

  // --- scale ----------------------------------------------------------------------------------
  progress(`scale: generating ${scaleHostnames} certificates…`);
  const batch: { hostname: string; certPem: string }[] = [];
  for (let i = 0; i < scaleHostnames; i++) {
    const hostname = `h${i}-${runId}.scale.bench.test`;
    batch.push({ hostname, certPem: await selfSigned(hostname) });
    if (batch.length === 1000 || i === scaleHostnames - 1) { await insertServed(db, org, destination, batch.splice(0)); }
  }
  const total = Number(await db.oneFirst(sql.unsafe`select count(*)::int from domains where status = 'active'`));
  progress(`  ${total} active hostnames stored; restarting the edge from nothing (new state directory)`);
  await edge.stop();
  await edge.cleanup();
  const bootStart = performance.now();
  edge = await startEdgeProcess({ databaseUrl: benchUrl, resolvers: dns.server, originCaFile: originCa.certPath, env: edgeEnv, readyTimeoutMs: 900_000 });
  const agentReady = performance.now() - bootStart;
  const master = createAdminSocket(path.join(edge.stateDir, 'master.sock'), 60_000);
  const listed = (await master.worker(`show ssl crt-list ${path.join(edge.stateDir, 'crt-list.txt')}`)).split('\n').filter((l) => l && !l.startsWith('#')).length;
  const probe = [0, Math.floor(scaleHostnames / 2), scaleHostnames - 1].map((i) => `h${i}-${runId}.scale.bench.test`);
  for (const h of probe) {
    const r = await edgeGet(edge.port, h);
    if (r.status !== 200) throw new Error(`${h} not served after boot (status ${r.status})`);
  }
  const bootToServing = performance.now() - bootStart;
  const bootPhases = Object.fromEntries(Object.entries(edge.logs.find((l) => l.msg === 'edge: serving') ?? {}).filter(([k]) => k.endsWith('_ms')));
  progress(`  agent boot phases (ms since start): ${JSON.stringify(bootPhases)}`);
  const procs = (await master.master('show proc')).split('\n').map((l) => /^(\d+)\s+(master|worker)/.exec(l)?.[1]).filter(Boolean).map(Number);
  const rss = rssOf(procs);
  progress(`  boot to serving all ${listed} certificates: ${round(bootToServing / 1000)} s (agent ready after ${round(agentReady / 1000)} s); HAProxy RSS ${round(rss / 2 ** 20, 0)} MiB`);
  const runtimeAdd = await deploy(samples, 'add');
  progress(`  adding one hostname beside ${listed}: p50 ${round(pct(runtimeAdd, 50))} ms, p99 ${round(pct(runtimeAdd, 99))} ms`);

  return {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${round(os.totalmem() / 2 ** 30, 1)} GiB`,
    haproxy: 'Debian 2.6 (/usr/sbin/haproxy)',
    connections, duration_s: duration,
    edge_rps: round(viaEdge.rps, 0), direct_rps: round(direct.rps, 0),
    edge_vs_direct: round(viaEdge.rps / direct.rps, 3),
    edge_p99_ms: viaEdge.p99, direct_p99_ms: direct.p99, p99_added_ms: round(viaEdge.p99 - direct.p99),
    edge_errors: viaEdge.errors + viaEdge.non2xx,
    tls_handshakes_per_s: round(hs, 0),
    deployment_p50_ms: round(pct(deployment, 50)), deployment_p99_ms: round(pct(deployment, 99)),
    scale_hostnames: listed,
    scale_boot_to_serving_s: round(bootToServing / 1000), scale_agent_ready_s: round(agentReady / 1000),
    scale_haproxy_rss_mib: round(rss / 2 ** 20, 0), scale_boot_phases_ms: bootPhases,
    scale_add_p50_ms: round(pct(runtimeAdd, 50)), scale_add_p99_ms: round(pct(runtimeAdd, 99)),
  };
}

try {
  const figures = await main();
  await cleanup();
  console.log(JSON.stringify(figures));
  process.exit(0);
} catch (error) {
  console.error(`benchmark failed: ${errorText(error)}`);
  await cleanup();
  process.exit(1);
}
