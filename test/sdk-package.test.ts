// The SDK as a package: its committed build (sdk/dist: JavaScript and declarations, since Node strips
// no types inside node_modules) is what the sources compile to; `npm pack ./sdk` works from a clean
// copy of the repository (no root `npm ci`, no build step, nothing written into it); the tarball
// installs and imports with no dependency, its declarations type-check in a fresh strict project
// without Node's types; its version is the one it announces, and the quick-start example runs
// against a real API (`npm run example:sdk`).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import net from 'node:net';
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildSdk, filesOf, SDK_DIST } from '../scripts/build-sdk.ts';
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

  it('the committed sdk/dist is what the sources build to (run `npm run sdk:build` and commit when this fails)', async () => {
    const out = path.join(scratch, 'fresh-build');
    await buildSdk(out);
    const built = await filesOf(out);
    const committed = await filesOf(SDK_DIST);
    expect([...committed.keys()]).toEqual([...built.keys()]);
    for (const [file, text] of built) expect([file, committed.get(file) === text]).toEqual([file, true]);
    // The declarations name nothing of Node's: they type-check without @types/node (below).
    for (const [file, text] of built) {
      const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      if (file.endsWith('.d.ts')) expect([file, /\bBuffer\b|\bNodeJS\.|['"]node:/.test(code)]).toEqual([file, false]);
    }
  });

  describe('packed from a clean copy of the repository, installed from its tarball', () => {
    let tarball: string;
    const consumer = () => path.join(scratch, 'consumer');

    beforeAll(async () => {
      // The repository's files as a clone has them (tracked and not ignored): no node_modules, no build.
      const { stdout } = await run('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z', 'sdk'], { cwd: root });
      const clone = path.join(scratch, 'clone');
      for (const file of stdout.split('\0').filter(Boolean)) await cp(path.join(root, file), path.join(clone, file));
      const before = await filesOf(clone);
      const out = path.join(scratch, 'packed');
      await mkdir(out);
      const packed = await run('npm', ['pack', './sdk', '--pack-destination', out, '--json'], { cwd: clone, timeout: 120_000 });
      const [info] = JSON.parse(packed.stdout) as { filename: string; files: { path: string }[] }[];
      tarball = path.join(out, info!.filename);
      // npm pack ran no build and wrote nothing into the copy.
      expect([...(await filesOf(clone)).keys()]).toEqual([...before.keys()]);
      const files = info!.files.map((f) => f.path).sort();
      expect(files).toEqual(expect.arrayContaining(['README.md', 'package.json', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/openapi.d.ts', 'dist/webhooks.js', 'dist/webhooks.d.ts']));
      expect(files.filter((f) => !f.startsWith('dist/') && !['README.md', 'package.json'].includes(f))).toEqual([]);
      await mkdir(consumer());
      await writeFile(path.join(consumer(), 'package.json'), JSON.stringify({ name: 'consumer', version: '1.0.0', type: 'module', private: true }));
      await run('npm', ['install', '--offline', '--no-audit', '--no-fund', tarball], { cwd: consumer(), timeout: 120_000 });
    }, 240_000);

    it('imports by name with no dependency installed: plain JavaScript, no TypeScript involved', async () => {
      const script = path.join(consumer(), 'consumer.mjs');
      await writeFile(script, `
        import Hostgate, { HostgateNotFoundError, webhooks, VERSION } from '@hostgate/sdk';
        import { verifyWebhook } from '@hostgate/sdk/webhooks';
        const hg = new Hostgate({ apiKey: 'hg_live_x', baseUrl: 'http://127.0.0.1:1' });
        const body = '{"id":"evt_1","event":"hostname.active","created_at":"2026-01-01T00:00:00.000Z","data":{"id":"dom_1","hostname":"a.example.com","status":"active","destination_id":"dst_1","external_customer_id":null}}';
        const event = webhooks.constructEvent(new TextEncoder().encode(body), webhooks.signatureHeader(body, 'whsec_x'), 'whsec_x');
        console.log(JSON.stringify({ version: VERSION, resources: Object.keys(hg).sort(), event: event.event, same: verifyWebhook(body, webhooks.signatureHeader(body, 'whsec_x'), 'whsec_x').id, errorClass: typeof HostgateNotFoundError }));
      `);
      const { stdout } = await run(process.execPath, [script], { cwd: consumer(), timeout: 30_000 });
      expect(JSON.parse(stdout)).toEqual({
        version: VERSION,
        resources: ['analytics', 'billing', 'destinations', 'domains', 'usage', 'webhookDeliveries', 'webhookEndpoints', 'webhooks', 'widgetSessions'],
        event: 'hostname.active', same: 'evt_1', errorClass: 'function',
      });
    });

    // What `tsc --init` makes (TypeScript 5.9), with the library check on: no `@types/node`, no
    // "types": ["node"] (TypeScript 7 loads no @types by default either). A declaration naming
    // Node's Buffer fails here (checked by hand with TypeScript 7.0.2 too: docs in sdk/README.md).
    const STRICT_PROJECT = {
      compilerOptions: {
        module: 'nodenext', target: 'esnext', types: [], strict: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
        verbatimModuleSyntax: true, isolatedModules: true, noUncheckedSideEffectImports: true, moduleDetection: 'force', skipLibCheck: false, noEmit: true,
      },
    };
    const typeCheck = async (source: string) => {
      await writeFile(path.join(consumer(), 'tsconfig.json'), JSON.stringify(STRICT_PROJECT));
      await writeFile(path.join(consumer(), 'index.ts'), source);
      const tsc = await run(path.join(root, 'node_modules', '.bin', 'tsc'), ['-p', consumer()], { timeout: 120_000 }).catch((e) => e);
      return `${tsc.stdout ?? ''}${tsc.stderr ?? ''}`;
    };

    it('its declarations type-check in a fresh strict project without Node\'s types, and still refuse a wrong call', async () => {
      const uses = `
        import { Hostgate, HostgateNotFoundError, webhooks, type Domain, type DomainStatus, type EventKind, type WebhookDelivery } from '@hostgate/sdk';
        import { verifyWebhook } from '@hostgate/sdk/webhooks';
        const hg = new Hostgate({ apiKey: 'hg_live_x', baseUrl: 'http://127.0.0.1:1' });
        export async function main(): Promise<void> {
          const d: Domain = await hg.domains.create({ hostname: 'a.example.com', destination_id: 'dst_1' }, { idempotencyKey: 'k' });
          const s: DomainStatus = d.status;
          const deliveries: WebhookDelivery[] = (await hg.webhookDeliveries.list({ status: 'pending' }).firstPage()).data;
          const kind: EventKind | undefined = deliveries[0]?.event;
          const event = webhooks.constructEvent(new TextEncoder().encode('{}'), 't=1,v1=00', 'whsec_x');
          verifyWebhook('{}', 't=1', ['whsec_a', 'whsec_b']);
          try { await hg.domains.retrieve('dom_x'); } catch (e) { if (e instanceof HostgateNotFoundError) console.log(e.code); }
          console.log(s, kind, event.event);
        }
      `;
      expect(await typeCheck(uses)).toBe('');
      // Not vacuous: the same project reports a wrong call.
      expect(await typeCheck(`${uses}
export const wrong = hg.domains.list({ status: 'live' });
`)).toMatch(/index\.ts\(\d+,\d+\): error TS2322/);
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
