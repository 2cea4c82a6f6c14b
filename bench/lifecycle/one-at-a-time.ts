// Phase A, unloaded: one warm-up domain (it registers the ACME account), then --sequential domains
// one after another, each polled every 50 ms from its verify request until active.
import { EDGE } from '../../test/support/acme-stack.ts';
import { checkInterrupted, progress, sleep } from '../support/run.ts';
import type { Domains } from './domains.ts';
import { secs } from './figures.ts';
import { POLL_MS } from './options.ts';
import type { LifecycleStack } from './stack.ts';

/** One domain's latencies from its verify request (ms): to active, to DNS verified, DNS verified → active. */
export interface Activated { id: string; total: number; dns: number; cert: number }
export interface OneAtATime { sequential: Activated[]; sequentialFailed: string[] }

/** One domain on its own: create, first check, CNAME, verify, poll every 50 ms until active. */
async function oneDomain({ acme }: LifecycleStack, domains: Domains, hostname: string): Promise<Activated | { failed: string }> {
  const id = await domains.createDomain(hostname);
  await domains.waitFirstChecks([id], 60_000, POLL_MS, '');
  acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
  const sentAt = Date.now();
  await domains.verify(id, 1);
  const deadline = sentAt + 60_000;
  for (;;) {
    checkInterrupted();
    const [d] = await domains.poll([id]);
    if (d?.active_at) return { id, total: d.active_at - sentAt, dns: (d.dns_ok_at ?? Number.NaN) - sentAt, cert: d.active_at - (d.dns_ok_at ?? Number.NaN) };
    if (d?.status === 'failed') return { failed: `failed (${d.problem})` };
    if (Date.now() > deadline) return { failed: `still ${d?.status} (${d?.problem ?? 'no problem'}) after 60 s` };
    await sleep(POLL_MS);
  }
}

export async function runOneAtATime(stack: LifecycleStack, domains: Domains, sequentialCount: number): Promise<OneAtATime> {
  const { runId } = stack;
  const warm = await oneDomain(stack, domains, `shop.warmup-${runId}.test`);
  progress(`warm-up domain (registers the ACME account): ${'failed' in warm ? warm.failed : `active ${secs(warm.total)} after verify`}`);
  const sequential: Activated[] = [];
  const sequentialFailed: string[] = [];
  for (let i = 1; i <= sequentialCount; i++) {
    const r = await oneDomain(stack, domains, `shop.seq${i}-${runId}.test`);
    if ('failed' in r) sequentialFailed.push(r.failed);
    else sequential.push(r);
    progress(`  sequential ${i}/${sequentialCount}: ${'failed' in r ? r.failed : `active ${secs(r.total)} after verify (DNS verified at ${secs(r.dns)}, certificate ${secs(r.cert)})`}`);
  }
  return { sequential, sequentialFailed };
}
