// The SSRF guard on webhook targets, with HOSTGATE_ALLOW_PRIVATE_TARGETS off (the default):
// loopback, private, link-local/metadata, CGNAT and IPv4-mapped targets, and names that resolve to
// them, are refused when the endpoint is created or changed, and again at every send — on the
// address actually connected to, with no second DNS resolution in between.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { LookupAddress } from 'node:dns';
import { Resolver } from 'node:dns/promises';
import net, { type AddressInfo } from 'node:net';
import { ApplicationFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { buildApp, type App } from '../api/app.ts';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { createLogger } from '../logging/logger.ts';
import { sendWebhook } from '../activities/webhook-sender.ts';
import { createWebhookActivities, LOOKUP_BUSY_FAILURE, type AttemptResult } from '../activities/webhooks.ts';
import type { PromiseLookup } from '../security/outbound-url.ts';
import { SecretBox } from '../security/secret-box.ts';
import { randomToken } from '../security/tokens.ts';
import { createOrgWithKey, testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTestDnsServer } from './support/dns-server.ts';
import { client } from './support/http.ts';
import { waitFor } from './support/wait.ts';

function fakeLookup(answers: Record<string, LookupAddress[]>): PromiseLookup & { calls: string[] } {
  const calls: string[] = [];
  const lookup = async (hostname: string, options?: { all?: boolean }) => {
    calls.push(hostname);
    const found = answers[hostname];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return options?.all ? found : found[0];
  };
  return Object.assign(lookup as unknown as PromiseLookup, { calls });
}

const answers: Record<string, LookupAddress[]> = {
  'internal.hooks.example': [{ address: '10.1.2.3', family: 4 }],
  'loopback.hooks.example': [{ address: '127.0.0.1', family: 4 }],
  'metadata.hooks.example': [{ address: '169.254.169.254', family: 4 }],
  'mapped.hooks.example': [{ address: '::ffff:127.0.0.1', family: 6 }],
  // One public and one private answer: a rebinding setup. Any private answer refuses the name.
  'mixed.hooks.example': [{ address: '93.184.216.34', family: 4 }, { address: '192.168.1.10', family: 4 }],
  'public.hooks.example': [{ address: '93.184.216.34', family: 4 }],
};

const REFUSED_URLS: [string, RegExp][] = [
  ['https://127.0.0.1/hook', /127\.0\.0\.1 is not a public IP/],
  ['https://10.0.0.1/hook', /10\.0\.0\.1 is not a public IP/],
  ['https://169.254.169.254/latest/meta-data/', /169\.254\.169\.254 is not a public IP/],
  ['https://[::ffff:127.0.0.1]/hook', /not a public IP/],
  ['https://[::ffff:a9fe:a9fe]/hook', /not a public IP/],
  ['https://100.64.0.1/hook', /100\.64\.0\.1 is not a public IP/],
  ['https://[::1]/hook', /not a public IP/],
  ['https://[fd00:ec2::254]/hook', /not a public IP/],
  ['https://hooks.localhost/hook', /local or internal name/],
  ['http://public.hooks.example/hook', /must start with https/],
  ['https://internal.hooks.example/hook', /resolves to 10\.1\.2\.3, which is not a public address/],
  ['https://loopback.hooks.example:8443/hook', /resolves to 127\.0\.0\.1/],
  ['https://metadata.hooks.example/hook', /resolves to 169\.254\.169\.254/],
  ['https://mapped.hooks.example/hook', /resolves to ::ffff:127\.0\.0\.1/],
  ['https://mixed.hooks.example/hook', /resolves to 192\.168\.1\.10/],
];

describe('webhook SSRF guard', () => {
  let t: TestDatabase;
  let app: App;
  let api: ReturnType<typeof client>;
  const config = testConfig();
  const box = new SecretBox(config.encryptionKeys);
  const lookup = fakeLookup(answers);
  // A TCP listener on loopback that counts connections: a guard that let a request through would show here.
  let trap: net.Server;
  let trapPort: number;
  let connections = 0;

  beforeAll(async () => {
    expect(config.allowPrivateTargets).toBe(false);
    t = await createTestDatabase();
    app = await buildApp({ config, db: t.db, temporal: null, dispatcher: null, logger: createLogger('silent', 'test-api'), dnsLookup: lookup });
    await app.ready();
    api = client(app, (await createOrgWithKey({ database: t })).auth);
    trap = net.createServer((s) => { connections++; s.destroy(); });
    await new Promise<void>((r) => trap.listen(0, '127.0.0.1', r));
    trapPort = (trap.address() as AddressInfo).port;
  });
  afterAll(async () => {
    await app?.close();
    await new Promise((r) => trap?.close(r));
    await t?.drop();
  });

  it.each(REFUSED_URLS)('refuses %s when the endpoint is created', async (url, message) => {
    const res = await api.post('/v1/webhook-endpoints', { url });
    expect([res.statusCode, res.json().error.code, res.json().error.param]).toEqual([400, 'invalid_request', 'url']);
    expect(res.json().error.message).toMatch(message);
  });

  it('accepts a name with public addresses, and one that does not resolve yet (checked again at send); refuses a change to a private one', async () => {
    const ok = await api.post('/v1/webhook-endpoints', { url: 'https://public.hooks.example/hook' });
    expect(ok.statusCode).toBe(201);
    expect((await api.post('/v1/webhook-endpoints', { url: 'https://not-yet.hooks.example/hook' })).statusCode).toBe(201);
    const patched = await api.patch(`/v1/webhook-endpoints/${ok.json().data.id}`, { url: 'https://internal.hooks.example/hook' });
    expect([patched.statusCode, patched.json().error.param]).toEqual([400, 'url']);
    expect((await api.get(`/v1/webhook-endpoints/${ok.json().data.id}`)).json().data.url).toBe('https://public.hooks.example/hook');
  });

  it('the sender refuses non-public targets before connecting', async () => {
    const send = (url: string) => sendWebhook({ url, body: '{}', headers: {}, timeoutMs: 2_000, allowPrivate: false, lookup });
    const cases: [string, 'url' | 'address', RegExp][] = [
      [`https://127.0.0.1:${trapPort}/hook`, 'url', /127\.0\.0\.1 is not a public IP/],
      [`https://[::ffff:127.0.0.1]:${trapPort}/hook`, 'url', /not a public IP/],
      [`https://10.0.0.1:${trapPort}/hook`, 'url', /not a public IP/],
      [`https://169.254.169.254:${trapPort}/latest/meta-data/`, 'url', /not a public IP/],
      [`http://127.0.0.1:${trapPort}/hook`, 'url', /https/],
      [`https://loopback.hooks.example:${trapPort}/hook`, 'address', /resolves to 127\.0\.0\.1/],
      [`https://mapped.hooks.example:${trapPort}/hook`, 'address', /resolves to ::ffff:127\.0\.0\.1/],
      [`https://mixed.hooks.example:${trapPort}/hook`, 'address', /resolves to 192\.168\.1\.10/],
      [`https://metadata.hooks.example:${trapPort}/hook`, 'address', /resolves to 169\.254\.169\.254/],
    ];
    for (const [url, refused, message] of cases) {
      const result = await send(url);
      expect([url, result.refused, result.statusCode]).toEqual([url, refused, null]);
      expect(result.error).toMatch(message);
    }
    expect(connections).toBe(0);
    // The same loopback target with private targets allowed (tests, local stacks) does connect.
    const allowed = await sendWebhook({ url: `http://127.0.0.1:${trapPort}/hook`, body: '{}', headers: {}, timeoutMs: 2_000, allowPrivate: true });
    expect(allowed.refused).toBeNull();
    expect(connections).toBe(1);
  });

  it('resolves a name once per send and connects to the address it checked', async () => {
    lookup.calls.length = 0;
    // A public answer: the connection goes to exactly that address (unreachable from this sandbox,
    // so the attempt fails as a connection error or timeout, never as a refusal), and the name is
    // not resolved a second time by the socket layer.
    const result = await sendWebhook({ url: 'https://public.hooks.example/hook', body: '{}', headers: {}, timeoutMs: 300, allowPrivate: false, lookup });
    expect(result.refused).toBeNull();
    expect(result.statusCode).toBeNull();
    expect(lookup.calls).toEqual(['public.hooks.example']);
  });

  it('at send time, a delivery to a non-public endpoint records a refused attempt and never connects', async () => {
    // Rows written directly, as if the endpoints predate the guard or the flag was on when they were made.
    const org = await createOrgWithKey({ database: t }, undefined, 'Send time');
    const endpoints = webhookEndpointsRepository(t.db, box);
    const urls = [`https://127.0.0.1:${trapPort}/a`, `https://[::ffff:127.0.0.1]:${trapPort}/b`, 'https://10.0.0.1/c', 'https://169.254.169.254/d', `https://loopback.hooks.example:${trapPort}/e`];
    const ids = new Map<string, string>();
    for (const url of urls) ids.set((await endpoints.create({ organizationId: org.org.id, url, events: ['*'] })).endpoint.id, url);
    const dst = await destinationsRepository(t.db).create({ organizationId: org.org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    await domainsRepository(t.db).create({ organizationId: org.org.id, destinationId: dst.id, hostname: `${randomToken(6)}.ssrf.example`, isApex: false });
    const deliveries = webhookDeliveriesRepository(t.db);
    expect((await deliveries.fanOut(100)).deliveries).toBe(urls.length);

    const activities = createWebhookActivities({ db: t.db, logger: createLogger('silent', 'test'), secretBox: box, allowPrivateTargets: false, timeoutMs: 2_000, lookup });
    const env = new MockActivityEnvironment();
    const rows = await t.db.any(sql.unsafe`select id, endpoint_id from webhook_deliveries where organization_id = ${org.org.id}`) as readonly { id: string; endpoint_id: string }[];
    for (const row of rows) {
      const url = ids.get(row.endpoint_id)!;
      const result: AttemptResult = await env.run(activities.attemptWebhookDelivery, { deliveryId: row.id, attempt: 1, redelivery: false, plannedDelayMs: 5_000 });
      const byName = url.includes('hooks.example');
      // A literal private address can never start working: the delivery stops. A name may be
      // re-pointed at a public address: it is retried on the schedule like any other failure.
      expect([url, result.outcome, result.status, result.nextDelayMs]).toEqual([url, 'failed', byName ? 'pending' : 'failed', byName ? 5_000 : null]);
      const attempt = await t.db.one(sql.unsafe`select response_code, error from webhook_attempts where delivery_id = ${row.id}`) as { response_code: number | null; error: string };
      expect([url, attempt.response_code]).toEqual([url, null]);
      expect(attempt.error).toMatch(byName ? /^refused: loopback\.hooks\.example resolves to 127\.0\.0\.1/ : /^refused: .*not a public/);
      expect((await deliveries.getById(row.id))?.last_error).toBe(attempt.error);
    }
    expect(connections).toBe(1); // only the allowed one of the sender test
  });

  // Two customers whose webhook hostnames' DNS never answers hold every guarded lookup; a third
  // customer's attempt then fails to start its lookup (ELOOKUPBUSY). That says nothing about its
  // receiver: it must not spend one of the delivery's 8 attempts (the 8th is hours later).
  it('an attempt whose lookup could not start (other customers\' DNS hanging) is put off by a few seconds, not counted, nothing sent', async () => {
    const dns = await startTestDnsServer();
    dns.set('innocent.hooks.example', [{ type: 'A', value: '127.0.0.1' }]);
    dns.setDelay((name) => (name.startsWith('hang') ? 120_000 : 0));
    const resolver = new Resolver({ timeout: 60_000, tries: 1, maxTimeout: 60_000 });
    resolver.setServers([dns.server]);
    // The guard's lookup asking the loopback DNS server over UDP (names come absolute: "x.").
    const viaDns = (async (hostname: string, options?: { all?: boolean }) => {
      const all = (await resolver.resolve4(hostname.replace(/\.$/, ''))).map((address) => ({ address, family: 4 }));
      return options?.all ? all : all[0];
    }) as unknown as PromiseLookup;
    const hanging = ['hang1', 'hang2'].map((h) => sendWebhook({ url: `https://${h}.hooks.example/hook`, body: '{}', headers: {}, timeoutMs: 60_000, allowPrivate: false, lookup: viaDns }));
    try {
      await waitFor('both hanging lookups at the DNS server', async () => dns.delayed() === 2, 5_000, 20);
      const org = await createOrgWithKey({ database: t }, undefined, 'Innocent');
      const endpoint = (await webhookEndpointsRepository(t.db, box).create({ organizationId: org.org.id, url: 'https://innocent.hooks.example/hook', events: ['*'] })).endpoint;
      const dst = await destinationsRepository(t.db).create({ organizationId: org.org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
      await domainsRepository(t.db).create({ organizationId: org.org.id, destinationId: dst.id, hostname: `${randomToken(6)}.innocent.example`, isApex: false });
      const deliveries = webhookDeliveriesRepository(t.db);
      await deliveries.fanOut(100);
      const deliveryId = await t.db.oneFirst(sql.unsafe`select id from webhook_deliveries where endpoint_id = ${endpoint.id}`) as string;
      const activities = createWebhookActivities({ db: t.db, logger: createLogger('silent', 'test'), secretBox: box, allowPrivateTargets: false, timeoutMs: 10_000, lookup: viaDns });
      const env = new MockActivityEnvironment();
      const before = Date.now();
      const failure = await env.run(activities.attemptWebhookDelivery, { deliveryId, attempt: 1, redelivery: false, plannedDelayMs: 5_000 }).then(() => null, (error: unknown) => error);
      // A retryable failure: Temporal runs the same attempt again after a few seconds.
      expect(failure).toBeInstanceOf(ApplicationFailure);
      const f = failure as ApplicationFailure;
      expect([f.type, f.nonRetryable]).toEqual([LOOKUP_BUSY_FAILURE, false]);
      expect(Number(f.nextRetryDelay)).toBeGreaterThanOrEqual(2_000);
      expect(Number(f.nextRetryDelay)).toBeLessThanOrEqual(5_000);
      // Not an attempt: no row, the count unchanged, still pending, due again in a few seconds; its
      // name was never even asked.
      expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from webhook_attempts where delivery_id = ${deliveryId}`)).toBe(0);
      const row = await deliveries.getById(deliveryId);
      expect([row?.status, row?.attempt_count, row?.last_error]).toEqual(['pending', 0, null]);
      expect(Date.parse(row!.next_attempt_at!)).toBeGreaterThan(before + 5_000);
      expect(dns.queries.some((q) => q.name === 'innocent.hooks.example')).toBe(false);

      // Once the lookups are free again, the same attempt runs and is recorded as attempt 1.
      resolver.cancel();
      await Promise.all(hanging);
      const result: AttemptResult = await env.run(activities.attemptWebhookDelivery, { deliveryId, attempt: 1, redelivery: false, plannedDelayMs: 5_000 });
      expect([result.outcome, result.error]).toEqual(['failed', expect.stringMatching(/^refused: innocent\.hooks\.example resolves to 127\.0\.0\.1/)]);
      expect(await t.db.anyFirst(sql.unsafe`select attempt_number from webhook_attempts where delivery_id = ${deliveryId}`)).toEqual([1]);
    } finally {
      resolver.cancel();
      await Promise.all(hanging);
      await dns.close();
    }
  }, 30_000);
});
