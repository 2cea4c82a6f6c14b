// The billing workflow over weeks of workflow time (time-skipping test server): a period closes
// with the right overage invoice, and past_due beyond the grace period suspends the domains that
// count, which resume — exactly those — once paid. Real Postgres, real activities, the real
// outbox dispatcher; the provider is the local one (events built as its pages build them).
// What the queued suspend/resume signals then do to running domain workflows is in
// test/billing-dunning.test.ts, on the dev server: the time-skipping server loses domain
// workflows over days of skipped DNS backoff ("No history found" on signal).
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { handleBillingEvent } from '../billing/handle-event.ts';
import { sql } from '../db/pool.ts';
import { billingId, billingRepository } from '../db/repositories/billing.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { usageRepository } from '../db/repositories/usage.ts';
import { createLogger } from '../logging/logger.ts';
import { randomToken } from '../security/tokens.ts';
import { createHostgateWorker, type HostgateWorker } from '../worker/create-worker.ts';
import { billingStateQuery } from '../workflows/billing/signals.ts';
import { createOutboxDispatcher, type OutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { testServerPath } from './support/time-skipping.ts';
import { waitFor } from './support/wait.ts';

describe('billing workflow over weeks (time-skipping)', () => {
  let env: TestWorkflowEnvironment | null = null;
  let t: TestDatabase;
  let worker: HostgateWorker;
  let dispatcher: OutboxDispatcher;
  let pump: NodeJS.Timeout | null = null;
  const config = testConfig();
  const taskQueue = `timeskip-billing-${randomToken(8)}`;
  const logger = createLogger('silent', 'timeskip');

  beforeAll(async () => {
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* already installed in this process */ }
    t = await createTestDatabase();
  });
  const newEnv = async (workerConfig = config) => {
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
    worker = await createHostgateWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, db: t.db, config: workerConfig, logger });
    dispatcher = createOutboxDispatcher({ db: t.db, client: env.client, taskQueue, logger });
    // What the worker's dispatcher loop does in production: deliver queued starts and signals.
    pump = setInterval(() => { void dispatcher.kick(); }, 100);
    return env;
  };
  afterEach(async () => {
    if (pump) clearInterval(pump);
    await dispatcher?.stop();
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await env?.teardown();
    env = null;
  });
  afterAll(async () => { await t?.drop(); });

  async function orgWithDomains(count: number) {
    const org = await organizationsRepository(t.db).create({ name: `billing ${randomToken(6)}` });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const domains = [];
    for (let i = 0; i < count; i++) {
      const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `d${i}-${randomToken(8).toLowerCase()}.billing-timeskip.test`, isApex: false });
      domains.push(domain);
    }
    // The domains' own start rows are not this test's business: starts are made explicitly below.
    await t.db.query(sql.unsafe`update workflow_outbox set dispatched_at = now() where kind = 'start_domain'`);
    return { org, domains };
  }

  /** What the local checkout page's "Pay" does: a subscription whose first period starts now. */
  async function subscribe(organizationId: string, plan: 'starter' | 'growth' | 'scale') {
    const period = await t.db.one(sql.unsafe`select now() as s, (now() at time zone 'UTC' + interval '1 month') at time zone 'UTC' as e`) as { s: string; e: string };
    const subscriptionId = billingId('sub');
    const sessionId = billingId('cs');
    await billingRepository(t.db).createCheckoutSession({ id: sessionId, organizationId, provider: 'local', plan, successUrl: null, cancelUrl: null, ttlSeconds: 3600 });
    const handled = await handleBillingEvent(t.db, 'local', billingId('evt'), {
      type: 'checkout.completed', organizationId, checkoutSessionId: sessionId, plan, customerId: null, subscriptionId, periodStart: period.s, periodEnd: period.e,
    }, { searchAttributes: false });
    expect(handled.result).toBe('processed');
    return { subscriptionId, periodStart: period.s, periodEnd: period.e };
  }

  const statusOf = async (id: string) => (await domainsRepository(t.db).getById(id))!.status;
  const billingStatus = async (orgId: string) => (await organizationsRepository(t.db).get(orgId))!.billing_status;

  it('closes the period at its end: the invoice carries the peak\'s overage, the next period starts at the active count', async () => {
    const e = await newEnv();
    const { org, domains } = await orgWithDomains(13);
    const { periodStart, periodEnd } = await subscribe(org.id, 'starter');
    // Peak 13 in the period, 11 active at its end.
    for (const d of domains.slice(0, 2)) await domainsRepository(t.db).transition(d.id, 'delete', 'test');
    await worker.runUntil(async () => {
      const handle = e.client.workflow.getHandle(`billing/${org.id}`);
      await waitFor('the billing workflow', async () => (await handle.query(billingStateQuery)).eventsHandled === 1, 30_000, 100);
      await e.sleep('20 days');
      expect(await billingRepository(t.db).invoices(org.id)).toEqual([]);
      await e.sleep('12 days');
      await waitFor('the period close', async () => (await handle.query(billingStateQuery)).periodsClosed === 1, 30_000, 100);
    });
    const invoices = await billingRepository(t.db).invoices(org.id);
    expect(invoices).toEqual([expect.objectContaining({
      period_start: new Date(periodStart).toISOString(), period_end: new Date(periodEnd).toISOString(), plan: 'starter',
      peak_hostnames: 13, included_hostnames: 10, overage_quantity: 3, total_cents: 45,
    })]);
    const item = await t.db.one(sql.unsafe`select quantity, unit_amount_cents, amount_cents from invoice_items where invoice_id = ${invoices[0]!.id}`);
    expect(item).toEqual({ quantity: 3, unit_amount_cents: 15, amount_cents: 45 });
    // The local subscription renewed; usage counts the new period from the active count.
    const sub = await billingRepository(t.db).getSubscription(org.id);
    expect(sub).toMatchObject({ status: 'active', current_period_start: new Date(periodEnd).toISOString() });
    const usage = await t.db.one(sql.unsafe`select period_start, active_hostnames, peak_hostnames from organization_usage where organization_id = ${org.id}`);
    expect(usage).toEqual({ period_start: new Date(periodEnd).toISOString(), active_hostnames: 11, peak_hostnames: 11 });
    expect((await usageRepository(t.db).get(org.id))!.plan).toBe('starter');
  }, 120_000);

  it('past_due beyond the 7-day grace period (to the hour) suspends the counted domains with reason billing; paying resumes exactly those', async () => {
    expect(config.billing.graceHours).toBe(168);
    const e = await newEnv();
    const { org, domains } = await orgWithDomains(3);
    // Suspended by an operator before: dunning must neither record nor resume it.
    await domainsRepository(t.db).transition(domains[2]!.id, 'suspend', 'suspended by operator');
    const { subscriptionId } = await subscribe(org.id, 'growth');
    const queued = (signal: string) => t.db.anyFirst(sql.unsafe`select substring(workflow_id from 8) from workflow_outbox where kind = 'signal_domain' and payload->>'signal' = ${signal}
      and workflow_id = any(${sql.array(domains.map((d) => `domain/${d.id}`), 'text')}) order by 1`);
    const billed = [domains[0]!.id, domains[1]!.id].sort();
    await worker.runUntil(async () => {
      const handle = e.client.workflow.getHandle(`billing/${org.id}`);
      await waitFor('the billing workflow', async () => (await handle.query(billingStateQuery)).eventsHandled === 1, 30_000, 100);
      expect((await handleBillingEvent(t.db, 'local', billingId('evt'), { type: 'invoice.payment_failed', subscriptionId }, { searchAttributes: false })).result).toBe('processed');
      await waitFor('past_due in the workflow', async () => (await handle.query(billingStateQuery)).subscription?.status === 'past_due', 30_000, 100);
      expect(await billingStatus(org.id)).toBe('past_due');
      await e.sleep('167 hours');
      expect((await handle.query(billingStateQuery)).suspended).toBe(false);
      expect(await queued('suspend')).toEqual([]);
      await e.sleep('2 hours');
      await waitFor('suspensions queued', async () => (await handle.query(billingStateQuery)).suspended, 30_000, 100);
      // The existing suspend path: a `suspend` signal with reason billing for each counted domain.
      expect(await queued('suspend')).toEqual(billed);
      expect(await t.db.anyFirst(sql.unsafe`select distinct payload->>'reason' from workflow_outbox where kind = 'signal_domain' and payload->>'signal' = 'suspend'
        and workflow_id = any(${sql.array(domains.map((d) => `domain/${d.id}`), 'text')})`)).toEqual(['billing']);
      expect((await handleBillingEvent(t.db, 'local', billingId('evt'), { type: 'invoice.paid', subscriptionId }, { searchAttributes: false })).result).toBe('processed');
      await waitFor('resumes queued', async () => !(await handle.query(billingStateQuery)).suspended, 30_000, 100);
    });
    expect(await billingStatus(org.id)).toBe('active');
    expect(await queued('resume')).toEqual(billed);
    const recorded = await t.db.anyFirst(sql.unsafe`select domain_id from billing_suspensions where organization_id = ${org.id} and resumed_at is not null order by domain_id`);
    expect(recorded).toEqual(billed);
  }, 120_000);

  it('cancellation closes and invoices the running period, then the workflow ends; usage is back on calendar months', async () => {
    const e = await newEnv();
    const { org } = await orgWithDomains(12);
    const { subscriptionId, periodStart } = await subscribe(org.id, 'starter');
    await worker.runUntil(async () => {
      const handle = e.client.workflow.getHandle(`billing/${org.id}`);
      await waitFor('the billing workflow', async () => (await handle.query(billingStateQuery)).eventsHandled === 1, 30_000, 100);
      expect((await handleBillingEvent(t.db, 'local', billingId('evt'), { type: 'subscription.canceled', subscriptionId }, { searchAttributes: false })).result).toBe('processed');
      await waitFor('the workflow to end', async () => (await handle.describe()).status.name === 'COMPLETED', 30_000, 100);
    });
    expect(await billingStatus(org.id)).toBe('canceled');
    expect(await billingRepository(t.db).invoices(org.id)).toEqual([expect.objectContaining({ period_start: new Date(periodStart).toISOString(), peak_hostnames: 12, overage_quantity: 2, total_cents: 30 })]);
    const usage = (await usageRepository(t.db).get(org.id))!;
    const now = new Date();
    expect(usage.period_end).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    expect(usage).toMatchObject({ active_hostnames: 12, peak_hostnames: 12 });
  }, 120_000);
});
