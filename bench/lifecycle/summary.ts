// The report's last lines: the headline figures of both phases and what the worker logged.
import { loadAverage } from '../support/print.ts';
import { fixed, secs } from './figures.ts';
import { LATENCY_TARGET_MS, type LifecycleOptions } from './options.ts';
import type { Headline } from '../support/run.ts';
import type { IdleHeadline } from './idle-report.ts';
import type { PhaseAHeadline } from './phase-a-report.ts';
import type { LifecycleStack } from './stack.ts';

export async function printSummary({ sql, worker }: LifecycleStack, options: LifecycleOptions, a: PhaseAHeadline, idle: IdleHeadline | null): Promise<Headline> {
  const { rows: [dup] } = await sql.query<{ extra: number }>(`select (count(*) - count(distinct workflow_id))::int as extra from workflow_outbox where kind = 'start_domain'`);
  console.log('');
  console.log('Summary');
  console.log(`  verify → active, ${options.burstCount} at once: p50 ${secs(a.burstDist.p50)}, p90 ${secs(a.burstDist.p90)}, p99 ${secs(a.burstDist.p99)}, max ${secs(a.burstDist.max)}; ${fixed(a.activatedPerSecond, 1)} activated/s; ${a.notActive} not active — target p50 < ${secs(LATENCY_TARGET_MS)}: ${a.verdict}`);
  console.log(`  verify → active, one at a time: p50 ${secs(a.seqDist.p50)}, max ${secs(a.seqDist.max)}`);
  if (idle) console.log(`  ${idle.summary}`);
  console.log(`  start_domain outbox rows beyond one per domain (reconciler re-queues): ${dup!.extra}`);
  const logLines = [...worker.logCounts].sort((a, b) => b[1] - a[1]);
  console.log(`  worker log (LOG_LEVEL=warn): ${logLines.reduce((s, [, n]) => s + n, 0)} lines${logLines.length ? ':' : ''}`);
  for (const [key, n] of logLines.slice(0, 8)) console.log(`    ×${n}  ${key}`);
  console.log('');
  console.log(`load avg now ${loadAverage()} (other processes on this machine show up here and in the figures)`);
  const s = (ms: number) => Math.round(ms) / 1000;
  return {
    benchmark: 'lifecycle', burst_domains: options.burstCount, burst_p50_s: s(a.burstDist.p50), burst_p90_s: s(a.burstDist.p90),
    burst_p99_s: s(a.burstDist.p99), burst_max_s: s(a.burstDist.max), activated_per_s: Math.round(a.activatedPerSecond * 10) / 10,
    not_active: a.notActive, target_p50_s: LATENCY_TARGET_MS / 1000, verdict: a.verdict,
    one_at_a_time_p50_s: s(a.seqDist.p50), one_at_a_time_max_s: s(a.seqDist.max),
    idle_domains: idle ? options.idleCount : null, idle_worker_cpu_pct: idle ? Math.round(idle.workerCpuPct * 100) / 100 : null, idle_at_cap: idle ? idle.atCap : null,
    idle_dns_queries_per_min: idle ? Math.round(idle.dnsQueriesPerMin) : null, reconciler_requeues: dup!.extra,
  };
}
