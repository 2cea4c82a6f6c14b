// The DNS checker's metrics as an operator sees them (issue 26): the real worker process
// (worker/main.ts) with its metrics endpoint on, a domain whose DNS is not right and one whose DNS
// is, and GET /metrics before and after its checks — the checks by outcome, their durations, the
// claimed rows, the move and its verify, the in-flight gauge and the checkers' backlog gauges.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { dnsScheduleRepository } from '../db/repositories/dns-schedule.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { freePort } from './support/ports.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';
import { workerProcesses } from './support/worker-process.ts';

/** The value of `name` whose labels include `labels` (0 when absent: a labelled counter not yet incremented). */
function valueOf(text: string, name: string, labels: Record<string, string> = {}): number {
  for (const line of text.split('\n')) {
    const m = /^([a-z_]+)(?:\{([^}]*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return 0;
}

describe('DNS checker metrics on the worker\'s endpoint', () => {
  let acme: AcmeStack;
  let t: TestDatabase;
  let temporal: TestTemporal;
  let metricsPort: number;
  const workers = workerProcesses(() => ({
    databaseUrl: t.url, temporalAddress: temporal.address, taskQueue: temporal.taskQueue,
    // Its own bundle file: other test files build theirs at the same time.
    bundleFile: 'test-dns-checker-metrics-bundle.js',
    env: { ...acme.configOverrides, HOSTGATE_METRICS_HOST: '127.0.0.1', HOSTGATE_WORKER_METRICS_PORT: String(metricsPort) },
  }));
  const withOutput = (e: unknown) => { throw new Error(`${String(e)}\nworker output:\n${workers.output()}`); };
  const scrape = async () => {
    const res = await fetch(`http://127.0.0.1:${metricsPort}/metrics`, { signal: AbortSignal.timeout(5_000) });
    if (res.status !== 200) throw new Error(`GET /metrics: ${res.status}`);
    return res.text();
  };

  beforeAll(async () => {
    acme = await startAcmeStack();
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    await acme.serveChallenges(t.db);
    metricsPort = await freePort();
  });
  afterAll(async () => {
    workers.kill();
    await acme?.stopChallenges();
    await temporal?.close();
    await t?.drop();
    await acme?.close();
  });

  it('counts the checks by outcome, their durations, the claimed rows, the move and its verify', async () => {
    workers.start();
    const before = await waitFor('the worker\'s metrics endpoint', () => scrape().catch(() => null), 120_000, 250).catch(withOutput);
    const label = { process: 'worker' };
    const at = (text: string, name: string, labels: Record<string, string> = {}) => valueOf(text, name, { ...label, ...labels });

    const org = await organizationsRepository(t.db).create({ name: 'Checker metrics' });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    acme.dns.set('right.checker-metrics.test', [{ type: 'CNAME', value: EDGE }]);
    const domains = domainsRepository(t.db);
    const { domain: right } = await domains.create({ organizationId: org.id, destinationId: dst.id, hostname: 'right.checker-metrics.test', isApex: false });
    const { domain: notYet } = await domains.create({ organizationId: org.id, destinationId: dst.id, hostname: 'not-yet.checker-metrics.test', isApex: false });

    await waitFor('the checker to move the domain whose DNS is right', async () => (await domains.getById(right.id))?.status !== 'pending_dns', 30_000, 100).catch(withOutput);
    await waitFor('a check of the other', async () => ((await dnsScheduleRepository(t.db).slotOf(notYet.id))?.checks ?? 0) >= 1, 30_000, 100).catch(withOutput);
    const after = await scrape();

    const moved = (name: string, labels: Record<string, string> = {}) => at(after, name, labels) - at(before, name, labels);
    expect(moved('hostgate_dns_checker_checks_total', { outcome: 'right' })).toBeGreaterThanOrEqual(1);
    expect(moved('hostgate_dns_checker_checks_total', { outcome: 'not_yet' })).toBeGreaterThanOrEqual(1);
    expect(moved('hostgate_dns_checker_check_duration_seconds_count', { outcome: 'right' })).toBeGreaterThanOrEqual(1);
    expect(moved('hostgate_dns_checker_check_duration_seconds_count', { outcome: 'not_yet' })).toBeGreaterThanOrEqual(1);
    expect(moved('hostgate_dns_checker_check_duration_seconds_sum', { outcome: 'right' })).toBeGreaterThan(0);
    expect(moved('hostgate_dns_checker_claimed_rows_total')).toBeGreaterThanOrEqual(2);
    expect(moved('hostgate_dns_checker_moves_total')).toBe(1);
    // The move's verify went out: by the checker at once, or (if the worker's outbox sweep leased
    // the row first) by the sweep; never lost.
    expect(moved('hostgate_dns_checker_signals_total', { outcome: 'sent' }) + moved('hostgate_dns_checker_signals_total', { outcome: 'left_to_outbox' })).toBe(1);
    expect(after).toMatch(/^hostgate_dns_checker_checks_in_flight\{process="worker"\} \d+$/m);
    // The checkers' backlog, read from Postgres at scrape time.
    expect(after).toMatch(/^hostgate_dns_checks_due\{process="worker"\} \d+$/m);
    expect(after).toMatch(/^hostgate_dns_checks_lag_seconds\{process="worker"\} [\d.e+-]+$/m);
  }, 180_000);
});
