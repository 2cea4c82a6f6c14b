// The billing routes with the built-in local provider: checkout, its page's Pay and Cancel, the
// portal's buttons, plan change, and every error path with its stable code. The pages' buttons
// are posted as the browser posts them (test/billing-browser.test.ts clicks them in Chromium).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { buildApp } from '../api/app.ts';
import { createDb, sql } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

describe('billing API (local provider)', () => {
  let t: TestApp;
  beforeAll(async () => { t = await createTestApp({ config: { HOSTGATE_PUBLIC_URL: 'http://localhost:3000' } }); });
  afterAll(async () => { await t?.close(); });

  const form = (url: string, fields: Record<string, string> = {}) => t.app.inject({
    method: 'POST', url, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: new URLSearchParams(fields).toString(),
  });
  const pathOf = (url: string) => new URL(url).pathname;

  async function subscribed(plan = 'growth') {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const res = await api.post('/v1/billing/checkout-session', { plan, success_url: 'https://vendor.example/billing/ok', cancel_url: 'https://vendor.example/billing/no' });
    expect(res.statusCode).toBe(201);
    const paid = await form(`${pathOf(res.json().data.url)}/pay`);
    expect(paid.statusCode).toBe(303);
    return { ...o, api };
  }

  it('checkout → the local page → Pay: active, the plan and a period from now shown by /usage; no Idempotency-Key needed', async () => {
    const { auth } = await createOrgWithKey(t);
    const res = await t.app.inject({ method: 'POST', url: '/v1/billing/checkout-session', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify({ plan: 'growth', success_url: 'https://vendor.example/billing/ok?x=1' }) });
    expect(res.statusCode).toBe(201);
    const { id, url } = res.json().data;
    expect(id).toMatch(/^cs_local_/);
    expect(url).toBe(`http://localhost:3000/v1/billing/local/checkout/${id}`);
    const pageRes = await t.app.inject({ method: 'GET', url: pathOf(url) });
    expect(pageRes.statusCode).toBe(200);
    expect(pageRes.headers['content-type']).toMatch(/^text\/html/);
    expect(pageRes.body).toContain('id="pay"');
    expect(pageRes.body).toContain('100 hostnames');
    expect((await client(t.app, auth).get('/v1/usage')).json().data).toMatchObject({ plan: 'starter', billing_status: 'inactive' });
    const before = Date.now();
    const paid = await form(`${pathOf(url)}/pay`);
    expect(paid.statusCode).toBe(303);
    expect(paid.headers.location).toBe('https://vendor.example/billing/ok?x=1');
    const usage = (await client(t.app, auth).get('/v1/usage')).json().data;
    expect(usage).toMatchObject({ plan: 'growth', billing_status: 'active', included_hostnames: 100, included_bandwidth_gb: 500 });
    expect(Date.parse(usage.period_start)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(usage.period_end) - Date.parse(usage.period_start)).toBeGreaterThanOrEqual(28 * 86_400_000);
    // Paying twice (a double click, a back button) creates nothing more.
    expect((await form(`${pathOf(url)}/pay`)).statusCode).toBe(303);
    expect((await t.app.inject({ method: 'GET', url: pathOf(url) })).body).toContain('id="result">Paid');
    // One event queued for the organization's billing workflow: the second Pay added none.
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where kind = 'signal_billing' and payload->>'organizationId' = (select organization_id from billing_checkout_sessions where id = ${id})`)).toBe(1);
  });

  it('two Pay clicks at once on one checkout: one subscription, one event for the workflow', async () => {
    const { auth, org } = await createOrgWithKey(t);
    const { url } = (await client(t.app, auth).post('/v1/billing/checkout-session', { plan: 'scale' })).json().data;
    const answers = await Promise.all(Array.from({ length: 5 }, () => form(`${pathOf(url)}/pay`)));
    expect(answers.map((a) => a.statusCode)).toEqual([303, 303, 303, 303, 303]);
    expect((await client(t.app, auth).get('/v1/usage')).json().data).toMatchObject({ plan: 'scale', billing_status: 'active' });
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where kind = 'signal_billing' and payload->>'organizationId' = ${org.id}`)).toBe(1);
  });

  it('Cancel on the checkout page: back to cancel_url, nothing subscribed, the session cannot be paid any more', async () => {
    const { auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const { url } = (await api.post('/v1/billing/checkout-session', { plan: 'scale', cancel_url: 'https://vendor.example/billing/no' })).json().data;
    const canceled = await form(`${pathOf(url)}/cancel`);
    expect(canceled.statusCode).toBe(303);
    expect(canceled.headers.location).toBe('https://vendor.example/billing/no');
    await form(`${pathOf(url)}/pay`);
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'starter', billing_status: 'inactive' });
    expect((await t.app.inject({ method: 'GET', url: pathOf(url) })).body).toContain('Checkout canceled');
  });

  it.each([
    ['success_url', 'https://evil.example/ok'],
    ['cancel_url', 'http://vendor.example/no'],
    ['success_url', 'https://vendor.example.evil.com/ok'],
  ])('%s %s outside the return origins → 400 return_url_not_allowed', async (param, value) => {
    const { auth } = await createOrgWithKey(t);
    const res = await client(t.app, auth).post('/v1/billing/checkout-session', { plan: 'starter', [param]: value });
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'return_url_not_allowed', param });
  });

  it('the Stripe webhook route without Stripe configured (the local provider) → 404 not_found, saying what to set', async () => {
    const res = await t.app.inject({ method: 'POST', url: '/v1/billing/stripe/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, payload: '{}' });
    expect([res.statusCode, res.json().error.code]).toEqual([404, 'not_found']);
    expect(res.json().error.message).toMatch(/Stripe is not configured on this server \(STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET\)/);
  });

  it('bad bodies → 400 invalid_request naming the field; a key without billing:write → 403', async () => {
    const { auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const unknownPlan = await api.post('/v1/billing/checkout-session', { plan: 'enterprise' });
    expect(unknownPlan.statusCode).toBe(400);
    expect(unknownPlan.json().error).toMatchObject({ code: 'invalid_request', param: 'plan' });
    const notUrl = await api.post('/v1/billing/checkout-session', { plan: 'starter', success_url: 'not a url' });
    expect(notUrl.json().error).toMatchObject({ code: 'invalid_request', param: 'success_url' });
    const readOnly = await createOrgWithKey(t, ['domains:write']);
    for (const path of ['/v1/billing/checkout-session', '/v1/billing/portal-session', '/v1/billing/plan']) {
      const res = await client(t.app, readOnly.auth).post(path, { plan: 'growth' });
      expect([path, res.statusCode, res.json().error.code]).toEqual([path, 403, 'insufficient_scope']);
    }
  });

  it('portal and plan change before any subscription → 409 subscription_missing; a second checkout → 409 subscription_exists', async () => {
    const { auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const portal = await api.post('/v1/billing/portal-session', {});
    expect([portal.statusCode, portal.json().error.code]).toEqual([409, 'subscription_missing']);
    const plan = await api.post('/v1/billing/plan', { plan: 'scale' });
    expect([plan.statusCode, plan.json().error.code]).toEqual([409, 'subscription_missing']);
    const s = await subscribed();
    const again = await s.api.post('/v1/billing/checkout-session', { plan: 'scale' });
    expect([again.statusCode, again.json().error.code]).toEqual([409, 'subscription_exists']);
  });

  it('plan change: idempotent (replayed with Idempotent-Replayed; a retry whose answer was lost gets it again), same plan → 409 plan_unchanged, unknown plan → 400', async () => {
    const { auth } = await subscribed('growth');
    const headers = { ...auth, 'content-type': 'application/json', 'idempotency-key': 'plan-change-1' };
    const change = () => t.app.inject({ method: 'POST', url: '/v1/billing/plan', headers, payload: JSON.stringify({ plan: 'scale' }) });
    const first = await change();
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ plan: 'scale', billing_status: 'active', included_hostnames: 1000 });
    const replay = await change();
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    const same = await client(t.app, auth).post('/v1/billing/plan', { plan: 'scale' });
    expect([same.statusCode, same.json().error]).toEqual([409, expect.objectContaining({ code: 'plan_unchanged', param: 'plan' })]);
    // The change's answer was lost before it could be stored for replay (its record is gone, as
    // after a crash between the change and the answer): the retry with the same key gets the
    // change's answer again, not 409; a new key still gets 409.
    await t.database.db.query(sql.unsafe`delete from idempotency_keys where key = 'plan-change-1'`);
    const retried = await change();
    expect([retried.statusCode, retried.headers['idempotent-replayed']]).toEqual([200, undefined]);
    expect(retried.json().data).toMatchObject({ plan: 'scale', billing_status: 'active', included_hostnames: 1000 });
    expect((await client(t.app, auth).post('/v1/billing/plan', { plan: 'scale' })).statusCode).toBe(409);
    const unknown = await client(t.app, auth).post('/v1/billing/plan', { plan: 'platinum' });
    expect([unknown.statusCode, unknown.json().error]).toEqual([400, expect.objectContaining({ code: 'invalid_request', param: 'plan', message: 'plan must be one of: starter, growth, scale' })]);
    const noKey = await t.app.inject({ method: 'POST', url: '/v1/billing/plan', headers: { ...auth, 'content-type': 'application/json' }, payload: JSON.stringify({ plan: 'growth' }) });
    expect(noKey.json().error.code).toBe('idempotency_key_missing');
  });

  it('portal: plan, failed payment (past_due), pay (active), cancel (canceled, calendar month again); return_url checked', async () => {
    const { auth, api } = await subscribed('starter');
    const bad = await api.post('/v1/billing/portal-session', { return_url: 'https://elsewhere.example/' });
    expect([bad.statusCode, bad.json().error.code]).toEqual([400, 'return_url_not_allowed']);
    const res = await api.post('/v1/billing/portal-session', { return_url: 'https://vendor.example/account' });
    expect(res.statusCode).toBe(201);
    const portal = pathOf(res.json().data.url);
    expect(res.json().data.id).toMatch(/^ps_local_/);
    expect((await t.app.inject({ method: 'GET', url: portal })).body).toContain('href="https://vendor.example/account"');
    const usage = async () => (await client(t.app, auth).get('/v1/usage')).json().data;

    expect((await form(`${portal}/plan`, { plan: 'growth' })).headers.location).toBe(portal);
    expect(await usage()).toMatchObject({ plan: 'growth', billing_status: 'active' });
    const badPlan = await form(`${portal}/plan`, { plan: 'gold' });
    expect([badPlan.statusCode, badPlan.json().error]).toEqual([400, expect.objectContaining({ code: 'invalid_request', param: 'plan' })]);
    await form(`${portal}/fail-payment`);
    expect(await usage()).toMatchObject({ billing_status: 'past_due' });
    expect((await t.app.inject({ method: 'GET', url: portal })).body).toContain('id="pay"');
    await form(`${portal}/pay`);
    expect(await usage()).toMatchObject({ billing_status: 'active' });
    await form(`${portal}/cancel`);
    const after = await usage();
    expect(after).toMatchObject({ plan: 'growth', billing_status: 'canceled' });
    const now = new Date();
    expect(after.period_end).toBe(new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1)).toISOString());
    const plan = await api.post('/v1/billing/plan', { plan: 'scale' });
    expect([plan.statusCode, plan.json().error.code]).toEqual([409, 'subscription_missing']);
    // A canceled organization subscribes again through a new checkout.
    const again = await api.post('/v1/billing/checkout-session', { plan: 'starter' });
    expect(again.statusCode).toBe(201);
  });

  it('portal without a body (its only field is optional): the same as {}', async () => {
    const { auth } = await createOrgWithKey(t);
    const bare = await t.app.inject({ method: 'POST', url: '/v1/billing/portal-session', headers: { ...auth, 'idempotency-key': 'portal-bare-1' } });
    expect([bare.statusCode, bare.json().error.code]).toEqual([409, 'subscription_missing']);
    const { auth: paid } = await subscribed('starter');
    const opened = await t.app.inject({ method: 'POST', url: '/v1/billing/portal-session', headers: { ...paid, 'idempotency-key': 'portal-bare-2' } });
    expect(opened.statusCode).toBe(201);
    expect(opened.json().data.url).toMatch(/^http:\/\/localhost:3000\/v1\/billing\/local\/portal\/ps_local_/);
  });

  it('unknown or foreign page ids → 404 billing_session_not_found; unknown portal action → 404', async () => {
    for (const url of ['/v1/billing/local/checkout/cs_local_nope', '/v1/billing/local/portal/ps_local_nope']) {
      const res = await t.app.inject({ method: 'GET', url });
      expect([url, res.statusCode, res.json().error.code]).toEqual([url, 404, 'billing_session_not_found']);
    }
    expect((await form('/v1/billing/local/checkout/cs_local_nope/pay')).json().error.code).toBe('billing_session_not_found');
    const { api } = await subscribed();
    const portal = pathOf((await api.post('/v1/billing/portal-session', {})).json().data.url);
    const res = await form(`${portal}/steal`);
    expect([res.statusCode, res.json().error.code]).toEqual([404, 'not_found']);
  });
  it('Postgres too slow inside the provider\'s own work (the local provider writes rows) → 503 with Retry-After, not 500', async () => {
    const { auth } = await subscribed('growth');
    // An API whose statements give up after 0.5 s, and a table held by another transaction.
    const db = await createDb(t.database.url, { maximumPoolSize: 4, statementTimeoutMs: 500, connectTimeoutMs: 1500, acquireTimeoutMs: 1500, idleInTransactionTimeoutMs: 5000 });
    const app = await buildApp({ config: t.config, db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    const holding = async (table: string, during: () => Promise<void>) => {
      let locked!: () => void;
      const isLocked = new Promise<void>((r) => { locked = r; });
      let done!: () => void;
      const finished = new Promise<void>((r) => { done = r; });
      const tx = t.database.db.transaction(async (q) => {
        await q.query(sql.unsafe`select set_config('lock_timeout', '2s', true)`);
        await q.query(sql.unsafe`lock table ${sql.identifier([table])} in access exclusive mode`);
        locked();
        await finished;
      });
      await Promise.race([isLocked, tx]);
      try { await during(); } finally { done(); await tx; }
    };
    try {
      const api = client(app, auth);
      await holding('billing_portal_sessions', async () => {
        const res = await api.post('/v1/billing/portal-session', {});
        expect([res.statusCode, res.json().error.code, res.headers['retry-after']]).toEqual([503, 'service_unavailable', '5']);
      });
      await holding('billing_events', async () => {
        const res = await api.post('/v1/billing/plan', { plan: 'scale' });
        expect([res.statusCode, res.json().error.code, res.headers['retry-after']]).toEqual([503, 'service_unavailable', '5']);
      });
    } finally {
      await app.close();
      await db.end();
    }
  });
});
