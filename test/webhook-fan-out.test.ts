// The fan-out on its own (a recording dispatcher instead of Temporal): woken by NOTIFY at commit,
// back after its LISTEN connection is killed, and exactly one delivery per (event, endpoint) when
// several workers fan out the same events at once.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { createLogger } from '../logging/logger.ts';
import { SecretBox } from '../security/secret-box.ts';
import { randomToken } from '../security/tokens.ts';
import { createWebhookFanOut } from '../temporal/webhook-fan-out.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';
import { waitFor } from './support/wait.ts';

describe('webhook fan-out', () => {
  let t: TestDatabase;
  const box = new SecretBox(testConfig().encryptionKeys);
  const logger = createLogger('silent', 'test-fan-out');

  beforeAll(async () => { t = await createTestDatabase(); });
  afterAll(async () => { await t?.drop(); });

  async function orgWithEndpoints(events: string[][]) {
    const org = await organizationsRepository(t.db).create({ name: 'Fan-out' });
    const endpoints = [];
    for (const e of events) endpoints.push((await webhookEndpointsRepository(t.db, box).create({ organizationId: org.id, url: 'https://hooks.example.com/x', events: e })).endpoint.id);
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const newDomain = async () => (await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `${randomToken(10)}.fanout.example`, isApex: false })).domain;
    return { org, endpoints, newDomain };
  }
  const recorder = () => {
    const kicked: number[] = [];
    return { kicked, dispatcher: { dispatch: async (ids: readonly number[]) => { kicked.push(...ids); } } };
  };

  it('is woken by the commit of an event (no sweep needed), and again after its LISTEN connection dies', async () => {
    const { endpoints, newDomain } = await orgWithEndpoints([['*'], ['hostname.deleted']]);
    const { kicked, dispatcher } = recorder();
    const fanOut = createWebhookFanOut({ db: t.db, dispatcher, logger, databaseUrl: t.url, sweepIntervalMs: 3_600_000 });
    await fanOut.start();
    try {
      const first = await newDomain();
      const started = Date.now();
      await waitFor('a kick', async () => kicked.length === 1, 5_000, 10);
      expect(Date.now() - started).toBeLessThan(1_000);
      const rows = await t.db.any(sql.unsafe`select endpoint_id, event from webhook_deliveries d join events e on e.id = d.event_id where e.domain_id = ${first.id}`);
      expect(rows).toEqual([{ endpoint_id: endpoints[0], event: 'hostname.created' }]);
      const outbox = await t.db.one(sql.unsafe`select kind, workflow_id, payload from workflow_outbox where id = ${kicked[0]!}`) as { kind: string; workflow_id: string; payload: Record<string, unknown> };
      const deliveryId = await t.db.oneFirst(sql.unsafe`select d.id from webhook_deliveries d join events e on e.id = d.event_id where e.domain_id = ${first.id}`);
      expect(outbox).toEqual({ kind: 'start_delivery', workflow_id: `webhook-delivery/${deliveryId as string}`, payload: { deliveryId, endpointId: endpoints[0], organizationId: expect.any(String), event: 'hostname.created' } });

      // Kill the listener's backend: it reconnects and events wake it again.
      const killed = await t.db.oneFirst(sql.unsafe`select count(pg_terminate_backend(pid))::int from pg_stat_activity where datname = current_database() and query ilike 'listen%'`);
      expect(killed).toBe(1);
      await waitFor('the listener to be back', async () => (await t.db.oneFirst(sql.unsafe`select count(*)::int from pg_stat_activity where datname = current_database() and query ilike 'listen%'`)) === 1, 10_000, 50);
      await newDomain();
      await waitFor('a kick after reconnecting', async () => kicked.length === 2, 5_000, 10);
    } finally {
      await fanOut.stop();
    }
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from events where fanned_out_at is null`)).toBe(0);
  });

  // A frozen Postgres (SIGSTOP, a paused VM) keeps the connection open and answers nothing: pg's
  // end() would wait for it for ever, and so would the worker's shutdown.
  it('stops promptly while its LISTEN connection hangs on a frozen Postgres', async () => {
    const u = new URL(t.url);
    const proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
    u.host = `127.0.0.1:${proxy.port}`;
    const { dispatcher } = recorder();
    const fanOut = createWebhookFanOut({ db: t.db, dispatcher, logger, databaseUrl: u.toString(), sweepIntervalMs: 3_600_000 });
    try {
      await fanOut.start();
      await waitFor('the listener', async () => ((await t.db.oneFirst(sql.unsafe`select count(*)::int from pg_stat_activity where datname = current_database() and query ilike 'listen%'`)) as number) >= 1, 5_000, 50);
      proxy.freeze();
      const started = Date.now();
      await fanOut.stop();
      expect(Date.now() - started).toBeLessThan(3_000);
    } finally {
      proxy.thaw();
      await proxy.close();
    }
  });

  // Postgres frozen (or black-holed) when the worker starts: the worker awaits start() before it
  // polls Temporal, so start must not wait on the LISTEN connection; the sweep delivers meanwhile
  // and the listener comes back once Postgres answers.
  it('starts at once with its LISTEN path frozen, sweeps meanwhile, and listens once it thaws', async () => {
    const { endpoints, newDomain } = await orgWithEndpoints([['hostname.created']]);
    const u = new URL(t.url);
    const proxy = await startTcpProxy(u.hostname, Number(u.port || 5432));
    u.host = `127.0.0.1:${proxy.port}`;
    const { kicked, dispatcher } = recorder();
    const fanOut = createWebhookFanOut({ db: t.db, dispatcher, logger, databaseUrl: u.toString(), sweepIntervalMs: 300 });
    const listeners = async () => (await t.db.oneFirst(sql.unsafe`select count(*)::int from pg_stat_activity where datname = current_database() and query ilike 'listen%'`)) as number;
    proxy.freeze();
    try {
      const started = Date.now();
      await fanOut.start();
      expect(Date.now() - started).toBeLessThan(1_000);
      const d = await newDomain();
      await waitFor('the sweep to fan out', async () => kicked.length === 1, 5_000, 20);
      expect(await t.db.oneFirst(sql.unsafe`select endpoint_id from webhook_deliveries d join events e on e.id = d.event_id where e.domain_id = ${d.id}`)).toBe(endpoints[0]);
      expect(await listeners()).toBe(0);
      proxy.thaw();
      // The waiting connect goes through now (or, past its 5 s, a fresh one does).
      await waitFor('the listener after the thaw', async () => (await listeners()) === 1, 15_000, 100);
    } finally {
      proxy.thaw();
      await fanOut.stop();
      await proxy.close();
    }
  }, 30_000);

  it('creates exactly one delivery per (event, endpoint) when several workers fan out at once', async () => {
    const { endpoints, newDomain } = await orgWithEndpoints([['*'], ['hostname.created'], ['*']]);
    for (let i = 0; i < 120; i++) await newDomain();
    const workers = [recorder(), recorder(), recorder()];
    const fanOuts = workers.map(({ dispatcher }) => createWebhookFanOut({ db: t.db, dispatcher, logger }));
    const created = await Promise.all(fanOuts.map((f) => f.runOnce()));
    await Promise.all(fanOuts.map((f) => f.stop()));
    expect(created.reduce((a, b) => a + b, 0)).toBe(360);
    const kicked = workers.flatMap((w) => w.kicked);
    expect(kicked).toHaveLength(360);
    expect(new Set(kicked).size).toBe(360);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from webhook_deliveries where endpoint_id = any(${sql.array(endpoints, 'text')})`)).toBe(360);
    // Running again finds nothing to do.
    expect(await webhookDeliveriesRepository(t.db).fanOut(100)).toEqual({ events: 0, deliveries: 0, outboxIds: [], deliveryIds: [] });
  });
});
