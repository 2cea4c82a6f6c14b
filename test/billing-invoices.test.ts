// GET /v1/billing/invoices and /{id}, and the SDK's billing.invoices, against the real API and
// Postgres. The invoices are made the way production makes them: a subscription through the local
// provider (checkout → the local page → Pay), then the billing workflow's period-close activity
// (closeBillingPeriod) on each period in turn, with domains added in between so each period has
// its own peak.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import net from 'node:net';
import { createBillingActivities } from '../activities/billing.ts';
import { createBillingProvider } from '../billing/create-provider.ts';
import { sql } from '../db/pool.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { billingRepository } from '../db/repositories/billing.ts';
import { createLogger } from '../logging/logger.ts';
import { Hostgate, HostgateInvalidRequestError, HostgateNotFoundError } from '../sdk/src/index.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';

type Json = any;

describe('billing invoices', () => {
  let t: TestApp;
  let baseUrl: string;
  let n = 0;

  beforeAll(async () => {
    t = await createTestApp({ config: { HOSTGATE_PUBLIC_URL: 'http://localhost:3000', HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000' } });
    await t.app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(t.app.server.address() as net.AddressInfo).port}`;
  });
  afterAll(async () => { await t?.close(); });

  const activities = () => createBillingActivities({ db: t.database.db, logger: createLogger('silent', 'test'), config: t.config, provider: createBillingProvider(t.config, t.database.db) });

  /** A starter subscription through the local provider: checkout, then Pay on its page. */
  async function subscribed() {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    const res = await api.post('/v1/billing/checkout-session', { plan: 'starter' });
    expect(res.statusCode).toBe(201);
    const paid = await t.app.inject({ method: 'POST', url: `${new URL(res.json().data.url).pathname}/pay`, headers: { 'content-type': 'application/x-www-form-urlencoded' }, payload: '' });
    expect(paid.statusCode).toBe(303);
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'starter', billing_status: 'active' });
    return { ...o, api };
  }

  /** `count` more counted domains (pending_dns) for the organization. */
  async function addDomains(orgId: string, count: number) {
    const db = t.database.db;
    const dst = `dst_${orgId.slice(4)}`;
    await db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values (${dst}, ${orgId}, 'https://app.example.com', 'app.example.com', 443) on conflict do nothing`);
    for (let i = 0; i < count; i++) {
      const k = ++n;
      await db.query(sql.unsafe`insert into domains (id, organization_id, destination_id, hostname, is_apex) values (${`dom_${orgId.slice(4)}${k}`}, ${orgId}, ${dst}, ${`h${k}-${orgId.toLowerCase()}.invoices.test`}, false)`);
    }
  }

  /** Closes the organization's current period as the billing workflow does at its end. */
  async function closeCurrentPeriod(api: ReturnType<typeof client>, orgId: string) {
    const usage = (await api.get('/v1/usage')).json().data;
    const closed = await activities().closeBillingPeriod({ organizationId: orgId, periodStart: usage.period_start, periodEnd: usage.period_end, plan: usage.plan });
    expect(closed.periodStart).toBe(usage.period_start);
    return closed;
  }

  // One subscribed organization with three closed periods (peaks 12, 15, 16 on starter's 10),
  // and another organization with one closed period within its plan.
  let a: Awaited<ReturnType<typeof subscribed>>;
  let b: Awaited<ReturnType<typeof createOrgWithKey>> & { api: ReturnType<typeof client> };
  let aInvoices: string[]; // oldest period first
  let bInvoice: string;

  beforeAll(async () => {
    a = await subscribed();
    aInvoices = [];
    for (const add of [12, 3, 1]) {
      await addDomains(a.org.id, add);
      aInvoices.push((await closeCurrentPeriod(a.api, a.org.id)).invoiceId);
    }
    const other = await createOrgWithKey(t, undefined, 'Other org');
    b = { ...other, api: client(t.app, other.auth) };
    await addDomains(b.org.id, 2);
    bInvoice = (await closeCurrentPeriod(b.api, b.org.id)).invoiceId;
  });

  it('lists newest period first, one per page with limit=1, each page\'s cursor leading to the next', async () => {
    const seen: Json[] = [];
    let cursor: string | null = null;
    const hasMore: boolean[] = [];
    do {
      const res = await a.api.get(`/v1/billing/invoices?limit=1${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body.data).toHaveLength(1);
      seen.push(...body.data);
      hasMore.push(body.has_more);
      cursor = body.next_cursor;
      expect(cursor === null).toBe(!body.has_more);
    } while (cursor);
    expect(hasMore).toEqual([true, true, false]);
    expect(seen.map((i) => i.id)).toEqual([...aInvoices].reverse());
    expect(seen.map((i) => i.peak_hostnames)).toEqual([16, 15, 12]);
    // Consecutive periods, each starting where the previous one ended, newest first.
    expect(seen[0].period_start).toBe(seen[1].period_end);
    expect(seen[1].period_start).toBe(seen[2].period_end);
    // The default page holds them all, in the same order and the same shape.
    const all = (await a.api.get('/v1/billing/invoices')).json();
    expect(all).toEqual({ data: seen, has_more: false, next_cursor: null });
  });

  it('retrieves an invoice with its overage item and totals; the list shows the same object', async () => {
    const res = await a.api.get(`/v1/billing/invoices/${aInvoices[2]}`);
    expect(res.statusCode).toBe(200);
    const invoice = res.json().data;
    expect(invoice).toEqual({
      id: aInvoices[2],
      period_start: expect.any(String),
      period_end: expect.any(String),
      plan: 'starter',
      peak_hostnames: 16,
      included_hostnames: 10,
      overage_hostnames: 6,
      unit_amount_cents: 15,
      total_cents: 90,
      currency: 'eur',
      provider_invoice_id: null,
      items: [{ kind: 'overage_hostnames', quantity: 6, unit_amount_cents: 15, amount_cents: 90, description: expect.stringContaining('(peak 16)') }],
      created_at: expect.any(String),
    });
    expect(Date.parse(invoice.period_end) - Date.parse(invoice.period_start)).toBeGreaterThanOrEqual(28 * 86_400_000);
    expect((await a.api.get('/v1/billing/invoices?limit=1')).json().data[0]).toEqual(invoice);
    const first = (await a.api.get(`/v1/billing/invoices/${aInvoices[0]}`)).json().data;
    expect(first).toMatchObject({ peak_hostnames: 12, overage_hostnames: 2, total_cents: 30, items: [{ quantity: 2, amount_cents: 30 }] });
  });

  it('a period within the plan: an item of quantity 0 and a total of 0', async () => {
    const invoice = (await b.api.get(`/v1/billing/invoices/${bInvoice}`)).json().data;
    expect(invoice).toMatchObject({ plan: 'starter', peak_hostnames: 2, overage_hostnames: 0, total_cents: 0, items: [{ kind: 'overage_hostnames', quantity: 0, unit_amount_cents: 15, amount_cents: 0 }] });
    expect((await b.api.get('/v1/billing/invoices')).json().data.map((i: Json) => i.id)).toEqual([bInvoice]);
  });

  it('with Stripe, provider_invoice_id is the renewal invoice the overage item went on', async () => {
    const o = await createOrgWithKey(t);
    const api = client(t.app, o.auth);
    await addDomains(o.org.id, 11);
    const { invoiceId } = await closeCurrentPeriod(api, o.org.id);
    // What attachOverageToInvoice records once Stripe has taken the item (test/billing-stripe.test.ts).
    await billingRepository(t.database.db).setProviderInvoice(invoiceId, 'in_test_renewal', 'ii_test_item');
    const invoice = (await api.get(`/v1/billing/invoices/${invoiceId}`)).json().data;
    expect(invoice).toMatchObject({ provider_invoice_id: 'in_test_renewal', overage_hostnames: 1, total_cents: 15 });
    expect(JSON.stringify(invoice)).not.toContain('ii_test_item');
  });

  it('another organization\'s invoice answers exactly like a missing one: 404 invoice_not_found on id', async () => {
    const foreign = await a.api.get(`/v1/billing/invoices/${bInvoice}`);
    const unknown = await a.api.get('/v1/billing/invoices/inv_local_doesnotexist000000000000');
    for (const [res, id] of [[foreign, bInvoice], [unknown, 'inv_local_doesnotexist000000000000']] as const) {
      expect(res.statusCode).toBe(404);
      expect(res.json().error).toEqual({ code: 'invoice_not_found', message: `invoice ${id} does not exist`, param: 'id', request_id: expect.any(String) });
    }
    expect(Object.keys(foreign.headers).sort()).toEqual(Object.keys(unknown.headers).sort());
    // Nor does it appear in the other organization's list.
    expect((await a.api.get('/v1/billing/invoices')).json().data.map((i: Json) => i.id)).not.toContain(bInvoice);
  });

  it('any key of the organization reads invoices (no scope needed)', async () => {
    const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: a.org.id, scopes: [] });
    const readOnly = client(t.app, { authorization: `Bearer ${secret}` });
    expect((await readOnly.get('/v1/billing/invoices')).json().data).toHaveLength(3);
    expect((await readOnly.get(`/v1/billing/invoices/${aInvoices[0]}`)).statusCode).toBe(200);
    expect((await t.app.inject({ method: 'GET', url: '/v1/billing/invoices' })).json().error.code).toBe('missing_api_key');
  });

  it('limit 1 and 100, the bounds, are accepted', async () => {
    expect((await a.api.get('/v1/billing/invoices?limit=1')).json().data).toHaveLength(1);
    expect((await a.api.get('/v1/billing/invoices?limit=100')).json()).toMatchObject({ has_more: false, next_cursor: null, data: { length: 3 } });
  });

  it.each(['0', '101', '-1', 'ten', '2.5'])('limit=%s → 400 invalid_request on limit', async (limit) => {
    const res = await a.api.get(`/v1/billing/invoices?limit=${limit}`);
    expect(res.statusCode).toBe(400);
    expect(res.json().error).toMatchObject({ code: 'invalid_request', param: 'limit' });
  });

  it('a malformed cursor, or one of another list, → 400 invalid_request on cursor; ours is refused by other lists', async () => {
    await a.api.post('/v1/destinations', { url: 'https://one.example.com' });
    await a.api.post('/v1/destinations', { url: 'https://two.example.com' });
    const destinationsCursor = (await a.api.get('/v1/destinations?limit=1')).json().next_cursor as string;
    expect(destinationsCursor).toEqual(expect.any(String));
    const invoicesCursor = (await a.api.get('/v1/billing/invoices?limit=1')).json().next_cursor as string;
    for (const [path, cursor] of [['/v1/billing/invoices', 'not-a-cursor'], ['/v1/billing/invoices', destinationsCursor], ['/v1/destinations', invoicesCursor], ['/v1/webhook-deliveries', invoicesCursor]] as const) {
      const res = await a.api.get(`${path}?cursor=${encodeURIComponent(cursor)}`);
      expect([path, res.statusCode, res.json().error?.code, res.json().error?.param]).toEqual([path, 400, 'invalid_request', 'cursor']);
    }
  });

  it('SDK: billing.invoices.list walks the pages newest first; retrieve answers the invoice; a foreign id is HostgateNotFoundError', async () => {
    const hg = new Hostgate({ apiKey: a.key, baseUrl });
    const pages = [];
    for await (const page of hg.billing.invoices.list({ limit: 1 })) pages.push(page);
    expect(pages.map((p) => [p.data.length, p.has_more])).toEqual([[1, true], [1, true], [1, false]]);
    expect(pages.flatMap((p) => p.data.map((i) => i.id))).toEqual([...aInvoices].reverse());
    const all = await hg.billing.invoices.list().toArray();
    expect(all.map((i) => i.id)).toEqual([...aInvoices].reverse());
    const one = await hg.billing.invoices.retrieve(aInvoices[1]!);
    expect(one).toMatchObject({ id: aInvoices[1], peak_hostnames: 15, overage_hostnames: 5, total_cents: 75, currency: 'eur', items: [{ kind: 'overage_hostnames', quantity: 5, amount_cents: 75 }] });
    expect(one.lastResponse.status).toBe(200);
    const { lastResponse: _meta, ...plain } = one;
    expect(plain).toEqual(all[1]);
    const missing = await hg.billing.invoices.retrieve(bInvoice).then(() => null, (e: unknown) => e);
    expect(missing).toBeInstanceOf(HostgateNotFoundError);
    expect(missing).toMatchObject({ status: 404, code: 'invoice_not_found', param: 'id' });
    const bad = await hg.billing.invoices.list({ limit: 0 }).firstPage().then(() => null, (e: unknown) => e);
    expect(bad).toBeInstanceOf(HostgateInvalidRequestError);
  });
});
