// `npm run bench:usage [-- --domains 100000 --requests 2000]`: GET /v1/usage latency with many
// domains in one organization (issue 13: p50 < 10 ms at 100,000). Prints figures; the last line
// is one JSON object. Exits 1 only when the benchmark cannot run.
//
// What runs: a fresh migrated database hg_bench_<random> on the local Postgres (or DATABASE_URL's
// server); the API built by buildApp, listening on a loopback port, without Temporal (the route
// never touches it). Seeded through the real triggers: N domains (a status mix) inserted in one
// organization, so the counters are what the trigger made them; bandwidth buckets for every
// domain in one hour plus 100 domains in every hour of the period so far, so the per-organization
// hourly rollup the route sums is as long as a real month's. Requests are sequential (one
// connection): the figure is the latency of one request, not throughput under contention.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { buildApp } from '../api/app.ts';
import { loadConfig } from '../config/index.ts';
import { migrate } from '../db/migrate.ts';
import { createDb } from '../db/pool.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { connectBenchPostgres, intArg, onCleanup, progress, runBenchmark, type Headline } from './support/run.ts';

const TARGET_P50_MS = 10;
// Domains per insert statement (one transaction each): see the counting trigger's note in 009.
const SEED_CHUNK = 1_000;

const { values: args } = parseArgs({ options: { domains: { type: 'string', default: '100000' }, requests: { type: 'string', default: '2000' }, help: { type: 'boolean', default: false } } });
if (args.help) {
  console.log('usage: npm run bench:usage -- [--domains n (100000)] [--requests n (2000)]');
  process.exit(0);
}
const domainCount = intArg('domains', args.domains, 1, 1_000_000);
const requests = intArg('requests', args.requests, 10, 100_000);

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const ms = (n: number) => Math.round(n * 1000) / 1000;

async function main(): Promise<Headline> {
  const runId = randomBytes(6).toString('hex');
  const pgb = await connectBenchPostgres(runId);
  await pgb.admin.query(`create database ${pgb.dbName}`);
  onCleanup(`drop database ${pgb.dbName}`, () => pgb.admin.query(`drop database if exists ${pgb.dbName} with (force)`));
  progress(`database ${pgb.dbName} on ${pgb.pgHost}; migrating…`);
  await migrate(pgb.benchUrl);

  const config = loadConfig({
    HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local', DATABASE_URL: pgb.benchUrl, HOSTGATE_HOST: '127.0.0.1', LOG_LEVEL: 'silent',
    HOSTGATE_RATE_LIMIT_PER_SECOND: '1000000000', HOSTGATE_RATE_LIMIT_BURST: '1000000000',
    HOSTGATE_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
  });
  const db = await createDb(pgb.benchUrl, { maximumPoolSize: config.db.poolSize });
  onCleanup('API database pool', () => db.end());
  const sql = new pg.Client({ connectionString: pgb.benchUrl });
  await sql.connect();
  onCleanup('setup connection', () => sql.end());

  const org = await organizationsRepository(db).create({ name: 'Usage benchmark', allowedReturnOrigins: ['https://vendor.example'] });
  const { secret } = await apiKeysRepository(db).create({ organizationId: org.id, scopes: [] });
  const destination = await destinationsRepository(db).create({ organizationId: org.id, url: 'https://app.vendor.example', host: 'app.vendor.example', port: 443 });

  progress(`seeding ${domainCount.toLocaleString('en')} domains through the counting trigger…`);
  const seedStart = Date.now();
  for (let from = 1; from <= domainCount; from += SEED_CHUNK) {
    const to = Math.min(domainCount, from + SEED_CHUNK - 1);
    await sql.query(`
      insert into domains (id, organization_id, destination_id, hostname, is_apex, status)
      select 'dom_bench_' || n, $1, $2, 'shop-' || n || '.tenant' || (n / 7) || '.example', false,
        case when n % 100 < 75 then 'active' when n % 100 < 85 then 'pending_dns' when n % 100 < 90 then 'failed'
             when n % 100 < 95 then 'suspended' else 'deleted' end
      from generate_series($3::int, $4::int) n`, [org.id, destination.id, from, to]);
  }
  progress(`  seeded in ${((Date.now() - seedStart) / 1000).toFixed(1)} s; bandwidth buckets…`);
  await sql.query(`
    insert into domain_bandwidth_hourly (domain_id, hour, bytes_in, bytes_out)
    select d.id, date_trunc('hour', now()), 1000, 5000 from domains d where d.organization_id = $1`, [org.id]);
  await sql.query(`
    insert into domain_bandwidth_hourly (domain_id, hour, bytes_in, bytes_out)
    select d.id, h, 200, 800 from (select id from domains where organization_id = $1 order by id limit 100) d
    cross join generate_series((select period_start from organization_usage where organization_id = $1), date_trunc('hour', now()) - interval '1 hour', interval '1 hour') h`, [org.id]);
  await sql.query('analyze');
  const rollupRows = Number((await sql.query('select count(*) as n from organization_bandwidth_hourly where organization_id = $1', [org.id])).rows[0].n);
  const truth = (await sql.query(`select count(*) filter (where status in ('pending_dns', 'pending_certificate', 'active'))::int as active from domains where organization_id = $1`, [org.id])).rows[0].active as number;

  const app = await buildApp({ config, db, temporal: null, dispatcher: null, logger: createLogger('silent', 'api') });
  onCleanup('API server', () => app.close());
  const origin = await app.listen({ host: '127.0.0.1', port: 0 });
  const get = async () => {
    const res = await fetch(`${origin}/v1/usage`, { headers: { authorization: `Bearer ${secret}` } });
    if (res.status !== 200) throw new Error(`GET /v1/usage answered ${res.status}: ${await res.text()}`);
    return res.json() as Promise<{ data: Record<string, number | string> }>;
  };
  const first = (await get()).data;
  if (first.active_hostnames !== truth) throw new Error(`active_hostnames ${first.active_hostnames} but ${truth} domains count`);
  progress(`usage: ${JSON.stringify(first)}`);
  for (let i = 0; i < 100; i++) await get();

  progress(`${requests} sequential GET /v1/usage…`);
  const latencies: number[] = [];
  for (let i = 0; i < requests; i++) {
    const t0 = performance.now();
    await get();
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  const explain = (await sql.query(`explain (analyze, format json)
    select o.plan, u.active_hostnames, (select coalesce(sum(b.bytes), 0) from organization_bandwidth_hourly b
      where b.organization_id = o.id and b.hour >= u.period_start and b.hour < u.period_end)
    from organizations o join organization_usage u on u.organization_id = o.id where o.id = $1`, [org.id])).rows[0]['QUERY PLAN'][0];
  const result = {
    bench: 'usage', domains: domainCount, active_hostnames: truth, bandwidth_rollup_rows: rollupRows, requests,
    p50_ms: ms(percentile(latencies, 50)), p95_ms: ms(percentile(latencies, 95)), p99_ms: ms(percentile(latencies, 99)), max_ms: ms(latencies.at(-1)!),
    query_execution_ms: explain['Execution Time'], target_p50_ms: TARGET_P50_MS, target_met: percentile(latencies, 50) < TARGET_P50_MS,
  };
  progress(`p50 ${result.p50_ms} ms, p95 ${result.p95_ms} ms, p99 ${result.p99_ms} ms (target p50 < ${TARGET_P50_MS} ms: ${result.target_met ? 'met' : 'NOT met'}); the query alone ${result.query_execution_ms} ms`);
  return result;
}

// runBenchmark prints the result last, after the clean-up lines: the one JSON object scripts read.
await runBenchmark(main, 'API, database');
