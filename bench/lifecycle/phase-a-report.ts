// Phase A's report: verify → active latency one at a time and in the burst, the burst by segment
// and step by step (from the workflow histories), and the CPU each component used meanwhile.
import { printTable } from '../support/print.ts';
import { progress } from '../support/run.ts';
import { distribution, type Distribution } from '../support/stats.ts';
import type { Burst } from './burst.ts';
import { distRow, fixed, int, pair, secs } from './figures.ts';
import { activitySteps } from './histories.ts';
import { printCpu, statementsBetween } from './meters.ts';
import type { OneAtATime } from './one-at-a-time.ts';
import { BURST_POLL_MS, LATENCY_TARGET_MS, PHASE_A_CAP_MS, type LifecycleOptions } from './options.ts';
import type { LifecycleStack } from './stack.ts';

/** The figures the summary repeats. */
export interface PhaseAHeadline { burstDist: Distribution; seqDist: Distribution; activatedPerSecond: number; notActive: number; verdict: 'PASS' | 'FAIL' }

/** Where each burst domain's time went (ms from its verify request), from Postgres. */
async function segments({ sql }: LifecycleStack, burst: Burst) {
  // Outbox: when each verify signal reached Temporal.
  const { rows: signalRows } = await sql.query<{ workflow_id: string; dispatched: number | null }>(`
    select workflow_id, (extract(epoch from dispatched_at) * 1000)::float8 as dispatched from workflow_outbox
    where kind = 'signal_domain' and workflow_id = any($1::text[])`, [burst.ids.map((id) => `domain/${id}`)]);
  const dispatchedAt = new Map(signalRows.map((r) => [r.workflow_id.slice('domain/'.length), r.dispatched]));

  const total: number[] = [];
  const toDns: number[] = [];
  const toCert: number[] = [];
  const toSignal: number[] = [];
  let byTimer = 0;
  let lastActive = 0;
  for (const id of burst.ids) {
    const d = burst.results.get(id);
    const s = burst.sentAt.get(id)!;
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
  const notActive = burst.ids.map((id) => burst.results.get(id)).filter((d) => !d?.active_at);
  const failures = new Map<string, number>();
  for (const d of notActive) {
    const key = d ? `${d.status}${d.problem ? ` (${d.problem})` : ''}` : 'unknown';
    failures.set(key, (failures.get(key) ?? 0) + 1);
  }
  return { total, toDns, toCert, toSignal, byTimer, lastActive, notActive, failures };
}

export async function reportPhaseA(stack: LifecycleStack, options: LifecycleOptions, one: OneAtATime, burst: Burst): Promise<PhaseAHeadline> {
  const { burstCount, sequentialCount } = options;
  const { sequential, sequentialFailed } = one;
  const { total, toDns, toCert, toSignal, byTimer, lastActive, notActive, failures } = await segments(stack, burst);

  console.log('');
  console.log(`Phase A — verify → active (latency from sending POST /verify to the \`active\` row in domain_status_history):`);
  const seqDist = distribution(sequential.map((r) => r.total));
  const burstDist = distribution(total);
  printTable(['run', 'active', 'p50', 'p90', 'p99', 'max'], [
    distRow(`one at a time (${sequentialCount})`, seqDist),
    distRow(`${burstCount} at once`, burstDist),
  ]);
  if (sequentialFailed.length) console.log(`  one at a time: ${sequentialFailed.length} did not become active: ${sequentialFailed.join('; ')}`);
  console.log('');
  console.log(`  ${burstCount} at once, by segment:`);
  printTable(['segment', 'n', 'p50', 'p90', 'p99', 'max'], [
    distRow('verify sent → 202 answered', distribution(burst.ackMs)),
    distRow('verify sent → signal dispatched (outbox row marked)', distribution(toSignal)),
    distRow('verify sent → DNS verified (pending_certificate row)', distribution(toDns)),
    distRow('DNS verified → active (ACME order, certificate)', distribution(toCert)),
    distRow('verify sent → active', burstDist),
  ]);
  if (sequential.length) {
    console.log(`  one at a time, by segment: DNS verified p50 ${secs(distribution(sequential.map((r) => r.dns)).p50)}, certificate p50 ${secs(distribution(sequential.map((r) => r.cert)).p50)}`);
  }
  console.log('');
  progress('reading the workflow histories for a per-activity breakdown…');
  const burstSteps = await activitySteps(stack.client, burst.ids.filter((id) => burst.results.get(id)?.active_at), burst.sentAt);
  const seqSteps = await activitySteps(stack.client, sequential.map((r) => r.id), null);
  console.log(`  after the verify signal, step by step (from Temporal history: activities from their events, local activities from their`);
  console.log(`  markers; "done" = completed, counted from the signal; "took" = completed − previous step completed; p50 / p90):`);
  printTable(
    ['step', 'one at a time: done', 'took', `${burstCount} at once: n`, 'done', 'took', 'queued (activities)', 'retries'],
    burstSteps.keys.map((key) => {
      const a = seqSteps.steps.get(key);
      const b = burstSteps.steps.get(key)!;
      return [key, a ? pair(a.doneAfterSignal) : '—', a ? pair(a.took) : '—', String(b.took.length), pair(b.doneAfterSignal), pair(b.took), b.local ? '—' : pair(b.queued), String(b.retries)];
    }),
  );
  const evs = distribution(burstSteps.eventsAfterSignal);
  const wfts = distribution(burstSteps.workflowTasksAfterSignal);
  console.log(`  history after the verify signal (${burstCount} at once, until read): p50 ${int(evs.p50)} events, ${int(wfts.p50)} workflow tasks completed`);
  console.log(`  verify sent → signal in the workflow's history: p50 ${secs(distribution(burstSteps.signalDelay).p50)}, p90 ${secs(distribution(burstSteps.signalDelay).p90)} (${burstCount} at once)`);
  const span = lastActive - burst.firstSent;
  const activatedPerSecond = total.length / (span / 1000);
  console.log(`  verifies sent over ${secs(burst.lastSent - burst.firstSent)}; ${total.length} active, last one ${secs(span)} after the first verify: ${fixed(activatedPerSecond, 1)} domains activated per second`);
  if (byTimer) console.log(`  ${byTimer} domain(s) had their DNS verified by a scheduled check before their verify was sent (not in the DNS segment)`);
  console.log(`  not active within ${PHASE_A_CAP_MS / 60_000} min: ${notActive.length}${notActive.length ? ` — ${[...failures].map(([k, n]) => `${k} ×${n}`).join(', ')}` : ''}; verify requests failed: ${burst.verifyErrors.length}`);
  console.log(`  Postgres polled ${burst.polls} times (every ${BURST_POLL_MS} ms) during the burst`);
  const verdict = burstDist.n > 0 && burstDist.p50 < LATENCY_TARGET_MS ? 'PASS' : 'FAIL';
  console.log(`  burst p50 ${secs(burstDist.p50)} (target < ${secs(LATENCY_TARGET_MS)}): ${verdict}`);
  console.log('');
  console.log(`  CPU during the burst (first verify sent → last domain settled):`);
  printCpu(burst.before, burst.after);
  const statements = statementsBetween(burst.before, burst.after);
  if (statements) {
    const per = (n: number) => fixed(n / Math.max(1, total.length), 1);
    console.log(`  Postgres statements during the burst (pg_stat_statements, top level): ${statements.total}, ${per(statements.total)} per activated domain (${per(statements.total - statements.utility)} without BEGIN/COMMIT/SET); those made for at least one domain in four:`);
    for (const s of statements.top.filter((x) => x.calls * 4 >= total.length).slice(0, 60)) console.log(`  ${String(s.calls).padStart(7)}  ${per(s.calls).padStart(5)}  ${s.query.replace(/\s+/g, ' ').slice(0, 160)}`);
  }
  return { burstDist, seqDist, activatedPerSecond, notActive: notActive.length, verdict };
}
