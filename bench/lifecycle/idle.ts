// Phase B: the idle cost of domains waiting for DNS. A baseline with only phase A's domains, then
// --idle-domains created with no DNS records (they stay pending_dns, their checks backing off
// 5 s, 10 s, 20 s … up to 1 h), a settle period, and a window sampled every 10 s.
import { checkInterrupted, inParallel, progress, sleep } from '../support/run.ts';
import { distribution } from '../support/stats.ts';
import type { Domains } from './domains.ts';
import { fixed, int, secs } from './figures.ts';
import { cpuPercent, printCpu, type Reading } from './meters.ts';
import { BASELINE_SECONDS, IDLE_CREATE_CONCURRENCY, SAMPLE_MS, type LifecycleOptions } from './options.ts';
import type { LifecycleStack } from './stack.ts';
import { DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST } from '../../model/domain-backoff.ts';
import { nextCheckDelay } from '../../model/dns-check-schedule.ts';

export interface TableStats { relname: string; seq_scan: number; seq_tup_read: number; idx_scan: number }

export interface IdleRun {
  /** Readings around the baseline (before any idle domain existed). */
  b0: Reading;
  b1: Reading;
  idleIds: string[];
  /** When the first idle domain was created (ms since the epoch). */
  idleStart: number;
  /** The window's readings, the first at its start. */
  samples: Reading[];
  /** pg_stat_user_tables at the window's start and end. */
  stats0: TableStats[];
  stats1: TableStats[];
  /** acme.dns.queries index at the window's start. */
  dnsIndex0: number;
  /** --idle-at-cap: the schedule the window started from. */
  atCap: AtCap | null;
}

export interface AtCap {
  /** Checks written on each row: the next one waits the capped delay. */
  checks: number;
  /** The mean of that delay (jitter included): the slots are spread over it. */
  meanDelayMs: number;
  moved: number;
}

/**
 * The first check number whose delay is the cap: 5 s doubling passes 1 h at the 11th (5 × 2^10 s),
 * ≈ 85 minutes of backoff into a wait.
 */
function firstCheckAtCap(): number {
  return 1 + Math.ceil(Math.log2(DNS_BACKOFF_CAP / DNS_BACKOFF_FIRST));
}

/**
 * Writes the idle domains' schedule rows as the checker leaves them once the backoff has reached
 * its cap: `checks` past the doubling and the next slot spread evenly over one mean capped delay,
 * the phase a steady state has. The workflows are already as they stay (one 14-day timer each).
 */
async function moveScheduleToCap({ sql }: LifecycleStack, idleIds: string[]): Promise<AtCap> {
  const checks = firstCheckAtCap() - 1;
  let total = 0;
  const samples = 10_000;
  for (let i = 0; i < samples; i++) total += nextCheckDelay(checks + 1);
  const meanDelayMs = total / samples;
  const { rowCount } = await sql.query(`
    update dns_check_schedule set checks = $2, next_check_at = hg_now() + random() * make_interval(secs => $3 / 1000.0)
    where domain_id = any($1::text[])`, [idleIds, checks, meanDelayMs]);
  return { checks, meanDelayMs, moved: rowCount ?? 0 };
}

export async function runIdle(stack: LifecycleStack, domains: Domains, read: () => Promise<Reading>, options: LifecycleOptions): Promise<IdleRun> {
  const { burstCount, sequentialCount, idleCount, idleSeconds, settleSeconds } = options;
  const { sql, runId, acme } = stack;
  console.log('');
  progress('── phase B: idle cost of pending_dns domains ──');
  progress(`baseline: ${BASELINE_SECONDS} s with only phase A's ${burstCount + sequentialCount + 1} (active) domains…`);
  await sleep(2000);
  const b0 = await read();
  await sleep(BASELINE_SECONDS * 1000);
  checkInterrupted();
  const b1 = await read();
  progress(`  baseline: worker ${fixed(cpuPercent(b0, b1, 'worker'))} % of a core, Temporal ${fixed(cpuPercent(b0, b1, 'temporal'))} %, Postgres backends ${fixed(cpuPercent(b0, b1, 'postgres'))} %, worker RSS ${fixed(b1.rssMiB.worker, 0)} MiB`);

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
      from domains where hostname like $1`, [`shop.idle%-${runId}.test`]), domains.backlog(), domains.requeued()]).then(([{ rows }, queued, again]) => {
      progress(`  ${int(created)} / ${int(idleCount)} created (${fixed(created / ((Date.now() - idleStart) / 1000), 0)}/s), ${int(rows[0]!.started)} workflows attached, ${int(rows[0]!.checked)} first checks done; ${queued}; ${again} start rows re-queued`);
    }, () => undefined);
  }, 5000);
  try {
    await inParallel(idleHosts, IDLE_CREATE_CONCURRENCY, async (h, i) => { idleIds[i] = await domains.createDomain(h); created++; });
  } finally {
    clearInterval(ticker);
  }
  const createdIn = Date.now() - idleStart;
  progress(`  ${int(idleCount)} created in ${secs(createdIn)} (${fixed(idleCount / (createdIn / 1000), 0)} per second); waiting for every first DNS check…`);
  const idleNx = await domains.waitFirstChecks(idleIds, Math.max(20 * 60_000, idleCount * 400), 1000, 'idle');
  const allChecked = Date.now();
  const createDone = await read();
  progress(`  all ${int(idleCount)} had their first DNS check (${int(idleNx)} nxdomain) ${secs(allChecked - idleStart)} after the first create: ${fixed(idleCount / ((allChecked - idleStart) / 1000), 1)} domains/s from create to first check`);
  progress(`  last first DNS check ≤ ${secs(Math.max(0, allChecked - (idleStart + createdIn)))} after the last create (polled every second; target ≤ 60 s)`);
  // The idle window must not measure the workflows' first tasks still queued in Temporal: the DNS
  // checker checks a domain at its create, its workflow attaches whenever Temporal hands it over.
  const attachCap = Date.now() + Math.max(30 * 60_000, idleCount * 600);
  for (let logged = 0; ;) {
    checkInterrupted();
    const { rows: [a] } = await sql.query<{ n: number }>(`select count(*)::int as n from domains where id = any($1::text[]) and workflow_started_at is not null`, [idleIds]);
    if (a!.n === idleCount) break;
    if (Date.now() > attachCap) throw new Error(`only ${a!.n} of ${idleCount} workflows attached`);
    if (Date.now() - logged >= 15_000) { progress(`  ${int(a!.n)} / ${int(idleCount)} workflows attached; ${await domains.backlog()}`); logged = Date.now(); }
    await sleep(1000);
  }
  const attached = await read();
  progress(`  all ${int(idleCount)} workflows attached ${secs(Date.now() - (idleStart + createdIn))} after the last create`);
  const { rows: [outbox] } = await sql.query<{ pending: number; starts: number; domains: number }>(`
    select count(*) filter (where dispatched_at is null)::int as pending,
           count(*) filter (where kind = 'start_domain')::int as starts,
           (select count(*)::int from domains) as domains
    from workflow_outbox`);
  progress(`  outbox: ${outbox!.pending} rows pending, ${int(outbox!.starts)} start_domain rows for ${int(outbox!.domains)} domains`);
  const { rows: attachRows } = await sql.query<{ ms: number }>(`
    select (extract(epoch from workflow_started_at - created_at) * 1000)::float8 as ms from domains where id = any($1::text[])`, [idleIds]);
  const attach = distribution(attachRows.map((r) => r.ms));
  progress(`  created → workflow attached (its first activity ran): p50 ${secs(attach.p50)}, p90 ${secs(attach.p90)}, p99 ${secs(attach.p99)}, max ${secs(attach.max)}`);
  console.log('');
  console.log(`  CPU while creating ${int(idleCount)} domains and running their first checks:`);
  printCpu(createReading, createDone);
  console.log('');
  // The first workflow tasks come after the checks (Temporal hands them out): the CPU up to the last one.
  console.log(`  CPU from the first create until every workflow had its first task:`);
  printCpu(createReading, attached);
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

  let atCap: AtCap | null = null;
  if (options.idleAtCap) {
    atCap = await moveScheduleToCap(stack, idleIds);
    progress(`  --idle-at-cap: ${int(atCap.moved)} schedule rows set to ${atCap.checks} checks made (the next waits the 1 h cap, ±20 % jitter: ${fixed(atCap.meanDelayMs / 60_000, 1)} min on average), their next slots spread over that`);
  }

  // The window.
  const tableStats = async () => (await sql.query<TableStats>(`
    select relname, seq_scan::float8 as seq_scan, seq_tup_read::float8 as seq_tup_read, coalesce(idx_scan, 0)::float8 as idx_scan
    from pg_stat_user_tables where schemaname = current_schema() and relname in ('domains', 'workflow_outbox', 'events', 'domain_status_history') order by relname`)).rows;
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
  const stats1 = await tableStats();
  return { b0, b1, idleIds, idleStart, samples, stats0, stats1, dnsIndex0, atCap };
}
