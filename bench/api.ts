// `npm run bench:api [-- --duration 8 --connections 20 --warmup 1]`: throughput and latency of the
// real API against the real stack, on this machine. Not a test: it prints figures and exits 0
// whether or not the pagination target is met (it exits 1 only when the benchmark cannot run).
//
// What runs: a fresh database hg_bench_<random> (migrated) on the local Postgres or DATABASE_URL's
// server; a Temporal dev server in memory (or TEMPORAL_ADDRESS); the API built by buildApp with
// the outbox dispatcher, listening on a free loopback port; beside it a bare Fastify server whose
// one route does a single INSERT with the same pool size, as the baseline. No Temporal worker runs:
// domain workflows are started (through the outbox, as in production) and wait on a task queue of
// this run's own. The load generator (autocannon, bench/load.ts) runs in a worker thread so it
// does not share the servers' event loop; everything shares this machine's cores.
//
// Phases: POST /bare, POST /v1/domains, GET /v1/domains/{id}, GET /v1/domains (first page and a
// deep page), then both list pages again over 1,000 and 100,000 seeded domains.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import os from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { Client } from '@temporalio/client';
import Fastify from 'fastify';
import pg from 'pg';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/index.ts';
import { decodeCursor } from '../db/pagination.ts';
import { workflowOutboxRepository } from '../db/repositories/workflow-outbox.ts';
import { createLogger } from '../logging/logger.ts';
import { apiKeyCacheCounts } from '../metrics/http.ts';
import { createOutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { connectTemporal, ensureSearchAttributes, nativeClientProvider } from '../temporal/connection.ts';
import type { LoadResult, LoadSpec } from './load.ts';
import { loadAverage, printMachine, printTable } from './support/print.ts';
import { changingSetCpu, machineBusySeconds, treeUsage } from './support/proc-sampler.ts';
import { connectBenchPostgres, intArg, onCleanup, progress, runBenchmark, sleep, withDatabase, type Headline } from './support/run.ts';
import { apiClient, apiUnderLoadEnv, createBenchDatabase, createBenchTenant, openBenchDatabase, temporalForBench } from './support/setup.ts';

const DEEP_PAGE_TARGET = 1.5;
// A profile run (node --cpu-prof) wants only the phase it looks at: `--only create` runs the
// baseline and the creates (~2 × duration), not the ten-minute list phases.
const PHASES = ['bare', 'create', 'get', 'list', 'scale'] as const;
type Phase = (typeof PHASES)[number];
const SCALE_SIZES = [1_000, 100_000] as const;
const SEED_CHUNK = 10_000;

// ---------------------------------------------------------------------------------------------
// Arguments, output helpers, cleanup

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '8' },
    connections: { type: 'string', default: '20' },
    warmup: { type: 'string', default: '1' },
    phases: { type: 'string', default: PHASES.join(',') },
    only: { type: 'string' },
    dispatcher: { type: 'string', default: 'on' },
    'dispatcher-client': { type: 'string', default: 'native' },
    waits: { type: 'boolean', default: false },
    'ceiling-no-counting': { type: 'boolean', default: false },
    'ceiling-no-notify': { type: 'boolean', default: false },
    help: { type: 'boolean', default: false },
  },
});
if (args.help) {
  console.log(`usage: npm run bench:api -- [--duration seconds (8)] [--connections n (20)] [--warmup seconds (1)]
    [--phases ${PHASES.join(',')}] [--only create (= --phases bare,create)]
    [--dispatcher on|paused (paused: no workflow starts during the create phase; the outbox drains after it)]
    [--dispatcher-client native|js (native: starts over a NativeConnection, as api/server.ts sends them; js: the pure-JS gRPC client, which this bench used before 2026-11-29)]
    [--waits (sample pg_stat_activity of the API's connections during the create phase)]
    [--ceiling-no-counting (drops the usage counting trigger in the scratch database: a ceiling for what the usage row costs, not a build)]
    [--ceiling-no-notify (drops the create's NOTIFYs — DNS checker, webhook fan-out, edge — in the scratch database: a ceiling for what NOTIFY's commit-time lock costs, not a build)]`);
  process.exit(0);
}
const duration = intArg('duration', args.duration, 1, 120);
const connections = intArg('connections', args.connections, 1, 500);
const warmup = intArg('warmup', args.warmup, 0, 30);
const phases = new Set<Phase>((args.only === 'create' ? 'bare,create' : args.only ?? args.phases).split(',').map((p) => {
  if (!(PHASES as readonly string[]).includes(p)) { console.error(`unknown phase ${p} (phases: ${PHASES.join(', ')})`); process.exit(2); }
  return p as Phase;
}));
if (args.dispatcher !== 'on' && args.dispatcher !== 'paused') { console.error('--dispatcher is on or paused'); process.exit(2); }
const dispatcherPaused = args.dispatcher === 'paused';
if (args['dispatcher-client'] !== 'native' && args['dispatcher-client'] !== 'js') { console.error('--dispatcher-client is native or js'); process.exit(2); }
const dispatcherClient = args['dispatcher-client'];

const ms = (v: number) => (Number.isFinite(v) ? v.toFixed(2) : '—');
const int = (v: number) => Math.round(v).toLocaleString('en-US');

// ---------------------------------------------------------------------------------------------
// Load runs (each in its own worker thread)

const workers = new Set<Worker>();
onCleanup('load workers', async () => { await Promise.all([...workers].map((w) => w.terminate())); });

function runLoad(spec: LoadSpec): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./load.ts', import.meta.url), { workerData: { loadSpec: spec } });
    workers.add(worker);
    let settled = false;
    worker.once('message', (m: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
      settled = true;
      if (m.ok) resolve(m.result);
      else reject(new Error(`load generator failed: ${m.error}`));
      void worker.terminate();
    });
    worker.once('error', (error) => { if (!settled) { settled = true; reject(error); } });
    worker.once('exit', (code) => {
      workers.delete(worker);
      if (!settled) { settled = true; reject(new Error(`load generator exited (${code}) without a result`)); }
    });
  });
}

interface Measured { label: string; result: LoadResult }

function describeNon2xx(r: LoadResult): string {
  const codes = Object.entries(r.statusCodes).filter(([code]) => !code.startsWith('2')).map(([code, n]) => `${code}×${n}`);
  const extra = [...codes, ...(r.errors ? [`errors×${r.errors}`] : []), ...(r.timeouts ? [`timeouts×${r.timeouts}`] : [])];
  return extra.length ? ` (${extra.join(', ')})` : '';
}

async function measure(label: string, spec: Omit<LoadSpec, 'durationSeconds' | 'warmupSeconds' | 'connections'>): Promise<Measured> {
  progress(`measuring ${label} (${warmup} s warm-up + ${duration} s, ${connections} connections)…`);
  const result = await runLoad({ ...spec, durationSeconds: duration, warmupSeconds: warmup, connections });
  progress(`  ${int(result.rps)} req/s, p50 ${ms(result.p50)} ms, p99 ${ms(result.p99)} ms, non-2xx ${result.non2xx}${describeNon2xx(result)}`);
  return { label, result };
}

// ---------------------------------------------------------------------------------------------
// Seeding

/**
 * Inserts domains number `from`..`to` for the organization: distinct lowercase hostnames (every
 * fifth an apex, brandN.example; the rest shop-N.tenantK.example, with is_apex as
 * normalizeHostname would set it), a status mix (mostly active, some pending, failed, suspended, deleted) with
 * matching verification JSON, customer ids, and distinct millisecond created_at values about five
 * minutes apart going back from `base` (100,000 rows span about a year).
 */
async function seedDomains(sql: pg.Client, input: { organizationId: string; destinationId: string; base: string; salt: string; from: number; to: number }): Promise<void> {
  await sql.query(`
    with src as (
      select n,
             n % 5 = 0 as apex,
             abs(hashtext($4::text || 's' || n)) % 100 as roll,
             date_trunc('milliseconds', $3::timestamptz - n * interval '5 minutes'
               + (abs(hashtext($4::text || 't' || n)) % 240000) * interval '1 millisecond') as created_at
      from generate_series($5::int, $6::int) as n
    ), shaped as (
      select src.*,
             case when apex then 'brand' || n || '.example' else 'shop-' || n || '.tenant' || (n / 7) || '.example' end as hostname,
             case when roll < 70 then 'active' when roll < 82 then 'pending_dns' when roll < 88 then 'pending_certificate'
                  when roll < 93 then 'failed' when roll < 97 then 'suspended' else 'deleted' end as status
      from src
    ), timed as (
      select shaped.*,
             case status when 'pending_dns' then 0 when 'pending_certificate' then 1 when 'active' then 2
                         when 'failed' then 2 when 'suspended' then 3 else 5 end as status_seq,
             to_char((created_at + interval '2 minutes') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as checked_at,
             case when apex then jsonb_build_object('type', 'A', 'name', hostname, 'value', '203.0.113.10')
                  else jsonb_build_object('type', 'CNAME', 'name', hostname, 'value', 'edge.hostgate.localhost') end as good_record
      from shaped
    )
    insert into domains (id, organization_id, destination_id, hostname, is_apex, status, status_seq, external_customer_id,
                         verification, workflow_started_at, created_at, updated_at, deleted_at)
    select 'dom_' || substr(md5($4::text || n::text), 1, 26),
           $1, $2, hostname, apex, status, status_seq,
           case when n % 10 = 0 then null else 'cus_' || (n % 9973) end,
           case status
             when 'pending_dns' then jsonb_build_object('checked_at', checked_at, 'found', '[]'::jsonb,
               'problem', jsonb_build_object('code', 'no_records', 'message', 'No DNS records found for ' || hostname || ' yet.'))
             when 'failed' then jsonb_build_object('checked_at', checked_at,
               'found', jsonb_build_array(jsonb_build_object('type', 'CNAME', 'name', hostname, 'value', 'elsewhere.example.net')),
               'problem', jsonb_build_object('code', 'wrong_target', 'message', hostname || ' points elsewhere.'))
             else jsonb_build_object('checked_at', checked_at, 'found', jsonb_build_array(good_record), 'problem', null)
           end,
           created_at + interval '1 second',
           created_at,
           created_at + status_seq * interval '3 minutes',
           case when status = 'deleted' then created_at + status_seq * interval '3 minutes' end
    from timed`,
  [input.organizationId, input.destinationId, input.base, input.salt, input.from, input.to]);
}

// ---------------------------------------------------------------------------------------------
// Main

type DomainJson = { id: string };
type PageJson = { data: DomainJson[]; has_more: boolean; next_cursor: string | null };

async function main(): Promise<Headline> {
  const runId = randomBytes(4).toString('hex');
  const pgInfo = await connectBenchPostgres(runId);
  const { benchUrl } = pgInfo;

  // Header: machine facts.
  const cpus = os.cpus();
  const autocannonVersion = (createRequire(import.meta.url)('autocannon/package.json') as { version: string }).version;
  const poolSize = Number(process.env.DATABASE_POOL_SIZE ?? '10');
  printMachine('Hostgate API benchmark', pgInfo);
  console.log(`  load       autocannon ${autocannonVersion} in a worker thread, ${connections} connections, ${warmup} s warm-up + ${duration} s per phase, loopback only`);
  console.log(`  api        buildApp in this process (main thread), DB pool ${poolSize}, LOG_LEVEL=silent, rate limit set out of reach`);
  console.log(`  baseline   bare Fastify (no plugins) in this process: POST /bare = one INSERT through pg.Pool (max ${poolSize}) into a scratch table`);
  console.log(`  workflows  no Temporal worker: each created domain's workflow start is dispatched through the outbox (${dispatcherClient === 'native' ? 'over a NativeConnection, as api/server.ts' : 'over the pure-JS gRPC client'}) and waits on the task queue`);
  console.log(`  note       API, baseline, load generator, Postgres and Temporal all share these ${cpus.length} cores`);
  console.log('');

  // 1. Database, Temporal, organization, key, destination.
  await createBenchDatabase(pgInfo);

  const namespace = process.env.TEMPORAL_NAMESPACE || 'default';
  const { address: temporalAddress, external, pid: temporalPid } = await temporalForBench(namespace);
  const connection = await connectTemporal(temporalAddress);
  onCleanup('Temporal connection', () => connection.close());
  const added = await ensureSearchAttributes(connection, namespace);
  if (added.length) progress(`registered search attributes ${added.join(', ')}`);
  const client = new Client({ connection, namespace });
  const taskQueue = `hostgate-bench-${runId}`;
  if (external) {
    onCleanup('note', async () => console.log(`note: workflow executions started by this run remain on ${temporalAddress} (namespace ${namespace}, task queue ${taskQueue}); `
      + `remove them with: temporal workflow terminate --namespace ${namespace} --query 'TaskQueue="${taskQueue}"' --reason "hostgate benchmark"`));
  }

  const config = loadConfig({
    HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local',
    DATABASE_URL: benchUrl,
    DATABASE_POOL_SIZE: String(poolSize),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    ...apiUnderLoadEnv,
    HOSTGATE_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  });
  const { db, sql } = await openBenchDatabase(benchUrl, config.db.poolSize);

  const { org, secret, destination } = await createBenchTenant(db);
  if (args['ceiling-no-counting']) {
    await sql.query('drop trigger domains_usage_count on domains');
    progress('ceiling run: the usage counting trigger is dropped in this scratch database (peak_hostnames is NOT kept)');
  }
  if (args['ceiling-no-notify']) {
    // NOTIFY takes one database-wide lock at commit and holds it through the commit's WAL flush.
    await sql.query('drop trigger events_notify on events');
    await sql.query('drop trigger domains_notify_edge on domains');
    await sql.query(`create or replace function hg_dns_check_schedule() returns trigger language plpgsql as $$
      begin
        if new.status = 'pending_dns' then
          if tg_op = 'INSERT' or old.status is distinct from 'pending_dns' then
            insert into dns_check_schedule (domain_id, next_check_at, checks, wait_started_at) values (new.id, hg_now(), 0, hg_now())
            on conflict (domain_id) do update set next_check_at = excluded.next_check_at, checks = 0, wait_started_at = excluded.wait_started_at;
          end if;
        elsif tg_op = 'UPDATE' and old.status = 'pending_dns' then
          delete from dns_check_schedule where domain_id = new.id;
        end if;
        return null;
      end $$`);
    progress('ceiling run: the create\'s NOTIFYs are dropped in this scratch database (no LISTEN wake-ups: sweeps only)');
  }

  // 2. The API and the bare baseline, each on a free loopback port.
  const logger = createLogger('silent', 'api');
  // The starts go out as the API server sends them (api/server.ts): over a NativeConnection, the
  // Rust core's gRPC, whose threads are in this process and so in its CPU readings. Up to
  // 2026-11-29 this bench sent them over the pure-JS gRPC client (`--dispatcher-client js`), which
  // charged the creates a cost the API no longer has (docs/scale.md, "Less CPU per create").
  const native = nativeClientProvider(temporalAddress, namespace);
  onCleanup('Temporal native connection', () => native.close());
  const dispatcher = createOutboxDispatcher({ db, client: dispatcherClient === 'native' ? native.get : client, taskQueue, logger });
  onCleanup('outbox dispatcher', () => dispatcher.stop());
  // --dispatcher paused: the API's kicks do nothing while creates are measured (their starts wait
  // in the outbox and drainOutbox sends them after the phase), to see what the workflow starts —
  // the Temporal client in this process and the dev server beside it — cost the creates.
  let kicksPaused = false;
  const apiDispatcher: typeof dispatcher = { ...dispatcher, kick: (ids) => (kicksPaused ? Promise.resolve() : dispatcher.kick(ids)) };
  const app = await buildApp({ config, db, temporal: { client }, dispatcher: apiDispatcher, logger });
  onCleanup('API server', () => app.close());
  const apiOrigin = await app.listen({ host: '127.0.0.1', port: 0 });

  await sql.query('create table bench_bare (id bigint generated always as identity primary key, hostname text not null, created_at timestamptz not null default now())');
  const barePool = new pg.Pool({ connectionString: benchUrl, max: config.db.poolSize });
  barePool.on('error', () => undefined);
  onCleanup('baseline database pool', () => barePool.end());
  const bare = Fastify({ logger: false });
  bare.post<{ Body: { hostname: string } }>('/bare', async (request, reply) => {
    const { rows } = await barePool.query<{ id: string }>('insert into bench_bare (hostname) values ($1) returning id', [request.body.hostname]);
    return reply.code(201).send({ id: rows[0]!.id });
  });
  onCleanup('baseline server', () => bare.close());
  const bareOrigin = await bare.listen({ host: '127.0.0.1', port: 0 });
  progress(`API on ${apiOrigin}, baseline on ${bareOrigin}`);

  const { auth, api } = apiClient(apiOrigin, secret);
  // One request of each kind before measuring: a broken setup fails here, with the answer shown.
  const probe = await api<{ data: DomainJson }>('POST', '/v1/domains', { hostname: `probe.b${runId}.example.com`, destination_id: destination.id }, { 'idempotency-key': `probe-${runId}` });
  const domainId = probe.data.id;
  const bareProbe = await fetch(`${bareOrigin}/bare`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ hostname: 'probe.example.com' }) });
  if (bareProbe.status !== 201) throw new Error(`POST /bare answered ${bareProbe.status}: ${await bareProbe.text()}`);

  async function drainOutbox(): Promise<void> {
    const outbox = workflowOutboxRepository(db);
    const started = Date.now();
    let logged = 0;
    for (;;) {
      const pending = await outbox.pendingCount();
      if (pending === 0) break;
      if (Date.now() - started > 120_000) { progress(`  outbox still has ${pending} pending starts after 120 s; going on`); break; }
      if (Date.now() - logged > 2000) { progress(`  waiting for the outbox to drain: ${pending} workflow starts pending…`); logged = Date.now(); }
      await dispatcher.kick(); // what the worker's sweep would do for a start whose fast-path kick failed
      await sleep(200);
    }
    const { rows } = await sql.query<{ done: number; failed: number }>(`select count(*) filter (where dispatched_at is not null)::int as done, count(*) filter (where last_error is not null)::int as failed from workflow_outbox`);
    progress(`  outbox drained ${((Date.now() - started) / 1000).toFixed(1)} s after the phase: ${int(rows[0]!.done)} workflow starts dispatched to Temporal (${rows[0]!.failed} needed a retry)`);
  }

  /** Walks the whole list once with limit 100 and returns the last next_cursor (a page near the oldest rows). */
  async function deepCursor(): Promise<{ cursor: string; skipped: number; total: number }> {
    let cursor: string | null = null;
    let last: string | null = null;
    let total = 0;
    let pages = 0;
    let skipped = 0;
    for (;;) {
      const page: PageJson = await api<PageJson>('GET', `/v1/domains?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      pages++;
      total += page.data.length;
      if (pages % 250 === 0) progress(`  walking the list: ${int(total)} rows…`);
      if (!page.has_more || !page.next_cursor) break;
      skipped = total;
      last = cursor = page.next_cursor;
    }
    if (!last) throw new Error(`the list has a single page (${total} rows); there is no deep page to measure`);
    return { cursor: last, skipped, total };
  }

  const listSpec = (path: string): Omit<LoadSpec, 'durationSeconds' | 'warmupSeconds' | 'connections'> => ({ origin: apiOrigin, method: 'GET', path, headers: auth });

  // 3. The five endpoints.
  console.log('');
  progress('── endpoints ──');
  const results: Measured[] = [];
  // The baseline first: after POST /v1/domains the dispatcher may still be starting workflows.
  const bareRun = phases.has('bare') ? await measure('POST /bare (baseline: one INSERT)', { origin: bareOrigin, method: 'POST', path: '/bare', headers: {}, body: { kind: 'bare', prefix: `b${runId}` } }) : null;
  if (bareRun) results.push(bareRun);
  let createRun: Measured | null = null;
  let createCpu: CreateCpu | null = null;
  if (phases.has('create')) {
    kicksPaused = dispatcherPaused;
    const watch = watchCreatePhase(pgInfo.dbName, temporalPid ?? null, args.waits);
    const keysBefore = await apiKeyCacheCounts();
    createRun = await measure(`POST /v1/domains${dispatcherPaused ? ' (dispatcher paused)' : ''}`, { origin: apiOrigin, method: 'POST', path: '/v1/domains', headers: auth, body: { kind: 'create-domain', destinationId: destination.id, prefix: `b${runId}` } });
    createCpu = await watch.stop(createRun.result.completed);
    const keysAfter = await apiKeyCacheCounts();
    // The key cache at work (api/api-key-cache.ts): nearly every create's key from memory.
    progress(`  API key found in memory ${int(keysAfter.hit - keysBefore.hit)} times, looked up ${int(keysAfter.miss - keysBefore.miss)} (cache on) + ${int(keysAfter.off - keysBefore.off)} (cache off)`);
    // Whether the workflow starts kept pace with the creates or were left for after the phase.
    const { rows: [kept] } = await sql.query<{ done: number; pending: number }>('select count(*) filter (where dispatched_at is not null)::int as done, count(*) filter (where dispatched_at is null)::int as pending from workflow_outbox');
    progress(`  at the end of the phase: ${int(kept!.done)} workflow starts dispatched, ${int(kept!.pending)} still in the outbox`);
    kicksPaused = false;
    results.push(createRun);
    await drainOutbox();
  }
  if (phases.has('get')) results.push(await measure('GET /v1/domains/{id}', listSpec(`/v1/domains/${domainId}`)));
  const inTable = (await sql.query<{ n: number }>('select count(*)::int as n from domains')).rows[0]!.n;
  if (phases.has('list')) {
    progress(`finding a deep-page cursor in ${int(inTable)} domains (walking the list with limit=100)…`);
    const deep = await deepCursor();
    progress(`  deep page starts after row ${int(deep.skipped)} of ${int(deep.total)}`);
    progress(`  plan page 1:  ${await explainPage(sql, org.id, null)}`);
    progress(`  plan deep:    ${await explainPage(sql, org.id, deep.cursor)}`);
    results.push(await measure('GET /v1/domains?limit=20', listSpec('/v1/domains?limit=20')));
    results.push(await measure(`GET /v1/domains?limit=20&cursor=… (after row ${int(deep.skipped)})`, listSpec(`/v1/domains?limit=20&cursor=${encodeURIComponent(deep.cursor)}`)));
  }

  console.log('');
  console.log(`Endpoints (${int(inTable)} domains in the table for the GETs; ${connections} connections, ${duration} s each):`);
  printTable(['phase', 'req/s', 'p50 ms', 'p99 ms', 'non-2xx'], results.map(({ label, result: r }) => [label, int(r.rps), ms(r.p50), ms(r.p99), `${r.non2xx}${describeNon2xx(r)}`]));
  const ratio = createRun && bareRun ? createRun.result.rps / bareRun.result.rps : Number.NaN;
  if (createRun && bareRun) console.log(`  POST /v1/domains ÷ bare INSERT throughput: ${ratio.toFixed(3)}× (${int(createRun.result.rps)} ÷ ${int(bareRun.result.rps)} req/s)`);
  if (createCpu) printCreateCpu(createCpu);
  const createHeadline = {
    create_rps: createRun ? Math.round(createRun.result.rps) : null, create_p50_ms: createRun?.result.p50 ?? null, create_p99_ms: createRun?.result.p99 ?? null,
    bare_insert_rps: bareRun ? Math.round(bareRun.result.rps) : null, create_vs_bare: Number.isFinite(ratio) ? Math.round(ratio * 1000) / 1000 : null,
    dispatcher: dispatcherPaused ? 'paused' : 'on', dispatcher_client: dispatcherClient,
  };
  if (!phases.has('scale')) {
    console.log('');
    console.log(`load avg now ${loadAverage()} (other processes on this machine show up here and in the figures)`);
    const rps = (label: string) => { const r = results.find((m) => m.label === label); return r ? Math.round(r.result.rps) : null; };
    return { benchmark: 'api', phases: [...phases].join(','), ...createHeadline, get_domain_rps: rps('GET /v1/domains/{id}'), list_page1_rps: rps('GET /v1/domains?limit=20') };
  }

  // 4. The list pages over 1,000 and 100,000 seeded domains.
  console.log('');
  progress('── pagination at scale ──');
  progress('emptying domains and the rows that reference them…');
  await sql.query('truncate domains, domain_status_history, events, workflow_outbox, idempotency_keys cascade');
  const base = (await sql.query<{ now: string }>('select hg_now()::text as now')).rows[0]!.now;
  const salt = randomBytes(4).toString('hex');
  let seeded = 0;
  const scale: { rows: number; page1: LoadResult; deep: LoadResult; deepAfter: number }[] = [];
  for (const size of SCALE_SIZES) {
    progress(`seeding ${int(size)} domains…`);
    const seedStart = Date.now();
    while (seeded < size) {
      const to = Math.min(size, seeded + SEED_CHUNK);
      await seedDomains(sql, { organizationId: org.id, destinationId: destination.id, base, salt, from: seeded + 1, to });
      seeded = to;
      if (size > SEED_CHUNK) progress(`  ${int(seeded)} / ${int(size)}`);
    }
    await sql.query('analyze domains');
    const count = (await sql.query<{ n: number }>('select count(*)::int as n from domains')).rows[0]!.n;
    progress(`  ${int(count)} domains in the table (seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s, analyzed)`);
    progress('finding a deep-page cursor (walking the list with limit=100)…');
    const d = await deepCursor();
    progress(`  deep page starts after row ${int(d.skipped)} of ${int(d.total)}`);
    progress(`  plan page 1:  ${await explainPage(sql, org.id, null)}`);
    progress(`  plan deep:    ${await explainPage(sql, org.id, d.cursor)}`);
    const page1 = await measure(`GET /v1/domains?limit=20 @ ${int(count)}`, listSpec('/v1/domains?limit=20'));
    const deepRun = await measure(`GET /v1/domains?limit=20&cursor=… @ ${int(count)}`, listSpec(`/v1/domains?limit=20&cursor=${encodeURIComponent(d.cursor)}`));
    scale.push({ rows: count, page1: page1.result, deep: deepRun.result, deepAfter: d.skipped });
  }

  console.log('');
  console.log(`Pagination (GET /v1/domains?limit=20, ${connections} connections, ${duration} s each):`);
  printTable(
    ['rows', 'page-1 req/s', 'page-1 p50 ms', 'page-1 p99 ms', 'deep req/s', 'deep p50 ms', 'deep p99 ms', 'deep page after row', 'non-2xx'],
    scale.map((s) => [int(s.rows), int(s.page1.rps), ms(s.page1.p50), ms(s.page1.p99), int(s.deep.rps), ms(s.deep.p50), ms(s.deep.p99), int(s.deepAfter), String(s.page1.non2xx + s.deep.non2xx)]),
  );
  const small = scale[0]!;
  const large = scale[scale.length - 1]!;
  const deepRatio = large.deep.p50 / small.deep.p50;
  const verdict = deepRatio <= DEEP_PAGE_TARGET ? 'PASS' : 'FAIL';
  console.log(`  deep-page p50 ${int(large.rows)} ÷ ${int(small.rows)}: ${deepRatio.toFixed(2)}× (target ≤ ${DEEP_PAGE_TARGET}×): ${verdict}`);
  console.log('');
  console.log(`load avg now ${loadAverage()} (other processes on this machine show up here and in the figures)`);
  const rps = (label: string) => Math.round(results.find((r) => r.label === label)?.result.rps ?? 0);
  return {
    benchmark: 'api', ...createHeadline, get_domain_rps: rps('GET /v1/domains/{id}'), list_page1_rps: rps('GET /v1/domains?limit=20'),
    deep_page_rows_small: small.rows, deep_page_rows_large: large.rows, deep_page_p50_ratio: Math.round(deepRatio * 100) / 100,
    deep_page_target: DEEP_PAGE_TARGET, verdict,
  };
}

// ---------------------------------------------------------------------------------------------
// Where a create's time goes: CPU of each process over the create phase, and (--waits) what the
// API's Postgres connections were doing, sampled. pg_stat_statements needs a server restart
// (shared_preload_libraries) on a shared Postgres; the samples and the round trips read from the
// code (docs/billing.md) stand in for it.

interface CreateCpu {
  seconds: number; creates: number;
  apiProcessMs: number; temporalMs: number | null; postgresMs: number; machineMs: number;
  waits: Map<string, number> | null; samples: number;
}

function watchCreatePhase(dbName: string, temporalPid: number | null, sampleWaits: boolean) {
  const started = Date.now();
  const cpu0 = process.cpuUsage();
  const temporal0 = temporalPid ? treeUsage(temporalPid).cpuSeconds : 0;
  const machine0 = machineBusySeconds();
  const backendCpu = changingSetCpu();
  const waits = sampleWaits ? new Map<string, number>() : null;
  let samples = 0;
  let stopped = false;
  const monitor = new pg.Client({ connectionString: withDatabase(process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', dbName) });
  const loop = (async () => {
    await monitor.connect();
    for (;;) {
      const { rows } = await monitor.query<{ pid: number; state: string | null; w: string | null; q: string }>(
        `select pid, state, wait_event_type || '/' || wait_event as w, regexp_replace(left(query, 48), '\\s+', ' ', 'g') as q
         from pg_stat_activity where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`, [dbName]);
      backendCpu(rows.map((r) => r.pid));
      if (waits) {
        samples++;
        for (const r of rows) {
          if (r.state === 'idle') continue;
          const key = `${r.state}${r.w ? ` ${r.w}` : ''}${r.state === 'active' || r.w?.startsWith('Lock') ? ` — ${r.q}` : ''}`;
          waits.set(key, (waits.get(key) ?? 0) + 1);
        }
      }
      if (stopped) break;
      await sleep(sampleWaits ? 20 : 250);
    }
  })();
  return {
    async stop(creates: number): Promise<CreateCpu> {
      stopped = true;
      await loop.catch((error: unknown) => progress(`  (pg_stat_activity sampling failed: ${String(error)})`));
      const postgresSeconds = backendCpu([]) ; // the last reading was taken in the loop
      await monitor.end().catch(() => undefined);
      const used = process.cpuUsage(cpu0);
      return {
        seconds: (Date.now() - started) / 1000, creates,
        apiProcessMs: (used.user + used.system) / 1000,
        temporalMs: temporalPid ? (treeUsage(temporalPid).cpuSeconds - temporal0) * 1000 : null,
        postgresMs: postgresSeconds * 1000, machineMs: (machineBusySeconds() - machine0) * 1000,
        waits, samples,
      };
    },
  };
}

function printCreateCpu(c: CreateCpu): void {
  const per = (msTotal: number | null) => (msTotal === null ? '—' : `${(msTotal / Math.max(1, c.creates)).toFixed(2)} ms`);
  console.log(`  create phase CPU per create (${int(c.creates)} creates in ${c.seconds.toFixed(1)} s incl. warm-up): this process (API + dispatcher + load thread) ${per(c.apiProcessMs)}, `
    + `Temporal dev server ${per(c.temporalMs)}, API's Postgres backends ${per(c.postgresMs)}, whole machine ${per(c.machineMs)}`);
  if (c.waits && c.samples) {
    console.log(`  pg_stat_activity over ${c.samples} samples (mean connections per state; idle ones left out):`);
    for (const [key, n] of [...c.waits].sort((a, b) => b[1] - a[1]).slice(0, 14)) console.log(`    ${(n / c.samples).toFixed(2).padStart(6)}  ${key}`);
  }
}

/** A list page's query as the repository issues it, through EXPLAIN ANALYZE: node types, index, time. */
async function explainPage(sql: pg.Client, organizationId: string, cursor: string | null): Promise<string> {
  const after = cursor ? decodeCursor(cursor) : null;
  const { rows } = await sql.query<{ 'QUERY PLAN': [{ Plan: PlanNode; 'Execution Time': number }] }>(`
    explain (analyze, format json)
    select id, organization_id, destination_id, hostname, is_apex, status, status_seq, external_customer_id,
           widget_session_id, verification, verify_requested_at, workflow_started_at, created_at, updated_at
    from domains where organization_id = $1 and ${after ? '(created_at, id) < ($2::timestamptz, $3)' : 'true'}
    order by created_at desc, id desc limit 21`, after ? [organizationId, after.createdAt, after.id] : [organizationId]);
  const top = rows[0]!['QUERY PLAN'][0];
  const nodes: string[] = [];
  for (let node: PlanNode | undefined = top.Plan; node; node = node.Plans?.[0]) {
    nodes.push(node['Index Name'] ? `${node['Node Type']} using ${node['Index Name']}` : node['Node Type']);
  }
  return `${nodes.join(' → ')} (${top['Execution Time'].toFixed(3)} ms in Postgres)`;
}
interface PlanNode { 'Node Type': string; 'Index Name'?: string; Plans?: PlanNode[] }

await runBenchmark(main, 'servers, pools, Temporal, bench database');
