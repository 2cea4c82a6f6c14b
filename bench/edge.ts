// `npm run bench:edge [-- --duration 10 --connections 32 --rounds 5 --client auto --hostnames 10000
// --samples 50 --phases throughput,handshakes,deployment,scale]`: the HTTPS edge on this machine —
// real HAProxy driven by the real agent process (edge/agent-main.ts), a real HTTPS origin (Node,
// own process) and Postgres. Not a test: it prints figures and exits 0 whether or not targets are
// met (1 only when it cannot run). The last line is one JSON object. Methodology: docs/edge.md,
// "Benchmark".
//
// Phases:
//   throughput   keep-alive GETs of a 1 KB response, `--connections` at a time, for `--duration`
//                seconds: through the edge, and directly to the same origin, same client, same
//                settings, in max(9, 3 × `--rounds`) interleaved pairs of half-`--duration` runs (the
//                order alternates) → edge_vs_direct (median of the pairs' req/s ratios, request log
//                on, with its quartiles), p99 added by the edge. The
//                client is h2load (`nghttp2-client`) when installed, else autocannon (`--client`).
//                Every run also reports the CPU each process used per request (client, HAProxy,
//                origin, from /proc) and how many connections the origin accepted: on a machine
//                where all three share the cores, that accounting — not req/s alone — says what
//                the edge costs, and `cpu_bound_ratio` is the ratio it implies when CPU is all
//                that limits both runs. Two CPU layouts (`--layouts`): edge-own-core (HAProxy
//                and its agent pinned alone on a CPU, client and origin on another, in both runs: the
//                production shape, the headline ratio) and shared-cores (everything on every CPU).
//   handshakes   new TLS connections per second to the edge (full handshake each, no resumption;
//                the client's own handshake cost is part of the figure).
//   deployment   a domain + certificate committed → first 200 at the edge (LISTEN/NOTIFY path).
//   scale        N hostnames with certificates (self-signed EC P-256, one key): a fresh agent's
//                boot to serving all, HAProxy RSS, then adding one hostname at runtime (commit →
//                served) p50/p99 beside the N.
//   analytics    request log on vs off (two edges, the same alternating short pairs; HAProxy's own
//                CPU µs per request on vs off beside the req/s ratio), agent CPU per 10k requests,
//                completeness over the bench, the 24 h-of-minutes analytics read (bench/support/edge-analytics.ts).
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { parseArgs } from 'node:util';
import { migrate } from '../db/migrate.ts';
import { newId } from '../db/ids.ts';
import { createDb, sql } from '../db/pool.ts';
import { createAdminSocket } from '../edge/agent/admin-socket.ts';
import { parseShowProc } from '../edge/agent/haproxy-supervisor.ts';
import { startTestDnsServer } from '../test/support/dns-server.ts';
import { edgeGet, startEdgeProcess, type EdgeProcess } from '../test/support/haproxy-edge.ts';
import { createTestCa, randomLoopback } from '../test/support/origin.ts';
import { h2loadAvailable, h2loadInstallHint, runLoad, type LoadClient, type LoadResult, type LoadTarget } from './support/http-load.ts';
import { allCpus, pinTree, tasksetAvailable } from './support/cpu-pinning.ts';
import { machineBusySeconds, pssOf, rssOf, treeUsage } from './support/proc-sampler.ts';
import { cleanup, connectBenchPostgres, errorText, intArg, onCleanup, progress } from './support/run.ts';
import { agentPid, analyticsPhase } from './support/edge-analytics.ts';
import { insertServed, selfSigned } from './support/edge-certificates.ts';
import { haproxyThreads } from '../edge/agent/settings.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '10' },
    connections: { type: 'string', default: '32' },
    hostnames: { type: 'string', default: '10000' },
    samples: { type: 'string', default: '50' },
    rounds: { type: 'string', default: '5' },
    client: { type: 'string', default: 'auto' },
    phases: { type: 'string', default: 'throughput,analytics,handshakes,deployment,scale' },
    layouts: { type: 'string', default: 'edge-own-core,shared-cores' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('usage: npm run bench:edge -- [--duration s (10)] [--connections n (32)] [--rounds n (5)] [--client auto|h2load|autocannon]\n'
    + '  [--hostnames n (10000)] [--samples n (50)] [--phases throughput,analytics,handshakes,deployment,scale] [--layouts edge-own-core,shared-cores]');
  process.exit(0);
}
const duration = intArg('duration', args.duration, 1, 600);
const connections = intArg('connections', args.connections, 1, 1000);
const scaleHostnames = intArg('hostnames', args.hostnames, 10, 200_000);
const samples = intArg('samples', args.samples, 5, 10_000);
const rounds = intArg('rounds', args.rounds, 1, 50);
// The req/s ratios (edge ÷ direct, logging on ÷ off) come from short back-to-back pairs, three per
// round asked (at least 9), each run half --duration (at least 2 s): about the wall time of
// --rounds full-length rounds, three times the pairs, so one burst of other work on a shared
// machine moves one pair, not the median (docs/analytics.md, "Cost of the request log").
const pairs = Math.max(9, rounds * 3);
const pairSeconds = Math.max(2, Math.round(duration / 2));
const allPhases = ['throughput', 'analytics', 'handshakes', 'deployment', 'scale'] as const;
const phases = new Set(args.phases.split(',').map((p) => p.trim()));
if ([...phases].some((p) => !(allPhases as readonly string[]).includes(p))) {
  console.error(`--phases takes a comma-separated subset of ${allPhases.join(',')} (got ${JSON.stringify(args.phases)})`);
  process.exit(2);
}
if (!['auto', 'h2load', 'autocannon'].includes(args.client)) {
  console.error(`--client must be auto, h2load or autocannon (got ${JSON.stringify(args.client)})`);
  process.exit(2);
}
const hasH2load = h2loadAvailable();
if (args.client === 'h2load' && !hasH2load) {
  console.error('--client h2load: h2load is not installed (Debian/Ubuntu: apt-get install nghttp2-client)');
  process.exit(2);
}
const client: LoadClient = args.client === 'autocannon' || !hasH2load ? 'autocannon' : 'h2load';
type Layout = 'edge-own-core' | 'shared-cores';
const requestedLayouts = args.layouts.split(',').map((l) => l.trim());
if (requestedLayouts.some((l) => l !== 'edge-own-core' && l !== 'shared-cores') || requestedLayouts.length === 0) {
  console.error(`--layouts takes edge-own-core and/or shared-cores (got ${JSON.stringify(args.layouts)})`);
  process.exit(2);
}
// edge-own-core needs a second CPU and taskset (util-linux); without them only shared-cores runs.
const canPin = os.cpus().length >= 2 && tasksetAvailable();
const layouts = (requestedLayouts as Layout[]).filter((l) => l === 'shared-cores' || canPin);

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (values: number[], p: number) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length ? s[Math.min(s.length - 1, Math.max(0, Math.ceil((p / 100) * s.length) - 1))]! : Number.NaN;
};
const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;

const median = (values: number[]) => pct(values, 50);

/** One load run with its CPU accounting: µs of CPU per request for each process, and the rest of the machine. */
interface MeasuredRun extends LoadResult {
  cpuUsPerRequest: { client: number; haproxy: number; origin: number };
  /** CPU seconds the machine spent on everything else during the run (other work on a shared machine). */
  otherCpuSeconds: number;
  wallSeconds: number;
  /** TLS connections the origin accepted during the run, and how many resumed a session. */
  originConnections: number;
  originResumed: number;
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
    // Counters for the benchmark (over IPC): TLS connections accepted, of which resumed sessions.
    let connections = 0, resumed = 0;
    s.on('secureConnection', (t) => { connections++; if (t.isSessionReused()) resumed++; });
    process.on('message', () => process.send({ connections, resumed }));
    s.listen(8443, process.env.IP, () => console.log('ready'));`;
  const origin: ChildProcess = spawn(process.execPath, ['-e', originScript], { env: { C: certPem, K: keyPem, IP: originIp }, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
  const originCounters = () => new Promise<{ connections: number; resumed: number }>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the origin did not report its counters within 5 s')), 5_000);
    origin.once('message', (m) => { clearTimeout(timer); resolve(m as { connections: number; resumed: number }); });
    origin.send('counters');
  });
  onCleanup('origin', async () => { origin.kill(); });
  await new Promise<void>((resolve, reject) => { origin.stdout!.once('data', () => resolve()); origin.once('exit', () => reject(new Error('origin exited'))); });

  const org = newId('organization');
  await db.query(sql.unsafe`insert into organizations (id, name) values (${org}, 'bench')`);
  const destination = newId('destination');
  await db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values (${destination}, ${org}, 'https://origin.bench.test:8443', 'origin.bench.test', 8443)`);
  await insertServed(db, org, destination, [{ hostname: 'shop.bench.test', certPem: await selfSigned('shop.bench.test') }]);

  // HAProxy's threads as in production (0: 1 on ≤ 2 CPUs, else one per CPU; edge/agent/settings.ts)
  // unless HOSTGATE_EDGE_THREADS says otherwise.
  // BENCH_EDGE_CPU_PROF=<dir>: each agent process writes a V8 CPU profile there when it exits.
  const cpuProf: Record<string, string> = process.env.BENCH_EDGE_CPU_PROF ? { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${process.env.BENCH_EDGE_CPU_PROF}` } : {};
  // The request log on (as in production): edge_vs_direct is measured with it (issue 24).
  const edgeEnv = { HOSTGATE_EDGE_TRAFFIC_LOG: 'on', HOSTGATE_EDGE_THREADS: process.env.HOSTGATE_EDGE_THREADS ?? '0', HOSTGATE_EDGE_START_TIMEOUT_MS: '600000', HOSTGATE_EDGE_ANALYTICS_FLUSH_MS: '1000', ...cpuProf };
  const benchStart = new Date(Date.now() - 60_000);
  let edge: EdgeProcess = await startEdgeProcess({ databaseUrl: benchUrl, resolvers: dns.server, originCaFile: originCa.certPath, env: edgeEnv });
  onCleanup('edge', async () => { await edge.stop(); await edge.cleanup(); });
  /** The threads HAProxy runs for a HOSTGATE_EDGE_THREADS value (0 from haproxyThreads: one per CPU). */
  const threadsFor = (setting: string) => haproxyThreads(Number(setting), os.availableParallelism()) || os.availableParallelism();
  const threads = threadsFor(edgeEnv.HOSTGATE_EDGE_THREADS);
  progress(`edge on 127.0.0.1:${edge.port} (HAProxy ${threads} thread${threads > 1 ? 's' : ''}), origin on ${originIp}:8443`);

  const haproxyCpuSeconds = async () => {
    const proc = parseShowProc(await createAdminSocket(path.join(edge.stateDir, 'master.sock'), 10_000).master('show proc'));
    if (!proc) throw new Error('cannot read HAProxy\'s processes from its master socket');
    return treeUsage(proc.masterPid).cpuSeconds; // the master and its worker
  };
  const measured = async (target: LoadTarget, seconds = duration): Promise<MeasuredRun> => {
    const [origin0, haproxy0, busy0, counters0, t0] = [treeUsage(origin.pid!).cpuSeconds, await haproxyCpuSeconds(), machineBusySeconds(), await originCounters(), performance.now()];
    const r = await runLoad(client, target, connections, seconds);
    const [origin1, haproxy1, busy1, counters1, t1] = [treeUsage(origin.pid!).cpuSeconds, await haproxyCpuSeconds(), machineBusySeconds(), await originCounters(), performance.now()];
    const per = (cpuSeconds: number) => round((cpuSeconds / Math.max(1, r.total)) * 1e6, 1);
    return {
      ...r,
      cpuUsPerRequest: { client: per(r.clientCpuSeconds), haproxy: per(haproxy1 - haproxy0), origin: per(origin1 - origin0) },
      otherCpuSeconds: round(busy1 - busy0 - r.clientCpuSeconds - (haproxy1 - haproxy0) - (origin1 - origin0)),
      wallSeconds: round((t1 - t0) / 1000),
      originConnections: counters1.connections - counters0.connections,
      originResumed: counters1.resumed - counters0.resumed,
    };
  };
  const describeRun = (name: string, m: MeasuredRun) => `${name.padEnd(6)} ${String(round(m.rps, 0)).padStart(6)} req/s  p50 ${round(m.p50Ms)} ms  p99 ${round(m.p99Ms)} ms  `
    + `CPU µs/request: client ${m.cpuUsPerRequest.client}, HAProxy ${m.cpuUsPerRequest.haproxy}, origin ${m.cpuUsPerRequest.origin}; `
    + `other processes ${m.otherCpuSeconds} CPU s; origin accepted ${m.originConnections} TLS connections (${m.originResumed} resumed)`
    + `${m.non2xx + m.errors > 0 ? `; ${m.non2xx} non-2xx, ${m.errors} errors` : ''}`;

  // --- throughput ---------------------------------------------------------------------------
  const first = await edgeGet(edge.port, 'shop.bench.test');
  if (first.status !== 200) throw new Error(`the edge does not serve the bench hostname (status ${first.status}): ${first.body.slice(0, 200)}`);
  const directTarget: LoadTarget = { address: originIp, port: 8443, hostname: 'origin.bench.test' };
  // Layouts: `edge-own-core` gives HAProxy a CPU of its own and puts the client and the origin
  // together on another, in both runs — as in production, where the edge has its machine and the
  // origin is elsewhere: the ratio then says what passing through the edge costs the client.
  // `shared-cores` lets the three share every core: on a 2-core machine the edge's CPU is taken
  // from the client and the origin, so the ratio mostly says how CPU-heavy the edge is
  // (cpu_bound_ratio). Both are printed; docs/edge.md, "Benchmark", says why.
  const haproxyMasterPid = async () => {
    const proc = parseShowProc(await createAdminSocket(path.join(edge.stateDir, 'master.sock'), 10_000).master('show proc'));
    if (!proc) throw new Error('cannot read HAProxy\'s processes from its master socket');
    return proc.masterPid;
  };
  const applyLayout = async (layout: Layout) => {
    const last = String(os.cpus().length - 1);
    if (layout === 'edge-own-core') {
      pinTree(process.pid, last); // this process (autocannon, and h2load's runs inherit it)
      pinTree(origin.pid!, last);
      // The edge machine's work is HAProxy's and its agent's (the request log is parsed and counted
      // there): both on CPU 0 (measured: the ratio is the same with the agent on the client's CPU).
      // BENCH_EDGE_AGENT_CPU=client keeps the agent on the client's CPU (as before 2026-11-27), to compare.
      const agent = agentPid(edge.stateDir);
      if (agent && process.env.BENCH_EDGE_AGENT_CPU !== 'client') pinTree(agent, '0');
      pinTree(await haproxyMasterPid(), '0');
    } else {
      for (const pid of [process.pid, origin.pid!, await haproxyMasterPid()]) pinTree(pid, allCpus());
    }
  };
  // HAProxy runs one thread per CPU it has (production default): 1 when it has a core of its own.
  let runningThreads = edgeEnv.HOSTGATE_EDGE_THREADS;
  const edgeWithThreads = async (wanted: string) => {
    if (wanted === runningThreads) return;
    await edge.stop();
    await edge.cleanup();
    edge = await startEdgeProcess({ databaseUrl: benchUrl, resolvers: dns.server, originCaFile: originCa.certPath, env: { ...edgeEnv, HOSTGATE_EDGE_THREADS: wanted } });
    runningThreads = wanted;
    const again = await edgeGet(edge.port, 'shop.bench.test');
    if (again.status !== 200) throw new Error(`the restarted edge does not serve the bench hostname (status ${again.status})`);
  };
  const throughputRounds = async (layout: Layout) => {
    const edgeRuns: MeasuredRun[] = [];
    const directRuns: MeasuredRun[] = [];
    await edgeWithThreads(layout === 'edge-own-core' ? (process.env.HOSTGATE_EDGE_THREADS ?? '1') : edgeEnv.HOSTGATE_EDGE_THREADS);
    const viaEdgeTarget: LoadTarget = { address: '127.0.0.1', port: edge.port, hostname: 'shop.bench.test' };
    await applyLayout(layout);
    progress(`throughput, ${layout === 'edge-own-core' ? `layout edge-own-core: HAProxy (${threadsFor(runningThreads)} thread) alone on CPU 0, client and origin together on CPU ${os.cpus().length - 1}` : `layout shared-cores: client, HAProxy (${threads} threads) and origin share every CPU`}`);
    progress(`  ${client}, ${connections} keep-alive connections, request log on, ${pairSeconds} s per run, ${pairs} pairs of edge and direct (order alternating)`);
    // Warm-up, both paths, as long as a measured run (up to 10 s): with 3 s the first measured
    // round was still the lowest of every run (JIT, TLS session caches, allocator warming).
    await runLoad(client, viaEdgeTarget, connections, Math.min(duration, 10));
    await runLoad(client, directTarget, connections, Math.min(duration, 10));
    for (let i = 0; i < pairs; i++) {
      const order = i % 2 === 0 ? (['edge', 'direct'] as const) : (['direct', 'edge'] as const);
      for (const which of order) {
        const m = await measured(which === 'edge' ? viaEdgeTarget : directTarget, pairSeconds);
        (which === 'edge' ? edgeRuns : directRuns).push(m);
        progress(`  round ${i + 1} ${describeRun(which, m)}`);
      }
      progress(`  round ${i + 1} edge/direct ${round(edgeRuns[i]!.rps / directRuns[i]!.rps, 3)}`);
    }
    await applyLayout('shared-cores');
    return { edgeRuns, directRuns, ratios: edgeRuns.map((e, k) => e.rps / directRuns[k]!.rps) };
  };
  if (phases.has('throughput') && client === 'autocannon' && args.client === 'auto') progress(h2loadInstallHint);
  if (phases.has('throughput') && requestedLayouts.includes('edge-own-core') && !canPin) progress('layout edge-own-core skipped: it needs 2 CPUs or more and taskset (util-linux)');
  const byLayout = new Map<Layout, Awaited<ReturnType<typeof throughputRounds>>>();
  if (phases.has('throughput')) for (const layout of layouts) byLayout.set(layout, await throughputRounds(layout));
  await edgeWithThreads(edgeEnv.HOSTGATE_EDGE_THREADS); // the later phases run as configured
  // The CPU accounting comes from the shared-cores runs when there are any (where it explains the
  // ratio); the headline ratio from edge-own-core when it ran (the production shape).
  const accounting = byLayout.get('shared-cores') ?? byLayout.get('edge-own-core') ?? { edgeRuns: [], directRuns: [], ratios: [] };
  const headline = byLayout.get('edge-own-core') ?? accounting;
  const headlineLayout: Layout | null = byLayout.has('edge-own-core') ? 'edge-own-core' : byLayout.has('shared-cores') ? 'shared-cores' : null;
  const { edgeRuns, directRuns } = headline;
  const layoutRatio = (layout: Layout) => { const r = byLayout.get(layout); return r && r.ratios.length ? round(median(r.ratios), 3) : null; };
  const { ratios } = headline;
  const medianOf = (runs: MeasuredRun[], f: (m: MeasuredRun) => number) => (runs.length ? round(median(runs.map(f)), 1) : null);
  const cpu = (runs: MeasuredRun[]) => (runs.length ? {
    client: medianOf(runs, (m) => m.cpuUsPerRequest.client)!, haproxy: medianOf(runs, (m) => m.cpuUsPerRequest.haproxy)!, origin: medianOf(runs, (m) => m.cpuUsPerRequest.origin)!,
  } : null);
  const edgeCpu = cpu(accounting.edgeRuns);
  const directCpu = cpu(accounting.directRuns);
  // If CPU alone limited both runs, req/s would be inversely proportional to the CPU a request
  // costs on this machine, all processes together.
  const cpuBoundRatio = edgeCpu && directCpu ? round((directCpu.client + directCpu.origin) / (edgeCpu.client + edgeCpu.haproxy + edgeCpu.origin), 3) : null;
  const layoutQuartiles = (layout: Layout) => { const r = byLayout.get(layout); return r && r.ratios.length ? [round(pct(r.ratios, 25), 3), round(pct(r.ratios, 75), 3)] : null; };
  for (const [layout] of byLayout) progress(`  ${layout}: edge_vs_direct ${layoutRatio(layout)} (median of ${pairs} pairs, quartiles ${layoutQuartiles(layout)?.join('–')}), request log on`);
  if (accounting.edgeRuns.length) {
    progress(`  CPU µs per request (${byLayout.has('shared-cores') ? 'shared-cores' : 'edge-own-core'} runs, medians): edge ${JSON.stringify(edgeCpu)}, direct ${JSON.stringify(directCpu)} → cpu_bound_ratio ${cpuBoundRatio} (the ratio CPU alone would allow with all three on the same cores)`);
  }

  // --- analytics: logging on ÷ off, agent CPU, completeness, the 24 h read (issue 24) ---------
  const analytics = phases.has('analytics') ? await analyticsPhase({
    on: edge, rounds, duration, samples, db, organizationId: org, destinationId: destination, since: benchStart, log: progress,
    startOff: () => startEdgeProcess({ databaseUrl: benchUrl, resolvers: dns.server, originCaFile: originCa.certPath, env: { ...edgeEnv, HOSTGATE_EDGE_TRAFFIC_LOG: 'off' } }),
    run: (port, seconds) => runLoad(client, { address: '127.0.0.1', port, hostname: 'shop.bench.test' }, connections, seconds),
  }) : {};

  // --- handshakes ---------------------------------------------------------------------------
  let hs: number | null = null;
  let haproxyUsPerHandshake: number | null = null;
  if (phases.has('handshakes')) {
    const h0 = await haproxyCpuSeconds();
    const seconds = Math.min(duration, 5);
    hs = await handshakes(edge.port, 'shop.bench.test', seconds);
    haproxyUsPerHandshake = round(((await haproxyCpuSeconds()) - h0) / Math.max(1, hs * seconds) * 1e6, 0);
    progress(`handshakes: ${round(hs, 0)} new TLS connections/s (Node client, 16 at a time, no resumption); HAProxy ${haproxyUsPerHandshake} µs CPU per handshake`);
  }

  // --- deployment latency -------------------------------------------------------------------
  // BENCH_EDGE_LOG=<file>: every sample with its time and the edge's log lines, to line slow ones up.
  const sampleTimes: { hostname: string; at: number; ms: number }[] = [];
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
      sampleTimes.push({ hostname, at: Date.now(), ms: round(latencies.at(-1)!) });
    }
    return latencies;
  };
  const deployment = phases.has('deployment') ? await deploy(samples, 'deploy') : [];
  if (deployment.length) progress(`deployment latency (commit → served), ${samples} samples: p50 ${round(pct(deployment, 50))} ms, p99 ${round(pct(deployment, 99))} ms`);

  const throughputFigures = {
    client, connections, duration_s: duration, rounds, pairs, pair_seconds: pairSeconds,
    edge_rps: medianOf(edgeRuns, (m) => m.rps), direct_rps: medianOf(directRuns, (m) => m.rps),
    edge_vs_direct: ratios.length ? round(median(ratios), 3) : null,
    edge_vs_direct_layout: headlineLayout,
    edge_vs_direct_request_log: edgeEnv.HOSTGATE_EDGE_TRAFFIC_LOG,
    edge_vs_direct_quartiles: headlineLayout ? layoutQuartiles(headlineLayout) : null,
    edge_vs_direct_rounds: ratios.map((r) => round(r, 3)),
    edge_vs_direct_edge_own_core: layoutRatio('edge-own-core'),
    edge_vs_direct_shared_cores: layoutRatio('shared-cores'),
    edge_p99_ms: medianOf(edgeRuns, (m) => m.p99Ms), direct_p99_ms: medianOf(directRuns, (m) => m.p99Ms),
    p99_added_ms: edgeRuns.length ? round(median(edgeRuns.map((m) => m.p99Ms)) - median(directRuns.map((m) => m.p99Ms))) : null,
    edge_errors: edgeRuns.reduce((n, m) => n + m.errors + m.non2xx, 0),
    edge_cpu_us_per_req: edgeCpu, direct_cpu_us_per_req: directCpu, cpu_bound_ratio: cpuBoundRatio,
    origin_connections_via_edge: [...byLayout.values()].flatMap((r) => r.edgeRuns).reduce((n, m) => n + m.originConnections, 0),
    edge_requests: [...byLayout.values()].flatMap((r) => r.edgeRuns).reduce((n, m) => n + m.total, 0),
    other_processes_cpu_s: round([...byLayout.values()].flatMap((r) => [...r.edgeRuns, ...r.directRuns]).reduce((n, m) => n + m.otherCpuSeconds, 0), 1),
    tls_handshakes_per_s: hs === null ? null : round(hs, 0), haproxy_cpu_us_per_handshake: haproxyUsPerHandshake,
    deployment_p50_ms: deployment.length ? round(pct(deployment, 50)) : null, deployment_p99_ms: deployment.length ? round(pct(deployment, 99)) : null,
  };
  const machine = {
    machine: `${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, ${round(os.totalmem() / 2 ** 30, 1)} GiB`,
    haproxy: 'Debian 2.6 (/usr/sbin/haproxy)', haproxy_threads: threads,
  };
  if (!phases.has('scale')) return { ...machine, ...throughputFigures, ...analytics };

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
  // h0-… sorts first: with no traffic recorded, a staged boot (HOSTGATE_EDGE_BOOT_FIRST_HOSTS)
  // serves it in its first stage; the others may come with the reload that loads the rest.
  const probe = [0, Math.floor(scaleHostnames / 2), scaleHostnames - 1].map((i) => `h${i}-${runId}.scale.bench.test`);
  const servedAfter = async (h: string, limitMs: number) => {
    for (;;) {
      const r = await edgeGet(edge.port, h).catch(() => null);
      if (r?.status === 200) return performance.now() - bootStart;
      if (performance.now() - bootStart > limitMs) throw new Error(`${h} not served ${round(limitMs / 1000)} s after boot (status ${r?.status ?? 'no answer'})`);
      await sleep(50);
    }
  };
  const firstServed = await servedAfter(probe[0]!, 900_000);
  const serving = edge.logs.find((l) => l.msg === 'edge: serving') ?? {};
  const staged = serving.staged === true;
  const firstStage = Number(serving.serving ?? 0);
  if (staged) {
    progress(`  the first ${firstStage} hostnames served after ${round(firstServed / 1000)} s; HAProxy loads the rest behind them`);
    while (!edge.logs.some((l) => l.msg === 'edge: staged boot: serving every hostname')) {
      if (performance.now() - bootStart > 900_000) throw new Error('the staged boot did not finish within 900 s');
      await sleep(200);
    }
  }
  for (const h of probe) await servedAfter(h, 900_000);
  const bootToServing = performance.now() - bootStart;
  const listed = (await master.worker(`show ssl crt-list ${path.join(edge.stateDir, 'crt-list.txt')}`)).split('\n').filter((l) => l && !l.startsWith('#')).length;
  const bootPhases = Object.fromEntries(Object.entries(serving).filter(([k]) => k.endsWith('_ms')));
  progress(`  agent boot phases (ms since start): ${JSON.stringify(bootPhases)}`);
  // Once the old worker of the staged boot's reload has gone: the master and one worker.
  let procs: number[] = [];
  for (let i = 0; i < 100; i++) {
    procs = (await master.master('show proc')).split('\n').map((l) => /^(\d+)\s+(master|worker)/.exec(l)?.[1]).filter(Boolean).map(Number);
    if (procs.length <= 2) break;
    await sleep(200);
  }
  const rss = rssOf(procs);
  const pss = pssOf(procs);
  progress(`  boot to serving all ${listed} certificates: ${round(bootToServing / 1000)} s (first served after ${round(firstServed / 1000)} s, agent ready after ${round(agentReady / 1000)} s); HAProxy RSS ${round(rss / 2 ** 20, 0)} MiB summed over master and worker, PSS ${round(pss / 2 ** 20, 0)} MiB (pages they share counted once)`);
  const runtimeAdd = await deploy(samples, 'add');
  progress(`  adding one hostname beside ${listed}: p50 ${round(pct(runtimeAdd, 50))} ms, p99 ${round(pct(runtimeAdd, 99))} ms`);
  if (process.env.BENCH_EDGE_LOG) {
    // The full reconcile that follows the boot may outlast the samples: its log line (phases,
    // longest event-loop hold) goes into the file too, waited for up to 2 minutes.
    for (let i = 0; i < 600 && !edge.logs.some((l) => l.msg === 'edge: full reconcile done'); i++) await sleep(200);
    writeFileSync(process.env.BENCH_EDGE_LOG, JSON.stringify({ samples: sampleTimes, logs: edge.logs }));
  }

  return {
    ...machine, ...throughputFigures, ...analytics,
    scale_hostnames: listed,
    scale_boot_to_serving_s: round(bootToServing / 1000), scale_first_served_s: round(firstServed / 1000), scale_first_stage_hostnames: staged ? firstStage : null,
    scale_agent_ready_s: round(agentReady / 1000),
    scale_haproxy_rss_mib: round(rss / 2 ** 20, 0), scale_haproxy_pss_mib: round(pss / 2 ** 20, 0), scale_boot_phases_ms: bootPhases,
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
