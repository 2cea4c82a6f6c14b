// `npm run bench:statements -- <benchmark> [its arguments]`: how many Postgres statements a
// benchmark's work costs. Starts a private embedded Postgres with pg_stat_statements loaded (the
// machine's shared server cannot be restarted with it), runs `bench/<benchmark>.ts` against it
// (DATABASE_URL → its scratch database there), then reads pg_stat_statements for everything but
// the admin database: statements the processes sent (top level: a trigger's or a foreign key's own
// statements are part of the statement that fired them), in total, by kind (utility: BEGIN/COMMIT/SET…), by area (the
// tables a statement names), and the most called. With the benchmark's own last JSON line, it
// divides by its unit: `lifecycle` → per domain (created, verified, issued, active),
// `webhooks` → per delivery (the transitions the bench makes itself are counted apart).
// Figures for docs/scale.md; the last line is one JSON object.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { startEmbeddedPostgres } from '../local-stack/embedded-postgres.ts';
import { freePort, onCleanup, progress, runBenchmark, type Headline } from './support/run.ts';

const [name, ...rest] = process.argv.slice(2);
if (!name || !/^[a-z-]+$/.test(name)) {
  console.error('usage: npm run bench:statements -- <lifecycle|webhooks|…> [arguments of that benchmark]');
  process.exit(64);
}

/** Areas by the first table a statement names (order matters: the first match wins). */
const AREAS: [string, RegExp][] = [
  ['utility (BEGIN/COMMIT/SET…)', /^\s*(begin|commit|rollback|start transaction|set |show |savepoint|release|reset|deallocate|listen|unlisten|discard)/i],
  ['edge', /edge_(nodes|deployments|bandwidth)|domain_bandwidth_hourly/i],
  ['workflow outbox', /workflow_outbox/i],
  ['webhooks', /webhook_|domain_events/i],
  ['idempotency', /idempotent_|idempotency/i],
  ['auth and rate', /api_keys|organizations/i],
  ['certificates and ACME', /certificates|acme_|challenge/i],
  ['domains', /domains|domain_status_history|dns_verifications|destinations/i],
];

/** A numeric argument given to the benchmark, or its default there. */
const argOf = (flag: string, fallback: number) => (rest.includes(flag) ? Number(rest[rest.indexOf(flag) + 1]) : fallback);

async function main(): Promise<Headline> {
  // embedded-postgres's exit hook exits the process (code 0) on 'beforeExit': a moment with an
  // empty event loop — the restart below has one — would end this run silently. A timer of ours
  // keeps the loop busy until the cleanup clears it.
  const keepAlive = setInterval(() => undefined, 1000);
  onCleanup('keep-alive timer', async () => clearInterval(keepAlive));
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hg-statements-'));
  await chmod(tmp, 0o755);
  onCleanup(`remove ${tmp}`, () => rm(tmp, { recursive: true, force: true }));
  const port = await freePort();
  progress(`starting a private embedded Postgres with pg_stat_statements on 127.0.0.1:${port}…`);
  const server = await startEmbeddedPostgres(tmp, port, progress);
  onCleanup('private Postgres', () => server.stop());
  appendFileSync(path.join(server.databaseDir, 'postgresql.conf'), "\nshared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.max = 10000\npg_stat_statements.track = top\npg_stat_statements.track_planning = on\nmax_connections = 300\n");
  await server.restart();
  const adminUrl = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  onCleanup('admin connection', () => admin.end());
  await admin.query('create extension if not exists pg_stat_statements');
  await admin.query('select pg_stat_statements_reset()');

  progress(`running bench/${name}.ts ${rest.join(' ')} against it…`);
  const started = Date.now();
  let lastLine = '';
  const code = await new Promise<number | null>((resolve) => {
    const child = spawn(process.execPath, [path.resolve(`bench/${name}.ts`), ...rest], { env: { ...process.env, DATABASE_URL: adminUrl }, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
    child.stdout.on('data', (d: Buffer) => {
      process.stdout.write(d);
      const lines = d.toString().trim().split('\n');
      lastLine = lines[lines.length - 1] ?? lastLine;
    });
    child.on('exit', resolve);
  });
  const seconds = (Date.now() - started) / 1000;
  if (code !== 0) throw new Error(`bench/${name}.ts exited ${code}`);
  const figures = JSON.parse(lastLine) as Record<string, unknown>;

  // plans beside calls (track_planning): a named prepared statement that Postgres runs with its
  // cached generic plan is planned far fewer times than it is called; one re-planned on every call
  // (custom plans) shows plans ≈ calls and what planning costs against executing.
  const rows = (await admin.query<{ query: string; calls: string; plans: string; mean_plan_ms: number; mean_exec_ms: number }>(`
    select s.query, s.calls, s.plans, s.mean_plan_time as mean_plan_ms, s.mean_exec_time as mean_exec_ms from pg_stat_statements s
    where s.dbid not in (select oid from pg_database where datname in ('postgres', 'template1'))`)).rows;
  const total = rows.reduce((a, r) => a + Number(r.calls), 0);
  const byArea = new Map<string, number>();
  for (const r of rows) {
    const area = AREAS.find(([, re]) => re.test(r.query))?.[0] ?? 'other';
    byArea.set(area, (byArea.get(area) ?? 0) + Number(r.calls));
  }
  const utility = byArea.get(AREAS[0]![0]) ?? 0;
  console.log(`\nPostgres statements during bench/${name}.ts (${seconds.toFixed(0)} s): ${total} (${utility} of them BEGIN/COMMIT/SET and the like)`);
  for (const [area, n] of [...byArea].sort((a, b) => b[1] - a[1])) console.log(`  ${String(n).padStart(9)}  ${area}`);
  console.log('  most called:');
  console.log(`  ${'calls'.padStart(9)}  ${'plans'.padStart(9)}  plan ms  exec ms  statement (mean times per call)`);
  for (const r of [...rows].sort((a, b) => Number(b.calls) - Number(a.calls)).slice(0, 12)) {
    console.log(`  ${String(r.calls).padStart(9)}  ${String(r.plans).padStart(9)}  ${r.mean_plan_ms.toFixed(3).padStart(7)}  ${r.mean_exec_ms.toFixed(3).padStart(7)}  ${r.query.replace(/\s+/g, ' ').slice(0, 150)}`);
  }

  let unit: string | null = null;
  let units = 0;
  let apart = 0;
  if (name === 'lifecycle') {
    unit = 'domain';
    // The burst, the one-at-a-time domains and the warm-up domain (bench/lifecycle.ts).
    units = Number(figures.burst_domains ?? 0) + argOf('--sequential', 10) + 1;
  } else if (name === 'chaos' && rest.includes('--cluster')) {
    unit = 'domain';
    units = Number(figures.domains ?? 0);
  } else if (name === 'webhooks') {
    unit = 'delivery';
    // The throughput phase's deliveries, the latency samples and their warm-up, and the first
    // delivery the bench waits for before it starts (bench/webhooks.ts).
    units = Number(figures.delivered ?? 0) + argOf('--samples', 200) + argOf('--warmup', 20) + 1;
    // The bench moves domains itself (transition + its event): not the delivery's cost.
    apart = rows.filter((r) => /domain_status_history|insert into domains|update domains|insert into destinations|insert into organizations/i.test(r.query)).reduce((a, r) => a + Number(r.calls), 0);
  }
  const per = unit && units > 0 ? Math.round(((total - apart) / units) * 10) / 10 : null;
  const perNoUtility = unit && units > 0 ? Math.round(((total - apart - utility) / units) * 10) / 10 : null;
  if (unit) console.log(`\n  per ${unit}: ${per} statements (${perNoUtility} without BEGIN/COMMIT/SET), over ${units} ${unit === 'domain' ? 'domains' : 'deliveries'}${apart ? `; ${apart} statements of the bench's own transitions left out` : ''}; the bench's background (polls, sweeps, heartbeats) over ${seconds.toFixed(0)} s is included`);
  return { benchmark: `statements:${name}`, statements: total, utility, seconds: Math.round(seconds), unit, units, per_unit: per, per_unit_without_utility: perNoUtility, areas: JSON.stringify(Object.fromEntries(byArea)) };
}

await runBenchmark(main, 'private Postgres');
