// `npm run bench:webhooks [-- --samples 200 --deliveries 1500 --endpoints 5 --concurrency 20]`:
// how fast a domain transition reaches a webhook receiver, on this machine, through the real
// pipeline. Not a test: it prints figures and exits 0 whether or not the latency target is met (it
// exits 1 only when the benchmark cannot run).
//
// What runs: a fresh database hg_bench_<random> (migrated) on the local Postgres or DATABASE_URL's
// server; a Temporal dev server in memory (or TEMPORAL_ADDRESS); the production worker process
// (`node worker/main.ts`: LISTEN/NOTIFY fan-out, outbox dispatcher, delivery workflows and
// activities) with HOSTGATE_ALLOW_PRIVATE_TARGETS=true so it may POST to loopback; and in this
// process a plain node:http receiver answering 204 at once. Transitions are made the way the
// workflow activities make them (domainsRepository.transition: row, history and event in one
// transaction).
//
// Phases:
//   latency     one endpoint subscribed to hostname.verified; domains moved pending_dns →
//               pending_certificate one at a time; each sample is the time from the transition's
//               commit to the receiver getting the signed POST (it answers 204 at once).
//   throughput  N endpoints subscribed to hostname.active; transitions fired `concurrency` at a
//               time until `deliveries` deliveries are due; deliveries per second from the first
//               to the last arrival, per-second arrivals, and latency under that load; CPU of the
//               worker and of the Temporal dev server per delivery.
//   ceiling     just before and just after the throughput phase, on the same Temporal server:
//               `deliveries` workflows that each run one local activity and nothing else, started
//               50 at a time with eager start from the process that runs their worker
//               (bench/ceiling/main.ts) — the least a delivery can cost the server. The headline
//               `ceiling_ratio` is deliveries/s ÷ the mean of the two: on a machine shared with
//               other work, the absolute rates move with the load; the ratio much less.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { createDb, sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { findTemporalCli } from '../local-stack/temporal-dev-server.ts';
import { verifyWebhook } from '../sdk/webhooks.ts';
import { SecretBox } from '../security/secret-box.ts';
import { Client, Connection } from '@temporalio/client';
import { WEBHOOK_DELIVERY_WORKFLOW } from '../contracts/webhook-delivery-workflow.ts';
import { connectTemporal, ensureSearchAttributes } from '../temporal/connection.ts';
import { printMachine } from './support/print.ts';
import { connectBenchPostgres, intArg, isCleaningUp, onCleanup, progress, runBenchmark, sleep, type Headline } from './support/run.ts';
import { createBenchDatabase, temporalForBench } from './support/setup.ts';
import { treeUsage } from './support/proc-sampler.ts';
import { distribution, percentile } from './support/stats.ts';

const P50_TARGET_MS = 150;

const { values: args } = parseArgs({
  options: {
    samples: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '20' },
    deliveries: { type: 'string', default: '1500' },
    endpoints: { type: 'string', default: '5' },
    concurrency: { type: 'string', default: '20' },
    'ceiling-in-flight': { type: 'string', default: '50' },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('usage: npm run bench:webhooks -- [--samples n (200)] [--warmup n (20)] [--deliveries n (1500)] [--endpoints n (5)] [--concurrency n (20)] [--ceiling-in-flight n (50)]');
  process.exit(0);
}
const samples = intArg('samples', args.samples, 10, 100_000);
const warmupSamples = intArg('warmup', args.warmup, 0, 10_000);
const endpointCount = intArg('endpoints', args.endpoints, 1, 100);
const totalDeliveries = intArg('deliveries', args.deliveries, endpointCount, 1_000_000);
const concurrency = intArg('concurrency', args.concurrency, 1, 500);
const ceilingInFlight = intArg('ceiling-in-flight', args['ceiling-in-flight'], 1, 1000);

/** The server's rate for one-local-activity workflows (see "ceiling" above), and the CPU it took. */
async function measureCeiling(address: string, namespace: string, temporalPid: number | undefined): Promise<{ per_s: number; seconds: number; probe_cpu_s: number; temporal_cpu_s: number | null }> {
  const cpu0 = temporalPid ? treeUsage(temporalPid).cpuSeconds : null;
  const child = spawn(process.execPath, ['bench/ceiling/main.ts', address, namespace, String(totalDeliveries), String(ceilingInFlight)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { out += d.toString(); });
  onCleanup('ceiling probe', async () => { if (child.exitCode === null) child.kill('SIGKILL'); });
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const line = out.trim().split('\n').at(-1) ?? '';
  if (code !== 0 || !line.startsWith('{')) throw new Error(`the ceiling probe failed (exit ${String(code)}):\n${out.slice(-4000)}`);
  const r = JSON.parse(line) as { per_s: number; seconds: number; cpu_s: number };
  return { per_s: r.per_s, seconds: r.seconds, probe_cpu_s: r.cpu_s, temporal_cpu_s: cpu0 === null ? null : treeUsage(temporalPid!).cpuSeconds - cpu0 };
}

const fmt = (v: number) => (Number.isFinite(v) ? v.toFixed(1) : '—');

function temporalVersion(address: string | undefined): string {
  if (address) return `external (${address})`;
  try {
    return `${execFileSync(findTemporalCli(process.env.TEMPORAL_CLI_PATH, () => undefined), ['--version'], { encoding: 'utf8' }).trim()}, dev server in memory`;
  } catch {
    return 'dev server in memory';
  }
}

// ---------------------------------------------------------------------------------------------
// Receiver: answers 204 at once and reports (domain id, event kind, endpoint path) → arrival time.

interface Arrival { key: string; at: number; body: string; signature: string | undefined; path: string }

async function startReceiver(onArrival: (a: Arrival) => void) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const at = performance.now();
      res.writeHead(204).end();
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        const event = JSON.parse(body) as { event: string; data: { id: string } };
        onArrival({ key: `${event.data.id} ${event.event}`, at, body, signature: req.headers['service-signature'] as string | undefined, path: req.url ?? '/' });
      } catch { /* not ours */ }
    });
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, port: (server.address() as net.AddressInfo).port };
}

// ---------------------------------------------------------------------------------------------

async function main(): Promise<Headline> {
  const runId = randomBytes(4).toString('hex');
  const pgInfo = await connectBenchPostgres(runId);
  const { benchUrl } = pgInfo;

  const cpus = os.cpus();
  printMachine('Hostgate webhook delivery benchmark', pgInfo, { cpuCountNote: false });
  console.log(`  temporal   ${temporalVersion(process.env.TEMPORAL_ADDRESS)}`);
  console.log('  worker     node worker/main.ts (one process: LISTEN/NOTIFY fan-out, outbox dispatcher, workflows, activities), DB pool 10');
  console.log('  receiver   node:http on 127.0.0.1 in this process, answers 204 at once; plain HTTP (HOSTGATE_ALLOW_PRIVATE_TARGETS=true)');
  console.log(`  note       Postgres, Temporal, the worker and this process share these ${cpus.length} cores`);
  console.log('');

  await createBenchDatabase(pgInfo);

  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  const { address: temporalAddress, pid: temporalPid } = await temporalForBench(namespace);
  const connection = await connectTemporal(temporalAddress);
  await ensureSearchAttributes(connection, namespace);
  await connection.close();
  const taskQueue = `hostgate-bench-webhooks-${runId}`;

  const encryptionKeys = `bench:${randomBytes(32).toString('base64')}`;
  const db = await createDb(benchUrl, { maximumPoolSize: 10 });
  onCleanup('database pool', () => db.end());
  const box = new SecretBox([{ id: 'bench', key: Buffer.from(encryptionKeys.split(':')[1]!, 'base64') }]);
  const org = await organizationsRepository(db).create({ name: 'Webhook benchmark' });
  const destination = await destinationsRepository(db).create({ organizationId: org.id, url: 'https://app.vendor.example', host: 'app.vendor.example', port: 443 });
  const domains = domainsRepository(db);

  // Receiver.
  const waiting = new Map<string, (at: number) => void>();
  const arrivals: Arrival[] = [];
  let onAny: ((a: Arrival) => void) | null = null;
  const receiver = await startReceiver((a) => {
    arrivals.push(a);
    onAny?.(a);
    waiting.get(a.key)?.(a.at);
  });
  onCleanup('receiver', () => new Promise((r) => { receiver.server.closeAllConnections(); receiver.server.close(r); }));
  const url = (path: string) => `http://127.0.0.1:${receiver.port}${path}`;
  const endpoints = webhookEndpointsRepository(db, box);

  // Worker process.
  let workerOutput = '';
  // BENCH_WORKER_CPU_PROF=<dir>: the worker writes a V8 CPU profile there when it stops.
  const profile = process.env.BENCH_WORKER_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_WORKER_CPU_PROF}`] : [];
  const worker: ChildProcess = spawn(process.execPath, [...profile, 'worker/main.ts'], {
    env: {
      PATH: process.env.PATH, DATABASE_URL: benchUrl, TEMPORAL_ADDRESS: temporalAddress, TEMPORAL_NAMESPACE: namespace, TEMPORAL_TASK_QUEUE: taskQueue,
      HOSTGATE_ENCRYPTION_KEYS: encryptionKeys, HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true', LOG_LEVEL: 'warn',
      ...(process.env.TEMPORAL_CLI_PATH ? { TEMPORAL_CLI_PATH: process.env.TEMPORAL_CLI_PATH } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  worker.stdout?.on('data', (d: Buffer) => { workerOutput = (workerOutput + d.toString()).slice(-8000); });
  worker.stderr?.on('data', (d: Buffer) => { workerOutput = (workerOutput + d.toString()).slice(-8000); });
  const workerExited = new Promise<number | null>((resolve) => worker.once('exit', resolve));
  onCleanup('worker process', async () => {
    if (worker.exitCode !== null) return;
    worker.kill('SIGTERM');
    const timer = setTimeout(() => worker.kill('SIGKILL'), 15_000);
    await workerExited;
    clearTimeout(timer);
  });
  void workerExited.then((code) => { if (!isCleaningUp()) console.error(`worker exited early (code ${String(code)}):\n${workerOutput}`); });

  /**
   * A domain row with its history and `hostname.created` event, as the API makes it — but its
   * lifecycle workflow is not started (its outbox row is marked dispatched in the same
   * transaction): this benchmark moves the domains itself, and real DNS checks and ACME orders
   * would only compete for the cores.
   */
  const newDomain = (hostname: string) => db.transaction(async (tx) => {
    const { domain, outboxId } = await domains.create({ organizationId: org.id, destinationId: destination.id, hostname, isApex: false }, tx);
    // Neither dispatched now nor re-queued by the worker's reconciler a minute later.
    await tx.query(sql.unsafe`update workflow_outbox set dispatched_at = now() where id = ${outboxId}`);
    await tx.query(sql.unsafe`update domains set workflow_started_at = now() where id = ${domain.id}`);
    return domain;
  });
  let refused = 0;
  const move = async (id: string, to: 'pending_certificate' | 'active') => {
    const result = await domains.transition(id, to === 'active' ? 'certificate_deployed' : 'dns_verified', 'benchmark');
    if (!result.changed) refused++;
  };
  const arrival = (key: string, timeoutMs = 30_000) => new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => { waiting.delete(key); reject(new Error(`no delivery of ${key} within ${timeoutMs} ms; worker output:\n${workerOutput}`)); }, timeoutMs);
    waiting.set(key, (at) => { clearTimeout(timer); waiting.delete(key); resolve(at); });
  });

  // ------------------------------------------------------------------------------------------
  // Phase 1: latency, one at a time.
  const latencyEndpoint = await endpoints.create({ organizationId: org.id, url: url('/latency'), events: ['hostname.verified'] });
  progress('waiting for the worker (bundle, connections) with a first delivery…');
  {
    const d = await newDomain(`warm-${runId}.bench.example`);
    const got = arrival(`${d.id} hostname.verified`, 120_000);
    await move(d.id, 'pending_certificate');
    await got;
  }
  progress(`worker ready; latency: ${warmupSamples} warm-up + ${samples} sequential transitions`);
  const pending = [] as Awaited<ReturnType<typeof newDomain>>[];
  for (let i = 0; i < warmupSamples + samples; i++) pending.push(await newDomain(`lat-${i}-${runId}.bench.example`));
  // Let the hostname.created events fan out (no subscriber: no deliveries) before measuring.
  await sleep(500);
  const latencies: number[] = [];
  const commits: number[] = [];
  for (let i = 0; i < pending.length; i++) {
    const d = pending[i]!;
    const got = arrival(`${d.id} hostname.verified`);
    const started = performance.now();
    await move(d.id, 'pending_certificate');
    const committed = performance.now();
    const at = await got;
    if (i >= warmupSamples) {
      latencies.push(at - committed);
      commits.push(committed - started);
    }
  }
  const lat = distribution(latencies);
  const commit = distribution(commits);
  const verified = arrivals.filter((a) => a.path === '/latency');
  const badSignatures = verified.filter((a) => { try { verifyWebhook(a.body, a.signature, latencyEndpoint.secret); return false; } catch { return true; } }).length;
  progress(`latency done: p50 ${fmt(lat.p50)} ms, p99 ${fmt(lat.p99)} ms`);

  // ------------------------------------------------------------------------------------------
  // Phase 2: sustained throughput.
  const transitions = Math.ceil(totalDeliveries / endpointCount);
  const expected = transitions * endpointCount;
  // The latency endpoint would receive the setup's hostname.verified events: pause it first.
  await endpoints.disable(latencyEndpoint.endpoint.id, 'benchmark');
  for (let i = 0; i < endpointCount; i++) await endpoints.create({ organizationId: org.id, url: url(`/load/${i}`), events: ['hostname.active'] });
  progress(`throughput: ${endpointCount} endpoints × ${transitions} transitions = ${expected} deliveries, ${concurrency} transitions in flight`);
  const loadDomains: { id: string }[] = [];
  for (let i = 0; i < transitions; i++) {
    const d = await newDomain(`load-${i}-${runId}.bench.example`);
    await move(d.id, 'pending_certificate');
    loadDomains.push(d);
  }
  // Setup events fan out to nobody; let that finish before the clock starts.
  await sleep(1000);
  progress(`ceiling (before): ${totalDeliveries} one-local-activity workflows, ${ceilingInFlight} starts in flight…`);
  const ceilingBefore = await measureCeiling(temporalAddress, namespace, temporalPid);
  progress(`ceiling (before): ${fmt(ceilingBefore.per_s)}/s; throughput phase starts`);
  await sleep(500);
  const workerCpu0 = treeUsage(worker.pid!).cpuSeconds;
  const temporalCpu0 = temporalPid ? treeUsage(temporalPid).cpuSeconds : null;
  const loadArrivals: number[] = [];
  const committedAt = new Map<string, number>();
  const underLoad: number[] = [];
  let done!: () => void;
  const allArrived = new Promise<void>((resolve) => { done = resolve; });
  onAny = (a) => {
    if (!a.path.startsWith('/load/')) return;
    loadArrivals.push(a.at);
    const c = committedAt.get(a.key);
    if (c !== undefined) underLoad.push(a.at - c);
    if (loadArrivals.length >= expected) done();
  };
  const loadStart = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < loadDomains.length) {
      const d = loadDomains[next++]!;
      await move(d.id, 'active');
      committedAt.set(`${d.id} hostname.active`, performance.now());
    }
  }));
  const producedIn = performance.now() - loadStart;
  const deadline = Math.max(120_000, expected * 200);
  const finished = await Promise.race([allArrived.then(() => true), sleep(deadline).then(() => false)]);
  // CPU per delivery, up to the last arrival (the last attempts' records are a few ms more).
  const workerCpu = treeUsage(worker.pid!).cpuSeconds - workerCpu0;
  const temporalCpu = temporalCpu0 === null ? null : treeUsage(temporalPid!).cpuSeconds - temporalCpu0;
  // The receivers may have everything before the delivery workflows have all run (the worker makes
  // each first attempt beside its workflow's start, docs/api-decisions.md "Attempts"): the phase's whole cost is
  // counted up to the last workflow closed, and that time is printed too.
  const temporalClient = new Client({ connection: await Connection.connect({ address: temporalAddress }), namespace });
  const running = async () => (await temporalClient.workflow.count(`WorkflowType = '${WEBHOOK_DELIVERY_WORKFLOW}' AND ExecutionStatus = 'Running'`)).count;
  const closeDeadline = performance.now() + deadline;
  for (let r = await running(); r > 0 && performance.now() < closeDeadline; r = await running()) await sleep(200);
  const closedSpan = (performance.now() - loadStart) / 1000;
  const stillRunning = await running();
  await temporalClient.connection.close();
  const workerCpuAll = treeUsage(worker.pid!).cpuSeconds - workerCpu0;
  const temporalCpuAll = temporalCpu0 === null ? null : treeUsage(temporalPid!).cpuSeconds - temporalCpu0;
  const first = Math.min(...loadArrivals);
  const last = Math.max(...loadArrivals);
  const span = (last - loadStart) / 1000;
  const rate = loadArrivals.length / span;
  const perSecond = new Map<number, number>();
  for (const at of loadArrivals) perSecond.set(Math.floor((at - loadStart) / 1000), (perSecond.get(Math.floor((at - loadStart) / 1000)) ?? 0) + 1);
  const fullSeconds = [...perSecond.entries()].filter(([s]) => s < Math.floor((last - loadStart) / 1000)).map(([, n]) => n);
  const steady = fullSeconds.slice(1); // the first second includes the ramp-up
  const loadLat = distribution(underLoad);
  const bench = new pg.Client({ connectionString: benchUrl });
  await bench.connect();
  // The receiver answers before the worker records the attempt: let the last rows settle.
  for (let i = 0; i < 50; i++) {
    const { rows } = await bench.query<{ n: number }>(`select count(*)::int as n from webhook_deliveries where status = 'pending'`);
    if (rows[0]!.n === 0) break;
    await sleep(200);
  }
  const statuses = (await bench.query<{ status: string; n: number }>(`select status, count(*)::int as n from webhook_deliveries d join webhook_endpoints e on e.id = d.endpoint_id where e.url like '%/load/%' group by status`)).rows;
  const unique = new Set(arrivals.filter((a) => a.path.startsWith('/load/')).map((a) => `${a.path} ${a.key}`)).size;
  await bench.end();
  progress('ceiling (after)…');
  const ceilingAfter = await measureCeiling(temporalAddress, namespace, temporalPid);
  const ceiling = (ceilingBefore.per_s + ceilingAfter.per_s) / 2;
  const perDelivery = (cpuSeconds: number | null, n: number) => (cpuSeconds === null || n === 0 ? Number.NaN : (cpuSeconds * 1000) / n);
  // The same comparison in CPU (worker + Temporal; Postgres, which only deliveries use, is not in
  // it): what a workflow of one local activity costs ÷ what a delivery costs. Rates follow the
  // share of the cores a phase got from the rest of the machine; CPU per item much less.
  const ceilingCpu = [ceilingBefore, ceilingAfter].map((c) => (c.temporal_cpu_s === null ? Number.NaN : perDelivery(c.probe_cpu_s + c.temporal_cpu_s, totalDeliveries)));
  const deliveryCpu = perDelivery(workerCpuAll, loadArrivals.length) + perDelivery(temporalCpuAll, loadArrivals.length);
  const workflowRate = expected / closedSpan;
  const cpuRatio = (ceilingCpu[0]! + ceilingCpu[1]!) / 2 / deliveryCpu;

  // ------------------------------------------------------------------------------------------
  console.log('');
  console.log('Results');
  console.log(`  latency, transition commit → receiver has the signed POST (${lat.n} sequential samples after ${warmupSamples} warm-up):`);
  console.log(`    p50 ${fmt(lat.p50)} ms   p90 ${fmt(lat.p90)} ms   p99 ${fmt(lat.p99)} ms   min ${fmt(lat.min)} ms   max ${fmt(lat.max)} ms`);
  console.log(`    (the transition transaction itself: p50 ${fmt(commit.p50)} ms, p99 ${fmt(commit.p99)} ms)`);
  console.log(`    target p50 < ${P50_TARGET_MS} ms: ${lat.p50 < P50_TARGET_MS ? 'met' : 'NOT met'}; signatures verified ${verified.length - badSignatures}/${verified.length}`);
  console.log(`  throughput, ${endpointCount} endpoints, ${transitions} transitions (${concurrency} in flight, all committed in ${(producedIn / 1000).toFixed(1)} s):`);
  console.log(`    ${loadArrivals.length}/${expected} delivered${finished ? '' : ` (gave up after ${deadline / 1000} s)`} in ${span.toFixed(1)} s from the first commit: ${fmt(rate)} deliveries/s sustained`);
  console.log(`    first arrival after ${fmt(first - loadStart)} ms; per full second after the first: ${steady.length ? `min ${Math.min(...steady)}, median ${percentile([...steady].sort((a, b) => a - b), 50)}, max ${Math.max(...steady)}` : '—'}`);
  console.log(`    arrivals per second: ${[...perSecond.entries()].sort(([a], [b]) => a - b).map(([, n]) => n).join(' ')}`);
  console.log(`    latency under load (commit → arrival): p50 ${fmt(loadLat.p50)} ms, p99 ${fmt(loadLat.p99)} ms, max ${fmt(loadLat.max)} ms`);
  console.log(`    delivery rows: ${statuses.map((s) => `${s.status} ${s.n}`).join(', ')}; duplicate arrivals: ${loadArrivals.length - unique}; transitions refused: ${refused}`);
  console.log(`    CPU per delivery up to the last arrival: worker ${fmt(perDelivery(workerCpu, loadArrivals.length))} ms, Temporal dev server ${fmt(perDelivery(temporalCpu, loadArrivals.length))} ms`);
  console.log(`    delivery workflows: all closed ${closedSpan.toFixed(1)} s after the first commit (${fmt(workflowRate)}/s)${stillRunning ? `; ${stillRunning} still running at the deadline` : ''}; CPU per delivery up to then: worker ${fmt(perDelivery(workerCpuAll, loadArrivals.length))} ms, Temporal ${fmt(perDelivery(temporalCpuAll, loadArrivals.length))} ms`);
  console.log(`  ceiling, ${totalDeliveries} workflows of one local activity (${ceilingInFlight} eager starts in flight, bench/ceiling/main.ts):`);
  for (const [when, c] of [['before', ceilingBefore], ['after', ceilingAfter]] as const) {
    console.log(`    ${when}: ${fmt(c.per_s)}/s in ${c.seconds.toFixed(1)} s; CPU per workflow: probe ${fmt(perDelivery(c.probe_cpu_s, totalDeliveries))} ms, Temporal ${fmt(perDelivery(c.temporal_cpu_s, totalDeliveries))} ms`);
  }
  console.log(`    deliveries/s ÷ ceiling (mean ${fmt(ceiling)}/s): ${(rate / ceiling).toFixed(2)} (target ≥ 0.7); delivery workflows closed/s ÷ ceiling: ${(workflowRate / ceiling).toFixed(2)}`);
  console.log(`    in CPU (worker + Temporal, up to the last workflow closed): ${fmt((ceilingCpu[0]! + ceilingCpu[1]!) / 2)} ms per ceiling workflow ÷ ${fmt(deliveryCpu)} ms per delivery = ${cpuRatio.toFixed(2)}`);
  console.log(`  load average (1 min) at the end: ${os.loadavg()[0]!.toFixed(2)} on ${cpus.length} cores (other work on this machine included)`);
  return {
    benchmark: 'webhooks', latency_p50_ms: round1(lat.p50), latency_p99_ms: round1(lat.p99), latency_target_p50_ms: P50_TARGET_MS,
    latency_target_met: lat.p50 < P50_TARGET_MS, delivered: loadArrivals.length, expected, deliveries_per_s: round1(rate),
    load_latency_p50_ms: round1(loadLat.p50), load_latency_p99_ms: round1(loadLat.p99), duplicates: loadArrivals.length - unique,
    bad_signatures: badSignatures, ceiling_per_s: round1(ceiling), ceiling_ratio: Math.round((rate / ceiling) * 100) / 100,
    workflows_closed_s: round1(closedSpan), workflows_closed_per_s: round1(workflowRate), workflow_ceiling_ratio: Math.round((workflowRate / ceiling) * 100) / 100,
    worker_cpu_ms_per_delivery: round1(perDelivery(workerCpuAll, loadArrivals.length)), temporal_cpu_ms_per_delivery: round1(perDelivery(temporalCpuAll, loadArrivals.length)),
    ceiling_cpu_ratio: Number.isFinite(cpuRatio) ? Math.round(cpuRatio * 100) / 100 : null, load_average_1m: round1(os.loadavg()[0]!),
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

await runBenchmark(main, 'receivers, worker, pools, Temporal, bench database');
process.exit(); // exitCode set by runBenchmark; a receiver's keep-alive socket must not hold the process
