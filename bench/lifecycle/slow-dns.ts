// Slow-resolver mode (`--slow-dns-ms 3000-5000 --pending 5000 --verified 20`), issue 14: does a
// resolver that answers some zones seconds late starve the worker? 2 × --verified domains are
// created first and have their first DNS check (nxdomain) on a quiet worker; half of them are then
// taken from "set the CNAME, POST /verify" to active one at a time (the baseline). Then --pending
// domains are created on a zone the loopback DNS server answers min–max ms late; once their
// workflows have started (the creation backlog is not what is measured) and their periodic checks
// fill the DNS task queue, the other half goes through the same steps while those lookups are in
// flight. The verified domains' own zone answers at once both times: only what the slow checks do
// to the worker differs.
import { randomInt } from 'node:crypto';
import proto from '@temporalio/proto';
import { EDGE } from '../../test/support/acme-stack.ts';
import { dnsTaskQueue } from '../../contracts/task-queues.ts';
import { checkInterrupted, errorText, inParallel, progress, sleep } from '../support/run.ts';
import { distribution, type Distribution } from '../support/stats.ts';
import type { Domains } from './domains.ts';
import { cpuPercent, type Reading } from './meters.ts';
import { int, secs } from './figures.ts';
import { IDLE_CREATE_CONCURRENCY, POLL_MS, type LifecycleOptions } from './options.ts';
import type { LifecycleStack } from './stack.ts';

const { temporal } = proto;

export interface SlowDnsReport { baseline: Distribution; underSlowDns: Distribution; failed: string[]; delayedAtEnd: number; dnsQueueBacklog: string; cpu: string }

/** CNAME set, verify, poll until active: ms from the verify request. */
async function verifiedToActive({ acme }: LifecycleStack, domains: Domains, { id, hostname }: { id: string; hostname: string }): Promise<number | string> {
  acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
  const sentAt = Date.now();
  await domains.verify(id, 1);
  for (;;) {
    checkInterrupted();
    const [d] = await domains.poll([id]);
    if (d?.active_at) return d.active_at - sentAt;
    if (d?.status === 'failed') return `${hostname} failed (${d.problem})`;
    if (Date.now() - sentAt > 120_000) return `${hostname} still ${d?.status} (${d?.problem ?? 'no problem'}) after 120 s`;
    await sleep(POLL_MS);
  }
}

async function series(stack: LifecycleStack, domains: Domains, label: string, list: { id: string; hostname: string }[], failed: string[]): Promise<number[]> {
  const out: number[] = [];
  for (const [i, d] of list.entries()) {
    const r = await verifiedToActive(stack, domains, d);
    if (typeof r === 'string') failed.push(r);
    else out.push(r);
    progress(`  ${label} ${i + 1}/${list.length}: ${typeof r === 'string' ? r : `active ${secs(r)} after verify`}${label === 'slow' ? `; ${int(stack.acme.dns.delayed())} slow DNS questions unanswered` : ''}`);
  }
  return out;
}

/** Workflow tasks waiting on the main task queue (new workflows' first tasks among them). */
async function workflowBacklog({ connection, namespace, taskQueue }: LifecycleStack): Promise<number> {
  const r = await connection.workflowService.describeTaskQueue({
    namespace, taskQueue: { name: taskQueue }, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, reportStats: true,
  });
  return Number(r.stats?.approximateBacklogCount?.toString() ?? 0);
}

/** Activity tasks waiting on the DNS task queue. */
async function dnsBacklog({ connection, namespace, taskQueue }: LifecycleStack): Promise<string> {
  try {
    const r = await connection.workflowService.describeTaskQueue({
      namespace, taskQueue: { name: dnsTaskQueue(taskQueue) }, taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY, reportStats: true,
    });
    return `${int(Number(r.stats?.approximateBacklogCount?.toString() ?? 0))} periodic checks queued (oldest ${Number(r.stats?.approximateBacklogAge?.seconds?.toString() ?? 0)} s)`;
  } catch (error) {
    return `DNS queue backlog unknown (${errorText(error)})`;
  }
}

export async function runSlowDns(stack: LifecycleStack, domains: Domains, read: () => Promise<Reading>, options: NonNullable<LifecycleOptions['slowDns']>): Promise<SlowDnsReport> {
  const failed: string[] = [];
  progress(`── slow-resolver mode: ${2 * options.verified} domains to verify created, first checks on a quiet worker ──`);
  const toVerify: { id: string; hostname: string }[] = [];
  for (let i = 1; i <= 2 * options.verified + 1; i++) {
    const hostname = `shop.v${i}-${stack.runId}.test`;
    toVerify.push({ id: await domains.createDomain(hostname), hostname });
  }
  await domains.waitFirstChecks(toVerify.map((d) => d.id), 120_000, 200, 'to verify');
  const [warm, ...rest] = toVerify;
  await series(stack, domains, 'warm-up', [warm!], failed);
  const baseline = distribution(await series(stack, domains, 'quiet', rest.slice(0, options.verified), failed));

  const zone = `slow-${stack.runId}.test`;
  stack.acme.dns.setDelay((name) => (name.endsWith(zone) ? randomInt(options.minMs, options.maxMs + 1) : 0));
  progress(`── ${int(options.pending)} domains pending on ${zone}, answered ${options.minMs}–${options.maxMs} ms late ──`);
  const created = Date.now();
  let done = 0;
  await inParallel(Array.from({ length: options.pending }, (_, i) => `p${i + 1}.${zone}`), IDLE_CREATE_CONCURRENCY, async (h) => {
    await domains.createDomain(h);
    if (++done % 1000 === 0) progress(`  ${int(done)} created; ${await domains.backlog()}; ${await dnsBacklog(stack)}`);
  });
  progress(`  created in ${secs(Date.now() - created)}; waiting for their workflows to start (the creation backlog is not measured)…`);
  for (;;) {
    checkInterrupted();
    const backlog = await workflowBacklog(stack);
    if (backlog < 10) break;
    if (Date.now() - created > 30 * 60_000) throw new Error(`${backlog} workflow tasks still queued 30 min after the creates began`);
    await sleep(2000);
  }
  progress(`  started ${secs(Date.now() - created)} after the first create; ${int(stack.acme.dns.delayed())} slow DNS questions unanswered; ${await dnsBacklog(stack)}`);

  progress(`── ${options.verified} verified domains while the slow lookups are in flight ──`);
  const before = await read();
  const underSlowDns = distribution(await series(stack, domains, 'slow', rest.slice(options.verified), failed));
  const after = await read();
  const cpu = `worker ${Math.round(cpuPercent(before, after, 'worker'))} %, Temporal ${Math.round(cpuPercent(before, after, 'temporal'))} %, Postgres ${Math.round(cpuPercent(before, after, 'postgres'))} % of a core; ${int(after.dnsQueries - before.dnsQueries)} DNS questions`;
  const report = { baseline, underSlowDns, failed, delayedAtEnd: stack.acme.dns.delayed(), dnsQueueBacklog: await dnsBacklog(stack), cpu };
  stack.acme.dns.setDelay(null);
  return report;
}

export function printSlowDns({ worker }: LifecycleStack, options: NonNullable<LifecycleOptions['slowDns']>, r: SlowDnsReport): Record<string, string | number | null> {
  console.log('');
  console.log('Summary (slow-resolver mode)');
  console.log(`  verify → active, one at a time, quiet worker:            p50 ${secs(r.baseline.p50)}, p90 ${secs(r.baseline.p90)}, max ${secs(r.baseline.max)} (n ${r.baseline.n})`);
  console.log(`  verify → active, ${int(options.pending)} pending on a ${options.minMs}–${options.maxMs} ms resolver: p50 ${secs(r.underSlowDns.p50)}, p90 ${secs(r.underSlowDns.p90)}, max ${secs(r.underSlowDns.max)} (n ${r.underSlowDns.n})`);
  console.log(`  while measuring under slow DNS: ${r.cpu}`);
  console.log(`  at the end: ${int(r.delayedAtEnd)} slow DNS questions unanswered; ${r.dnsQueueBacklog}; ${r.failed.length} not active${r.failed.length ? `: ${r.failed[0]}` : ''}`);
  const logLines = [...worker.logCounts].sort((a, b) => b[1] - a[1]);
  console.log(`  worker log (LOG_LEVEL=warn): ${logLines.reduce((n, [, c]) => n + c, 0)} lines${logLines.length ? ':' : ''}`);
  for (const [key, n] of logLines.slice(0, 8)) console.log(`    ×${n}  ${key}`);
  const s = (ms: number) => Math.round(ms) / 1000;
  return {
    benchmark: 'lifecycle-slow-dns', pending: options.pending, slow_dns_ms: `${options.minMs}-${options.maxMs}`, verified: options.verified,
    quiet_p50_s: s(r.baseline.p50), quiet_p90_s: s(r.baseline.p90), slow_p50_s: s(r.underSlowDns.p50), slow_p90_s: s(r.underSlowDns.p90),
    slow_max_s: s(r.underSlowDns.max), not_active: r.failed.length,
  };
}
