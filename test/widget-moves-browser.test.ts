// <service-widget> during a zero-downtime move, in Chromium against the real app, workflow,
// PowerDNS and Pebble (DNS-01): the customer sees the ownership TXT and the delegation CNAME beside
// the hostname's own record, and the two tracks say what is still missing while the hostname keeps
// pointing elsewhere — until the certificate is issued before any switch. English and French;
// axe-core finds nothing serious. (The full move through the edge: zero-downtime-moves.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import { type Browser, type Page } from 'playwright-core';
import { axeViolations, launchChromium } from './support/chromium.ts';
import { ensureWidgetBuilt } from '../widget/build.ts';
import { startAcmeStack, type AcmeStack } from './support/acme-stack.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';
import { client } from './support/http.ts';
import { freePort, reservePort } from './support/ports.ts';
import { startPowerDns, type PowerDns } from './support/powerdns.ts';
import { startTestWorker, type RunningWorker } from './support/temporal.ts';

const ZONE = 'challenges.widget.hostgate.test';

describe('<service-widget> during a zero-downtime move', () => {
  let acme: AcmeStack;
  let t: TestApp;
  let pdns: PowerDns;
  let worker: RunningWorker;
  let browser: Browser;
  let vendor: http.Server;
  let api: ReturnType<typeof client>;
  let apiOrigin: string;
  let pageOrigin: string;

  beforeAll(async () => {
    acme = await startAcmeStack();
    // Held from here to the listen below: the port is baked into the config, with seconds between.
    const { port: apiPort, release: releaseApiPort } = await reservePort();
    const { port: pdnsPort, release: releasePdnsPort } = await reservePort();
    apiOrigin = `http://127.0.0.1:${apiPort}`;
    await ensureWidgetBuilt();
    t = await createTestApp({ config: { ...acme.configOverrides, HOSTGATE_PUBLIC_URL: apiOrigin, HOSTGATE_API_PORT: String(apiPort), HOSTGATE_CHALLENGE_ZONE: ZONE, HOSTGATE_CHALLENGE_DNS_SERVER: `127.0.0.1:${pdnsPort}` } });
    await releasePdnsPort();
    pdns = await startPowerDns({ databaseUrl: t.database.url, db: t.database.db, zone: ZONE, port: pdnsPort });
    acme.dns.forwardZone(ZONE, pdns.server);
    await releaseApiPort();
    await t.app.listen({ host: '127.0.0.1', port: apiPort });
    worker = await startTestWorker(t.temporal, t.database.db, t.config);
    api = client(t.app, (await createOrgWithKey(t)).auth);
    await api.post('/v1/destinations', { url: 'https://app.vendor.example' });
    const pagePort = await freePort();
    pageOrigin = `http://127.0.0.1:${pagePort}`;
    vendor = http.createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vendor settings</title>
        <script type="module" src="${apiOrigin}/widget/v1/service-widget.js"></script></head>
        <body><main><h1>Custom domain</h1><div id="slot"></div></main></body></html>`);
    });
    await new Promise<void>((resolve) => vendor.listen(pagePort, '127.0.0.1', resolve));
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (vendor ? vendor.close(resolve) : resolve(undefined)));
    await worker?.stop();
    await pdns?.stop();
    await t?.close();
    await acme?.close();
  });


  it('shows the move records and both tracks, step by step, while the hostname still points elsewhere', async () => {
    const hostname = 'shop.widget-move.test';
    acme.dns.set(hostname, [{ type: 'A', value: '192.0.2.81' }]);
    const { token } = (await api.post('/v1/widget-sessions', { external_customer_id: 'cus_move', allowed_origins: [pageOrigin] })).json().data;
    const context = await browser.newContext({ viewport: { width: 760, height: 1400 } });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${pageOrigin}/`);
    await page.waitForFunction(() => customElements.get('service-widget') !== undefined);
    await page.evaluate((tok) => {
      const el = document.createElement('service-widget');
      el.setAttribute('token', tok);
      el.setAttribute('lang', 'en');
      document.getElementById('slot')!.replaceChildren(el);
    }, token);
    await page.getByLabel('Your domain').fill(hostname);
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Add these DNS records' }).waitFor();

    // Three records: the hostname's own, the ownership TXT, the delegation CNAME (relative names).
    const records = page.locator('service-widget [part~=record]');
    expect(await records.count()).toBe(3);
    await expect(records.nth(1).textContent()).resolves.toMatch(/TXT[\s\S]*_hostgate\.shop[\s\S]*hostgate-verification=[0-9a-f]{32}/);
    await expect(records.nth(2).textContent()).resolves.toMatch(new RegExp(`CNAME[\\s\\S]*_acme-challenge\\.shop[\\s\\S]*[0-9a-f]{32}\\.${ZONE.replace(/\./g, '\\.')}`));
    // (Step 2 shows the records; the tracks live on the status step, where the customer waits.)
    expect(await page.locator('service-widget [part~=tracks]').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);

    // The customer adds the TXT only: ownership is verified, the certificate waits for the delegation.
    const domain = (await api.get(`/v1/domains?hostname=${hostname}`)).json().data[0];
    const txt = domain.dns_records.find((r: { type: string }) => r.type === 'TXT');
    const cname = domain.dns_records.find((r: { name: string }) => r.name.startsWith('_acme-challenge.'));
    acme.dns.set(txt.name, [{ type: 'TXT', value: txt.value }]);
    await page.getByRole('button', { name: 'I added the records' }).click();
    await page.getByRole('heading', { name: 'HTTPS status' }).waitFor();
    const statusTracks = page.locator('service-widget [part~=status] [part~=tracks]');
    // Right after the first check: ownership_txt_missing gives the ownership line its hint.
    await expect(statusTracks.textContent()).resolves.toMatch(/Ownership: (waiting|ready)[\s\S]*Certificate: waiting/);
    await statusTracks.locator('li', { hasText: 'Ownership: ready' }).waitFor({ timeout: 25_000 });
    // delegation_cname_missing, on the certificate's line only.
    await statusTracks.locator('li', { hasText: 'Certificate: waiting' }).locator('[part~=hint]', { hasText: 'Something still blocks progress' }).waitFor({ timeout: 25_000 });
    expect(await statusTracks.locator('li', { hasText: 'Ownership' }).locator('[part~=hint]').count()).toBe(0);

    // Then the delegation: the certificate is issued (DNS-01) while the hostname still points elsewhere.
    acme.dns.set(cname.name, [{ type: 'CNAME', value: cname.value }]);
    await page.getByRole('button', { name: 'Check now' }).click();
    await statusTracks.locator('li', { hasText: 'Certificate: issued' }).waitFor({ timeout: 30_000 });
    expect(await statusTracks.locator('[part~=hint]').count()).toBe(0);
    await expect(page.locator('service-widget [part~=badge]').textContent()).resolves.toContain('Waiting for DNS');
    expect(await axeViolations(page)).toEqual([]);

    await page.evaluate(() => document.querySelector('service-widget')!.setAttribute('lang', 'fr'));
    await expect(statusTracks.textContent()).resolves.toMatch(/Propriété: prêt\s*Certificat: émis/);
    expect(errors).toEqual([]);
    await context.close();
  }, 120_000);
});
