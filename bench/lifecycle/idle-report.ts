// Phase B's report: per component CPU and RSS over the idle window against the baseline, the DNS
// checks made against what the backoff schedule predicts, and Postgres table activity.
import { existsSync, statSync } from 'node:fs';
import os from 'node:os';
import { DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST } from '../../model/domain-backoff.ts';
import { printTable } from '../support/print.ts';
import { fixed, int } from './figures.ts';
import type { IdleRun } from './idle.ts';
import { componentLabel, cpuPercent, type Component } from './meters.ts';
import type { LifecycleOptions } from './options.ts';
import type { LifecycleStack } from './stack.ts';

export interface IdleHeadline { summary: string; workerCpuPct: number; dnsQueriesPerMin: number; atCap: boolean }

/** Prints the report; returns the summary's line about the idle cost and its figures. */
export async function reportIdle({ sql, acme, dbFile }: LifecycleStack, options: LifecycleOptions, run: IdleRun): Promise<IdleHeadline> {
  const { burstCount, sequentialCount, idleCount } = options;
  const { b0, b1, samples, stats0, stats1, idleIds, idleStart, dnsIndex0 } = run;
  const w0 = samples[0]!;
  const w1 = samples[samples.length - 1]!;
  const baselineWorker = cpuPercent(b0, b1, 'worker');
  const windowS = (w1.at - w0.at) / 1000;
  const windowQueries = acme.dns.queries.slice(dnsIndex0, dnsIndex0 + (w1.dnsQueries - w0.dnsQueries));
  const byType = new Map<string, number>();
  for (const q of windowQueries) byType.set(q.type, (byType.get(q.type) ?? 0) + 1);
  const checks = byType.get('CNAME') ?? 0; // every check of an nxdomain name asks CNAME once
  const queriesPerMin = (windowQueries.length / windowS) * 60;

  // What the backoff schedule predicts for this window (no jitter), from each domain's creation
  // (the DNS checker takes a domain at its create, not at its workflow's start).
  const { rows: startedRows } = await sql.query<{ s: number }>(`
    select (extract(epoch from created_at) * 1000)::float8 as s from domains where id = any($1::text[])`, [idleIds]);
  const schedule: number[] = [0];
  for (let k = 1; schedule[schedule.length - 1]! < 48 * 3600_000; k++) schedule.push(schedule[schedule.length - 1]! + Math.min(DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST * 2 ** (k - 1)));
  let expected = 0;
  // At the cap (--idle-at-cap) every slot lies evenly within one mean capped delay of the window's start.
  if (run.atCap) expected = Math.round(idleCount * Math.min(1, (windowS * 1000) / run.atCap.meanDelayMs));
  else for (const { s } of startedRows) for (const offset of schedule) { const at = s + offset; if (at >= w0.at && at < w1.at) expected++; }
  const sinceCreate = (w0.at - idleStart) / 1000;

  const rssOf = (c: Component) => samples.slice(1).map((s) => s.rssMiB[c]);
  const workerPct = cpuPercent(w0, w1, 'worker');
  const temporalPct = cpuPercent(w0, w1, 'temporal');
  console.log('');
  // At the cap no domain is checked twice within a window shorter than the shortest capped delay
  // (48 min with the jitter): a second check means a slot written off the cap (a check in flight when
  // the bench moved the rows writes the slot of its old count).
  const secondChecks = () => {
    const names = windowQueries.filter((q) => q.type === 'CNAME').map((q) => q.name.toLowerCase());
    return names.length - new Set(names).size;
  };
  const where = run.atCap ? `at the 1 h backoff cap (--idle-at-cap: every schedule row moved there before the window; ${int(secondChecks())} of the window's checks were a domain's second)` : `starting ${fixed(sinceCreate, 0)} s after the first idle create`;
  console.log(`Phase B — idle cost: ${int(idleCount)} pending_dns domains (+ ${burstCount + sequentialCount + 1} active), window of ${fixed(windowS, 0)} s ${where}:`);
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
  if (run.atCap) console.log(`  at the cap the schedule predicts ≈ ${int(expected)} checks in this window (every domain once per ${fixed(run.atCap.meanDelayMs / 60_000, 1)} min on average)`);
  else console.log(`  the backoff schedule (5 s doubling to 1 h, no jitter) predicts ≈ ${int(expected)} checks in this window; at the 1 h cap the same domains would make ${fixed(idleCount / 60, 0)} checks/min (${fixed((idleCount / 60) * (windowQueries.length / Math.max(checks, 1)), 0)} DNS queries/min)`);
  const extraWorkerS = (workerPct - baselineWorker) / 100 * windowS;
  if (run.atCap) console.log(`  worker CPU at the cap: ${fixed(workerPct, 2)} % of a core for ${int(idleCount)} domains (measured; baseline without them ${fixed(baselineWorker, 2)} %)`);
  else if (checks >= 50) {
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
  const summary = `idle${run.atCap ? ' at the 1 h backoff cap' : ''}: worker ${fixed(workerPct, 2)} % of a core, RSS ${fixed(Math.min(...rssOf('worker')), 0)}–${fixed(Math.max(...rssOf('worker')), 0)} MiB, ${fixed(queriesPerMin, 0)} DNS queries/min for ${int(idleCount)} pending domains`;
  return { summary, workerCpuPct: workerPct, dnsQueriesPerMin: queriesPerMin, atCap: run.atCap !== null };
}
