// Phase A under load: --domains created through the API, their first DNS check seen and their
// workflows attached (a customer verifies a domain whose workflow runs), CNAMEs set,
// then POST /verify sent to all in quick succession and Postgres polled (every 250 ms) until each
// is active or failed. Latency = the active row's created_at − when its verify was sent, so the
// polling interval does not change it.
import { EDGE } from '../../test/support/acme-stack.ts';
import { checkInterrupted, errorText, inParallel, progress, sleep } from '../support/run.ts';
import type { DomainPoll, Domains } from './domains.ts';
import { secs } from './figures.ts';
import type { Reading } from './meters.ts';
import { BURST_POLL_MS, CREATE_CONCURRENCY, PHASE_A_CAP_MS, PHASE_A_STALL_MS, VERIFY_CONCURRENCY } from './options.ts';
import type { LifecycleStack } from './stack.ts';

export interface Burst {
  ids: string[];
  /** When each domain's verify request was sent (ms since the epoch). */
  sentAt: Map<string, number>;
  firstSent: number;
  lastSent: number;
  /** Verify sent → 202 answered, ms. */
  ackMs: number[];
  verifyErrors: string[];
  /** The last poll of each domain (active, failed, or as it was at the cap). */
  results: Map<string, DomainPoll>;
  polls: number;
  /** Meter readings at the first verify and once all settled. */
  before: Reading;
  after: Reading;
}

export async function runBurst({ runId, acme }: LifecycleStack, domains: Domains, read: () => Promise<Reading>, burstCount: number): Promise<Burst> {
  progress(`creating ${burstCount} domains through the API (${CREATE_CONCURRENCY} at a time)…`);
  const burstHosts = Array.from({ length: burstCount }, (_, i) => `shop.burst${i + 1}-${runId}.test`);
  const ids: string[] = new Array(burstCount);
  const createStart = Date.now();
  await inParallel(burstHosts, CREATE_CONCURRENCY, async (h, i) => { ids[i] = await domains.createDomain(h); });
  progress(`  created in ${secs(Date.now() - createStart)}; waiting for every first DNS check…`);
  const nx = await domains.waitFirstChecks(ids, 180_000, 100, 'burst', { attached: true });
  progress(`  all ${burstCount} had their first DNS check (${nx} nxdomain) and their workflows attached ${secs(Date.now() - createStart)} after the first create`);

  for (const h of burstHosts) acme.dns.set(h, [{ type: 'CNAME', value: EDGE }]);
  progress(`CNAMEs set for all ${burstCount}; sending POST /verify to all (${VERIFY_CONCURRENCY} in flight)…`);
  const before = await read();
  const sentAt = new Map<string, number>();
  const ackMs: number[] = [];
  const verifyErrors: string[] = [];
  await inParallel(ids, VERIFY_CONCURRENCY, async (id) => {
    const at = Date.now();
    sentAt.set(id, at);
    try {
      await domains.verify(id, 1);
      ackMs.push(Date.now() - at);
    } catch (error) {
      verifyErrors.push(errorText(error));
    }
  });
  const firstSent = Math.min(...sentAt.values());
  const lastSent = Math.max(...sentAt.values());
  progress(`  ${burstCount - verifyErrors.length} verifies answered 202 within ${secs(Date.now() - firstSent)} of the first send${verifyErrors.length ? `; ${verifyErrors.length} failed: ${verifyErrors[0]}` : ''}`);

  const results = new Map<string, DomainPoll>();
  const remaining = new Set(ids);
  let polls = 0;
  let lastLog = Date.now();
  let lastSettled = Date.now();
  while (remaining.size > 0 && Date.now() - firstSent < PHASE_A_CAP_MS) {
    checkInterrupted();
    const pollStart = Date.now();
    for (const d of await domains.poll([...remaining])) {
      if (d.active_at !== null || d.status === 'failed') {
        results.set(d.id, d);
        remaining.delete(d.id);
        lastSettled = Date.now();
      }
    }
    // A stalled burst is not waited out to the cap: Debian's Pebble can deadlock under a burst of
    // orders (docs/scale.md "Pebble can deadlock under a burst"); the worker's log counts below say
    // whether its calls to the CA time out.
    if (remaining.size > 0 && Date.now() - lastSettled >= PHASE_A_STALL_MS) {
      progress(`  no domain settled for ${secs(PHASE_A_STALL_MS)}: stopped waiting (${remaining.size} not settled; if the worker's ACME calls time out, Pebble is deadlocked, see docs/scale.md)`);
      break;
    }
    polls++;
    if (Date.now() - lastLog >= 2000) {
      progress(`  ${results.size} / ${burstCount} settled (${[...results.values()].filter((d) => d.active_at !== null).length} active) ${secs(Date.now() - firstSent)} after the first verify`);
      lastLog = Date.now();
    }
    await sleep(Math.max(0, BURST_POLL_MS - (Date.now() - pollStart)));
  }
  const after = await read();
  for (const d of remaining.size ? await domains.poll([...remaining]) : []) results.set(d.id, d);
  return { ids, sentAt, firstSent, lastSent, ackMs, verifyErrors, results, polls, before, after };
}
