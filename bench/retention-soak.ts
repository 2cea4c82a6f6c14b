// `npm run bench:retention [-- --days 75 --events-per-day 2000]`: do the tables retention keeps in
// check stay flat? A soak in simulated time: in a scratch database (hg_bench_<random>, migrated)
// `hg_now()` — the clock every default and every retention rule reads — is redefined to run
// ahead of the real clock by an offset the soak advances, one simulated hour per step. Every
// simulated hour brings traffic (domains with their start rows, events, webhook deliveries with
// attempts, widget sessions, idempotency records, outbox rows dispatched a moment later), and
// the retention purges run on their schedules' intervals (outbox every 15 min of simulated time,
// idempotency every 10, the rest hourly: here once per simulated hour each) through the same
// repository the retention workflow's activity calls, in batches of HOSTGATE_RETENTION_BATCH's
// default. Table sizes are printed once per simulated day: they grow until the longest period
// (30 days) has passed, then stay flat. Not a test: it prints figures and exits 0.
import { randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { loadConfig } from '../config/index.ts';
import { retentionRepository } from '../db/repositories/retention.ts';
import { RETENTION_TARGETS } from '../contracts/retention.ts';
import { connectBenchPostgres, intArg, onCleanup, progress, runBenchmark, type Headline } from './support/run.ts';
import { createBenchDatabase, openBenchDatabase } from './support/setup.ts';

const { values: args } = parseArgs({ options: { days: { type: 'string', default: '75' }, 'events-per-day': { type: 'string', default: '2000' } } });
const days = intArg('days', args.days!, 2, 3650);
const eventsPerDay = intArg('events-per-day', args['events-per-day']!, 24, 1_000_000);

async function main(): Promise<Headline> {
  const pgInfo = await connectBenchPostgres(randomBytes(4).toString('hex'));
  await createBenchDatabase(pgInfo);
  const { db, sql } = await openBenchDatabase(pgInfo.benchUrl, 4);
  const { retention: periods } = loadConfig({});
  // The simulated clock: hg_now() = now() + the offset in soak_clock (this scratch database only).
  await sql.query(`create table soak_clock (offset_hours int not null); insert into soak_clock values (0);
    create or replace function hg_now() returns timestamptz language sql stable as $$
      select date_trunc('milliseconds', now() + make_interval(hours => (select offset_hours from soak_clock))) $$;`);
  const org = `org_soak`;
  await sql.query(`insert into organizations (id, name) values ($1, 'Soak')`, [org]);
  await sql.query(`insert into destinations (id, organization_id, url, host, port) values ('dst_soak', $1, 'https://app.example.com', 'app.example.com', 443)`, [org]);
  await sql.query(`insert into webhook_endpoints (id, organization_id, url, secret_enc, secret_key_id) values ('we_soak', $1, 'https://hooks.example.com', '\\x00'::bytea, 'k')`, [org]);
  const perHour = Math.ceil(eventsPerDay / 24);
  const repo = retentionRepository(db);
  const sizes: Record<string, number>[] = [];
  const deletedByTarget: Record<string, number> = Object.fromEntries(RETENTION_TARGETS.map((t) => [t, 0]));
  progress(`simulating ${days} days, ${perHour * 24} events a day; retention ${JSON.stringify(periods)}`);

  for (let hour = 1; hour <= days * 24; hour++) {
    await sql.query('update soak_clock set offset_hours = $1', [hour]);
    await traffic(sql, org, hour, perHour);
    for (const target of RETENTION_TARGETS) {
      for (let n = -1; n !== 0;) deletedByTarget[target]! += n = await repo.purge(target, periods, periods.batch);
    }
    if (hour % 24 === 0) {
      const s = await repo.tableSizes();
      sizes.push(s);
      const day = hour / 24;
      if (day % 5 === 0 || day <= 2) progress(`day ${String(day).padStart(3)}: ${Object.entries(s).map(([k, v]) => `${k} ${v}`).join(', ')}`);
    }
  }
  const at = (day: number) => sizes[day - 1]!;
  const last = at(days);
  const plateau = days > 35 ? at(35) : null;
  console.log('');
  console.log('Summary');
  console.log(`  deleted: ${Object.entries(deletedByTarget).map(([k, v]) => `${k} ${v}`).join(', ')}`);
  if (plateau) console.log(`  day 35 → day ${days}: ${Object.keys(last).map((k) => `${k} ${plateau[k]} → ${last[k]}`).join(', ')}`);
  return { benchmark: 'retention-soak', days, events_per_day: perHour * 24, ...Object.fromEntries(Object.entries(last).map(([k, v]) => [`${k}_at_end`, v])), ...(plateau ? Object.fromEntries(Object.entries(plateau).map(([k, v]) => [`${k}_at_day_35`, v])) : {}) };
}

/** One simulated hour of traffic, stamped by the simulated clock (the columns' hg_now() defaults). */
async function traffic(sql: pg.Client, org: string, hour: number, perHour: number): Promise<void> {
  const tag = `h${hour}`;
  await sql.query(`
    with d as (
      insert into domains (id, organization_id, destination_id, hostname, is_apex, status, workflow_started_at)
      select 'dom_' || $2 || '_' || i, $1, 'dst_soak', 'd' || i || '.' || $2 || '.soak.test', false, 'pending_dns', hg_now()
      from generate_series(1, $3::int / 10) i returning id
    ), o as (
      insert into workflow_outbox (kind, workflow_id, payload, dispatched_at)
      select 'start_domain', 'domain/' || id, '{}'::jsonb, hg_now() from d
    ), e as (
      insert into events (id, organization_id, kind, data, fanned_out_at)
      select 'evt_' || $2 || '_' || i, $1, 'hostname.created', '{}'::jsonb, hg_now() from generate_series(1, $3::int) i returning id
    ), w as (
      insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event, status)
      select 'wd_' || e.id, $1, 'we_soak', e.id, 'hostname.created', 'succeeded' from e returning id
    ), a as (
      insert into webhook_attempts (delivery_id, attempt_number, started_at, duration_ms, response_code)
      select w.id, n, hg_now(), 20, case when n = 1 then 500 else 200 end from w, generate_series(1, 2) n
    ), s as (
      insert into widget_sessions (id, organization_id, token_hash, external_customer_id, expires_at)
      select 'ws_' || $2 || '_' || i, $1, sha256(($2 || i)::bytea), 'cus_' || i, hg_now() + interval '1 hour' from generate_series(1, $3::int / 20) i
    ), k as (
      insert into idempotency_keys (scope, key, method, path, body_hash, state, expires_at)
      select 'org:' || $1, $2 || '-' || i, 'POST', '/v1/domains', sha256(i::text::bytea), 'completed', hg_now() + interval '24 hours' from generate_series(1, $3::int / 2) i
    )
    insert into workflow_outbox (kind, workflow_id, payload, dispatched_at)
    select 'signal_domain', 'domain/' || id, '{"signal":"verify"}'::jsonb, hg_now() from d`, [org, tag, perHour]);
}

onCleanup('nothing else', async () => undefined);
await runBenchmark(main, 'database');
