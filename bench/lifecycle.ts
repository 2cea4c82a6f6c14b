// `npm run bench:lifecycle [-- --domains 200 --idle-domains 5000 --idle-seconds 300 --skip-idle
// --profile-worker dir]`:
// how fast a domain goes from "verify" to active with the real worker, and what domains waiting
// for DNS cost when nothing happens, on this machine. Not a test: it prints figures and exits 0
// whether or not the latency target is met (it exits 1 only when the benchmark cannot run).
//
// What runs: a fresh database hg_bench_<random> (migrated) on the local Postgres or DATABASE_URL's
// server; a Temporal dev server on an SQLite file in a temp dir (WAL pragmas, as `npm start` runs
// it); the acme stack of the tests (a loopback DNS server holding the customers' zones, Pebble
// validating through it with PEBBLE_VA_NOSLEEP=1 and no nonce rejection, our HTTP-01 challenge
// listener); the API built by buildApp with the outbox dispatcher on a free loopback port; and ONE
// worker, `worker/main.ts` in a child process (prebuilt workflow bundle, LOG_LEVEL=warn), so its
// CPU and memory can be read from /proc apart from everything else. The worker also runs the
// outbox sweep, the webhook fan-out and maintenance, as in production. The API, the DNS server
// and the challenge listener share this process; everything shares this machine's cores.
//
// Phase A (verify → active): one warm-up domain (it registers the ACME account), then a few
// domains one at a time (unloaded latency), then --domains at once: created through the API,
// first DNS check seen (nxdomain), CNAMEs set in the test DNS server, POST /v1/domains/{id}/verify
// sent to all in quick succession; Postgres (domain_status_history) is polled for the `active`
// rows (every 250 ms in the burst, 50 ms one at a time). Latency = the active row's created_at −
// the moment the verify request was sent (so how often the bench polls does not change it).
//
// Phase B (idle cost): --idle-domains more domains created through the API with no DNS records
// (they stay pending_dns, their checks backing off 5 s, 10 s, 20 s … up to 1 h); after they
// settle, the worker's CPU time and RSS (/proc/<pid>/stat, /proc/<pid>/status) are sampled every
// 10 s over --idle-seconds, with the DNS queries the test server receives, the Temporal dev
// server's CPU and RSS, and the CPU of the database's Postgres backends.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import v8 from 'node:v8';
import { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import pg from 'pg';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/index.ts';
import { migrate } from '../db/migrate.ts';
import { createDb } from '../db/pool.ts';
import { apiKeysRepository, scopes } from '../db/repositories/api-keys.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { findTemporalCli, startTemporalDevServer } from '../local-stack/temporal-dev-server.ts';
import { createLogger } from '../logging/logger.ts';
import { startAcmeStack, EDGE } from '../test/support/acme-stack.ts';
import { buildWorkflowBundle } from '../worker/workflow-bundle.ts';
import { DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST } from '../workflows/domain/backoff.ts';
import { createOutboxDispatcher } from '../workflows/outbox-dispatcher.ts';
import { connectTemporal, ensureSearchAttributes, nativeClientProvider } from '../workflows/temporal-connection.ts';
import { percentile } from './load.ts';
import { cleanup, connectBenchPostgres, errorText, freePort, intArg, isInterrupted, onCleanup, progress, runBenchmark } from './support/run.ts';

// @temporalio/proto is CommonJS whose exports Node cannot detect statically.
const { temporal } = proto;

const LATENCY_TARGET_MS = 2000;
const PHASE_A_CAP_MS = 5 * 60_000;
const POLL_MS = 50;
// The burst's latencies come from the history rows' own timestamps, so how often the bench looks
// only decides when it notices the end; looking less often keeps its load off the machine it
// measures.
const BURST_POLL_MS = 250;
const SAMPLE_MS = 10_000;
const BASELINE_SECONDS = 30;
const CREATE_CONCURRENCY = 10;
const IDLE_CREATE_CONCURRENCY = 16;
const VERIFY_CONCURRENCY = 20;
const POOL_SIZE = 10;

// ---------------------------------------------------------------------------------------------
// Arguments, output helpers, cleanup

const { values: args } = parseArgs({
  options: {
    domains: { type: 'string', default: '200' },
    sequential: { type: 'string', default: '10' },
    'idle-domains': { type: 'string', default: '5000' },
    'idle-seconds': { type: 'string', default: '300' },
    'settle-seconds': { type: 'string', default: '60' },
    'skip-idle': { type: 'boolean', default: false },
    'profile-worker': { type: 'string' },
    // Diagnosis only: how much of the burst the dev server's SQLite file costs (npm start uses the file).
    'temporal-in-memory': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log('usage: npm run bench:lifecycle -- [--domains n (200)] [--sequential n (10)] [--idle-domains n (5000)] [--idle-seconds s (300)] [--settle-seconds s (60)] [--skip-idle] [--profile-worker dir (writes the worker\'s V8 CPU profile there)] [--temporal-in-memory (diagnosis)]');
  process.exit(0);
}
const burstCount = intArg('domains', args.domains, 1, 5000);
const sequentialCount = intArg('sequential', args.sequential, 0, 100);
const idleCount = intArg('idle-domains', args['idle-domains'], 1, 200_000);
const idleSeconds = intArg('idle-seconds', args['idle-seconds'], 10, 24 * 3600);
const settleSeconds = intArg('settle-seconds', args['settle-seconds'], 0, 24 * 3600);
const skipIdle = args['skip-idle'];

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const int = (v: number) => (Number.isFinite(v) ? Math.round(v).toLocaleString('en-US') : '—');
const secs = (ms: number) => (Number.isFinite(ms) ? `${(ms / 1000).toFixed(2)} s` : '—');
const fixed = (v: number, digits = 1) => (Number.isFinite(v) ? v.toFixed(digits) : '—');

function checkInterrupted(): void {
  if (isInterrupted()) throw new Error('interrupted');
}



function printTable(headers: string[], rows: string[][], alignLeft = new Set([0])): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmtRow = (cells: string[]) => cells.map((c, i) => (alignLeft.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`  ${fmtRow(headers)}`);
  console.log(`  ${widths.map((w) => '─'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(`  ${fmtRow(r)}`);
}

interface Dist { n: number; p50: number; p90: number; p99: number; max: number }
function dist(values: number[]): Dist {
  const sorted = Float64Array.from(values).sort();
  return { n: sorted.length, p50: percentile(sorted, 50), p90: percentile(sorted, 90), p99: percentile(sorted, 99), max: sorted.length ? sorted[sorted.length - 1]! : Number.NaN };
}
const distRow = (label: string, d: Dist) => [label, String(d.n), secs(d.p50), secs(d.p90), secs(d.p99), secs(d.max)];

/** Runs `fn` over `items` with at most `concurrency` calls in flight. */
async function inParallel<T>(items: readonly T[], concurrency: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, async () => {
    for (;;) {
      checkInterrupted();
      const i = next++;
      if (i >= items.length) return;
      await fn(items[i]!, i);
    }
  }));
}

// ---------------------------------------------------------------------------------------------
// /proc: CPU time and resident memory of processes

const CLK_TCK = (() => {
  try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { return 100; }
})();

/** utime+stime (all threads) in clock ticks, and the parent pid; null when the process is gone. */
function readStat(pid: number): { ticks: number; ppid: number; comm: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' '); // f[0] is field 3 (state)
    return { ticks: Number(f[11]) + Number(f[12]), ppid: Number(f[1]), comm };
  } catch {
    return null;
  }
}

function readRssMiB(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

/** The pid and all its live descendants. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const st = readStat(Number(entry));
    if (!st) continue;
    const list = children.get(st.ppid) ?? [];
    list.push(Number(entry));
    children.set(st.ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

function treeUsage(root: number): { cpuSeconds: number; rssMiB: number } {
  let ticks = 0;
  let rss = 0;
  for (const pid of processTree(root)) {
    ticks += readStat(pid)?.ticks ?? 0;
    rss += readRssMiB(pid) ?? 0;
  }
  return { cpuSeconds: ticks / CLK_TCK, rssMiB: rss };
}

const components = ['worker', 'temporal', 'postgres', 'pebble', 'bench'] as const;
type Component = (typeof components)[number];
const componentLabel: Record<Component, string> = {
  worker: 'worker (child process)',
  temporal: 'Temporal dev server',
  postgres: 'Postgres backends of the bench DB',
  pebble: 'Pebble',
  bench: 'this process (API, DNS server, challenge listener, poller)',
};

interface Reading { at: number; cpu: Record<Component, number>; rssMiB: Record<Component, number>; dnsQueries: number; machineBusy: number }

/** CPU seconds all cores of the machine spent busy (not idle or iowait) since boot, from /proc/stat. */
function machineBusySeconds(): number {
  const f = (/^cpu\s+(.*)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? '').trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0)) / CLK_TCK;
}

// ---------------------------------------------------------------------------------------------
// The worker child process

interface WorkerChild {
  pid: number;
  exited: boolean;
  /** Log lines (LOG_LEVEL=warn) by level and message. */
  logCounts: Map<string, number>;
  tail: string[];
  stop(): Promise<void>;
}

function startWorkerChild(env: Record<string, string>): WorkerChild {
  const script = fileURLToPath(new URL('../worker/main.ts', import.meta.url));
  const profile = args['profile-worker'] ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(args['profile-worker'])] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stopping = false;
  const levels: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };
  const onLine = (line: string) => {
    if (!line.trim()) return;
    handle.tail.push(line.slice(0, 400));
    if (handle.tail.length > 20) handle.tail.shift();
    let key: string;
    try {
      const j = JSON.parse(line) as { level?: number; msg?: string; step?: string; err?: string };
      key = `${levels[j.level ?? 0] ?? 'log'}: ${j.msg ?? ''}${j.step ? ` (step ${j.step})` : ''}`;
    } catch {
      // The SDK's own logger: "[LEVEL] message { multi-line object }"; only its first line counts.
      const m = /\[(TRACE|DEBUG|INFO|WARN|ERROR)\]\s*(.*)/.exec(line);
      if (!m) return;
      key = `sdk ${m[1]!.toLowerCase()}: ${m[2]!.replace(/\s*\{.*$/, '').slice(0, 100)}`;
    }
    handle.logCounts.set(key, (handle.logCounts.get(key) ?? 0) + 1);
  };
  readline.createInterface({ input: child.stdout! }).on('line', onLine);
  readline.createInterface({ input: child.stderr! }).on('line', onLine);
  const exit = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    handle.exited = true;
    if (!stopping) progress(`worker exited unexpectedly (code ${code}, signal ${signal}); last output:\n${handle.tail.join('\n')}`);
    resolve();
  }));
  const handle: WorkerChild = {
    pid: child.pid!,
    exited: false,
    logCounts: new Map(),
    tail: [],
    async stop() {
      stopping = true;
      if (handle.exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => { progress('worker did not stop within 25 s of SIGTERM; killing it'); child.kill('SIGKILL'); }, 25_000);
      await exit;
      clearTimeout(timer);
    },
  };
  return handle;
}

// ---------------------------------------------------------------------------------------------
// Workflow histories: where the time between the verify signal and `active` goes

const ms0 = (v: number) => (Number.isFinite(v) ? `${Math.round(v)} ms` : '—');
type Ts = { seconds?: { toString(): string } | number | null; nanos?: number | null } | null | undefined;
const tsMs = (ts: Ts) => (ts ? Number(ts.seconds?.toString() ?? 0) * 1000 + (ts.nanos ?? 0) / 1e6 : Number.NaN);

interface StepTimes { local: boolean; doneAfterSignal: number[]; took: number[]; queued: number[]; retries: number }
interface StepReport { keys: string[]; steps: Map<string, StepTimes>; signalDelay: number[]; eventsAfterSignal: number[]; workflowTasksAfterSignal: number[] }

/** What a local activity marker says about its run (sdk-core's `core_local_activity` marker data). */
function localActivityMarker(e: { markerRecordedEventAttributes?: { markerName?: string | null; details?: Record<string, { payloads?: Array<{ data?: Uint8Array | null }> | null }> | null } | null }): { type: string; completedAt: number; attempt: number } | null {
  const attrs = e.markerRecordedEventAttributes;
  if (attrs?.markerName !== 'core_local_activity') return null;
  const raw = attrs.details?.data?.payloads?.[0]?.data;
  if (!raw) return null;
  try {
    const data = JSON.parse(Buffer.from(raw).toString('utf8')) as { activity_type?: string; complete_time?: Ts & { seconds?: number }; attempt?: number };
    return { type: data.activity_type ?? '?', completedAt: tsMs(data.complete_time), attempt: data.attempt ?? 1 };
  } catch {
    return null;
  }
}

/**
 * Per step after the first `verify` signal, keyed `name` or `name #n` for repeats, in order:
 * activities (scheduled → started → completed events) and local activities (their markers, which
 * carry the completion time). "took" = this step done − previous step done (or the signal).
 */
async function activitySteps(client: Client, ids: readonly string[], sentAt: Map<string, number> | null): Promise<StepReport> {
  const E = temporal.api.enums.v1.EventType;
  const steps = new Map<string, StepTimes>();
  const keys: string[] = [];
  const report: StepReport = { keys, steps, signalDelay: [], eventsAfterSignal: [], workflowTasksAfterSignal: [] };
  await inParallel(ids, 8, async (id) => {
    const history = await client.workflow.getHandle(`domain/${id}`).fetchHistory();
    const events = history.events ?? [];
    const signal = events.findIndex((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && e.workflowExecutionSignaledEventAttributes?.signalName === 'verify');
    if (signal < 0) return;
    const signalAt = tsMs(events[signal]!.eventTime);
    let lastDone = signalAt;
    const sent = sentAt?.get(id);
    if (sent !== undefined) report.signalDelay.push(signalAt - sent);
    const after = events.slice(signal + 1);
    report.eventsAfterSignal.push(after.length);
    report.workflowTasksAfterSignal.push(after.filter((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length);
    const scheduled = new Map<string, { key: string; at: number; started: number; attempt: number }>();
    const seen = new Map<string, number>();
    const step = (name: string, local: boolean) => {
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      const key = `${n === 1 ? name : `${name} #${n}`}${local ? ' (local)' : ''}`;
      let entry = steps.get(key);
      if (!entry) { entry = { local, doneAfterSignal: [], took: [], queued: [], retries: 0 }; steps.set(key, entry); if (!keys.includes(key)) keys.push(key); }
      return { key, entry };
    };
    const done = (entry: StepTimes, at: number, attempt: number) => {
      entry.doneAfterSignal.push(at - signalAt);
      entry.took.push(at - lastDone);
      entry.retries += attempt - 1;
      lastDone = at;
    };
    for (const e of after) {
      const at = tsMs(e.eventTime);
      if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        const { key } = step(e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?', false);
        scheduled.set(String(e.eventId), { key, at, started: Number.NaN, attempt: 1 });
      } else if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        const s = scheduled.get(String(e.activityTaskStartedEventAttributes?.scheduledEventId));
        if (s) { s.started = at; s.attempt = e.activityTaskStartedEventAttributes?.attempt ?? 1; }
      } else if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED || e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_FAILED) {
        const attrs = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
        const s = scheduled.get(String(attrs?.scheduledEventId));
        if (!s) continue;
        const entry = steps.get(s.key)!;
        entry.queued.push(s.started - s.at);
        done(entry, at, s.attempt);
      } else if (e.eventType === E.EVENT_TYPE_MARKER_RECORDED) {
        const marker = localActivityMarker(e as never);
        if (!marker) continue;
        done(step(marker.type, true).entry, Number.isFinite(marker.completedAt) ? marker.completedAt : at, marker.attempt);
      }
    }
  });
  return report;
}

// ---------------------------------------------------------------------------------------------
// Main

type DomainJson = { id: string };
interface DomainPoll { id: string; status: string; problem: string | null; dns_ok_at: number | null; active_at: number | null }

async function main(): Promise<void> {
  const runId = randomBytes(4).toString('hex');
  const { admin, dbName, benchUrl, pgHost, pgVersion } = await connectBenchPostgres(runId);

  // Header: machine facts.
  const cpus = os.cpus();
  const cli = findTemporalCli(process.env.TEMPORAL_CLI_PATH, progress);
  const cliVersion = (() => { try { return execFileSync(cli, ['--version'], { encoding: 'utf8' }).trim(); } catch { return 'unknown'; } })();
  const pebbleVersion = (() => { try { return execFileSync('dpkg-query', ['-W', '-f=${Version}', 'pebble'], { encoding: 'utf8' }).trim(); } catch { return 'unknown'; } })();
  const sdkVersion = (createRequire(import.meta.url)('@temporalio/worker/package.json') as { version: string }).version;
  // The SDK's default sticky-cache size (reuseV8Context): the child runs the same node with the same flags.
  const heapMiB = v8.getHeapStatistics().heap_size_limit / 2 ** 20;
  const stickyCache = Math.max(Math.floor((Math.max(heapMiB - 200, 0) * 600) / 1024), 10);
  console.log('Hostgate lifecycle benchmark');
  console.log(`  cpus       ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'} (os.cpus().length = ${cpus.length})`);
  console.log(`  os         ${os.type()} ${os.release()} ${os.arch()}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load avg ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`);
  console.log(`  node       ${process.version}`);
  console.log(`  postgres   ${pgVersion} (${pgHost})`);
  console.log(`  temporal   ${cliVersion.replace(/\s+/g, ' ')}: dev server, SQLite file in a temp dir, journal_mode=wal, synchronous=normal`);
  console.log(`  acme       Pebble ${pebbleVersion} (PEBBLE_VA_NOSLEEP=1, nonce rejection 0 %), loopback DNS server (dns2) in this process`);
  console.log(`  worker     worker/main.ts in a child process, @temporalio/worker ${sdkVersion}, prebuilt bundle, DB pool ${POOL_SIZE}, LOG_LEVEL=warn;`);
  console.log(`             SDK default sticky cache ≈ ${int(stickyCache)} workflows (heap limit ${int(heapMiB)} MiB), 100 activity / 40 workflow task slots`);
  console.log(`  api        buildApp in this process with the outbox dispatcher, DB pool ${POOL_SIZE}, LOG_LEVEL=silent, rate limit set out of reach`);
  console.log(`  phases     A: 1 warm-up + ${sequentialCount} sequential + ${burstCount} at once (verify → active, cap ${PHASE_A_CAP_MS / 60_000} min);`);
  console.log(`             B: ${skipIdle ? 'skipped' : `${int(idleCount)} idle pending_dns domains, ${settleSeconds} s settle, ${idleSeconds} s window sampled every ${SAMPLE_MS / 1000} s`}`);
  console.log(`  cpu time   /proc/<pid>/stat utime+stime (CLK_TCK ${CLK_TCK}), RSS from /proc/<pid>/status VmRSS; 100 % = one core of ${cpus.length}`);
  console.log(`  note       API, worker, Postgres, Temporal, Pebble and the DNS server all share these ${cpus.length} cores`);
  console.log('');

  // 1. Database, temp dir, Temporal, search attributes.
  progress(`creating database ${dbName} on ${pgHost}…`);
  await admin.query(`create database ${dbName}`);
  onCleanup(`drop database ${dbName}`, () => admin.query(`drop database if exists ${dbName} with (force)`));
  const migrated = await migrate(benchUrl);
  progress(`migrated (${migrated.applied.length} migrations, version ${migrated.version})`);

  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hg-bench-lifecycle-'));
  onCleanup(`remove ${tmp}`, () => rm(tmp, { recursive: true, force: true }));
  const dbFile = path.join(tmp, 'temporal.sqlite');
  const namespace = 'default';
  const inMemory = args['temporal-in-memory'];
  progress(`starting the Temporal dev server (${inMemory ? 'in memory: diagnosis, not how npm start runs it' : `SQLite ${dbFile}, WAL`}, headless)…`);
  const server = await startTemporalDevServer({ cliPath: cli, port: await freePort(), uiPort: null, dbFile: inMemory ? null : dbFile, namespace, log: progress });
  onCleanup('Temporal dev server', () => server.stop());
  const temporalAddress = server.address;
  progress(`Temporal dev server ready on ${temporalAddress} (pid ${server.process.pid})`);
  const connection = await connectTemporal(temporalAddress);
  onCleanup('Temporal connection', () => connection.close());
  const added = await ensureSearchAttributes(connection, namespace);
  progress(`search attributes: ${added.length ? `registered ${added.join(', ')}` : 'already present'}`);
  const client = new Client({ connection, namespace });
  const taskQueue = `hostgate-bench-${runId}`;

  // 2. The acme stack: DNS server, Pebble, (below) the challenge listener.
  progress('starting the loopback DNS server and Pebble…');
  const acme = await startAcmeStack({ nonceReject: 0 });
  onCleanup('DNS server and Pebble', () => acme.close());
  const pebblePid = readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number)
    .find((pid) => { const st = readStat(pid); return st?.ppid === process.pid && st.comm === 'pebble'; }) ?? null;
  progress(`DNS on ${acme.dns.server}, Pebble at ${acme.pebble.directoryUrl} (pid ${pebblePid ?? 'unknown'}), HTTP-01 to port ${acme.pebble.httpPort}`);

  const encryptionKeys = `bench:${randomBytes(32).toString('base64')}`;
  const sharedEnv: Record<string, string> = {
    HOSTGATE_ENV: 'production',
    DATABASE_URL: benchUrl,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    HOSTGATE_SERVICE_DOMAIN: 'hostgate.test',
    HOSTGATE_ENCRYPTION_KEYS: encryptionKeys,
    ...acme.configOverrides,
  };
  const config = loadConfig({
    ...sharedEnv,
    HOSTGATE_HOST: '127.0.0.1',
    LOG_LEVEL: 'silent',
    HOSTGATE_RATE_LIMIT_PER_SECOND: '1000000000',
    HOSTGATE_RATE_LIMIT_BURST: '1000000000',
  });
  const db = await createDb(benchUrl, { maximumPoolSize: config.databasePoolSize });
  onCleanup('API database pool', () => db.end());
  const sql = new pg.Client({ connectionString: benchUrl });
  await sql.connect();
  onCleanup('setup connection', () => sql.end());
  await acme.serveChallenges(db);
  onCleanup('challenge listener', () => acme.stopChallenges());

  const org = await organizationsRepository(db).create({ name: 'Benchmark organization', allowedReturnOrigins: ['https://vendor.example'] });
  const { secret } = await apiKeysRepository(db).create({ organizationId: org.id, scopes, name: 'benchmark' });
  const destination = await destinationsRepository(db).create({ organizationId: org.id, url: 'https://app.vendor.example', host: 'app.vendor.example', port: 443 });
  progress(`organization ${org.id}, API key with scopes ${scopes.join(',')}, destination ${destination.id}`);

  // 3. The API.
  const logger = createLogger('silent', 'api');
  // As api/server.ts: starts and signals over a NativeConnection.
  const dispatchClient = nativeClientProvider(temporalAddress, namespace);
  onCleanup('dispatch connection', () => dispatchClient.close());
  const dispatcher = createOutboxDispatcher({ db, client: dispatchClient.get, taskQueue, logger });
  onCleanup('outbox dispatcher', () => dispatcher.stop());
  const app = await buildApp({ config, db, temporal: { client }, dispatcher, logger });
  onCleanup('API server', () => app.close());
  const apiOrigin = await app.listen({ host: '127.0.0.1', port: 0 });
  progress(`API on ${apiOrigin}`);

  // 4. The worker: bundle first, then the child process.
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  const bundleStart = Date.now();
  await buildWorkflowBundle(bundlePath);
  progress(`workflow bundle built in ${((Date.now() - bundleStart) / 1000).toFixed(1)} s (${(statSync(bundlePath).size / 2 ** 20).toFixed(1)} MiB)`);
  const worker = startWorkerChild({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmp,
    ...sharedEnv,
    HOSTGATE_WORKFLOW_BUNDLE: bundlePath,
    LOG_LEVEL: 'warn',
    // Worker tuning given to the bench (e.g. HOSTGATE_WORKER_WORKFLOW_TASK_SLOTS) reaches the worker.
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('HOSTGATE_WORKER_') && e[1] !== undefined)),
  });
  onCleanup('worker process', () => worker.stop());
  const workerStart = Date.now();
  for (;;) {
    checkInterrupted();
    if (worker.exited) throw new Error('the worker exited during start-up');
    const polling = await Promise.all([temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY].map(async (taskQueueType) =>
      (await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType })).pollers?.length ?? 0));
    if (polling.every((n) => n > 0)) break;
    if (Date.now() - workerStart > 60_000) throw new Error(`the worker did not poll ${taskQueue} within 60 s; its output:\n${worker.tail.join('\n')}`);
    await sleep(200);
  }
  progress(`worker pid ${worker.pid} polling ${taskQueue} (${((Date.now() - workerStart) / 1000).toFixed(1)} s after spawn)`);

  // Meters: CPU and RSS of each component, DNS queries received.
  const pgSeen = new Map<number, number>();
  let pgAccumulated = 0;
  let pgPrimed = false;
  async function read(): Promise<Reading> {
    const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [dbName]);
    const live = new Set<number>();
    for (const { pid } of rows) {
      const ticks = readStat(pid)?.ticks;
      if (ticks === undefined) continue;
      live.add(pid);
      // A backend first seen now started since the last reading: all of its CPU counts.
      if (pgPrimed) pgAccumulated += ticks - (pgSeen.get(pid) ?? 0);
      pgSeen.set(pid, ticks);
    }
    for (const pid of [...pgSeen.keys()]) if (!live.has(pid)) pgSeen.delete(pid);
    pgPrimed = true;
    if (worker.exited) throw new Error(`the worker exited; its last output:\n${worker.tail.join('\n')}`);
    const w = treeUsage(worker.pid);
    const t = treeUsage(server.process.pid!);
    const p = pebblePid ? treeUsage(pebblePid) : { cpuSeconds: 0, rssMiB: 0 };
    const own = process.cpuUsage();
    return {
      at: Date.now(),
      cpu: { worker: w.cpuSeconds, temporal: t.cpuSeconds, postgres: pgAccumulated / CLK_TCK, pebble: p.cpuSeconds, bench: (own.user + own.system) / 1e6 },
      rssMiB: { worker: w.rssMiB, temporal: t.rssMiB, postgres: Number.NaN, pebble: p.rssMiB, bench: process.memoryUsage.rss() / 2 ** 20 },
      dnsQueries: acme.dns.queries.length,
      machineBusy: machineBusySeconds(),
    };
  }
  const cpuPercent = (a: Reading, b: Reading, c: Component) => ((b.cpu[c] - a.cpu[c]) / ((b.at - a.at) / 1000)) * 100;
  function printCpu(a: Reading, b: Reading): void {
    const wall = (b.at - a.at) / 1000;
    const rows = components.map((c) => [componentLabel[c], fixed(b.cpu[c] - a.cpu[c], 2), fixed(cpuPercent(a, b, c)), c === 'postgres' ? '—' : fixed(b.rssMiB[c], 0)]);
    const total = components.reduce((s, c) => s + (b.cpu[c] - a.cpu[c]), 0);
    rows.push(['total (this benchmark)', fixed(total, 2), fixed((total / wall) * 100), '']);
    const machine = b.machineBusy - a.machineBusy;
    rows.push(['whole machine (/proc/stat)', fixed(machine, 2), fixed((machine / wall) * 100), '']);
    printTable(['component', 'CPU s', `avg % of a core (over ${wall.toFixed(1)} s)`, 'RSS MiB at end'], rows);
    console.log(`  ${os.cpus().length} cores = ${os.cpus().length * 100} %; other processes on the machine used ≈ ${fixed(((machine - total) / wall) * 100, 0)} % of a core meanwhile`);
  }

  /** Workflow tasks waiting in Temporal for the worker on the task queue (not the sticky queue). */
  async function backlog(): Promise<string> {
    try {
      const r = await connection.workflowService.describeTaskQueue({
        namespace, taskQueue: { name: taskQueue }, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, reportStats: true,
      });
      const count = Number(r.stats?.approximateBacklogCount?.toString() ?? 0);
      const age = Number(r.stats?.approximateBacklogAge?.seconds?.toString() ?? 0);
      return `Temporal backlog ${int(count)} workflow tasks (oldest ${age} s, dispatching ${fixed(r.stats?.tasksDispatchRate ?? Number.NaN, 1)}/s)`;
    } catch (error) {
      return `workflow-task backlog unknown (${errorText(error)})`;
    }
  }

  /** start_domain outbox rows beyond one per domain: the worker's reconciler re-queued them. */
  const requeued = async () => int((await sql.query<{ extra: number }>(`
    select (count(*) - count(distinct workflow_id))::int as extra from workflow_outbox where kind = 'start_domain'`)).rows[0]!.extra);

  // API helpers.
  const auth = { authorization: `Bearer ${secret}` };
  async function api<T>(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
    const res = await fetch(`${apiOrigin}${urlPath}`, {
      method,
      headers: { ...auth, ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} ${urlPath} answered ${res.status}: ${text.slice(0, 500)}`);
    return JSON.parse(text) as T;
  }
  const createDomain = async (hostname: string) =>
    (await api<{ data: DomainJson }>('POST', '/v1/domains', { hostname, destination_id: destination.id }, { 'idempotency-key': `create-${hostname}` })).data.id;
  const verify = (id: string, n: number) => api('POST', `/v1/domains/${id}/verify`, undefined, { 'idempotency-key': `verify-${id}-${n}` });

  async function pollDomains(ids: readonly string[]): Promise<DomainPoll[]> {
    const { rows } = await sql.query<DomainPoll>(`
      select d.id, d.status, d.verification->'problem'->>'code' as problem,
        (select (extract(epoch from h.created_at) * 1000)::float8 from domain_status_history h
          where h.domain_id = d.id and h.to_status = 'pending_certificate' order by h.seq desc limit 1) as dns_ok_at,
        (select (extract(epoch from h.created_at) * 1000)::float8 from domain_status_history h
          where h.domain_id = d.id and h.to_status = 'active' order by h.seq limit 1) as active_at
      from domains d where d.id = any($1::text[])`, [ids]);
    return rows;
  }
  /** Waits until every domain has had a DNS check; returns how many found nxdomain. */
  async function waitFirstChecks(ids: readonly string[], capMs: number, pollMs: number, label: string): Promise<number> {
    const started = Date.now();
    let logged = Date.now();
    for (;;) {
      checkInterrupted();
      const { rows } = await sql.query<{ checked: number; nx: number; started: number }>(`
        select count(*) filter (where verification->>'checked_at' is not null)::int as checked,
               count(*) filter (where verification->'problem'->>'code' = 'nxdomain')::int as nx,
               count(*) filter (where workflow_started_at is not null)::int as started
        from domains where id = any($1::text[])`, [ids]);
      const r = rows[0]!;
      if (r.checked === ids.length) return r.nx;
      if (Date.now() - started > capMs) throw new Error(`${label}: only ${r.checked} of ${ids.length} domains had a DNS check after ${capMs / 1000} s`);
      if (label && Date.now() - logged >= (ids.length > 1000 ? 15_000 : 2000)) {
        progress(`  ${label}: ${int(r.started)} workflows attached, ${int(r.checked)} / ${int(ids.length)} first DNS checks done; ${await backlog()}; ${await requeued()} start rows re-queued by the reconciler`);
        logged = Date.now();
      }
      await sleep(pollMs);
    }
  }

  // ── Phase A ───────────────────────────────────────────────────────────────────────────────
  console.log('');
  progress('── phase A: verify → active ──');

  /** One domain on its own: create, first check, CNAME, verify, poll every 50 ms until active. */
  async function oneAtATime(hostname: string): Promise<{ id: string; total: number; dns: number; cert: number } | { failed: string }> {
    const id = await createDomain(hostname);
    await waitFirstChecks([id], 60_000, POLL_MS, '');
    acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
    const sentAt = Date.now();
    await verify(id, 1);
    const deadline = sentAt + 60_000;
    for (;;) {
      checkInterrupted();
      const [d] = await pollDomains([id]);
      if (d?.active_at) return { id, total: d.active_at - sentAt, dns: (d.dns_ok_at ?? Number.NaN) - sentAt, cert: d.active_at - (d.dns_ok_at ?? Number.NaN) };
      if (d?.status === 'failed') return { failed: `failed (${d.problem})` };
      if (Date.now() > deadline) return { failed: `still ${d?.status} (${d?.problem ?? 'no problem'}) after 60 s` };
      await sleep(POLL_MS);
    }
  }

  const warm = await oneAtATime(`shop.warmup-${runId}.test`);
  progress(`warm-up domain (registers the ACME account): ${'failed' in warm ? warm.failed : `active ${secs(warm.total)} after verify`}`);
  const sequential: { id: string; total: number; dns: number; cert: number }[] = [];
  const sequentialFailed: string[] = [];
  for (let i = 1; i <= sequentialCount; i++) {
    const r = await oneAtATime(`shop.seq${i}-${runId}.test`);
    if ('failed' in r) sequentialFailed.push(r.failed);
    else sequential.push(r);
    progress(`  sequential ${i}/${sequentialCount}: ${'failed' in r ? r.failed : `active ${secs(r.total)} after verify (DNS verified at ${secs(r.dns)}, certificate ${secs(r.cert)})`}`);
  }

  // The burst.
  progress(`creating ${burstCount} domains through the API (${CREATE_CONCURRENCY} at a time)…`);
  const burstHosts = Array.from({ length: burstCount }, (_, i) => `shop.burst${i + 1}-${runId}.test`);
  const burstIds: string[] = new Array(burstCount);
  const createStart = Date.now();
  await inParallel(burstHosts, CREATE_CONCURRENCY, async (h, i) => { burstIds[i] = await createDomain(h); });
  progress(`  created in ${secs(Date.now() - createStart)}; waiting for every first DNS check…`);
  const nx = await waitFirstChecks(burstIds, 180_000, 100, 'burst');
  progress(`  all ${burstCount} had their first DNS check (${nx} nxdomain) ${secs(Date.now() - createStart)} after the first create`);

  for (const h of burstHosts) acme.dns.set(h, [{ type: 'CNAME', value: EDGE }]);
  progress(`CNAMEs set for all ${burstCount}; sending POST /verify to all (${VERIFY_CONCURRENCY} in flight)…`);
  const before = await read();
  const sentAt = new Map<string, number>();
  const ackMs: number[] = [];
  const verifyErrors: string[] = [];
  await inParallel(burstIds, VERIFY_CONCURRENCY, async (id) => {
    const at = Date.now();
    sentAt.set(id, at);
    try {
      await verify(id, 1);
      ackMs.push(Date.now() - at);
    } catch (error) {
      verifyErrors.push(errorText(error));
    }
  });
  const firstSent = Math.min(...sentAt.values());
  const lastSent = Math.max(...sentAt.values());
  progress(`  ${burstCount - verifyErrors.length} verifies answered 202 within ${secs(Date.now() - firstSent)} of the first send${verifyErrors.length ? `; ${verifyErrors.length} failed: ${verifyErrors[0]}` : ''}`);

  const results = new Map<string, DomainPoll>();
  const remaining = new Set(burstIds);
  let polls = 0;
  let lastLog = Date.now();
  while (remaining.size > 0 && Date.now() - firstSent < PHASE_A_CAP_MS) {
    checkInterrupted();
    const pollStart = Date.now();
    for (const d of await pollDomains([...remaining])) {
      if (d.active_at !== null || d.status === 'failed') {
        results.set(d.id, d);
        remaining.delete(d.id);
      }
    }
    polls++;
    if (Date.now() - lastLog >= 2000) {
      progress(`  ${results.size} / ${burstCount} settled (${[...results.values()].filter((d) => d.active_at !== null).length} active) ${secs(Date.now() - firstSent)} after the first verify`);
      lastLog = Date.now();
    }
    await sleep(Math.max(0, BURST_POLL_MS - (Date.now() - pollStart)));
  }
  const after = await read();
  for (const d of remaining.size ? await pollDomains([...remaining]) : []) results.set(d.id, d);

  // Outbox: when each verify signal reached Temporal.
  const { rows: signalRows } = await sql.query<{ workflow_id: string; dispatched: number | null }>(`
    select workflow_id, (extract(epoch from dispatched_at) * 1000)::float8 as dispatched from workflow_outbox
    where kind = 'signal_domain' and workflow_id = any($1::text[])`, [burstIds.map((id) => `domain/${id}`)]);
  const dispatchedAt = new Map(signalRows.map((r) => [r.workflow_id.slice('domain/'.length), r.dispatched]));

  const total: number[] = [];
  const toDns: number[] = [];
  const toCert: number[] = [];
  const toSignal: number[] = [];
  let byTimer = 0;
  let lastActive = 0;
  for (const id of burstIds) {
    const d = results.get(id);
    const s = sentAt.get(id)!;
    const sig = dispatchedAt.get(id);
    if (sig) toSignal.push(sig - s);
    if (!d?.active_at) continue;
    total.push(d.active_at - s);
    lastActive = Math.max(lastActive, d.active_at);
    if (d.dns_ok_at !== null) {
      toCert.push(d.active_at - d.dns_ok_at);
      if (d.dns_ok_at < s) byTimer++;
      else toDns.push(d.dns_ok_at - s);
    }
  }
  const notActive = burstIds.map((id) => results.get(id)).filter((d) => !d?.active_at);
  const failures = new Map<string, number>();
  for (const d of notActive) {
    const key = d ? `${d.status}${d.problem ? ` (${d.problem})` : ''}` : 'unknown';
    failures.set(key, (failures.get(key) ?? 0) + 1);
  }

  console.log('');
  console.log(`Phase A — verify → active (latency from sending POST /verify to the \`active\` row in domain_status_history):`);
  const seqDist = dist(sequential.map((r) => r.total));
  const burstDist = dist(total);
  printTable(['run', 'active', 'p50', 'p90', 'p99', 'max'], [
    distRow(`one at a time (${sequentialCount})`, seqDist),
    distRow(`${burstCount} at once`, burstDist),
  ]);
  if (sequentialFailed.length) console.log(`  one at a time: ${sequentialFailed.length} did not become active: ${sequentialFailed.join('; ')}`);
  console.log('');
  console.log(`  ${burstCount} at once, by segment:`);
  printTable(['segment', 'n', 'p50', 'p90', 'p99', 'max'], [
    distRow('verify sent → 202 answered', dist(ackMs)),
    distRow('verify sent → signal dispatched (outbox row marked)', dist(toSignal)),
    distRow('verify sent → DNS verified (pending_certificate row)', dist(toDns)),
    distRow('DNS verified → active (ACME order, certificate)', dist(toCert)),
    distRow('verify sent → active', burstDist),
  ]);
  if (sequential.length) {
    console.log(`  one at a time, by segment: DNS verified p50 ${secs(dist(sequential.map((r) => r.dns)).p50)}, certificate p50 ${secs(dist(sequential.map((r) => r.cert)).p50)}`);
  }
  console.log('');
  progress('reading the workflow histories for a per-activity breakdown…');
  const burstSteps = await activitySteps(client, burstIds.filter((id) => results.get(id)?.active_at), sentAt);
  const seqSteps = await activitySteps(client, sequential.map((r) => r.id), null);
  console.log(`  after the verify signal, step by step (from Temporal history: activities from their events, local activities from their`);
  console.log(`  markers; "done" = completed, counted from the signal; "took" = completed − previous step completed; p50 / p90):`);
  const pair = (v: number[]) => { const d = dist(v); return `${ms0(d.p50)} / ${ms0(d.p90)}`; };
  printTable(
    ['step', 'one at a time: done', 'took', `${burstCount} at once: done`, 'took', 'queued (activities)', 'retries'],
    burstSteps.keys.map((key) => {
      const a = seqSteps.steps.get(key);
      const b = burstSteps.steps.get(key)!;
      return [key, a ? pair(a.doneAfterSignal) : '—', a ? pair(a.took) : '—', pair(b.doneAfterSignal), pair(b.took), b.local ? '—' : pair(b.queued), String(b.retries)];
    }),
  );
  const evs = dist(burstSteps.eventsAfterSignal);
  const wfts = dist(burstSteps.workflowTasksAfterSignal);
  console.log(`  history after the verify signal (${burstCount} at once, until read): p50 ${int(evs.p50)} events, ${int(wfts.p50)} workflow tasks completed`);
  console.log(`  verify sent → signal in the workflow's history: p50 ${secs(dist(burstSteps.signalDelay).p50)}, p90 ${secs(dist(burstSteps.signalDelay).p90)} (${burstCount} at once)`);
  const span = lastActive - firstSent;
  console.log(`  verifies sent over ${secs(lastSent - firstSent)}; ${total.length} active, last one ${secs(span)} after the first verify: ${fixed(total.length / (span / 1000), 1)} domains activated per second`);
  if (byTimer) console.log(`  ${byTimer} domain(s) had their DNS verified by a scheduled check before their verify was sent (not in the DNS segment)`);
  console.log(`  not active within ${PHASE_A_CAP_MS / 60_000} min: ${notActive.length}${notActive.length ? ` — ${[...failures].map(([k, n]) => `${k} ×${n}`).join(', ')}` : ''}; verify requests failed: ${verifyErrors.length}`);
  console.log(`  Postgres polled ${polls} times (every ${BURST_POLL_MS} ms) during the burst`);
  const verdict = burstDist.n > 0 && burstDist.p50 < LATENCY_TARGET_MS ? 'PASS' : 'FAIL';
  console.log(`  burst p50 ${secs(burstDist.p50)} (target < ${secs(LATENCY_TARGET_MS)}): ${verdict}`);
  console.log('');
  console.log(`  CPU during the burst (first verify sent → last domain settled):`);
  printCpu(before, after);

  // ── Phase B ───────────────────────────────────────────────────────────────────────────────
  let idleVerdict = '';
  if (!skipIdle) {
    console.log('');
    progress('── phase B: idle cost of pending_dns domains ──');
    progress(`baseline: ${BASELINE_SECONDS} s with only phase A's ${burstCount + sequentialCount + 1} (active) domains…`);
    await sleep(2000);
    const b0 = await read();
    await sleep(BASELINE_SECONDS * 1000);
    checkInterrupted();
    const b1 = await read();
    const baselineWorker = cpuPercent(b0, b1, 'worker');
    progress(`  baseline: worker ${fixed(baselineWorker)} % of a core, Temporal ${fixed(cpuPercent(b0, b1, 'temporal'))} %, Postgres backends ${fixed(cpuPercent(b0, b1, 'postgres'))} %, worker RSS ${fixed(b1.rssMiB.worker, 0)} MiB`);

    progress(`creating ${int(idleCount)} domains with no DNS records through the API (${IDLE_CREATE_CONCURRENCY} at a time)…`);
    const idleHosts = Array.from({ length: idleCount }, (_, i) => `shop.idle${i + 1}-${runId}.test`);
    const idleIds: string[] = new Array(idleCount);
    let created = 0;
    const idleStart = Date.now();
    const createReading = await read();
    const ticker = setInterval(() => {
      void Promise.all([sql.query<{ started: number; checked: number }>(`
        select count(*) filter (where workflow_started_at is not null)::int as started,
               count(*) filter (where verification->>'checked_at' is not null)::int as checked
        from domains where hostname like $1`, [`shop.idle%-${runId}.test`]), backlog(), requeued()]).then(([{ rows }, queued, again]) => {
        progress(`  ${int(created)} / ${int(idleCount)} created (${fixed(created / ((Date.now() - idleStart) / 1000), 0)}/s), ${int(rows[0]!.started)} workflows attached, ${int(rows[0]!.checked)} first checks done; ${queued}; ${again} start rows re-queued`);
      }, () => undefined);
    }, 5000);
    try {
      await inParallel(idleHosts, IDLE_CREATE_CONCURRENCY, async (h, i) => { idleIds[i] = await createDomain(h); created++; });
    } finally {
      clearInterval(ticker);
    }
    const createdIn = Date.now() - idleStart;
    progress(`  ${int(idleCount)} created in ${secs(createdIn)} (${fixed(idleCount / (createdIn / 1000), 0)} per second); waiting for every first DNS check…`);
    const idleNx = await waitFirstChecks(idleIds, Math.max(20 * 60_000, idleCount * 400), 1000, 'idle');
    const allChecked = Date.now();
    const createDone = await read();
    progress(`  all ${int(idleCount)} had their first DNS check (${int(idleNx)} nxdomain) ${secs(allChecked - idleStart)} after the first create: ${fixed(idleCount / ((allChecked - idleStart) / 1000), 1)} domains/s from create to first check`);
    const { rows: [outbox] } = await sql.query<{ pending: number; starts: number; domains: number }>(`
      select count(*) filter (where dispatched_at is null)::int as pending,
             count(*) filter (where kind = 'start_domain')::int as starts,
             (select count(*)::int from domains) as domains
      from workflow_outbox`);
    progress(`  outbox: ${outbox!.pending} rows pending, ${int(outbox!.starts)} start_domain rows for ${int(outbox!.domains)} domains`);
    const { rows: attachRows } = await sql.query<{ ms: number }>(`
      select (extract(epoch from workflow_started_at - created_at) * 1000)::float8 as ms from domains where id = any($1::text[])`, [idleIds]);
    const attach = dist(attachRows.map((r) => r.ms));
    progress(`  created → workflow attached (its first activity ran): p50 ${secs(attach.p50)}, p90 ${secs(attach.p90)}, p99 ${secs(attach.p99)}, max ${secs(attach.max)}`);
    console.log('');
    console.log(`  CPU while creating ${int(idleCount)} domains and running their first checks:`);
    printCpu(createReading, createDone);
    console.log('');

    if (settleSeconds > 0) {
      progress(`settling for ${settleSeconds} s…`);
      let prev = await read();
      const settleEnd = Date.now() + settleSeconds * 1000;
      while (Date.now() < settleEnd) {
        await sleep(Math.min(SAMPLE_MS, settleEnd - Date.now()));
        checkInterrupted();
        const now = await read();
        progress(`  settle: worker ${fixed(cpuPercent(prev, now, 'worker'))} %, Temporal ${fixed(cpuPercent(prev, now, 'temporal'))} %, DNS ${fixed(((now.dnsQueries - prev.dnsQueries) / ((now.at - prev.at) / 1000)) * 60, 0)} queries/min`);
        prev = now;
      }
    }

    // The window.
    const tableStats = async () => (await sql.query<{ relname: string; seq_scan: number; seq_tup_read: number; idx_scan: number }>(`
      select relname, seq_scan::float8 as seq_scan, seq_tup_read::float8 as seq_tup_read, coalesce(idx_scan, 0)::float8 as idx_scan
      from pg_stat_user_tables where relname in ('domains', 'workflow_outbox', 'events', 'domain_status_history') order by relname`)).rows;
    progress(`sampling for ${idleSeconds} s (every ${SAMPLE_MS / 1000} s)…`);
    const stats0 = await tableStats();
    const w0 = await read();
    const dnsIndex0 = acme.dns.queries.length;
    const samples: Reading[] = [w0];
    const windowEnd = w0.at + idleSeconds * 1000;
    while (Date.now() < windowEnd - 50) {
      await sleep(Math.min(SAMPLE_MS, windowEnd - Date.now()));
      checkInterrupted();
      const prev = samples[samples.length - 1]!;
      const now = await read();
      samples.push(now);
      progress(`  +${String(Math.round((now.at - w0.at) / 1000)).padStart(4)} s: worker ${fixed(cpuPercent(prev, now, 'worker')).padStart(5)} % RSS ${fixed(now.rssMiB.worker, 0)} MiB; Temporal ${fixed(cpuPercent(prev, now, 'temporal')).padStart(5)} % RSS ${fixed(now.rssMiB.temporal, 0)} MiB; Postgres ${fixed(cpuPercent(prev, now, 'postgres')).padStart(5)} %; DNS ${String(now.dnsQueries - prev.dnsQueries).padStart(5)} queries`);
    }
    const w1 = samples[samples.length - 1]!;
    const stats1 = await tableStats();
    const windowS = (w1.at - w0.at) / 1000;
    const windowQueries = acme.dns.queries.slice(dnsIndex0, dnsIndex0 + (w1.dnsQueries - w0.dnsQueries));
    const byType = new Map<string, number>();
    for (const q of windowQueries) byType.set(q.type, (byType.get(q.type) ?? 0) + 1);
    const checks = byType.get('CNAME') ?? 0; // every check of an nxdomain name asks CNAME once
    const queriesPerMin = (windowQueries.length / windowS) * 60;

    // What the backoff schedule predicts for this window (no jitter), from each workflow's start.
    const { rows: startedRows } = await sql.query<{ s: number }>(`
      select (extract(epoch from workflow_started_at) * 1000)::float8 as s from domains where id = any($1::text[]) and workflow_started_at is not null`, [idleIds]);
    const schedule: number[] = [0];
    for (let k = 1; schedule[schedule.length - 1]! < 48 * 3600_000; k++) schedule.push(schedule[schedule.length - 1]! + Math.min(DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST * 2 ** (k - 1)));
    let expected = 0;
    for (const { s } of startedRows) for (const offset of schedule) { const at = s + offset; if (at >= w0.at && at < w1.at) expected++; }
    const sinceCreate = (w0.at - idleStart) / 1000;

    const rssOf = (c: Component) => samples.slice(1).map((s) => s.rssMiB[c]);
    const workerPct = cpuPercent(w0, w1, 'worker');
    const temporalPct = cpuPercent(w0, w1, 'temporal');
    console.log('');
    console.log(`Phase B — idle cost: ${int(idleCount)} pending_dns domains (+ ${burstCount + sequentialCount + 1} active), window of ${fixed(windowS, 0)} s starting ${fixed(sinceCreate, 0)} s after the first idle create:`);
    printTable(['component', 'CPU avg % of a core', 'RSS min MiB', 'RSS max MiB'], [
      [componentLabel.worker, fixed(workerPct, 2), fixed(Math.min(...rssOf('worker')), 0), fixed(Math.max(...rssOf('worker')), 0)],
      [componentLabel.temporal, fixed(temporalPct, 2), fixed(Math.min(...rssOf('temporal')), 0), fixed(Math.max(...rssOf('temporal')), 0)],
      [componentLabel.postgres, fixed(cpuPercent(w0, w1, 'postgres'), 2), '—', '—'],
      [componentLabel.pebble, fixed(cpuPercent(w0, w1, 'pebble'), 2), fixed(Math.min(...rssOf('pebble')), 0), fixed(Math.max(...rssOf('pebble')), 0)],
      [componentLabel.bench, fixed(cpuPercent(w0, w1, 'bench'), 2), fixed(Math.min(...rssOf('bench')), 0), fixed(Math.max(...rssOf('bench')), 0)],
    ]);
    console.log(`  whole machine busy ${fixed(((w1.machineBusy - w0.machineBusy) / windowS) * 100, 1)} % of a core on average in the window (other processes included; ${os.cpus().length * 100} % = all cores)`);
    console.log(`  baseline before the idle domains existed: worker ${fixed(baselineWorker, 2)} %, Temporal ${fixed(cpuPercent(b0, b1, 'temporal'), 2)} %, Postgres ${fixed(cpuPercent(b0, b1, 'postgres'), 2)} % (RSS worker ${fixed(b1.rssMiB.worker, 0)} MiB, Temporal ${fixed(b1.rssMiB.temporal, 0)} MiB)`);
    console.log(`  DNS: ${int(windowQueries.length)} queries in the window = ${fixed(queriesPerMin, 0)} per minute (${[...byType].map(([t, n]) => `${t} ${int(n)}`).join(', ')}); ${int(checks)} checks (${fixed((checks / windowS) * 60, 0)}/min, ${fixed(checks / idleCount, 2)} per domain)`);
    console.log(`  the backoff schedule (5 s doubling to 1 h, no jitter) predicts ≈ ${int(expected)} checks in this window; at the 1 h cap the same domains would make ${fixed(idleCount / 60, 0)} checks/min (${fixed((idleCount / 60) * (windowQueries.length / Math.max(checks, 1)), 0)} DNS queries/min)`);
    const extraWorkerS = (workerPct - baselineWorker) / 100 * windowS;
    if (checks >= 50) {
      const perCheckMs = (extraWorkerS / checks) * 1000;
      const steady = baselineWorker + ((idleCount / 3600) * perCheckMs / 1000) * 100;
      console.log(`  worker CPU above baseline per check ≈ ${fixed(perCheckMs, 1)} ms → at the 1 h cap ≈ ${fixed(steady, 2)} % of a core for ${int(idleCount)} domains (extrapolated)`);
    }
    const statRows = stats1.map((s1) => {
      const s0 = stats0.find((s) => s.relname === s1.relname);
      const per = (v1: number, v0: number | undefined) => fixed(((v1 - (v0 ?? 0)) / windowS) * 60, 0);
      return [s1.relname, per(s1.seq_scan, s0?.seq_scan), per(s1.seq_tup_read, s0?.seq_tup_read), per(s1.idx_scan, s0?.idx_scan)];
    });
    console.log('  Postgres table activity in the window (pg_stat_user_tables, per minute):');
    printTable(['table', 'seq scans', 'rows read by seq scans', 'index scans'], statRows);
    const sqliteBytes = ['', '-wal', '-shm'].reduce((s, ext) => s + (existsSync(dbFile + ext) ? statSync(dbFile + ext).size : 0), 0);
    console.log(`  Temporal SQLite file (with WAL) now ${fixed(sqliteBytes / 2 ** 20, 1)} MiB`);
    idleVerdict = `idle: worker ${fixed(workerPct, 2)} % of a core, RSS ${fixed(Math.min(...rssOf('worker')), 0)}–${fixed(Math.max(...rssOf('worker')), 0)} MiB, ${fixed(queriesPerMin, 0)} DNS queries/min for ${int(idleCount)} pending domains`;
  }

  // Summary.
  const { rows: [dup] } = await sql.query<{ extra: number }>(`select (count(*) - count(distinct workflow_id))::int as extra from workflow_outbox where kind = 'start_domain'`);
  console.log('');
  console.log('Summary');
  console.log(`  verify → active, ${burstCount} at once: p50 ${secs(burstDist.p50)}, p90 ${secs(burstDist.p90)}, p99 ${secs(burstDist.p99)}, max ${secs(burstDist.max)}; ${fixed(total.length / (span / 1000), 1)} activated/s; ${notActive.length} not active — target p50 < ${secs(LATENCY_TARGET_MS)}: ${verdict}`);
  console.log(`  verify → active, one at a time: p50 ${secs(seqDist.p50)}, max ${secs(seqDist.max)}`);
  if (idleVerdict) console.log(`  ${idleVerdict}`);
  console.log(`  start_domain outbox rows beyond one per domain (reconciler re-queues): ${dup!.extra}`);
  const logLines = [...worker.logCounts].sort((a, b) => b[1] - a[1]);
  console.log(`  worker log (LOG_LEVEL=warn): ${logLines.reduce((s, [, n]) => s + n, 0)} lines${logLines.length ? ':' : ''}`);
  for (const [key, n] of logLines.slice(0, 8)) console.log(`    ×${n}  ${key}`);
  console.log('');
  console.log(`load avg now ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (other processes on this machine show up here and in the figures)`);
}

await runBenchmark(main, 'worker, API, servers, pools, Temporal, bench database, temp dir');
