// The official Python client (sdk-python/) against the real API: this file builds the app the way
// test/sdk-client.test.ts does — in process, listening on loopback ports, over this file's
// Postgres and the shared Temporal server — then runs the client's own pytest suite
// (sdk-python/tests) against it and fails with pytest's output when pytest fails. No mocks: the 503
// comes from Postgres really cut (test/support/tcp-proxy.ts), the 429 from the API's own rate
// limiter (1 request/s), webhook deliveries are made by the delivery activity and POSTed to a
// receiver the Python tests run themselves.
//
// What only this process can do (make organizations and keys, cut Postgres, run the webhook
// fan-out and a delivery attempt, as the worker would) the Python tests ask of a small control
// server on loopback (HOSTGATE_TEST_CONTROL_URL). The suite needs python3 with httpx and pytest
// (and mypy for the type check), which .ci/run installs.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { MockActivityEnvironment } from '@temporalio/testing';
import { spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createWebhookActivities } from '../activities/webhooks.ts';
import { buildApp, type App } from '../api/app.ts';
import { createDb } from '../db/pool.ts';
import { scopes, type Scope } from '../db/repositories/api-keys.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createLogger } from '../logging/logger.ts';
import { createOrgWithKey, createTestApp, testConfig, type TestApp } from './support/app.ts';
import { startTcpProxy, type TcpProxy } from './support/tcp-proxy.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SDK = path.join(ROOT, 'sdk-python');

async function listen(app: App): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as net.AddressInfo).port}`;
}

/** Runs a command to its end (asynchronously: the apps in this process keep answering meanwhile). */
function run(command: string, args: string[], env: Record<string, string> = {}, timeoutMs = 240_000): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c: Buffer) => { output += c.toString(); });
    child.stderr.on('data', (c: Buffer) => { output += c.toString(); });
    const timer = setTimeout(() => { child.kill('SIGKILL'); output += `\n[killed after ${timeoutMs} ms]`; }, timeoutMs);
    child.on('error', reject);
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output }); });
  });
}

/** Fails with the command's whole output, so a CI log shows which test failed and why. */
function expectSuccess(what: string, result: { code: number | null; output: string }): void {
  if (result.code !== 0) throw new Error(`${what} exited with ${result.code}:\n${result.output}`);
}

interface ControlDeps { t: TestApp; proxy: TcpProxy }

/** The control server: JSON POSTs for what the Python tests cannot do through the API. */
async function startControl({ t, proxy }: ControlDeps): Promise<{ url: string; close(): Promise<void> }> {
  const deliveries = webhookDeliveriesRepository(t.database.db);
  const activities = createWebhookActivities({ db: t.database.db, logger: createLogger('silent', 'test'), secretBox: t.app.secretBox, allowPrivateTargets: true, timeoutMs: 5_000 });
  const env = new MockActivityEnvironment();
  const routes: Record<string, (body: Record<string, unknown>) => Promise<unknown>> = {
    // An organization of its own (isolation between tests) with a key of the given scopes (default all).
    '/orgs': async (body) => {
      const keyScopes = (Array.isArray(body.scopes) ? body.scopes : scopes) as Scope[];
      const o = await createOrgWithKey(t, keyScopes, typeof body.name === 'string' ? body.name : 'Python client org');
      return { org_id: o.org.id, api_key: o.key };
    },
    '/postgres/cut': async () => { await proxy.cut(); return {}; },
    '/postgres/restore': async () => { await proxy.restore(); return {}; },
    // What the worker's sweep does: events become deliveries, one per subscribed endpoint.
    '/webhooks/fan-out': async () => ({ deliveries: (await deliveries.fanOut(100)).deliveries }),
    // The first attempt of a delivery, as the delivery workflow's activity makes it.
    '/webhooks/attempt': async (body) => {
      if (typeof body.delivery_id !== 'string') throw new Error('delivery_id is required');
      await env.run(activities.attemptWebhookDelivery, { deliveryId: body.delivery_id, attempt: 1, redelivery: false, plannedDelayMs: 5_000 });
      return {};
    },
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const route = req.method === 'POST' ? routes[req.url ?? ''] : undefined;
      const reply = (status: number, value: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }); res.end(JSON.stringify(value)); };
      if (!route) return reply(404, { error: `no control route ${req.method} ${req.url}` });
      const text = Buffer.concat(chunks).toString('utf8');
      Promise.resolve()
        .then(() => route(text ? JSON.parse(text) as Record<string, unknown> : {}))
        .then((value) => reply(200, value), (error: unknown) => reply(500, { error: String(error) }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('Python client (sdk-python) against the real API', () => {
  let t: TestApp;
  let proxy: TcpProxy;
  let unavailableApp: App;
  let limitedApp: App;
  let control: { url: string; close(): Promise<void> };
  const env: Record<string, string> = {};

  beforeAll(async () => {
    // Many requests per key in a burst (only the rate-limited app limits); webhooks to loopback.
    t = await createTestApp({ config: { HOSTGATE_RATE_LIMIT_PER_SECOND: '100000', HOSTGATE_RATE_LIMIT_BURST: '100000', HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' } });
    env.HOSTGATE_BASE_URL = await listen(t.app);
    env.HOSTGATE_API_KEY = (await createOrgWithKey(t)).key;

    // The same database reached through a TCP proxy that the control server cuts: 503s.
    const target = new URL(t.database.url);
    proxy = await startTcpProxy(target.hostname, Number(target.port || 5432));
    const viaProxy = new URL(t.database.url);
    viaProxy.host = `127.0.0.1:${proxy.port}`;
    const db = await createDb(viaProxy.toString(), { maximumPoolSize: 2 });
    unavailableApp = await buildApp({ config: testConfig(), db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    unavailableApp.addHook('onClose', async () => { await db.end().catch(() => undefined); });
    env.HOSTGATE_TEST_UNAVAILABLE_URL = await listen(unavailableApp);

    // The API's own rate limiter at one request per 8 s, burst 1: 429s with Retry-After: 8. (At 1/s a
    // busy CI machine let a second pass between two requests, and the bucket had refilled; at one
    // per 4 s, once at load 14: the Python test also tries the pair again then.)
    const limitedConfig = testConfig();
    limitedApp = await buildApp({ config: { ...limitedConfig, api: { ...limitedConfig.api, rateLimit: { perSecond: 0.125, burst: 1 } } }, db: t.database.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test') });
    env.HOSTGATE_TEST_RATE_LIMITED_URL = await listen(limitedApp);

    control = await startControl({ t, proxy });
    env.HOSTGATE_TEST_CONTROL_URL = control.url;
  });
  afterAll(async () => {
    await control?.close();
    await limitedApp?.close();
    await unavailableApp?.close();
    await proxy?.close();
    await t?.close();
  });

  it('passes its pytest suite (sdk-python/tests) against the real API', async () => {
    // The checkout's source, not an installed copy; no .pytest_cache or bytecode in the checkout.
    const result = await run('python3', ['-m', 'pytest', 'sdk-python/tests', '-q', '-p', 'no:cacheprovider', '-rfE'], { ...env, PYTHONPATH: path.join(SDK, 'src') });
    expectSuccess('python3 -m pytest sdk-python/tests', result);
    // pytest's closing line: every test ran, none skipped.
    expect(result.output).toMatch(/^\d+ passed in [\d.]+s/m);
    expect(result.output).not.toMatch(/skipped|xfail/);
  }, 240_000);

  it('npm run example:python runs the quick start: destination, domain with its DNS records, verify, list; errors said plainly', async () => {
    const example = (extra: Record<string, string>) => run('npm', ['run', '--silent', 'example:python'], { HOSTGATE_EXAMPLE_HOSTNAME: 'shop.quickstart-python.example', ...extra });
    const key = (await createOrgWithKey(t, scopes, 'Quick start org')).key;
    const first = await example({ HOSTGATE_BASE_URL: env.HOSTGATE_BASE_URL!, HOSTGATE_API_KEY: key });
    expectSuccess('npm run example:python', first);
    expect(first.output).toMatch(/^destination dst_\S+ → https:\/\/app\.example\.com$/m);
    expect(first.output).toMatch(/^domain dom_\S+ shop\.quickstart-python\.example: pending_dns; ask your customer to set:$/m);
    expect(first.output).toContain('  shop.quickstart-python.example CNAME edge.hostgate.test');
    expect(first.output).toMatch(/^verify requested at \d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+\+00:00$/m);
    expect(first.output).toMatch(/^1 domain\(s\) of cus_quickstart$/m);
    expect(first.output).toMatch(/^status now: pending_dns/m);
    // Run again: the idempotency keys are business keys, so the same resources come back.
    const again = await example({ HOSTGATE_BASE_URL: env.HOSTGATE_BASE_URL!, HOSTGATE_API_KEY: key });
    expect(again.output.split('\n').slice(0, 2)).toEqual(first.output.split('\n').slice(0, 2));

    const missing = await example({ HOSTGATE_BASE_URL: env.HOSTGATE_BASE_URL!, HOSTGATE_API_KEY: '' });
    expect(missing.code).toBe(2);
    expect(missing.output).toMatch(/HOSTGATE_API_KEY is not set/);
    const wrong = await example({ HOSTGATE_BASE_URL: env.HOSTGATE_BASE_URL!, HOSTGATE_API_KEY: 'hg_live_wrong' });
    expect(wrong.code).toBe(1);
    expect(wrong.output).toMatch(/^Hostgate API error 401 invalid_api_key: .+\[request req_\S+\]$/m);
    const down = await example({ HOSTGATE_BASE_URL: 'http://127.0.0.1:1', HOSTGATE_API_KEY: 'hg_live_x' });
    expect(down.code).toBe(1);
    expect(down.output).toMatch(/^Hostgate API error \(no answer\) connection_error: could not reach the Hostgate API at http:\/\/127\.0\.0\.1:1 \(ConnectError: .+\)$/m);
    expect(down.output).toMatch(/Is the API running\?/);
  }, 120_000);

  it('type-checks under mypy --strict for Python 3.10 (package, examples, tests) and installs with pip (py.typed included)', async () => {
    const scratch = await mkdtemp(path.join(os.tmpdir(), 'hg-pysdk-'));
    try {
      // The package, and the examples and tests as a user's code would use it.
      const mypy = ['-m', 'mypy', '--strict', '--python-version', '3.10', '--cache-dir', path.join(scratch, 'mypy-cache'), 'sdk-python/src', 'sdk-python/examples', 'sdk-python/tests'];
      expectSuccess('mypy --strict', await run('python3', mypy, { MYPYPATH: 'sdk-python/src:sdk-python/tests' }));
      // Built from a copy (setuptools builds in the source tree), with the build backend already
      // on the machine and httpx already installed: no download, nothing written into the checkout.
      await cp(SDK, path.join(scratch, 'src'), { recursive: true, filter: (p) => !p.includes('__pycache__') });
      const target = path.join(scratch, 'site');
      expectSuccess('pip install', await run('python3', ['-m', 'pip', 'install', '-q', '--no-deps', '--no-build-isolation', '--target', target, path.join(scratch, 'src')]));
      const probe = await run('python3', ['-c', 'import hostgate, importlib.resources as r; print(hostgate.__file__, hostgate.VERSION, r.files("hostgate").joinpath("py.typed").is_file())'], { PYTHONPATH: target });
      expectSuccess('import hostgate', probe);
      const version = /^VERSION = "(.+)"$/m.exec(await readFile(path.join(SDK, 'src/hostgate/_version.py'), 'utf8'))![1];
      expect(probe.output.trim()).toBe(`${path.join(target, 'hostgate', '__init__.py')} ${version} True`);
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }, 180_000);
});
