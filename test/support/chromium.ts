// Real Chromium for the browser tests (Debian's, driven by playwright-core), and the accessibility
// check they share: axe-core's serious and critical violations on a page.
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';

export const AXE = fileURLToPath(new URL('../../node_modules/axe-core/axe.min.js', import.meta.url));

// Headless, no sandbox (CI runs as root), and nothing that talks to the network by itself.
const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run', '--disable-component-update', '--disable-sync'];

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
}

/** axe's serious and critical violations on the page as it is now (axe injected once). */
export async function axeViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate(() => 'axe' in window))) await page.addScriptTag({ path: AXE });
  const results = await page.evaluate(async () => (window as unknown as { axe: { run(c: unknown, o: unknown): Promise<{ violations: { id: string; impact: string; nodes: { target: unknown }[] }[] }> } })
    .axe.run(document, { resultTypes: ['violations'] }));
  return results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}
