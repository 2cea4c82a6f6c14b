// Dunning through the existing suspend path, on the dev server with a real worker: what the
// billing workflow's activities do after the grace period (test/billing-timeskip.test.ts runs the
// timers) reaches the running domain workflows, which move the domains to `suspended` with reason
// `billing`, and back to `pending_dns` once paid — only those dunning suspended.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createBillingActivities } from '../activities/billing.ts';
import { createBillingProvider } from '../billing/create-provider.ts';
import { handleBillingEvent } from '../billing/handle-event.ts';
import { billingRepository } from '../db/repositories/billing.ts';
import { billingWorkflowId } from '../contracts/billing-workflow.ts';
import { activityRuns } from './support/history.ts';
import { sql } from '../db/pool.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('dunning suspends and resumes domains through their workflows', () => {
  let t: TestApp;
  let worker: RunningWorker;
  beforeAll(async () => {
    t = await createTestApp();
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    t.dispatcher.startLoop(100);
  });
  afterAll(async () => {
    await worker?.stop();
    await t?.close();
  });

  it('grace period over → suspended (reason billing); paid → pending_dns; an operator\'s suspension stays', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const destination = (await api.post('/v1/destinations', { url: 'https://app.dunning.example' })).json().data.id;
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await api.post('/v1/domains', { hostname: `d${i}.dunning-customer.example`, destination_id: destination })).json().data.id);
    const status = async (id: string) => (await domainsRepository(t.database.db).getById(id))!.status;
    await waitFor('the domain workflows', async () => (await t.database.db.oneFirst(sql.unsafe`select count(*)::int from domains where organization_id = ${org.id} and workflow_started_at is not null`)) === 3, 30_000, 100);
    // An operator suspends one first (the CLI's path: a signal through the outbox).
    await t.database.db.transaction(async (tx) => { await tx.query(sql.unsafe`insert into workflow_outbox (kind, workflow_id, payload) values ('signal_domain', ${`domain/${ids[2]}`}, ${sql.jsonb({ signal: 'suspend', reason: 'suspended by operator' })})`); });
    await waitFor('the operator suspension', async () => (await status(ids[2]!)) === 'suspended', 30_000, 100);

    const activities = createBillingActivities({ db: t.database.db, logger: createLogger('silent', 'test'), config: t.config, provider: createBillingProvider(t.config, t.database.db) });
    expect(await activities.suspendDomainsForBilling({ organizationId: org.id })).toEqual({ suspended: 2 });
    await waitFor('domains suspended for billing', async () => (await status(ids[0]!)) === 'suspended' && (await status(ids[1]!)) === 'suspended', 30_000, 100);
    expect(await t.database.db.anyFirst(sql.unsafe`select reason from domain_status_history where domain_id = ${ids[0]!} and to_status = 'suspended'`)).toEqual(['billing']);
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ active_hostnames: 0, peak_hostnames: 3 });
    // Run again (a retried activity): nothing more is suspended or recorded.
    expect(await activities.suspendDomainsForBilling({ organizationId: org.id })).toEqual({ suspended: 0 });

    expect(await activities.resumeDomainsAfterBilling({ organizationId: org.id })).toEqual({ resumed: 2 });
    await waitFor('domains resumed', async () => (await status(ids[0]!)) === 'pending_dns' && (await status(ids[1]!)) === 'pending_dns', 30_000, 100);
    expect(await status(ids[2]!)).toBe('suspended');
    expect((await api.get('/v1/usage')).json().data.active_hostnames).toBe(2);
    expect(await activities.resumeDomainsAfterBilling({ organizationId: org.id })).toEqual({ resumed: 0 });
  }, 90_000);

  it('a second checkout completed beside the live subscription: the billing workflow cancels it, the live one is unchanged', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const billing = billingRepository(t.database.db);
    const first = (await api.post('/v1/billing/checkout-session', { plan: 'growth' })).json().data.id as string;
    // Another tab's session, opened before the first was paid (so not replaced by it).
    await billing.createCheckoutSession({ id: 'cs_local_second_tab', organizationId: org.id, provider: 'local', plan: 'scale', successUrl: null, cancelUrl: null, ttlSeconds: 600 });
    expect((await t.app.inject({ method: 'POST', url: `/v1/billing/local/checkout/${first}/pay` })).statusCode).toBe(303);
    const live = await billing.getSubscription(org.id);
    expect(live).toMatchObject({ plan: 'growth', status: 'active' });
    // Its Pay raced past the page's check: the completion reaches the one event path.
    const now = new Date();
    const handled = await handleBillingEvent(t.database.db, 'local', 'evt_local_second_tab', {
      type: 'checkout.completed', organizationId: org.id, checkoutSessionId: 'cs_local_second_tab', plan: 'scale',
      customerId: `cus_local_${org.id}`, subscriptionId: 'sub_local_second_tab', periodStart: now.toISOString(), periodEnd: new Date(now.getTime() + 30 * 86400_000).toISOString(),
    });
    expect(handled.result).toBe('processed');
    const handle = t.temporal.client.workflow.getHandle(billingWorkflowId(org.id));
    await waitFor('the duplicate canceled by the billing workflow', async () => activityRuns((await handle.fetchHistory()).events ?? []).includes('cancelDuplicateSubscription'), 30_000, 200);
    expect(await billing.getSubscription(org.id)).toEqual(live);
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'growth', billing_status: 'active' });
  }, 60_000);
});
