// The SDK as a package: it builds to JavaScript with declarations (Node strips no types inside
// node_modules), the build imports with no dependency installed, its version is the one it
// announces, and the quick-start example runs against a real API (`npm run example:sdk`).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { VERSION } from '../sdk/src/index.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './support/app.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));
const sdkDir = path.join(root, 'sdk');

describe('the @hostgate/sdk package', () => {
  let scratch: string;
  beforeAll(async () => { scratch = await mkdtemp(path.join(tmpdir(), 'hostgate-sdk-')); });
  afterAll(async () => { if (scratch) await rm(scratch, { recursive: true, force: true }); });

  it('declares no runtime dependency, ESM, types, and the version the client sends', async () => {
    const pkg = JSON.parse(await readFile(path.join(sdkDir, 'package.json'), 'utf8'));
    expect(pkg).toMatchObject({ name: '@hostgate/sdk', type: 'module', version: VERSION, types: expect.stringMatching(/\.d\.ts$/) });
    expect(pkg.dependencies ?? {}).toEqual({});
    expect(pkg.peerDependencies).toBeUndefined();
    expect(pkg.files).toEqual(['dist', 'README.md']);
  });

  it('builds, and the build works from a folder with no node_modules', async () => {
    // Built into a folder laid out as npm would unpack the package: package.json, README, dist/.
    const pkgDir = path.join(scratch, 'node_modules', '@hostgate', 'sdk');
    const tsc = await run(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', path.join(sdkDir, 'tsconfig.build.json'), '--outDir', path.join(pkgDir, 'dist')], { timeout: 120_000 }).catch((e) => e);
    expect(`${tsc.stdout ?? ''}${tsc.stderr ?? ''}`).toBe('');
    for (const f of ['package.json', 'README.md']) await cp(path.join(sdkDir, f), path.join(pkgDir, f));
    for (const f of ['dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/openapi.d.ts', 'dist/webhooks.js']) {
      await expect(readFile(path.join(pkgDir, f), 'utf8')).resolves.toEqual(expect.any(String));
    }
    // A consumer importing the package by name: plain JavaScript, no TypeScript involved.
    const consumer = path.join(scratch, 'consumer.mjs');
    await writeFile(consumer, `
      import Hostgate, { HostgateNotFoundError, webhooks, VERSION } from '@hostgate/sdk';
      import { verifyWebhook } from '@hostgate/sdk/webhooks';
      const hg = new Hostgate({ apiKey: 'hg_live_x', baseUrl: 'http://127.0.0.1:1' });
      const body = '{"id":"evt_1","event":"hostname.active","created_at":"2026-01-01T00:00:00Z","data":{"id":"dom_1","hostname":"a.example.com","status":"active","destination_id":"dst_1","external_customer_id":null}}';
      const event = webhooks.constructEvent(body, webhooks.signatureHeader(body, 'whsec_x'), 'whsec_x');
      console.log(JSON.stringify({ version: VERSION, resources: Object.keys(hg).sort(), event: event.event, same: verifyWebhook(body, webhooks.signatureHeader(body, 'whsec_x'), 'whsec_x').id, errorClass: typeof HostgateNotFoundError }));
    `);
    const { stdout } = await run(process.execPath, [consumer], { cwd: scratch, timeout: 30_000 });
    expect(JSON.parse(stdout)).toEqual({
      version: VERSION,
      resources: ['billing', 'destinations', 'domains', 'usage', 'webhookDeliveries', 'webhookEndpoints', 'webhooks', 'widgetSessions'],
      event: 'hostname.active', same: 'evt_1', errorClass: 'function',
    });
  });

  describe('npm run example:sdk (sdk/examples/quickstart.ts)', () => {
    let t: TestApp;
    let url: string;
    beforeAll(async () => {
      t = await createTestApp();
      await t.app.listen({ port: 0, host: '127.0.0.1' });
      url = `http://127.0.0.1:${(t.app.server.address() as { port: number }).port}`;
    });
    afterAll(async () => { await t?.close(); });
    const example = path.join(sdkDir, 'examples', 'quickstart.ts');

    it('runs against the API: destination, domain with its DNS records, verify, list', async () => {
      const { key } = await createOrgWithKey(t);
      const env = { ...process.env, HOSTGATE_API_URL: url, HOSTGATE_API_KEY: key, HOSTGATE_EXAMPLE_HOSTNAME: 'shop.quickstart.example' };
      const { stdout } = await run(process.execPath, [example], { env, timeout: 30_000 });
      expect(stdout).toMatch(/^destination dst_\S+ → https:\/\/app\.example\.com$/m);
      expect(stdout).toMatch(/^domain dom_\S+ shop\.quickstart\.example: pending_dns; ask your customer to set:$/m);
      expect(stdout).toContain('  shop.quickstart.example CNAME edge.hostgate.test');
      expect(stdout).toMatch(/^1 domain\(s\) of cus_quickstart$/m);
      // Run again: the idempotency keys are business keys, so the same resources come back.
      const again = await run(process.execPath, [example], { env, timeout: 30_000 });
      expect(again.stdout.split('\n')[1]).toBe(stdout.split('\n')[1]);
    });

    it('says what is missing without HOSTGATE_API_KEY, reports API errors with their code, and a stack that is not running', async () => {
      const { HOSTGATE_API_KEY: _, ...withoutKey } = process.env;
      const missing = await run(process.execPath, [example], { env: { ...withoutKey, HOSTGATE_API_URL: url }, timeout: 30_000 }).catch((e) => e);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/HOSTGATE_API_KEY is not set/);
      const wrong = await run(process.execPath, [example], { env: { ...process.env, HOSTGATE_API_URL: url, HOSTGATE_API_KEY: 'hg_live_wrong' }, timeout: 30_000 }).catch((e) => e);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toMatch(/^Hostgate API error 401 invalid_api_key: .+\[request req_\S+\]$/m);
      const closed = net.createServer();
      await new Promise<void>((r) => closed.listen(0, '127.0.0.1', () => r()));
      const downUrl = `http://127.0.0.1:${(closed.address() as net.AddressInfo).port}`;
      await new Promise<void>((r) => closed.close(() => r()));
      const down = await run(process.execPath, [example], { env: { ...process.env, HOSTGATE_API_URL: downUrl, HOSTGATE_API_KEY: 'hg_live_x' }, timeout: 30_000 }).catch((e) => e);
      expect(down.code).toBe(1);
      expect(down.stderr).toMatch(/^Hostgate API error \(no answer\) connection_error: could not reach the Hostgate API at http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)$/m);
      expect(down.stderr).toMatch(/Is the API running\?/);
    });
  });
});
