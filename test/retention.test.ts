// Retention (issue 14): rows past their retention period are deleted, rows within it stay, in
// bounded batches, by the retention workflow running on a real worker; and the Schedules that run
// it are created once and updated (not duplicated) by every later worker start.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { CERTIFICATE_ATTEMPTS_KEPT_DAYS } from '../db/repositories/domain-moves.ts';
import type { RetentionPeriods, RetentionTarget } from '../contracts/retention.ts';
import { retentionRepository } from '../db/repositories/retention.ts';
import { ensureRetentionSchedules } from '../temporal/clients/retention-schedules.ts';
import { RETENTION_TARGETS, retentionScheduleId } from '../contracts/retention.ts';
import type { retentionWorkflow } from '../workflows/maintenance/workflows.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, startTestWorker, type RunningWorker, type TestTemporal } from './support/temporal.ts';

const periods: RetentionPeriods = { outboxDays: 7, eventsDays: 30, widgetSessionsDays: 7 };
const ago = (days: number) => sql.unsafe`hg_now() - make_interval(days => ${days})`;

describe('retention', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let worker: RunningWorker;
  let org: string;
  let endpoint: string;
  let destination: string;
  let seq = 0;

  beforeAll(async () => {
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    worker = await startTestWorker(temporal, t.db, testConfig({ TEMPORAL_TASK_QUEUE: temporal.taskQueue }));
    org = (await organizationsRepository(t.db).create({ name: 'Retention' })).id;
    destination = (await destinationsRepository(t.db).create({ organizationId: org, url: 'https://app.example.com', host: 'app.example.com', port: 443 })).id;
    endpoint = await t.db.oneFirst(sql.unsafe`insert into webhook_endpoints (id, organization_id, url, secret_enc, secret_key_id)
      values ('we_retention', ${org}, 'https://hooks.example.com', ${sql.binary(Buffer.alloc(1))}, 'k') returning id`) as string;
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await temporal?.close();
    await t?.drop();
  });

  /** Runs the retention workflow for a target to its end (small batches: several per run, runs chained). */
  async function purge(target: RetentionTarget) {
    return temporal.client.workflow.execute<typeof retentionWorkflow>('retentionWorkflow', {
      taskQueue: temporal.taskQueue, workflowId: `retention-test-${target}-${++seq}`,
      args: [{ target, periods, batch: 2, maxBatchesPerRun: 2 }],
    });
  }

  async function event(daysOld: number, fannedOut = true): Promise<string> {
    const id = `evt_r${++seq}`;
    await t.db.query(sql.unsafe`insert into events (id, organization_id, kind, data, created_at, fanned_out_at)
      values (${id}, ${org}, 'hostname.created', '{}'::jsonb, ${ago(daysOld)}, ${fannedOut ? ago(daysOld) : null})`);
    return id;
  }
  async function delivery(eventId: string, daysOld: number, status: 'pending' | 'succeeded' | 'failed', attempts = 2): Promise<string> {
    const id = `wd_r${++seq}`;
    await t.db.query(sql.unsafe`insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event, status, created_at)
      values (${id}, ${org}, ${endpoint}, ${eventId}, 'hostname.created', ${status}, ${ago(daysOld)})`);
    for (let n = 1; n <= attempts; n++) {
      await t.db.query(sql.unsafe`insert into webhook_attempts (delivery_id, attempt_number, started_at, duration_ms, response_code)
        values (${id}, ${n}, ${ago(daysOld)} + make_interval(mins => ${n}), 10, 500)`);
    }
    return id;
  }
  const exists = async (table: 'events' | 'webhook_deliveries' | 'widget_sessions', id: string) =>
    (await t.db.oneFirst(sql.unsafe`select count(*)::int from ${sql.identifier([table])} where id = ${id}`)) === 1;

  it('webhook history: finished deliveries older than 30 days go with their attempts and events; newer, pending and unfanned rows stay', async () => {
    const oldDone = await Promise.all([31, 40, 45, 60, 90].map(async (d) => { const e = await event(d); return { e, d: await delivery(e, d, d % 2 ? 'failed' : 'succeeded') }; }));
    const recent = await event(29);
    const recentDelivery = await delivery(recent, 29, 'succeeded');
    const oldPendingEvent = await event(35);
    const oldPending = await delivery(oldPendingEvent, 35, 'pending');
    const unfanned = await event(50, false);
    const oldLonely = await event(31);

    const result = await purge('webhook-history');
    // 5 deliveries + their 5 events + 1 event without deliveries.
    expect(result).toMatchObject({ target: 'webhook-history', deleted: 11 });
    for (const { e, d } of oldDone) {
      expect(await exists('webhook_deliveries', d)).toBe(false);
      expect(await exists('events', e)).toBe(false);
    }
    expect(await exists('events', oldLonely)).toBe(false);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from webhook_attempts where delivery_id = any(${sql.array(oldDone.map((x) => x.d), 'text')})`)).toBe(0);
    for (const id of [recentDelivery, oldPending]) expect(await exists('webhook_deliveries', id)).toBe(true);
    for (const id of [recent, oldPendingEvent, unfanned]) expect(await exists('events', id)).toBe(true);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from webhook_attempts where delivery_id in (${recentDelivery}, ${oldPending})`)).toBe(4);
  }, 60_000);

  it('workflow outbox: dispatched rows past 7 days go (dead letters after 30), pending rows and a start whose workflow never attached stay', async () => {
    const insert = async (kind: string, workflowId: string, dispatchedDaysAgo: number | null, lastError: string | null = null) =>
      t.db.oneFirst(sql.unsafe`insert into workflow_outbox (kind, workflow_id, payload, created_at, dispatched_at, last_error)
        values (${kind}, ${workflowId}, '{}'::jsonb, hg_now() - interval '100 days', ${dispatchedDaysAgo === null ? null : ago(dispatchedDaysAgo)}, ${lastError}) returning id`) as Promise<number>;
    const { domain: attached } = await domainsRepository(t.db).create({ organizationId: org, destinationId: destination, hostname: 'attached.retention.test', isApex: false });
    await t.db.query(sql.unsafe`update domains set workflow_started_at = hg_now() where id = ${attached.id}`);
    const { domain: neverAttached } = await domainsRepository(t.db).create({ organizationId: org, destinationId: destination, hostname: 'never.retention.test', isApex: false });
    // The creates queued their own start rows (not dispatched): they stay.
    await t.db.query(sql.unsafe`update workflow_outbox set dispatched_at = ${ago(10)} where workflow_id in (${`domain/${attached.id}`}, ${`domain/${neverAttached.id}`})`);
    const old = await Promise.all([8, 9, 20].map((d) => insert('signal_domain', `domain/${attached.id}`, d)));
    const keep = [
      await insert('signal_domain', `domain/${attached.id}`, 6),
      await insert('signal_domain', `domain/${attached.id}`, null),
      await insert('start_delivery', 'webhook-delivery/wd_x', 29, 'dead letter: unreadable payload'),
    ];
    const oldDeadLetter = await insert('start_delivery', 'webhook-delivery/wd_y', 31, 'dead letter: unreadable payload');

    const result = await purge('workflow-outbox');
    // 3 old signals + the dead letter past 30 days + the attached domain's start row.
    expect(result.deleted).toBe(5);
    const left = await t.db.anyFirst(sql.unsafe`select id from workflow_outbox`);
    for (const id of [...old, oldDeadLetter]) expect(left).not.toContain(id);
    for (const id of keep) expect(left).toContain(id);
    // The start row of the domain whose workflow never attached stays (the reconciler reads it).
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where workflow_id = ${`domain/${neverAttached.id}`} and kind = 'start_domain'`)).toBe(1);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where workflow_id = ${`domain/${attached.id}`} and kind = 'start_domain'`)).toBe(0);
  }, 60_000);

  it('widget sessions expired more than 7 days ago go unless a domain refers to them; idempotency keys go at expiry; certificate attempts after 8 days', async () => {
    const session = async (expiredDaysAgo: number) => {
      const id = `ws_r${++seq}`;
      await t.db.query(sql.unsafe`insert into widget_sessions (id, organization_id, token_hash, external_customer_id, expires_at, created_at)
        values (${id}, ${org}, ${sql.binary(Buffer.alloc(32, seq))}, 'cus_1', ${ago(expiredDaysAgo)}, ${ago(expiredDaysAgo + 1)})`);
      return id;
    };
    const gone = [await session(8), await session(30), await session(365)];
    const stays = [await session(6), await session(-1)];
    const referenced = await session(40);
    await domainsRepository(t.db).create({ organizationId: org, destinationId: destination, hostname: 'widget.retention.test', isApex: false, widgetSessionId: referenced });
    expect((await purge('widget-sessions')).deleted).toBe(3);
    for (const id of gone) expect(await exists('widget_sessions', id)).toBe(false);
    for (const id of [...stays, referenced]) expect(await exists('widget_sessions', id)).toBe(true);

    const key = async (k: string, expires: ReturnType<typeof ago>) => t.db.query(sql.unsafe`insert into idempotency_keys (scope, key, method, path, body_hash, expires_at)
      values ('org:retention', ${k}, 'POST', '/v1/domains', ${sql.binary(Buffer.alloc(32))}, ${expires})`);
    await key('expired-1', ago(1));
    await key('expired-2', sql.unsafe`hg_now() - interval '1 minute'`);
    await key('expired-3', ago(3));
    await key('live', sql.unsafe`hg_now() + interval '23 hours'`);
    expect((await purge('idempotency-keys')).deleted).toBe(3);
    expect(await t.db.anyFirst(sql.unsafe`select key from idempotency_keys where scope = 'org:retention'`)).toEqual(['live']);

    // The abuse limits' ledger: older than the longest window a limit counts (a week) and a day.
    const domain = (await domainsRepository(t.db).create({ organizationId: org, destinationId: destination, hostname: 'attempts.retention.test', isApex: false })).domain.id;
    const attempt = async (days: number, outcome: string) => t.db.oneFirst(sql.unsafe`insert into certificate_attempts (organization_id, domain_id, hostname, registered_domain, method, outcome, created_at)
      values (${org}, ${domain}, 'attempts.retention.test', 'retention.test', 'dns-01', ${outcome}, hg_now() - make_interval(secs => ${Math.round(days * 86400)})) returning id`) as Promise<number>;
    const old = [await attempt(9, 'issued'), await attempt(30, 'failed'), await attempt(CERTIFICATE_ATTEMPTS_KEPT_DAYS + 0.01, 'abandoned')];
    const counted = [await attempt(6.9, 'issued'), await attempt(CERTIFICATE_ATTEMPTS_KEPT_DAYS - 0.01, 'issued'), await attempt(0, 'failed')];
    expect((await purge('certificate-attempts')).deleted).toBe(3);
    expect(await t.db.anyFirst(sql.unsafe`select id from certificate_attempts where domain_id = ${domain} order by id`)).toEqual(counted);
    expect(old.every((id) => !counted.includes(id))).toBe(true);
  }, 60_000);

  it('a second pass over what is left deletes nothing, and every batch is bounded', async () => {
    const retention = retentionRepository(t.db);
    for (const target of RETENTION_TARGETS) expect(await retention.purge(target, periods, 1000)).toBe(0);
    for (let i = 0; i < 5; i++) await event(100);
    expect(await retention.purge('webhook-history', periods, 2)).toBe(2);
    expect(await retention.purge('webhook-history', periods, 2)).toBe(2);
    expect(await retention.purge('webhook-history', periods, 2)).toBe(1);
  });

  it('the schedules are created once and updated on every later start (idempotent)', async () => {
    const options = { taskQueue: temporal.taskQueue, periods, batch: 500 };
    try {
      const first = await ensureRetentionSchedules(temporal.client, options);
      expect(Object.values(first)).toEqual(RETENTION_TARGETS.map(() => 'created'));
      const second = await ensureRetentionSchedules(temporal.client, { ...options, batch: 700, every: { 'workflow-outbox': '5m' } });
      expect(Object.values(second)).toEqual(RETENTION_TARGETS.map(() => 'updated'));
      const described = await temporal.client.schedule.getHandle(retentionScheduleId('workflow-outbox', temporal.taskQueue)).describe();
      expect(described.action).toMatchObject({ type: 'startWorkflow', workflowType: 'retentionWorkflow', taskQueue: temporal.taskQueue, args: [{ target: 'workflow-outbox', batch: 700, periods }] });
      expect(described.spec.intervals?.[0]?.every).toBe(5 * 60_000);
      const ids: string[] = [];
      for await (const s of temporal.client.schedule.list()) if (s.scheduleId.endsWith(`@${temporal.taskQueue}`)) ids.push(s.scheduleId);
      // Visibility of schedules is eventually consistent: at most one per target, never two.
      expect(new Set(ids).size).toBe(ids.length);
    } finally {
      for (const target of RETENTION_TARGETS) await temporal.client.schedule.getHandle(retentionScheduleId(target, temporal.taskQueue)).delete().catch(() => undefined);
    }
  }, 60_000);
});
