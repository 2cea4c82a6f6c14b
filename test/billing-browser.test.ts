// The built-in billing provider end to end in real Chromium: the vendor's server opens a checkout
// session, the browser goes to its URL and clicks Pay, lands back on the vendor's page; /usage
// then shows the plan and `active`, and the organization's billing workflow runs with the plan
// and status as search attributes. Then the portal: plan change, failed payment, pay, cancel.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { type Browser } from 'playwright-core';
import { launchChromium } from './support/chromium.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { apiKeysRepository } from '../db/repositories/api-keys.ts';
import { billingStateQuery } from '../workflows/billing/signals.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { freePort, reservePort } from './support/ports.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';


describe('local billing provider in Chromium', () => {
  let t: TestApp;
  let worker: RunningWorker;
  let browser: Browser;
  let vendor: http.Server;
  let vendorOrigin: string;

  beforeAll(async () => {
    // Held from here to the listen below: the port is baked into the config, with seconds between.
    const { port: apiPort, release: releaseApiPort } = await reservePort();
    const apiOrigin = `http://127.0.0.1:${apiPort}`;
    t = await createTestApp({ config: { HOSTGATE_PUBLIC_URL: apiOrigin, HOSTGATE_API_PORT: String(apiPort) } });
    await releaseApiPort();
    await t.app.listen({ host: '127.0.0.1', port: apiPort });
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    const vendorPort = await freePort();
    vendorOrigin = `http://127.0.0.1:${vendorPort}`;
    vendor = http.createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><title>Vendor</title></head><body><h1 id="vendor">Vendor page ${req.url}</h1></body></html>`);
    });
    await new Promise<void>((resolve) => vendor.listen(vendorPort, '127.0.0.1', resolve));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (vendor ? vendor.close(resolve) : resolve(undefined)));
    await worker?.stop();
    await t?.close();
  });

  it('checkout page → Pay → back at the vendor; /usage shows active and the plan; the portal changes the plan, fails and pays, cancels', async () => {
    const org = await organizationsRepository(t.database.db).create({ name: 'Browser billing', allowedReturnOrigins: [vendorOrigin] });
    const { secret } = await apiKeysRepository(t.database.db).create({ organizationId: org.id, scopes: ['billing:write'] });
    const api = client(t.app, { authorization: `Bearer ${secret}` });
    const checkout = await api.post('/v1/billing/checkout-session', { plan: 'growth', success_url: `${vendorOrigin}/billing/success`, cancel_url: `${vendorOrigin}/billing/canceled` });
    expect(checkout.statusCode).toBe(201);

    const page = await (await browser.newContext()).newPage();
    await page.goto(checkout.json().data.url);
    expect(await page.textContent('#plan')).toBe('growth');
    await Promise.all([page.waitForURL(`${vendorOrigin}/billing/success`), page.click('#pay')]);
    expect(await page.textContent('#vendor')).toBe('Vendor page /billing/success');
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'growth', billing_status: 'active', included_hostnames: 100 });

    // The organization's billing workflow took the event (started by it, through the outbox).
    const handle = t.temporal.client.workflow.getHandle(`billing/${org.id}`);
    await waitFor('the billing workflow', async () => (await handle.query(billingStateQuery).catch(() => null))?.subscription?.plan === 'growth', 30_000, 200);
    await waitFor('search attributes', async () => {
      const d = await handle.describe();
      return d.searchAttributes.HostgateBillingPlan?.[0] === 'growth' && d.searchAttributes.HostgateBillingStatus?.[0] === 'active';
    }, 30_000, 200);

    // The portal: plan change, a failed payment and paying it, cancellation.
    const portal = await api.post('/v1/billing/portal-session', { return_url: `${vendorOrigin}/account` });
    expect(portal.statusCode).toBe(201);
    await page.goto(portal.json().data.url);
    expect(await page.textContent('#status')).toBe('active');
    await page.selectOption('#plan-select', 'scale');
    await Promise.all([page.waitForLoadState(), page.click('#change-plan')]);
    await page.waitForSelector('#plan:text("scale")');
    expect((await api.get('/v1/usage')).json().data.plan).toBe('scale');
    await page.click('#fail-payment');
    await page.waitForSelector('#status:text("past_due")');
    expect((await api.get('/v1/usage')).json().data.billing_status).toBe('past_due');
    await page.click('#pay');
    await page.waitForSelector('#status:text("active")');
    await page.click('#cancel-subscription');
    await page.waitForSelector('#status:text("canceled")');
    expect((await api.get('/v1/usage')).json().data).toMatchObject({ plan: 'scale', billing_status: 'canceled' });
    await waitFor('the workflow to end at cancellation', async () => (await handle.describe()).status.name === 'COMPLETED', 30_000, 200);
    // A replay fixture of every signal path but the timers (test/replay.test.ts), when asked for.
    if (process.env.HG_RECORD_HISTORIES === '1') {
      const json = execFileSync('temporal', ['workflow', 'show', '--address', t.temporal.address, '--workflow-id', `billing/${org.id}`, '--output', 'json'], { encoding: 'utf8' });
      writeFileSync('test/histories/billing-checkout-plan-dunning-cancel.json', json);
    }
    await Promise.all([page.waitForURL(`${vendorOrigin}/account`), page.click('#return')]);
  }, 90_000);
});
