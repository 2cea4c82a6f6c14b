// The Stripe provider: the official SDK pointed at a fake of Stripe's REST API
// (test/support/fake-stripe.ts), and Stripe events signed with the SDK's
// generateTestHeaderString posted to our webhook route.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import pg from 'pg';
import Stripe from 'stripe';
import { createBillingActivities } from '../activities/billing.ts';
import { createBillingProvider } from '../billing/create-provider.ts';
import { sql } from '../db/pool.ts';
import { billingRepository } from '../db/repositories/billing.ts';
import { createLogger } from '../logging/logger.ts';
import { freePort } from './support/ports.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startFakeStripe, type FakeStripe } from './support/fake-stripe.ts';
import { client } from './support/http.ts';

const SECRET_KEY = 'sk_test_hostgate';
const WEBHOOK_SECRET = 'whsec_test_hostgate';
const PRICES = { starter: 'price_starter', growth: 'price_growth', scale: 'price_scale' };
const stripeEnv = (apiBase: string) => ({
  STRIPE_SECRET_KEY: SECRET_KEY, STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET, STRIPE_API_BASE: apiBase,
  STRIPE_PRICE_STARTER: PRICES.starter, STRIPE_PRICE_GROWTH: PRICES.growth, STRIPE_PRICE_SCALE: PRICES.scale,
});

describe('billing with Stripe (fake Stripe API, signed events)', () => {
  let fake: FakeStripe;
  let t: TestApp;
  const signer = new Stripe(SECRET_KEY);
  let n = 0;

  beforeAll(async () => {
    fake = await startFakeStripe({ secretKey: SECRET_KEY, prices: Object.values(PRICES) });
    t = await createTestApp({ config: stripeEnv(fake.url) });
  });
  afterAll(async () => {
    await t?.close();
    await fake?.close();
  });

  function stripeEvent(type: string, object: Record<string, unknown>, id = `evt_test_${Date.now()}_${++n}`) {
    return { id, object: 'event', type, created: Math.floor(Date.now() / 1000), livemode: false, api_version: Stripe.API_VERSION, pending_webhooks: 1, request: null, data: { object } };
  }
  function post(event: unknown, signature?: string) {
    const payload = JSON.stringify(event);
    const header = signature ?? signer.webhooks.generateTestHeaderString({ payload, secret: WEBHOOK_SECRET });
    return t.app.inject({ method: 'POST', url: '/v1/billing/stripe/webhook', headers: { 'content-type': 'application/json', 'stripe-signature': header }, payload });
  }
  const outboxCount = async (orgId: string) => t.database.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where kind = 'signal_billing' and payload->>'organizationId' = ${orgId}`);

  /** Checkout through our API, then Stripe's checkout.session.completed for it. */
  async function subscribe(plan: 'starter' | 'growth' | 'scale') {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const created = await api.post('/v1/billing/checkout-session', { plan, success_url: 'https://vendor.example/ok' });
    expect(created.statusCode).toBe(201);
    const customer = `cus_test_${++n}`;
    const subscription = fake.addSubscription({ customer, price: PRICES[plan], plan });
    const completed = stripeEvent('checkout.session.completed', {
      id: created.json().data.id, object: 'checkout.session', mode: 'subscription', client_reference_id: o.org.id,
      customer, subscription: subscription.id, metadata: { organization_id: o.org.id, plan },
    });
    const res = await post(completed);
    expect([res.statusCode, res.json()]).toEqual([200, { received: true, result: 'processed' }]);
    return { ...o, api, customer, subscription, completed };
  }

  it('checkout: Checkout in subscription mode with the plan\'s price, form-encoded, with Stripe-Version and Idempotency-Key', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const res = await client(t.app, auth).post('/v1/billing/checkout-session', { plan: 'growth', success_url: 'https://vendor.example/ok', cancel_url: 'https://vendor.example/no' });
    expect(res.statusCode).toBe(201);
    expect(res.json().data).toEqual({ id: expect.stringMatching(/^cs_test_/), url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_test_/) });
    const sent = fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!;
    expect(sent.headers['stripe-version']).toBe(Stripe.API_VERSION);
    expect(sent.headers['idempotency-key']).toEqual(expect.any(String));
    expect(sent.headers['content-type']).toMatch(/^application\/x-www-form-urlencoded/);
    expect(sent.form).toMatchObject({
      mode: 'subscription', 'line_items[0][price]': 'price_growth', 'line_items[0][quantity]': '1',
      success_url: 'https://vendor.example/ok', cancel_url: 'https://vendor.example/no', client_reference_id: org.id,
      'metadata[plan]': 'growth', 'subscription_data[metadata][organization_id]': org.id,
    });
    expect(await t.database.db.oneFirst(sql.unsafe`select plan from billing_checkout_sessions where id = ${res.json().data.id}`)).toBe('growth');
  });

  it('checkout.session.completed (signed) → active with the plan; the same event id again → 200, processed once', async () => {
    const { org, api, completed } = await subscribe('growth');
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'growth', billing_status: 'active', included_hostnames: 100 });
    expect(await outboxCount(org.id)).toBe(1);
    const replay = await post(completed);
    expect([replay.statusCode, replay.json()]).toEqual([200, { received: true, result: 'duplicate' }]);
    expect(await outboxCount(org.id)).toBe(1);
    expect(await t.database.db.oneFirst(sql.unsafe`select count(*)::int from billing_events where provider = 'stripe' and event_id = ${completed.id}`)).toBe(1);
  });

  it('a wrong or missing signature → 400 invalid_signature, and nothing is applied', async () => {
    const { org } = await createOrgWithKey(t);
    const event = stripeEvent('checkout.session.completed', { id: 'cs_test_forged', object: 'checkout.session', mode: 'subscription', client_reference_id: org.id, customer: 'cus_x', subscription: 'sub_x', metadata: { plan: 'scale' } });
    const payload = JSON.stringify(event);
    const forged = signer.webhooks.generateTestHeaderString({ payload, secret: 'whsec_not_ours' });
    const wrong = await post(event, forged);
    expect([wrong.statusCode, wrong.json().error.code]).toEqual([400, 'invalid_signature']);
    // A valid signature of another body does not cover this one.
    const other = signer.webhooks.generateTestHeaderString({ payload: payload.replace('scale', 'starter'), secret: WEBHOOK_SECRET });
    expect((await post(event, other)).statusCode).toBe(400);
    const missing = await t.app.inject({ method: 'POST', url: '/v1/billing/stripe/webhook', headers: { 'content-type': 'application/json' }, payload });
    expect([missing.statusCode, missing.json().error.code]).toEqual([400, 'invalid_signature']);
    expect(await t.database.db.oneFirst(sql.unsafe`select billing_status from organizations where id = ${org.id}`)).toBe('inactive');
  });

  it('plan change: subscriptions.update with the new price and proration, our Idempotency-Key; /usage shows the plan', async () => {
    const { api, auth, subscription } = await subscribe('starter');
    const res = await t.app.inject({ method: 'POST', url: '/v1/billing/plan', headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'upgrade-1' }, payload: JSON.stringify({ plan: 'scale' }) });
    expect(res.statusCode).toBe(200);
    expect(res.json().data).toMatchObject({ plan: 'scale', included_hostnames: 1000 });
    const update = fake.requests.filter((r) => r.method === 'POST' && r.path === `/v1/subscriptions/${subscription.id}`).at(-1)!;
    expect(update.form).toMatchObject({ 'items[0][id]': subscription.items.data[0]!.id, 'items[0][price]': 'price_scale', proration_behavior: 'create_prorations' });
    expect(update.headers['idempotency-key']).toMatch(/^plan-org_.*-upgrade-1$/);
    expect((await api.get('/v1/usage')).json().data.plan).toBe('scale');
    // Stripe's own customer.subscription.updated that follows finds the same state.
    const followUp = await post(stripeEvent('customer.subscription.updated', { ...subscription }));
    expect(followUp.statusCode).toBe(200);
    expect((await api.get('/v1/usage')).json().data.plan).toBe('scale');
  });

  it('portal: a Billing Portal session for the customer; invoice.payment_failed → past_due, invoice.paid → active, deleted → canceled', async () => {
    const { api, customer, subscription } = await subscribe('growth');
    const portal = await api.post('/v1/billing/portal-session', { return_url: 'https://vendor.example/account' });
    expect(portal.statusCode).toBe(201);
    expect(portal.json().data.url).toMatch(/^https:\/\/billing\.stripe\.test\/p\/session\//);
    expect(fake.requests.filter((r) => r.path === '/v1/billing_portal/sessions').at(-1)!.form).toEqual({ customer, return_url: 'https://vendor.example/account' });
    const invoice = (extra: Record<string, unknown> = {}) => ({ id: `in_test_${++n}`, object: 'invoice', billing_reason: 'subscription_cycle', parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id } }, period_start: 0, period_end: 0, ...extra });
    expect((await post(stripeEvent('invoice.payment_failed', invoice()))).statusCode).toBe(200);
    expect((await api.get('/v1/usage')).json().data.billing_status).toBe('past_due');
    expect((await post(stripeEvent('invoice.paid', invoice()))).statusCode).toBe(200);
    expect((await api.get('/v1/usage')).json().data.billing_status).toBe('active');
    expect((await post(stripeEvent('customer.subscription.deleted', { ...subscription, status: 'canceled' }))).statusCode).toBe(200);
    expect((await api.get('/v1/usage')).json().data.billing_status).toBe('canceled');
    // Subscribing again reuses the Stripe customer instead of creating a second one.
    expect((await api.post('/v1/billing/checkout-session', { plan: 'starter' })).statusCode).toBe(201);
    expect(fake.requests.filter((r) => r.path === '/v1/checkout/sessions').at(-1)!.form.customer).toBe(customer);
    // Events we do not act on, and ones about subscriptions we do not know, are acknowledged.
    expect((await post(stripeEvent('customer.created', { id: 'cus_other', object: 'customer' }))).json()).toEqual({ received: true, result: 'not_handled' });
    expect((await post(stripeEvent('invoice.paid', invoice({ parent: { type: 'subscription_details', subscription_details: { subscription: 'sub_unknown' } } })))).json()).toEqual({ received: true, result: 'ignored' });
  });

  it('the period\'s overage goes on Stripe\'s renewal invoice as an invoice item, once', async () => {
    const { org, customer } = await subscribe('starter');
    const db = t.database.db;
    const dst = await db.oneFirst(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values (${`dst_${org.id}`}, ${org.id}, 'https://app.example.com', 'app.example.com', 443) returning id`);
    for (let i = 0; i < 14; i++) await db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values (${`dom_${org.id}_${i}`}, ${org.id}, ${dst as string}, ${`h${i}-${org.id.toLowerCase()}.stripe-overage.test`}, false)`);
    // Stripe's renewal invoice covers the period that just ended (its bounds a few seconds off ours).
    const periodEnd = await db.oneFirst(sql.unsafe`select current_period_end + interval '3 seconds' from billing_subscriptions where organization_id = ${org.id}`) as string;
    const activities = createBillingActivities({ db, logger: createLogger('silent', 'test'), config: t.config, provider: createBillingProvider(t.config, db) });
    const first = await activities.attachOverageToInvoice({ organizationId: org.id, providerInvoiceId: 'in_test_renewal', invoicePeriodEnd: periodEnd, plan: 'starter' });
    expect(first).toEqual({ itemId: expect.stringMatching(/^ii_test_/), amountCents: 60 });
    const items = fake.requests.filter((r) => r.path === '/v1/invoiceitems');
    expect(items.at(-1)!.form).toMatchObject({ customer, invoice: 'in_test_renewal', amount: '60', currency: 'eur' });
    expect(items.at(-1)!.headers['idempotency-key']).toMatch(/^overage-inv_local_/);
    // A retried activity (or a second invoice.created) adds nothing.
    const again = await activities.attachOverageToInvoice({ organizationId: org.id, providerInvoiceId: 'in_test_renewal', invoicePeriodEnd: periodEnd, plan: 'starter' });
    expect(again).toEqual({ itemId: null, amountCents: 60 });
    expect(fake.requests.filter((r) => r.path === '/v1/invoiceitems').length).toBe(items.length);
    expect(await db.one(sql.unsafe`select provider_invoice_id, total_cents, peak_hostnames from invoices where organization_id = ${org.id}`)).toEqual({ provider_invoice_id: 'in_test_renewal', total_cents: 60, peak_hostnames: 14 });
  });

  it('a paid checkout session we have no row for (its insert failed after Stripe made it) still starts the subscription; another deployment\'s organization is ignored', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const sub = fake.addSubscription({ customer: 'cus_test_orphan', price: PRICES.starter, plan: 'starter' });
    const event = (orgId: string) => stripeEvent('checkout.session.completed', {
      id: `cs_test_orphan_${orgId}`, object: 'checkout.session', mode: 'subscription', client_reference_id: orgId, customer: sub.customer, subscription: sub.id, metadata: { organization_id: orgId, plan: 'starter' },
    });
    expect((await post(event(org.id))).json()).toEqual({ received: true, result: 'processed' });
    expect((await client(t.app, auth).get('/v1/usage')).json().data).toMatchObject({ plan: 'starter', billing_status: 'active' });
    expect(await t.database.db.oneFirst(sql.unsafe`select status from billing_checkout_sessions where id = ${`cs_test_orphan_${org.id}`}`)).toBe('completed');
    const foreign = await post(event('org_of_another_deployment'));
    expect([foreign.statusCode, foreign.json()]).toEqual([200, { received: true, result: 'ignored' }]);
  });

  it('a newer checkout expires the earlier open one at Stripe: only the newest can be paid', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const first = (await api.post('/v1/billing/checkout-session', { plan: 'starter' })).json().data.id as string;
    const second = (await api.post('/v1/billing/checkout-session', { plan: 'growth' })).json().data.id as string;
    const expire = fake.requests.filter((r) => r.method === 'POST' && r.path.endsWith('/expire'));
    expect(expire.map((r) => r.path)).toEqual([`/v1/checkout/sessions/${first}/expire`]);
    expect(expire[0]!.headers['idempotency-key']).toBe(`expire-${first}`);
    expect([fake.checkoutSessions.get(first)!.status, fake.checkoutSessions.get(second)!.status]).toEqual(['expired', 'open']);
    expect(await t.database.db.any(sql.unsafe`select id, status from billing_checkout_sessions where organization_id = ${org.id} order by created_at, id`))
      .toEqual([{ id: first, status: 'canceled' }, { id: second, status: 'open' }]);
    // Opened at the same moment: each expires only the ones older than its own, so one stays open.
    const burst = await Promise.all([1, 2, 3].map(() => api.post('/v1/billing/checkout-session', { plan: 'scale' })));
    expect(burst.map((r) => r.statusCode)).toEqual([201, 201, 201]);
    expect(await t.database.db.anyFirst(sql.unsafe`select id from billing_checkout_sessions where organization_id = ${org.id} and status = 'open'`)).toHaveLength(1);
  });

  it('a session that started first but committed after a newer one\'s read is still found superseded', async () => {
    // The interleaving behind two sessions left open: X's transaction starts first (earlier
    // created_at), Y's call reads while X is uncommitted, then X commits and reads. X's read must
    // list X itself (Y is newer), not "nothing older than X".
    const { org, auth } = await createOrgWithKey(t);
    const billing = billingRepository(t.database.db);
    // A connection of its own: slonik would send the API's queries into a transaction of the pool.
    const x = new pg.Client({ connectionString: t.database.url });
    await x.connect();
    try {
      await x.query('begin');
      await x.query(`insert into billing_checkout_sessions (id, organization_id, provider, plan, expires_at) values ($1, $2, 'stripe', 'starter', now() + interval '1 hour')`, [`cs_test_x_${org.id}`, org.id]);
      await new Promise((r) => setTimeout(r, 20));
      const created = await client(t.app, auth).post('/v1/billing/checkout-session', { plan: 'growth' });
      expect(created.statusCode).toBe(201);
      await x.query('commit');
    } finally {
      await x.end();
    }
    expect(await billing.openCheckoutSessionsSuperseded(org.id)).toEqual([{ id: `cs_test_x_${org.id}`, provider: 'stripe' }]);
  });

  it('two checkouts paid within moments: the first is the subscription, the second is kept out, canceled and refunded once', async () => {
    const { org, auth } = await createOrgWithKey(t);
    const api = client(t.app, auth);
    const a = (await api.post('/v1/billing/checkout-session', { plan: 'growth' })).json().data.id as string;
    // The payer finishes the first tab before the second is opened: Stripe refuses to expire it.
    fake.checkoutSessions.get(a)!.status = 'complete';
    const b = (await api.post('/v1/billing/checkout-session', { plan: 'scale' })).json().data.id as string;
    expect(fake.requests.filter((r) => r.path === `/v1/checkout/sessions/${a}`).map((r) => r.method)).toEqual(['GET']);
    expect(await t.database.db.oneFirst(sql.unsafe`select status from billing_checkout_sessions where id = ${a}`)).toBe('open');
    // …and pays the second too before the first's completion event has arrived.
    const subA = fake.addSubscription({ customer: 'cus_test_tab_a', price: PRICES.growth, plan: 'growth', amount: 9900 });
    const subB = fake.addSubscription({ customer: 'cus_test_tab_b', price: PRICES.scale, plan: 'scale', amount: 29900 });
    const completed = (session: string, sub: typeof subA, plan: string) => stripeEvent('checkout.session.completed', {
      id: session, object: 'checkout.session', mode: 'subscription', client_reference_id: org.id, customer: sub.customer, subscription: sub.id, metadata: { organization_id: org.id, plan },
    });
    expect((await post(completed(a, subA, 'growth'))).json()).toEqual({ received: true, result: 'processed' });
    expect((await post(completed(b, subB, 'scale'))).json()).toEqual({ received: true, result: 'processed' });
    // The live subscription is the first, unchanged; the second went to the workflow to cancel.
    expect(await t.database.db.one(sql.unsafe`select subscription_id, plan from billing_subscriptions where organization_id = ${org.id}`)).toEqual({ subscription_id: subA.id, plan: 'growth' });
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'growth', billing_status: 'active' });
    const signals = await t.database.db.anyFirst(sql.unsafe`select payload->'signal'->'duplicate' from workflow_outbox where kind = 'signal_billing' and payload->>'organizationId' = ${org.id} order by id`);
    expect(signals).toEqual([null, { subscriptionId: subB.id, customerId: 'cus_test_tab_b', checkoutSessionId: b }]);
    // What the billing workflow's activity then does, twice (a retry): one cancel, one refund.
    const activities = createBillingActivities({ db: t.database.db, logger: createLogger('silent', 'test'), config: t.config, provider: createBillingProvider(t.config, t.database.db) });
    const duplicate = signals[1] as { subscriptionId: string; customerId: string; checkoutSessionId: string };
    expect(await activities.cancelDuplicateSubscription({ organizationId: org.id, duplicate })).toEqual({ refundedCents: 29900 });
    expect(await activities.cancelDuplicateSubscription({ organizationId: org.id, duplicate })).toEqual({ refundedCents: 29900 });
    expect(fake.subscriptions.get(subB.id)!.status).toBe('canceled');
    expect(fake.subscriptions.get(subA.id)!.status).toBe('active');
    expect(fake.requests.filter((r) => r.method === 'DELETE' && r.path === `/v1/subscriptions/${subB.id}`)).toHaveLength(1);
    expect(fake.refunds.filter((r) => r.payment_intent && r.amount === 29900)).toHaveLength(1);
    expect(fake.requests.filter((r) => r.path === '/v1/refunds').at(-1)!.form).toMatchObject({ reason: 'duplicate' });
  });

  it('Stripe refusing our key (401) → 500 internal_error, not the provider\'s status or message', async () => {
    const misconfigured = await createTestApp({ config: { ...stripeEnv(fake.url), STRIPE_SECRET_KEY: 'sk_test_revoked' } });
    try {
      const { auth } = await createOrgWithKey(misconfigured);
      const res = await client(misconfigured.app, auth).post('/v1/billing/checkout-session', { plan: 'starter' });
      expect(fake.requests.at(-1)!.headers.authorization).toBe('Bearer sk_test_revoked');
      expect([res.statusCode, res.json().error.code]).toEqual([500, 'internal_error']);
      expect(JSON.stringify(res.json())).not.toMatch(/Invalid API Key|sk_test/);
    } finally {
      await misconfigured.close();
    }
  });

  it('Stripe unreachable → 503 service_unavailable with Retry-After', async () => {
    const down = await createTestApp({ config: stripeEnv(`http://127.0.0.1:${await freePort()}`) });
    try {
      const { auth } = await createOrgWithKey(down);
      const res = await client(down.app, auth).post('/v1/billing/checkout-session', { plan: 'starter' });
      expect(res.statusCode).toBe(503);
      expect(res.json().error).toMatchObject({ code: 'service_unavailable', details: { provider: 'stripe' } });
      expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await down.close();
    }
  });
  it('Stripe trickling its answer (one byte every second, which keeps the SDK\'s idle timeout from firing) → 503 within the 10 s budget', async () => {
    const sockets = new Set<import('node:net').Socket>();
    const trickle = http.createServer((req, res) => {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      const timer = setInterval(() => res.write(' '), 1000);
      res.on('close', () => clearInterval(timer));
    });
    trickle.on('connection', (socket) => { sockets.add(socket); socket.on('close', () => sockets.delete(socket)); });
    await new Promise<void>((r) => trickle.listen(0, '127.0.0.1', r));
    const slow = await createTestApp({ config: stripeEnv(`http://127.0.0.1:${(trickle.address() as import('node:net').AddressInfo).port}`) });
    try {
      const { auth } = await createOrgWithKey(slow);
      const started = Date.now();
      const res = await client(slow.app, auth).post('/v1/billing/checkout-session', { plan: 'starter' });
      const took = Date.now() - started;
      expect([res.statusCode, res.json().error.code, res.headers['retry-after']]).toEqual([503, 'service_unavailable', '5']);
      expect(res.json().error.message).toMatch(/payment provider is unreachable; retry in 5 s/);
      expect(took).toBeGreaterThanOrEqual(9_900);
      // Without the whole-call bound the SDK would wait as long as bytes keep coming.
      expect(took).toBeLessThan(20_000);
    } finally {
      await slow.close();
      for (const socket of sockets) socket.destroy();
      await new Promise((r) => trickle.close(r));
    }
  }, 40_000);
});
