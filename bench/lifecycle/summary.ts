// The report's last lines: the headline figures of both phases and what the worker logged.
import { loadAverage } from '../support/print.ts';
import { fixed, secs } from './figures.ts';
import { LATENCY_TARGET_MS, type LifecycleOptions } from './options.ts';
import type { PhaseAHeadline } from './phase-a-report.ts';
import type { LifecycleStack } from './stack.ts';

export async function printSummary({ sql, worker }: LifecycleStack, options: LifecycleOptions, a: PhaseAHeadline, idleVerdict: string): Promise<void> {
  const { rows: [dup] } = await sql.query<{ extra: number }>(`select (count(*) - count(distinct workflow_id))::int as extra from workflow_outbox where kind = 'start_domain'`);
  console.log('');
  console.log('Summary');
  console.log(`  verify → active, ${options.burstCount} at once: p50 ${secs(a.burstDist.p50)}, p90 ${secs(a.burstDist.p90)}, p99 ${secs(a.burstDist.p99)}, max ${secs(a.burstDist.max)}; ${fixed(a.activatedPerSecond, 1)} activated/s; ${a.notActive} not active — target p50 < ${secs(LATENCY_TARGET_MS)}: ${a.verdict}`);
  console.log(`  verify → active, one at a time: p50 ${secs(a.seqDist.p50)}, max ${secs(a.seqDist.max)}`);
  if (idleVerdict) console.log(`  ${idleVerdict}`);
  console.log(`  start_domain outbox rows beyond one per domain (reconciler re-queues): ${dup!.extra}`);
  const logLines = [...worker.logCounts].sort((a, b) => b[1] - a[1]);
  console.log(`  worker log (LOG_LEVEL=warn): ${logLines.reduce((s, [, n]) => s + n, 0)} lines${logLines.length ? ':' : ''}`);
  for (const [key, n] of logLines.slice(0, 8)) console.log(`    ×${n}  ${key}`);
  console.log('');
  console.log(`load avg now ${loadAverage()} (other processes on this machine show up here and in the figures)`);
}
