// `npm run chaos`: fault injection on a stack of its own, loopback only, bounded in time (issue 14,
// "Done when"). Runs create/read load with Idempotency-Keys while it freezes Postgres (SIGSTOP of
// the whole cluster), restarts Postgres, SIGKILLs the worker (and starts it again) and pauses the
// Temporal dev server (SIGSTOP/SIGCONT), one fault after another. Then it checks:
//   - every 201 is readable (GET answers 200 with the same domain);
//   - every idempotent retry got, and a final replay of every key gets, the original 201;
//   - no domain exists that no 201 announced (a create lost on the way);
//   - every domain has exactly one workflow (domain/<id>, not counting continued-as-new runs);
//   - no request waited longer than the documented bound (docs/api-decisions.md, "Bounded waits");
//   - no 5xx other than 503 with Retry-After.
// The last line is one JSON object with the counts; exit code 1 when a check failed.
//
//   npm run chaos -- --duration 60        # seconds of load (default 180; setup and checks add ~1 min)
//   npm run chaos -- --clients 4 --freeze 5 --bound-ms 10000
import { randomBytes } from 'node:crypto';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Client } from '@temporalio/client';
import { migrate } from '../db/migrate.ts';
import { createDb, sql } from '../db/pool.ts';
import { startEmbeddedPostgres } from '../local-stack/embedded-postgres.ts';
import { findTemporalCli, startTemporalDevServer } from '../local-stack/temporal-dev-server.ts';
import { buildWorkflowBundle } from '../worker/workflow-bundle.ts';
import { connectTemporal, ensureSearchAttributes } from '../temporal/connection.ts';
import { freezeCluster, supervise, thaw, waitUntilOk } from './chaos/stack.ts';
import { createBenchTenant } from './support/setup.ts';
import { freePort, intArg, isInterrupted, onCleanup, progress, runBenchmark, sleep, type Headline } from './support/run.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '180' },
    clients: { type: 'string', default: '6' },
    freeze: { type: 'string', default: '10' },
    'bound-ms': { type: 'string', default: '10000' },
    // Several of everything (issue 27): bench/chaos/cluster.ts, its own stack and faults.
    cluster: { type: 'boolean', default: false },
    creators: { type: 'string' },
  },
});
const DURATION_S = intArg('duration', args.duration!, 10, 600);
const CLIENTS = intArg('clients', args.clients!, 1, 64);
const FREEZE_S = intArg('freeze', args.freeze!, 1, 120);
/** The documented bound on one request's wait (docs/api-decisions.md, "Bounded waits"). */
const BOUND_MS = intArg('bound-ms', args['bound-ms']!, 1000, 120_000);
/** After the load stops, creates still retrying get this long to finish. */
const SETTLE_MS = 60_000;

interface Answer { status: number; retryAfter: string | null; body: any; ms: number }

const stats = {
  requests: 0,
  byStatus: new Map<string, number>(),
  networkErrors: 0,
  bad5xx: 0,
  badSamples: [] as string[],
  overBound: 0,
  maxLatencyMs: 0,
  creates: 0,
  createsAfterRetry: 0,
  createFailures: 0,
  createFailureSamples: [] as string[],
  replays: 0,
  replayMismatches: 0,
  reads: 0,
  readMissing: 0,
};

async function call(base: string, auth: string, method: string, url: string, payload?: unknown, key?: string): Promise<Answer | null> {
  const started = Date.now();
  stats.requests++;
  try {
    const res = await fetch(base + url, {
      method,
      headers: { authorization: auth, ...(payload ? { 'content-type': 'application/json' } : {}), ...(key ? { 'idempotency-key': key } : {}) },
      body: payload ? JSON.stringify(payload) : null,
      // Well past the bound: a request this slow is counted, not waited for forever.
      signal: AbortSignal.timeout(BOUND_MS * 3),
    });
    const text = await res.text();
    const ms = Date.now() - started;
    stats.maxLatencyMs = Math.max(stats.maxLatencyMs, ms);
    if (ms > BOUND_MS) stats.overBound++;
    const label = String(res.status);
    stats.byStatus.set(label, (stats.byStatus.get(label) ?? 0) + 1);
    const retryAfter = res.headers.get('retry-after');
    if (res.status >= 500 && !(res.status === 503 && retryAfter)) {
      stats.bad5xx++;
      if (stats.badSamples.length < 5) stats.badSamples.push(`${method} ${url} → ${res.status} ${text.slice(0, 200)}`);
    }
    let body: unknown = null;
    try { body = JSON.parse(text); } catch { /* not JSON: counted by status */ }
    return { status: res.status, retryAfter, body, ms };
  } catch {
    const ms = Date.now() - started;
    stats.maxLatencyMs = Math.max(stats.maxLatencyMs, ms);
    if (ms > BOUND_MS) stats.overBound++;
    stats.networkErrors++;
    return null;
  }
}

/** Worth the same request again with the same key: an outage or the key still in flight. */
const retriable = (a: Answer | null) => a === null || a.status === 503 || (a.status === 409 && a.body?.error?.code === 'idempotency_key_in_use');
const pause = (a: Answer | null) => sleep(Math.min(2000, a?.retryAfter ? Number(a.retryAfter) * 1000 : 250));

interface Created { key: string; hostname: string; id: string }

async function main(): Promise<Headline> {
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hg-chaos-'));
  // As root, Postgres runs as the `postgres` user, which must reach its data dir below this one.
  await chmod(tmp, 0o755);
  onCleanup(`remove ${tmp}`, () => rm(tmp, { recursive: true, force: true }));

  // 1. Postgres of its own (embedded, so it can be frozen and restarted).
  const pgPort = await freePort();
  progress(`starting a private embedded Postgres on 127.0.0.1:${pgPort}…`);
  const pg = await startEmbeddedPostgres(tmp, pgPort, progress);
  onCleanup('private Postgres', () => pg.stop());
  await migrate(pg.url);
  const db = await createDb(pg.url, { maximumPoolSize: 2 });
  onCleanup('checker pool', () => db.end());
  const tenant = await createBenchTenant(db);

  // 2. Temporal dev server (SQLite in the temp dir), search attributes.
  const temporal = await startTemporalDevServer({ cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH, progress), port: await freePort(), uiPort: null, dbFile: path.join(tmp, 'temporal.sqlite'), namespace: 'default', log: progress });
  onCleanup('Temporal dev server', async () => { if (temporal.process.pid) process.kill(temporal.process.pid, 'SIGCONT'); await temporal.stop(); });
  const connection = await connectTemporal(temporal.address);
  onCleanup('Temporal connection', () => connection.close());
  await ensureSearchAttributes(connection, 'default');
  const client = new Client({ connection, namespace: 'default' });

  // 3. API and worker as real processes.
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  progress('building the workflow bundle…');
  await buildWorkflowBundle(bundlePath);
  const apiPort = await freePort();
  const taskQueue = `hostgate-chaos-${randomBytes(3).toString('hex')}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmp,
    HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local',
    DATABASE_URL: pg.url,
    TEMPORAL_ADDRESS: temporal.address,
    TEMPORAL_TASK_QUEUE: taskQueue,
    HOSTGATE_ENCRYPTION_KEYS: `chaos:${randomBytes(32).toString('base64')}`,
    HOSTGATE_SERVICE_DOMAIN: 'hostgate.test',
    HOSTGATE_HOST: '127.0.0.1',
    HOSTGATE_API_PORT: String(apiPort),
    HOSTGATE_PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
    // DNS checks fail at once on a closed loopback port: domains stay pending_dns, no internet.
    HOSTGATE_DNS_SERVERS: '127.0.0.1:1',
    HOSTGATE_RATE_LIMIT_PER_SECOND: '1000000',
    HOSTGATE_RATE_LIMIT_BURST: '1000000',
    HOSTGATE_WORKFLOW_BUNDLE: bundlePath,
    LOG_LEVEL: 'warn',
  };
  const api = supervise('api', '../../api/server.ts', env);
  const worker = supervise('worker', '../../worker/main.ts', env);
  onCleanup('api', () => api.stop());
  onCleanup('worker', () => worker.stop());
  api.start();
  worker.start();
  const base = `http://127.0.0.1:${apiPort}`;
  await waitUntilOk(`${base}/readyz`, 90_000, 'the API');
  progress(`API on ${base} (pid ${api.pid()}), worker pid ${worker.pid()}, Postgres pid ${pg.postmasterPid()}, Temporal pid ${temporal.process.pid}`);

  const auth = `Bearer ${tenant.secret}`;
  const created: Created[] = [];
  const loadEnd = Date.now() + DURATION_S * 1000;
  const giveUpAt = loadEnd + SETTLE_MS;

  /** Posts until a final answer: 201 (recorded), another 4xx (a failure: issue 14's 409), or give-up. */
  async function createOne(key: string, hostname: string): Promise<void> {
    let attempts = 0;
    for (;;) {
      attempts++;
      const a = await call(base, auth, 'POST', '/v1/domains', { hostname, destination_id: tenant.destination.id }, key);
      if (a?.status === 201) {
        created.push({ key, hostname, id: a.body.data.id });
        stats.creates++;
        if (attempts > 1) stats.createsAfterRetry++;
        return;
      }
      if (!retriable(a) || Date.now() > giveUpAt) {
        stats.createFailures++;
        if (stats.createFailureSamples.length < 5) stats.createFailureSamples.push(`${key}: ${a ? `${a.status} ${JSON.stringify(a.body?.error?.code)}` : 'no answer'} after ${attempts} attempts`);
        return;
      }
      await pause(a);
    }
  }

  /** The same key again must answer the same 201 (retrying through outages). */
  async function replay(c: Created): Promise<boolean> {
    for (;;) {
      const a = await call(base, auth, 'POST', '/v1/domains', { hostname: c.hostname, destination_id: tenant.destination.id }, c.key);
      if (a?.status === 201) return a.body.data.id === c.id;
      if (!retriable(a) || Date.now() > giveUpAt + SETTLE_MS) return false;
      await pause(a);
    }
  }

  async function loadClient(n: number): Promise<void> {
    for (let i = 0; Date.now() < loadEnd && !isInterrupted(); i++) {
      const key = `chaos-${n}-${i}`;
      await createOne(key, `c${n}-${i}.chaos.example`);
      if (created.length && Math.random() < 0.3) {
        stats.replays++;
        if (!(await replay(created[Math.floor(Math.random() * created.length)]!))) stats.replayMismatches++;
      }
      if (created.length) {
        const c = created[Math.floor(Math.random() * created.length)]!;
        const a = await call(base, auth, 'GET', `/v1/domains/${c.id}`);
        stats.reads++;
        if (a?.status === 404) stats.readMissing++;
      }
    }
  }

  // 4. Faults, one after another, while the load runs.
  const faults = { postgres_frozen: 0, postgres_restarted: 0, worker_killed: 0, temporal_paused: 0 };
  let frozen: number[] = [];
  let temporalStopped = false;
  onCleanup('thaw whatever is still frozen', async () => {
    thaw(frozen);
    if (temporalStopped && temporal.process.pid) process.kill(temporal.process.pid, 'SIGCONT');
  });
  const schedule: Array<[string, () => Promise<void>]> = [
    ['freeze Postgres', async () => {
      const pid = pg.postmasterPid();
      if (!pid) return;
      frozen = freezeCluster(pid);
      faults.postgres_frozen++;
      await sleep(FREEZE_S * 1000);
      thaw(frozen);
      frozen = [];
    }],
    ['kill the worker', async () => {
      worker.kill('SIGKILL');
      faults.worker_killed++;
      await sleep(2000);
      worker.start();
    }],
    ['restart Postgres', async () => {
      await pg.restart();
      faults.postgres_restarted++;
    }],
    ['pause Temporal', async () => {
      const pid = temporal.process.pid!;
      process.kill(pid, 'SIGSTOP');
      temporalStopped = true;
      faults.temporal_paused++;
      await sleep(FREEZE_S * 1000);
      process.kill(pid, 'SIGCONT');
      temporalStopped = false;
    }],
  ];
  const faulting = (async () => {
    for (let k = 0; Date.now() < loadEnd - 5000 && !isInterrupted(); k++) {
      await sleep(4000);
      if (Date.now() >= loadEnd - 5000) break;
      const [name, run] = schedule[k % schedule.length]!;
      progress(`fault: ${name}`);
      await run();
    }
  })();
  const ticker = setInterval(() => progress(`${stats.requests} requests, ${stats.creates} created, ${stats.createFailures} failed creates, statuses ${JSON.stringify(Object.fromEntries(stats.byStatus))}, max ${stats.maxLatencyMs} ms`), 10_000);
  progress(`load: ${CLIENTS} clients for ${DURATION_S} s; faults every ~4 s (freezes of ${FREEZE_S} s)`);
  await Promise.all([faulting, ...Array.from({ length: CLIENTS }, (_, n) => loadClient(n))]);
  clearInterval(ticker);
  progress(`load over: ${stats.creates} domains created, ${stats.requests} requests`);

  // 5. Checks, on a healed stack.
  await waitUntilOk(`${base}/readyz`, 90_000, 'the API after the faults');
  const checkStart = stats.requests;
  let unreadable = 0;
  let finalReplayMismatches = 0;
  const queue = [...created];
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let c = queue.pop(); c; c = queue.pop()) {
      let read: Answer | null = null;
      for (let i = 0; i < 20 && (!read || retriable(read)); i++) {
        if (read) await pause(read);
        read = await call(base, auth, 'GET', `/v1/domains/${c.id}`);
      }
      if (read?.status !== 200 || read.body.data.hostname !== c.hostname) unreadable++;
      if (!(await replay(c))) finalReplayMismatches++;
    }
  }));
  progress(`checked ${created.length} domains with ${stats.requests - checkStart} requests`);

  const inDb = await db.anyFirst(sql.unsafe`select id from domains where organization_id = ${tenant.org.id}`) as string[];
  const announced = new Set(created.map((c) => c.id));
  const orphans = inDb.filter((id) => !announced.has(id)).length;
  const missingInDb = created.filter((c) => !inDb.includes(c.id)).length;

  // Every start request dispatched, then the workflows as Temporal lists them (visibility lags a little).
  const outboxDeadline = Date.now() + 120_000;
  while (Number(await db.oneFirst(sql.unsafe`select count(*) from workflow_outbox where dispatched_at is null and kind = 'start_domain'`)) > 0 && Date.now() < outboxDeadline) await sleep(1000);
  let missingWorkflows = inDb.length;
  let duplicateWorkflows = 0;
  const visibilityDeadline = Date.now() + 60_000;
  for (;;) {
    const runs = new Map<string, number>();
    for await (const w of client.workflow.list({ query: `TaskQueue = "${taskQueue}"` })) {
      if (!w.workflowId.startsWith('domain/') || w.status.name === 'CONTINUED_AS_NEW') continue;
      runs.set(w.workflowId, (runs.get(w.workflowId) ?? 0) + 1);
    }
    missingWorkflows = inDb.filter((id) => !runs.has(`domain/${id}`)).length;
    duplicateWorkflows = inDb.filter((id) => (runs.get(`domain/${id}`) ?? 0) > 1).length;
    if ((missingWorkflows === 0 && duplicateWorkflows === 0) || Date.now() > visibilityDeadline) break;
    await sleep(2000);
  }

  const ok = stats.bad5xx === 0 && stats.overBound === 0 && stats.createFailures === 0 && stats.replayMismatches === 0
    && finalReplayMismatches === 0 && unreadable === 0 && orphans === 0 && missingInDb === 0 && missingWorkflows === 0
    && duplicateWorkflows === 0 && stats.readMissing === 0 && stats.networkErrors === 0 && api.restarts === 0;
  if (!ok) {
    for (const s of [...stats.badSamples, ...stats.createFailureSamples]) progress(`  sample: ${s}`);
    progress(`api tail: ${api.tail.slice(-5).join(' | ')}`);
  }
  return {
    ok,
    duration_s: DURATION_S,
    clients: CLIENTS,
    requests: stats.requests,
    status_201: stats.byStatus.get('201') ?? 0,
    status_200: stats.byStatus.get('200') ?? 0,
    status_503: stats.byStatus.get('503') ?? 0,
    status_409: stats.byStatus.get('409') ?? 0,
    other_statuses: JSON.stringify(Object.fromEntries([...stats.byStatus].filter(([s]) => !['200', '201', '503', '409'].includes(s)))),
    network_errors: stats.networkErrors,
    bad_5xx: stats.bad5xx,
    max_latency_ms: stats.maxLatencyMs,
    bound_ms: BOUND_MS,
    over_bound: stats.overBound,
    domains_created: stats.creates,
    created_after_retry: stats.createsAfterRetry,
    create_failures: stats.createFailures,
    replays_during_load: stats.replays,
    replay_mismatches: stats.replayMismatches + finalReplayMismatches,
    unreadable,
    domains_in_db: inDb.length,
    orphan_domains: orphans,
    missing_in_db: missingInDb,
    missing_workflows: missingWorkflows,
    duplicate_workflows: duplicateWorkflows,
    ...faults,
    worker_restarts: worker.restarts,
    api_restarts: api.restarts,
  };
}

if (args.cluster) await import('./chaos/cluster.ts');
else await runBenchmark(main, 'chaos stack');
