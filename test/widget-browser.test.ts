// <service-widget> in a real browser (Debian's Chromium through playwright-core) against the real
// app listening on loopback, with the real workflow, DNS server and Pebble behind it: a vendor
// page on another origin embeds the element, a customer enters a hostname, sees the records, DNS
// is made correct in the test DNS server and the status reaches `active`. Also: French, token
// expiry and resumption with a new token, a reload that comes back to the domain, re-entering a
// hostname, an internationalised hostname, setup mistakes (an origin not allowed, a missing or
// malformed token), the API unreachable then back (a TCP relay switched off), a 429 then success,
// removal from the page, demo mode without a single request, the /widget/demo page, and an
// axe-core accessibility scan of every step. Layout and themes: widget-layout.test.ts.
// Screenshots of each step in en and fr go to test/artifacts/widget/ (git-ignored) for review.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync } from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import { fileURLToPath } from 'node:url';
import { type Browser, type BrowserContext, type Page, type Request } from 'playwright-core';
import { axeViolations, launchChromium } from './support/chromium.ts';
import { widgetSessionsRepository } from '../db/repositories/widget-sessions.ts';
import { ensureWidgetBuilt } from '../widget/build.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { startAcmeStack, EDGE, type AcmeStack } from './support/acme-stack.ts';
import { client } from './support/http.ts';
import { freePort, reservePort } from './support/ports.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/widget/', import.meta.url));

interface Recorded { type: string; detail: Record<string, string> }

describe('<service-widget> in Chromium', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let worker: RunningWorker;
  let browser: Browser;
  let vendor: http.Server;
  let api: ReturnType<typeof client>;
  let apiOrigin: string;
  let pageOrigin: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    acme = await startAcmeStack();
    // Held from here to the listen below: the port is baked into the config, with seconds between.
    const { port: apiPort, release: releaseApiPort } = await reservePort();
    apiOrigin = `http://127.0.0.1:${apiPort}`;
    // The API serves what the build wrote (npm run build / npm start build it before the API starts).
    await ensureWidgetBuilt();
    t = await createTestApp({ config: { ...acme.configOverrides, HOSTGATE_PUBLIC_URL: apiOrigin, HOSTGATE_API_PORT: String(apiPort) } });
    await releaseApiPort();
    await t.app.listen({ host: '127.0.0.1', port: apiPort });
    await acme.serveChallenges(t.database.db);
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    await api.post('/v1/destinations', { url: 'https://app.vendor.example' });
    // The vendor's page: another origin (another port), loading the script from the API.
    const pagePort = await freePort();
    pageOrigin = `http://127.0.0.1:${pagePort}`;
    vendor = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vendor settings</title>
        <script type="module" src="${apiOrigin}/widget/v1/service-widget.js"></script></head>
        <body><main><h1>Custom domain</h1><div id="slot"></div></main>
        <script>window.events = []; for (const type of ['service:created', 'service:status', 'service:error']) document.addEventListener(type, (e) => window.events.push({ type, detail: e.detail }));</script>
        </body></html>`);
    });
    await new Promise<void>((resolve) => vendor.listen(pagePort, '127.0.0.1', resolve));
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (vendor ? vendor.close(resolve) : resolve(undefined)));
    await worker?.stop();
    await t?.close();
    await acme?.close();
  });

  async function session(externalCustomerId = 'cus_browser'): Promise<{ id: string; token: string }> {
    const res = await api.post('/v1/widget-sessions', { external_customer_id: externalCustomerId, allowed_origins: [pageOrigin] });
    expect(res.statusCode).toBe(201);
    return res.json().data;
  }

  /** A fresh context (own clock if asked) on the vendor page, with every request recorded. */
  async function vendorPage(options: { clock?: boolean; reducedMotion?: boolean } = {}): Promise<{ context: BrowserContext; page: Page; requests: Request[]; errors: string[] }> {
    const context = await browser.newContext({ viewport: { width: 760, height: 1000 }, reducedMotion: options.reducedMotion ? 'reduce' : 'no-preference' });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: pageOrigin });
    const page = await context.newPage();
    const requests: Request[] = [];
    page.on('request', (r) => requests.push(r));
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    if (options.clock) await page.clock.install();
    await page.goto(`${pageOrigin}/`);
    await page.waitForFunction(() => customElements.get('service-widget') !== undefined);
    return { context, page, requests, errors };
  }

  async function addWidget(page: Page, attributes: Record<string, string>) {
    await page.evaluate((attrs) => {
      const el = document.createElement('service-widget');
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      document.getElementById('slot')!.replaceChildren(el);
    }, attributes);
    await page.locator('service-widget h2').waitFor();
  }

  const events = (page: Page) => page.evaluate(() => (window as unknown as { events: Recorded[] }).events);
  const pollState = (page: Page) => page.evaluate(() => (document.querySelector('service-widget') as unknown as { pollState: string }).pollState);
  const focusedTag = (page: Page) => page.evaluate(() => document.querySelector('service-widget')!.shadowRoot!.activeElement?.tagName ?? null);
  const apiCalls = (requests: Request[]) => requests.filter((r) => r.url().startsWith(`${apiOrigin}/v1/`) && r.method() !== 'OPTIONS');
  const shot = (page: Page, name: string) => page.locator('service-widget').screenshot({ path: `${ARTIFACTS}${name}.png`, animations: 'disabled' });


  it('takes a customer from hostname to active HTTPS: records, live status, the three events in order', async () => {
    const { context, page, requests, errors } = await vendorPage();
    const hostname = 'shop.widget-one.test';
    // The customer's DNS starts behind Cloudflare's proxy: the widget must say what to change.
    acme.dns.set(hostname, [{ type: 'CNAME', value: 'widget-one.test.cdn.cloudflare.net' }]);
    acme.dns.set('widget-one.test.cdn.cloudflare.net', [{ type: 'A', value: '104.16.1.1' }]);
    await addWidget(page, { token: (await session()).token, lang: 'en' });
    await expect(page.locator('service-widget h2').textContent()).resolves.toBe('Connect your domain');
    await shot(page, 'en-1-hostname');
    expect(await axeViolations(page)).toEqual([]);

    // Client-side validation mirrors the server's: no request for an obviously wrong value.
    const input = page.getByLabel('Your domain');
    await input.fill('https://shop.example.com/path');
    await page.getByRole('button', { name: 'Continue' }).click();
    await expect(page.locator('service-widget [part~=error]').textContent()).resolves.toMatch(/no https:\/\//);
    expect(await input.getAttribute('aria-invalid')).toBe('true');
    expect(apiCalls(requests).filter((r) => r.method() === 'POST')).toEqual([]);

    await input.fill(`  Shop.Widget-One.test `);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    const createdAt = Date.now();
    expect(await focusedTag(page)).toBe('H2');
    const row = page.locator('service-widget [part~=record]');
    await expect(row.locator('dd').nth(0).textContent()).resolves.toContain('CNAME');
    await expect(row.locator('dd').nth(1).textContent()).resolves.toMatch(/^\s*shop\s*Copy\s*Full name: shop\.widget-one\.test\s*$/);
    await expect(row.locator('dd').nth(2).textContent()).resolves.toContain(EDGE);
    await page.getByRole('button', { name: `Copy value ${EDGE}` }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(EDGE);
    expect(await events(page)).toEqual([
      { type: 'service:created', detail: { id: expect.stringMatching(/^dom_/), hostname, hostname_unicode: hostname } },
      { type: 'service:status', detail: { id: expect.stringMatching(/^dom_/), status: 'pending_dns', hostname, hostname_unicode: hostname } },
    ]);

    // The first poll, 10 s after creation, shows what the last DNS check found and the hint.
    const hint = page.locator('service-widget [part~=verification] [part~=hint]');
    await hint.waitFor({ timeout: 25_000 });
    expect(await hint.textContent()).toContain('Turn off the Cloudflare proxy');
    const firstPoll = apiCalls(requests).find((r) => r.method() === 'GET');
    expect(firstPoll).toBeDefined();
    await expect(page.locator('service-widget [part~=verification]').textContent()).resolves.toMatch(/Expected\s*CNAME edge\.hostgate\.test\s*Found\s*CNAME widget-one\.test\.cdn\.cloudflare\.net, A 104\.16\.1\.1/);
    expect(Date.now() - createdAt).toBeGreaterThanOrEqual(9_000);
    await shot(page, 'en-2-dns');
    expect(await axeViolations(page)).toEqual([]);

    // The customer fixes DNS and says so: verify now, then the status goes live.
    acme.dns.set(hostname, [{ type: 'CNAME', value: EDGE }]);
    await page.getByRole('button', { name: 'I added the records' }).click();
    await page.getByRole('heading', { name: 'HTTPS status' }).waitFor();
    expect(await focusedTag(page)).toBe('H2');
    expect(apiCalls(requests).some((r) => r.method() === 'POST' && r.url().endsWith('/verify'))).toBe(true);
    await page.locator('service-widget [part~=badge]', { hasText: 'HTTPS is active' }).waitFor({ timeout: 40_000 });
    await expect(page.locator('service-widget [part=live]').textContent()).resolves.toContain('Status: HTTPS is active');
    // The HTTPS step is done too, and the link to the site is there.
    expect(await page.locator('service-widget [part~=steps] li.d').count()).toBe(3);
    expect(await page.locator('service-widget [part~=link]').getAttribute('href')).toBe(`https://${hostname}`);
    await shot(page, 'en-3-status');
    expect(await axeViolations(page)).toEqual([]);

    const seen = await events(page);
    expect(seen[0]).toEqual({ type: 'service:created', detail: { id: expect.any(String), hostname, hostname_unicode: hostname } });
    expect(seen.slice(1).map((e) => e.type).every((type) => type === 'service:status')).toBe(true);
    const statuses = seen.slice(1).map((e) => e.detail.status);
    expect(statuses[0]).toBe('pending_dns');
    expect(statuses.at(-1)).toBe('active');
    expect(statuses.every((s) => ['pending_dns', 'pending_certificate', 'active'].includes(s ?? ''))).toBe(true);
    expect(new Set(statuses).size).toBe(statuses.length); // one event per change
    const id = seen[0]!.detail.id;
    expect((await api.get(`/v1/domains/${id}`)).json().data).toMatchObject({ status: 'active', external_customer_id: 'cus_browser' });

    // Polling stopped at active: no request for more than an interval.
    expect(await pollState(page)).toBe('stopped');
    const before = apiCalls(requests).length;
    await page.waitForTimeout(11_000);
    expect(apiCalls(requests).length).toBe(before);

    // French, on the same element.
    await page.evaluate(() => document.querySelector('service-widget')!.setAttribute('lang', 'fr'));
    await page.getByRole('heading', { name: 'Statut HTTPS' }).waitFor();
    await expect(page.locator('service-widget [part~=badge]').textContent()).resolves.toContain('HTTPS est actif');
    await page.getByRole('button', { name: 'Revenir aux enregistrements' }).click();
    await page.getByRole('heading', { name: 'Ajoutez ces enregistrements DNS' }).waitFor();
    await expect(page.locator('service-widget [part~=records]').textContent()).resolves.toContain('Nom complet : shop.widget-one.test');
    expect(errors).toEqual([]);
    await context.close();
  }, 90_000);

  it('on token expiry emits widget_token_expired and pauses polling; a new token resumes it; removal stops it', async () => {
    const { context, page, requests, errors } = await vendorPage({ clock: true });
    const first = await session('cus_expiry');
    await addWidget(page, { token: first.token });
    await page.getByLabel('Your domain').fill('wait.widget-two.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    const gets = () => apiCalls(requests).filter((r) => r.method() === 'GET');
    // Until `count` polls were sent and answered, and the element has taken the answers in (the
    // next poll is scheduled only then, so only then may the fake clock move on).
    const waitGets = async (count: number) => {
      for (let i = 0; i < 100 && gets().length < count; i++) await page.waitForTimeout(50);
      expect(gets().length).toBe(count);
      await Promise.all(apiCalls(requests).map((r) => r.response()));
      await page.waitForTimeout(150);
    };

    // On load the element listed the customer's domains (none yet); then a poll every 10 s, not sooner.
    expect(gets().map((r) => r.url().replace(/\?.*/, ''))).toEqual([`${apiOrigin}/v1/widget/domains`]);
    await page.clock.runFor(9_000);
    await page.waitForTimeout(300);
    expect(gets()).toHaveLength(1);
    await page.clock.runFor(1_100);
    await waitGets(2);
    await page.clock.runFor(10_000);
    await waitGets(3);

    await widgetSessionsRepository(t.database.db).expire(first.id);
    await page.clock.runFor(10_000);
    await page.waitForFunction(() => (window as unknown as { events: Recorded[] }).events.some((e) => e.type === 'service:error'));
    const error = (await events(page)).find((e) => e.type === 'service:error');
    expect(error?.detail).toEqual({ code: 'widget_token_expired', message: expect.stringMatching(/expired/) });
    await expect(page.locator('service-widget [part~=error]').textContent()).resolves.toMatch(/expired/);
    expect(await pollState(page)).toBe('paused');
    const afterExpiry = gets().length;
    await page.clock.runFor(60_000);
    await page.waitForTimeout(300);
    expect(gets().length).toBe(afterExpiry);

    // The host page sets a new token (same customer): the element lists the customer's domains,
    // finds its own, and polls it with the new token.
    const second = await session('cus_expiry');
    await page.evaluate((token) => document.querySelector('service-widget')!.setAttribute('token', token), second.token);
    await waitGets(afterExpiry + 1);
    const listed = gets().at(-1)!;
    expect([listed.url().replace(/\?.*/, ''), listed.headers().authorization]).toEqual([`${apiOrigin}/v1/widget/domains`, `Bearer ${second.token}`]);
    expect((await listed.response())?.status()).toBe(200);
    expect(await pollState(page)).toBe('running');
    expect(await page.locator('service-widget [part~=error]').count()).toBe(0);
    await page.clock.runFor(10_000);
    await waitGets(afterExpiry + 2);
    const resumed = gets().at(-1)!;
    expect([resumed.url().startsWith(`${apiOrigin}/v1/widget/domains/dom_`), resumed.headers().authorization]).toEqual([true, `Bearer ${second.token}`]);
    expect((await resumed.response())?.status()).toBe(200);

    // Removed from the page: no more requests, whatever the time.
    await page.evaluate(() => document.querySelector('service-widget')!.remove());
    const atRemoval = apiCalls(requests).length;
    await page.clock.runFor(120_000);
    await page.waitForTimeout(300);
    expect(apiCalls(requests).length).toBe(atRemoval);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  /** Events of one type, in order. */
  const eventsOf = async (page: Page, type: string) => (await events(page)).filter((e) => e.type === type).map((e) => e.detail);
  const errorText = (page: Page) => page.locator('service-widget [part~=base] > [part~=error]').textContent();

  it('after a reload, with the same token or a new one for the same customer, returns to the domain; re-entering its hostname continues with it', async () => {
    const { context, page, errors } = await vendorPage();
    const first = await session('cus_reload');
    const hostname = 'shop.widget-reload.test';
    await addWidget(page, { token: first.token });
    await page.getByLabel('Your domain', { exact: true }).fill(hostname);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    const id = (await eventsOf(page, 'service:created'))[0]!.id;

    for (const token of [first.token, (await session('cus_reload')).token]) {
      await page.reload();
      await page.waitForFunction(() => customElements.get('service-widget') !== undefined);
      await addWidget(page, { token });
      await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
      await expect(page.locator('service-widget [part~=record]').textContent()).resolves.toContain('shop');
      // Resumed, not created: a status event for the domain, no service:created, focus left alone.
      expect(await events(page)).toEqual([{ type: 'service:status', detail: { id, status: 'pending_dns', hostname, hostname_unicode: hostname } }]);
      expect(await focusedTag(page)).toBeNull();
      expect(await pollState(page)).toBe('running');
    }

    // "Use another domain" says the first one is kept, lists it, and entering it again continues with it.
    await page.getByRole('button', { name: 'Use another domain' }).click();
    await page.getByRole('heading', { name: 'Connect your domain' }).waitFor();
    await expect(page.locator('service-widget [part~=form]').evaluate((f) => f.previousElementSibling?.textContent)).resolves.toMatch(/shop\.widget-reload\.test is kept/);
    await expect(page.locator('service-widget [part~=domains]').textContent()).resolves.toMatch(/shop\.widget-reload\.test\s*Waiting for DNS/);
    await page.setViewportSize({ width: 320, height: 900 });
    await shot(page, 'resume-1-kept-320');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Your domain', { exact: true }).fill(hostname);
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    expect(await eventsOf(page, 'service:created')).toEqual([]);
    expect(await eventsOf(page, 'service:error')).toEqual([]);
    expect((await eventsOf(page, 'service:status')).map((d) => d.id)).toEqual([id, id]);
    // And from the list, in one click.
    await page.getByRole('button', { name: 'Use another domain' }).click();
    await page.locator('service-widget [part~=domains] button').click();
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    expect(await focusedTag(page)).toBe('H2');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('shows an internationalised hostname as typed, with the punycode DNS needs beside it; events carry both', async () => {
    const { context, page, errors } = await vendorPage();
    await addWidget(page, { token: (await session('cus_idn')).token });
    await page.getByLabel('Your domain').fill('Bücher.Widget-IDN.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    const name = page.locator('service-widget [part~=record] dd').nth(1);
    await expect(name.textContent()).resolves.toMatch(/^\s*bücher\s*Copy\s*In DNS: xn--bcher-kva\s*Full name: bücher\.widget-idn\.test\s*$/);
    await page.getByRole('button', { name: 'Copy name xn--bcher-kva' }).click();
    await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe('xn--bcher-kva');
    const both = { hostname: 'xn--bcher-kva.widget-idn.test', hostname_unicode: 'bücher.widget-idn.test' };
    expect(await events(page)).toEqual([
      { type: 'service:created', detail: { id: expect.stringMatching(/^dom_/), ...both } },
      { type: 'service:status', detail: { id: expect.stringMatching(/^dom_/), status: 'pending_dns', ...both } },
    ]);
    await page.getByRole('button', { name: 'I added the records' }).click();
    await page.getByRole('heading', { name: 'HTTPS status' }).waitFor();
    await expect(page.locator('service-widget [part~=status]').evaluate((e) => e.previousElementSibling?.textContent)).resolves.toBe('bücher.widget-idn.test');
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('a page origin the session does not allow: a readable origin_forbidden, a setup message, what to fix on the console', async () => {
    const { context, page, errors } = await vendorPage();
    const logged: string[] = [];
    page.on('console', (m) => { if (m.type() === 'error') logged.push(m.text()); });
    const res = await api.post('/v1/widget-sessions', { external_customer_id: 'cus_origin', allowed_origins: ['https://app.vendor.example'] });
    await addWidget(page, { token: res.json().data.token });
    await page.locator('service-widget [part~=base] > [part~=error]').waitFor();
    expect(await errorText(page)).toBe('Connecting a domain is not available on this page yet. Please contact support.');
    expect(await events(page)).toEqual([{ type: 'service:error', detail: { code: 'origin_forbidden', message: 'Connecting a domain is not available on this page yet. Please contact support.' } }]);
    expect(logged.join('\n')).toContain(`origin_forbidden: this page's origin ${pageOrigin} is not in the allowed_origins of this widget session`);
    expect(await pollState(page)).not.toBe('running');
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  it('a missing token, or a malformed one: a setup error with its own code, never "cannot be reached"', async () => {
    const { context, page, errors } = await vendorPage();
    await addWidget(page, { lang: 'en' });
    await page.getByLabel('Your domain').fill('shop.widget-notoken.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('service-widget [part~=base] > [part~=error]').waitFor();
    expect(await errorText(page)).toMatch(/not available on this page yet/);
    expect(await eventsOf(page, 'service:error')).toEqual([{ code: 'missing_token', message: expect.stringMatching(/not available on this page yet/) }]);
    // Malformed: the API's answer is readable, so the code is the API's.
    await addWidget(page, { token: 'not-a-widget-token' });
    await page.locator('service-widget [part~=base] > [part~=error]').waitFor();
    expect((await eventsOf(page, 'service:error')).at(-1)).toEqual({ code: 'invalid_widget_token', message: expect.stringMatching(/not available on this page yet/) });
    expect(await errorText(page)).not.toMatch(/cannot be reached|Retrying/);
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  it('the API down then back: "Retrying…" only while retrying (with backoff), an honest message when it stops, one event per outage, cleared when back', async () => {
    // A TCP relay in front of the API that can be switched off: the API process really is unreachable.
    const port = await freePort();
    const sockets = new Set<net.Socket>();
    let relay: net.Server | null = null;
    const up = () => new Promise<void>((resolve) => {
      relay = net.createServer((client) => {
        const upstream = net.connect(Number(new URL(apiOrigin).port), '127.0.0.1');
        for (const s of [client, upstream]) { sockets.add(s); s.on('close', () => sockets.delete(s)); s.on('error', () => s.destroy()); }
        client.pipe(upstream).pipe(client);
      }).listen(port, '127.0.0.1', resolve);
    });
    const down = () => new Promise<void>((resolve) => { for (const s of sockets) s.destroy(); relay ? relay.close(() => resolve()) : resolve(); relay = null; });
    const { context, page, requests, errors } = await vendorPage({ clock: true });
    const relayOrigin = `http://127.0.0.1:${port}`;
    const calls = () => requests.filter((r) => r.url().startsWith(`${relayOrigin}/v1/`) && r.method() !== 'OPTIONS');
    try {
      await up();
      await addWidget(page, { token: (await session('cus_down')).token, 'api-base': relayOrigin });
      for (let i = 0; i < 50 && calls().length === 0; i++) await page.waitForTimeout(50);
      await calls()[0]!.response(); // the list on load, answered
      await down();
      await page.getByLabel('Your domain').fill('shop.widget-down.test');
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.locator('service-widget [part~=base] > [part~=error]', { hasText: 'Retrying…' }).waitFor();
      await page.clock.runFor(1_000); // second attempt, after 1 s
      await page.waitForTimeout(300);
      expect(await errorText(page)).toBe('The service cannot be reached. Retrying…');
      await page.clock.runFor(3_000); // third and last, after 3 s more
      await page.locator('service-widget [part~=base] > [part~=error]', { hasText: 'Try again in a moment' }).waitFor();
      expect(await eventsOf(page, 'service:error')).toEqual([{ code: 'widget_request_failed', message: 'The service cannot be reached. Try again in a moment.' }]);
      const keys = calls().filter((r) => r.method() === 'POST').map((r) => r.headers()['idempotency-key']);
      expect(new Set(keys).size).toBeLessThanOrEqual(1); // every attempt of one action: one Idempotency-Key

      await up();
      await page.getByRole('button', { name: 'Continue' }).click();
      await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
      expect(await page.locator('service-widget [part~=base] > [part~=error]').count()).toBe(0);

      // Down while polling: polls go on, backing off (10 s, then 20 s), the message says so, one event.
      await down();
      await page.clock.runFor(10_000);
      await page.locator('service-widget [part~=base] > [part~=error]', { hasText: 'Retrying…' }).waitFor();
      await page.clock.runFor(10_000);
      await page.waitForTimeout(300);
      expect(await eventsOf(page, 'service:error')).toHaveLength(2);
      expect(await pollState(page)).toBe('running');
      await up();
      const before = calls().length;
      await page.clock.runFor(10_000); // within the 20 s backoff: no poll yet
      await page.waitForTimeout(300);
      expect(calls().length).toBe(before);
      await page.clock.runFor(10_000);
      for (let i = 0; i < 50 && calls().length === before; i++) await page.waitForTimeout(50);
      await calls().at(-1)?.response();
      await page.waitForTimeout(200);
      expect(await page.locator('service-widget [part~=base] > [part~=error]').count()).toBe(0);
      expect(await eventsOf(page, 'service:error')).toHaveLength(2);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
      await down();
    }
  }, 60_000);

  it('a 429 on "Check now" shows "Too many attempts", and the next successful poll clears it', async () => {
    const { context, page, errors } = await vendorPage({ clock: true });
    const { token } = await session('cus_429');
    await addWidget(page, { token });
    await page.getByLabel('Your domain').fill('shop.widget-limit.test');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    const id = (await eventsOf(page, 'service:created'))[0]!.id;
    // Another tab of the same session spends the reading budget (burst 3).
    for (let i = 0; i < 3; i++) await t.app.inject({ method: 'GET', url: `/v1/widget/domains/${id}`, headers: { authorization: `Bearer ${token}`, origin: pageOrigin } });
    await page.getByRole('button', { name: 'I added the records' }).click();
    await page.locator('service-widget [part~=base] > [part~=error]', { hasText: 'Too many attempts' }).waitFor();
    expect(await eventsOf(page, 'service:error')).toEqual([{ code: 'rate_limited', message: 'Too many attempts. Wait a moment.' }]);
    await page.waitForTimeout(1_200); // the budget refills (1/s, real time)
    await page.clock.runFor(10_000);
    const shown = page.locator('service-widget [part~=base] > [part~=error]');
    for (let i = 0; i < 100 && (await shown.count()) > 0; i++) await page.waitForTimeout(50);
    expect(await shown.count()).toBe(0);
    expect(await pollState(page)).toBe('running');
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);

  it('demo mode goes through all three steps in French without a single network request', async () => {
    const { context, page, requests, errors } = await vendorPage({ clock: true, reducedMotion: true });
    const loaded = requests.length; // the page and the script
    await addWidget(page, { demo: '', lang: 'fr' });
    await expect(page.locator('service-widget h2').textContent()).resolves.toBe('Connectez votre domaine');
    await shot(page, 'fr-1-hostname');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByLabel('Votre domaine').fill('boutique.exemple.fr');
    await page.getByRole('button', { name: 'Continuer' }).click();
    await page.getByRole('heading', { name: 'Ajoutez ces enregistrements DNS' }).waitFor();
    await expect(page.locator('service-widget [part~=records]').textContent()).resolves.toMatch(/boutique[\s\S]*Nom complet : boutique\.exemple\.fr/);
    await page.clock.runFor(3_000); // demo polls every 3 s: not found
    await page.clock.runFor(3_000); // then proxied by Cloudflare
    await page.locator('service-widget [part~=hint]', { hasText: 'proxy Cloudflare' }).waitFor();
    await shot(page, 'fr-2-dns');
    expect(await axeViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'J’ai ajouté les enregistrements' }).click();
    await page.getByRole('heading', { name: 'Statut HTTPS' }).waitFor();
    // Reduced motion: the progress spinner does not spin.
    expect(await page.locator('service-widget .spin').evaluate((el) => getComputedStyle(el).animationName)).toBe('none');
    await page.clock.runFor(3_000);
    await page.locator('service-widget [part~=badge]', { hasText: 'HTTPS est actif' }).waitFor();
    await shot(page, 'fr-3-status');
    expect(await axeViolations(page)).toEqual([]);
    // The styling interface: --svc-* custom properties with the spec's defaults, and ::part.
    const style = () => page.evaluate(() => {
      const el = document.querySelector('service-widget')!;
      const base = el.shadowRoot!.querySelector('[part~=base]')!;
      const current = el.shadowRoot!.querySelector('[aria-current=step]')!;
      const css = getComputedStyle(el);
      return {
        primary: css.getPropertyValue('--svc-primary').trim(), background: css.getPropertyValue('--svc-background').trim(),
        color: css.getPropertyValue('--svc-color').trim(), radius: css.getPropertyValue('--svc-border-radius').trim(),
        baseRadius: getComputedStyle(base).borderTopLeftRadius, accent: getComputedStyle(current).borderTopColor,
        badgeOutline: getComputedStyle(el.shadowRoot!.querySelector('[part~=badge]')!).outlineColor,
      };
    });
    expect(await style()).toMatchObject({ primary: '#635bff', background: '#ffffff', color: '#111827', radius: '14px', baseRadius: '14px', accent: 'rgb(99, 91, 255)' });
    await page.addStyleTag({ content: 'service-widget { --svc-primary: rgb(200, 0, 0); --svc-border-radius: 2px } service-widget::part(badge) { outline: 3px solid rgb(1, 2, 3) }' });
    expect(await style()).toMatchObject({ baseRadius: '2px', accent: 'rgb(200, 0, 0)', badgeOutline: 'rgb(1, 2, 3)' });
    expect((await events(page)).map((e) => `${e.type} ${e.detail.status ?? e.detail.id}`)).toEqual([
      'service:created dom_demo', 'service:status pending_dns', 'service:status pending_certificate', 'service:status active',
    ]);
    expect(requests.slice(loaded).map((r) => r.url())).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  }, 60_000);

  it('the /widget/demo page loads the pinned script with SRI and its live element talks to the API', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
    await page.goto(`${apiOrigin}/widget/demo`);
    await page.locator('#demo-widget h2').waitFor();
    const live = page.locator('#live-widget');
    await live.locator('h2').waitFor();
    await live.getByLabel('Your domain').fill('try.widget-demo.test');
    await live.getByRole('button', { name: 'Continue' }).click();
    await live.getByRole('heading', { name: 'Add these DNS records' }).waitFor();
    await expect(page.locator('#log').textContent()).resolves.toContain('live-widget service:created');
    await page.screenshot({ path: `${ARTIFACTS}demo-page.png`, fullPage: true });
    expect(await axeViolations(page)).toEqual([]);
    // On a phone too: nothing wider than the screen.
    await page.setViewportSize({ width: 320, height: 800 });
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(320);
    // In French, the page's own words too.
    await page.goto(`${apiOrigin}/widget/demo?lang=fr`);
    await page.getByRole('heading', { name: 'Mode réel' }).waitFor();
    // The visitor's cookie makes them the same customer: the live element resumes their domain.
    await page.locator('#live-widget').getByRole('heading', { name: 'Ajoutez ces enregistrements DNS' }).waitFor();
    await expect(page.locator('#live-widget [part~=record]').textContent()).resolves.toContain('try');
    await page.screenshot({ path: `${ARTIFACTS}demo-page-fr-320.png`, fullPage: true });
    expect(errors).toEqual([]);
    await context.close();
  }, 30_000);
});
