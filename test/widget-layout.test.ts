// <service-widget>'s layout and themes in real Chromium, from 320 px phones to wide screens: every
// step (hostname, DNS records, HTTPS status while DNS is still wrong, HTTPS active) at 320, 375,
// 768 and 1280 px, in English and French, in the light and the dark default theme. Each screenshot
// is saved under test/artifacts/widget/layout/ (git-ignored) for people to look at; each is also
// checked: no control or value overflows the card or the viewport, values wrap only between
// labels, and axe finds nothing serious or critical. Demo mode (deterministic data, no network),
// so only the layout is under test here; widget-browser.test.ts drives the live API.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page } from 'playwright-core';
import { AXE, launchChromium } from './support/chromium.ts';
import { ensureWidgetBuilt, widgetDistDir } from '../widget/build.ts';
import { freePort } from './support/ports.ts';

const ARTIFACTS = fileURLToPath(new URL('./artifacts/widget/layout/', import.meta.url));
const WIDTHS = [320, 375, 768, 1280];
/** Long labels with hyphens: the worst case for wrapping. */
const HOSTNAME = 'boutique-en-ligne.mon-entreprise-exemple.fr';

const TEXT = {
  en: { continue: 'Continue', added: 'I added the records', status: 'HTTPS is active', label: 'Your domain' },
  fr: { continue: 'Continuer', added: 'J’ai ajouté les enregistrements', status: 'HTTPS est actif', label: 'Votre domaine' },
} as const;

/** What overflows the card or the viewport, and values broken inside a label; [] when all is well. */
function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const el = document.querySelector('service-widget')!;
    const root = el.shadowRoot!;
    const base = root.querySelector('[part~=base]')!.getBoundingClientRect();
    const viewport = document.documentElement.clientWidth;
    const problems: string[] = [];
    const name = (e: Element) => `${e.tagName.toLowerCase()}${e.getAttribute('part') ? `[${e.getAttribute('part')}]` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    for (const e of root.querySelectorAll('button, a, input, code, [part~=badge], [part~=record], h2, p, li, dd')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0) continue;
      if (r.left < base.left - 0.5 || r.right > base.right + 0.5) problems.push(`${name(e)} leaves the card (${r.left}–${r.right} vs ${base.left}–${base.right})`);
      if (r.right > viewport + 0.5) problems.push(`${name(e)} leaves the viewport (${r.right} > ${viewport})`);
      const h = e as HTMLElement;
      if (h.scrollWidth > h.clientWidth + 1 && getComputedStyle(h).overflowX !== 'visible') problems.push(`${name(e)} scrolls its content`);
    }
    // A label (between dots) wraps only when it alone is wider than the line: never in practice.
    for (const label of root.querySelectorAll('.l')) {
      const lines = new Set([...(label.firstChild ? (() => { const range = document.createRange(); range.selectNodeContents(label); return [...range.getClientRects()]; })() : [])].map((r) => Math.round(r.top)));
      if (lines.size > 1) problems.push(`label "${label.textContent}" is broken across lines`);
    }
    return problems;
  });
}

type AxeResult = { violations: { id: string; impact: string; nodes: { target: unknown }[] }[] };

/**
 * axe's serious and critical violations. axe schedules its work with timers, and the page's clock
 * is paused (see below): the clock is stepped a millisecond at a time until axe is done, far from
 * the demo's next 3 s poll.
 */
async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  await page.evaluate(() => {
    const w = window as unknown as { axe: { run(c: unknown, o: unknown): Promise<AxeResult> }; axeResult?: AxeResult | string };
    delete w.axeResult;
    w.axe.run(document, { resultTypes: ['violations'] }).then((r) => { w.axeResult = r; }, (e: unknown) => { w.axeResult = String(e); });
  });
  let results: AxeResult | string | undefined;
  for (let i = 0; i < 2_000 && results === undefined; i++) {
    await page.clock.runFor(1);
    results = await page.evaluate(() => (window as unknown as { axeResult?: AxeResult | string }).axeResult);
  }
  if (results === undefined || typeof results === 'string') throw new Error(`axe did not finish: ${results}`);
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

describe('<service-widget> layout, 320 px to wide, light and dark', () => {
  let browser: Browser;
  let server: http.Server;
  let origin: string;

  beforeAll(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    await ensureWidgetBuilt();
    const script = readFileSync(path.join(widgetDistDir, 'service-widget.js'));
    server = http.createServer((req, res) => {
      if (req.url === '/service-widget.js') {
        res.writeHead(200, { 'content-type': 'text/javascript' }).end(script);
        return;
      }
      const url = new URL(req.url ?? '/', 'http://x');
      if (url.pathname === '/frame') {
        res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Vendor</title></head>
          <body><iframe title="Settings" src="${url.searchParams.get('src')!.replace(/"/g, '')}" style="width: 360px; height: 860px; border: 0"></iframe></body></html>`);
        return;
      }
      const lang = url.searchParams.get('lang') === 'fr' ? 'fr' : 'en';
      // A page that follows the reader's colour scheme, as a vendor's page would.
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(`<!doctype html><html lang="${lang}"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1"><title>Settings</title>
        <style>:root { color-scheme: light dark } body { margin: 0; padding: 12px; font-family: system-ui } @media (prefers-color-scheme: dark) { body { background: #0b0c10; color: #eceef4 } }</style>
        <script type="module" src="/service-widget.js"></script></head>
        <body><main><h1>Domain</h1><service-widget demo lang="${lang}"></service-widget></main></body></html>`);
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${port}`;
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
  });

  for (const scheme of ['light', 'dark'] as const) {
    for (const lang of ['en', 'fr'] as const) {
      it(`${lang}, ${scheme}: every step at ${WIDTHS.join(', ')} px fits, wraps at dots only, and passes axe`, async () => {
        const context = await browser.newContext({ viewport: { width: WIDTHS[0]!, height: 900 }, colorScheme: scheme, reducedMotion: 'reduce' });
        const page = await context.newPage();
        const errors: string[] = [];
        page.on('pageerror', (e) => errors.push(String(e)));
        // Time moves only when the test says so (an installed clock otherwise flows with real time,
        // and a slow machine would let the demo's 3 s polls run ahead of the screenshots).
        await page.clock.install();
        await page.clock.pauseAt(Date.now() + 1_000);
        await page.goto(`${origin}/?lang=${lang}`);
        await page.locator('service-widget h2').waitFor();
        const t = TEXT[lang];

        const everyWidth = async (step: string) => {
          for (const width of WIDTHS) {
            await page.setViewportSize({ width, height: 900 });
            await page.evaluate(() => document.body.getBoundingClientRect()); // lay out at the new width (the paused clock holds rAF)
            await page.locator('service-widget').screenshot({ path: `${ARTIFACTS}${step}-${lang}-${scheme}-${width}.png`, animations: 'disabled' });
            expect([step, width, await layoutProblems(page)]).toEqual([step, width, []]);
          }
          expect([step, await axeViolations(page)]).toEqual([step, []]);
        };

        await everyWidth('1-hostname');
        await page.getByLabel(t.label).fill(HOSTNAME);
        await page.getByRole('button', { name: t.continue }).click();
        await page.locator('service-widget [part~=record]').waitFor();
        await page.clock.runFor(3_000); // demo: the first check, name not found
        await page.locator('service-widget [part~=verification] [part~=hint]').waitFor();
        await everyWidth('2-dns');
        await page.getByRole('button', { name: t.added }).click(); // verify: proxied by Cloudflare
        await page.locator('service-widget [part~=status] [part~=hint]').waitFor();
        // Step 3 while DNS is still wrong shows the record its hint talks about.
        expect(await page.locator('service-widget [part~=status] [part~=record]').count()).toBe(1);
        await everyWidth('3-status');
        await page.clock.runFor(3_000); // DNS right, certificate
        await page.clock.runFor(3_000); // active
        await page.locator('service-widget [part~=badge]', { hasText: t.status }).waitFor();
        // Active: all three steps marked done, and the link to the site is the themed one.
        expect(await page.locator('service-widget [part~=steps] li.d').count()).toBe(3);
        await everyWidth('4-active');
        expect(errors).toEqual([]);
        await context.close();
      }, 90_000);
    }
  }

  it('a failed copy is visible and selects the text instead; focus moves to the site link when "Check now" goes away', async () => {
    // Inside a cross-origin frame without allow="clipboard-write" (a vendor embedding its settings
    // page), the browser refuses clipboard writes: a real failure, not a simulated one.
    const context = await browser.newContext({ viewport: { width: 375, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    const framed = origin.replace('127.0.0.1', 'localhost');
    await page.goto(`${origin}/frame?src=${encodeURIComponent(`${framed}/`)}`);
    const frame = page.frameLocator('iframe');
    await frame.locator('service-widget h2').waitFor();
    await frame.getByLabel('Your domain').fill('shop.example.com');
    await frame.getByRole('button', { name: 'Continue' }).click();
    const copy = frame.getByRole('button', { name: 'Copy value edge.hostgate.example' });
    await copy.click();
    await frame.locator('service-widget .x', { hasText: 'Copy failed: select and copy' }).waitFor();
    const danger = await frame.locator('service-widget').evaluate((el) => getComputedStyle(el).getPropertyValue('--svc-danger').trim());
    expect([danger, await copy.evaluate((b) => getComputedStyle(b).color)]).toEqual(['#b42318', 'rgb(180, 35, 24)']);
    expect(await frame.locator('service-widget').evaluate(() => getSelection()?.toString())).toBe('edge.hostgate.example');
    await expect(frame.locator('service-widget [part=live]').textContent()).resolves.toBe('Copy failed: select and copy');

    await frame.getByRole('button', { name: 'I added the records' }).click(); // demo: not found yet
    const checkNow = frame.getByRole('button', { name: 'Check now' });
    await checkNow.focus();
    await checkNow.click(); // proxied by Cloudflare
    await checkNow.click(); // DNS right, certificate
    expect(await frame.locator('service-widget').evaluate((el) => el.shadowRoot!.activeElement?.textContent)).toBe('Check now');
    await checkNow.click(); // active: the button goes, focus goes to the link, not to <body>
    await frame.locator('service-widget [part~=link]').waitFor();
    expect(await frame.locator('service-widget').evaluate((el) => el.shadowRoot!.activeElement?.getAttribute('part'))).toBe('link');
    await context.close();
  }, 60_000);

  it('every colour comes from a --svc-* property: a page theme reaches text, buttons, errors, marks and the link', async () => {
    const context = await browser.newContext({ viewport: { width: 375, height: 900 }, reducedMotion: 'reduce' });
    const page = await context.newPage();
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1_000);
    await page.goto(`${origin}/`);
    await page.locator('service-widget h2').waitFor();
    const theme = { '--svc-primary': 'rgb(0, 90, 0)', '--svc-on-primary': 'rgb(255, 255, 1)', '--svc-background': 'rgb(20, 20, 20)', '--svc-color': 'rgb(240, 240, 2)',
      '--svc-muted': 'rgb(200, 200, 3)', '--svc-border': 'rgb(90, 90, 4)', '--svc-danger': 'rgb(255, 120, 5)', '--svc-success': 'rgb(100, 255, 6)', '--svc-focus-ring': 'rgb(7, 200, 255)' };
    await page.addStyleTag({ content: `service-widget { ${Object.entries(theme).map(([k, v]) => `${k}: ${v}`).join('; ')} }` });
    const colours = () => page.evaluate(() => {
      const root = document.querySelector('service-widget')!.shadowRoot!;
      const seen = new Set<string>();
      for (const e of root.querySelectorAll('*')) {
        const s = getComputedStyle(e);
        for (const c of [s.color, s.backgroundColor, s.borderTopColor, s.outlineColor]) if (!/rgba\(0, 0, 0, 0\)/.test(c)) seen.add(c);
        const before = getComputedStyle(e, '::before');
        if (before.content !== 'none') seen.add(before.color);
      }
      return [...seen];
    });
    await page.getByLabel('Your domain').fill('x');
    await page.getByRole('button', { name: 'Continue' }).click(); // a client-side error: danger colour
    const step1 = await colours();
    await page.getByLabel('Your domain').fill('shop.example.com');
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.locator('service-widget [part~=record]').waitFor();
    await page.getByRole('button', { name: 'I added the records' }).click();
    await page.clock.runFor(3_000);
    await page.clock.runFor(3_000);
    await page.clock.runFor(3_000);
    await page.locator('service-widget [part~=link]').waitFor();
    await page.locator('service-widget [part~=link]').focus();
    const active = await colours();
    const all = new Set([...step1, ...active]);
    // Mixes of two theme colours (badge tints) are allowed; a fixed colour from nowhere is not.
    const themeValues = new Set(Object.values(theme));
    const foreign = [...all].filter((c) => !themeValues.has(c) && !c.startsWith('color(srgb'));
    expect(foreign).toEqual([]);
    for (const name of ['--svc-on-primary', '--svc-danger', '--svc-success', '--svc-focus-ring', '--svc-muted', '--svc-border']) {
      expect([name, all.has(theme[name as keyof typeof theme])]).toEqual([name, true]);
    }
    await context.close();
  }, 60_000);
});
