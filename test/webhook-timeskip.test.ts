// The attempt schedule over hours of workflow time, in seconds: the time-skipping test server
// fast-forwards the delivery workflow's durable timers while the real activity POSTs to a real
// receiver on loopback and records every attempt in Postgres.
import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { DefaultLogger, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { createLogger } from '../logging/logger.ts';
import { SecretBox } from '../security/secret-box.ts';
import { randomToken } from '../security/tokens.ts';
import { verifyWebhook } from '../sdk/webhooks.ts';
import { createHostgateWorker, type HostgateWorker } from '../worker/create-worker.ts';
import { createOutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { retryDeliveryWorkflow } from '../temporal/clients/webhook-delivery.ts';
import { ATTEMPT_GAPS, JITTER } from '../model/webhook-schedule.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { testServerPath } from './support/time-skipping.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';


describe('webhook delivery schedule (time-skipping)', () => {
  let env: TestWorkflowEnvironment | null = null;
  let t: TestDatabase;
  let receiver: Receiver;
  let worker: HostgateWorker;
  const config = testConfig({ HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' });
  const box = new SecretBox(config.encryptionKeys);
  const taskQueue = `timeskip-webhooks-${randomToken(8)}`;
  const logger = createLogger('silent', 'timeskip');

  beforeAll(async () => {
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* already installed in this process */ }
    t = await createTestDatabase();
    receiver = await startReceiver();
  });
  // Each test gets its own test server (its own clock) and worker.
  const newEnv = async () => {
    env = await TestWorkflowEnvironment.createTimeSkipping({ server: { executable: { type: 'existing-path', path: testServerPath() } } });
    worker = await createHostgateWorker({ connection: env.nativeConnection, namespace: env.namespace ?? 'default', taskQueue, db: t.db, config, logger });
    return env;
  };
  afterEach(async () => {
    if (worker?.getState() === 'RUNNING') worker.shutdown();
    await env?.teardown();
    env = null;
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.drop();
  });

  /** An endpoint at `path` and a `hostname.created` event, fanned out and dispatched: one delivery. */
  async function deliveryTo(e: TestWorkflowEnvironment, path: string) {
    const org = await organizationsRepository(t.db).create({ name: path });
    const { endpoint, secret } = await webhookEndpointsRepository(t.db, box).create({ organizationId: org.id, url: receiver.url(path), events: ['*'] });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `${randomToken(8)}.timeskip.example`, isApex: false });
    const fanned = await webhookDeliveriesRepository(t.db).fanOut(100, { searchAttributes: false });
    expect(fanned.deliveries).toBe(1);
    await createOutboxDispatcher({ db: t.db, client: e.client, taskQueue, logger }).kick(fanned.outboxIds);
    const deliveryId = await t.db.oneFirst(sql.unsafe`select id from webhook_deliveries where endpoint_id = ${endpoint.id}`) as string;
    return { deliveryId, endpointId: endpoint.id, organizationId: org.id, secret, handle: e.client.workflow.getHandle(`webhook-delivery/${deliveryId}`) };
  }

  /** Workflow-time gaps between attempts, and the durations of the timers the workflow set. */
  async function schedule(handle: ReturnType<TestWorkflowEnvironment['client']['workflow']['getHandle']>) {
    const events = (await handle.fetchHistory()).events ?? [];
    const ms = (ts: { seconds?: unknown; nanos?: number | null } | null | undefined) => Number(ts?.seconds ?? 0) * 1000 + Math.floor((ts?.nanos ?? 0) / 1e6);
    // The first attempt of a run is a local activity (a marker recorded when its workflow task
    // completes); the others are scheduled activities.
    const localAttempt = (e: (typeof events)[number]) => {
      const m = e.markerRecordedEventAttributes;
      if (m?.markerName !== 'core_local_activity') return false;
      const data = JSON.parse(Buffer.from(m.details?.data?.payloads?.[0]?.data ?? new Uint8Array()).toString('utf8')) as { activity_type?: string };
      return data.activity_type === 'attemptWebhookDelivery';
    };
    const attemptsAt = events.filter((e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'attemptWebhookDelivery' || localAttempt(e)).map((e) => ms(e.eventTime));
    const timers = events.filter((e) => e.timerStartedEventAttributes).map((e) => ms(e.timerStartedEventAttributes!.startToFireTimeout));
    return { gaps: attemptsAt.slice(1).map((at, i) => at - attemptsAt[i]!), timers };
  }
  const withinJitter = (actual: number, planned: number) => actual >= planned * (1 - JITTER) - 1 && actual <= planned * (1 + JITTER) + 1;

  it('500, 500, then 200: three attempts at 0, ~5 s and ~5 min, each recorded, then succeeded', async () => {
    const e = await newEnv();
    receiver.on('/flaky', (_r, k) => (k <= 2 ? { status: 500, body: `boom ${k}` } : { status: 200, body: 'thanks' }));
    const d = await deliveryTo(e, '/flaky');
    const result = await worker.runUntil(d.handle.result());
    expect(result).toEqual({ status: 'succeeded', attempts: 3 });

    const { gaps, timers } = await schedule(d.handle);
    expect(timers).toHaveLength(2);
    expect(withinJitter(timers[0]!, ATTEMPT_GAPS[0]!)).toBe(true);
    expect(withinJitter(timers[1]!, ATTEMPT_GAPS[1]!)).toBe(true);
    // The attempts really were that far apart in workflow time (plus the attempt itself).
    expect(gaps[0]! - timers[0]!).toBeGreaterThanOrEqual(0);
    expect(gaps[0]! - timers[0]!).toBeLessThan(2_000);
    expect(gaps[1]! - timers[1]!).toBeGreaterThanOrEqual(0);
    expect(gaps[1]! - timers[1]!).toBeLessThan(2_000);

    type AttemptRow = { attempt_number: number; response_code: number | null; response_body: string | null; error: string | null; duration_ms: number };
    const rows = await t.db.any(sql.unsafe`select attempt_number, response_code, response_body, error, duration_ms from webhook_attempts where delivery_id = ${d.deliveryId} order by started_at`) as readonly AttemptRow[];
    expect(rows.map((r) => [r.attempt_number, r.response_code, r.response_body, r.error])).toEqual([[1, 500, 'boom 1', null], [2, 500, 'boom 2', null], [3, 200, 'thanks', null]]);
    expect(rows.every((r) => r.duration_ms >= 0)).toBe(true);
    const delivery = await webhookDeliveriesRepository(t.db).getById(d.deliveryId);
    expect(delivery).toMatchObject({ status: 'succeeded', attempt_count: 3, last_response_code: 200, last_error: null, next_attempt_at: null });

    // The same event every time, freshly signed every time.
    const received = receiver.received('/flaky');
    expect(received).toHaveLength(3);
    const ids = received.map((r) => verifyWebhook(r.body, r.headers['service-signature'], d.secret).id);
    expect(new Set(ids).size).toBe(1);
    expect(new Set(received.map((r) => r.body)).size).toBe(1);
  }, 60_000);

  it('every attempt failing: 8 attempts over ~27.5 h on the schedule, then failed; a retry then delivers', async () => {
    const e = await newEnv();
    receiver.on('/down', (r) => (receiver.received('/down').length <= 8 ? { status: 500, body: 'down' } : { status: 200, body: `up ${r.path}` }));
    const d = await deliveryTo(e, '/down');
    const deliveries = webhookDeliveriesRepository(t.db);
    // One worker run for both phases (a worker runs once).
    await worker.runUntil(async () => {
      expect(await d.handle.result()).toEqual({ status: 'failed', attempts: 8 });
      const { gaps, timers } = await schedule(d.handle);
      expect(timers).toHaveLength(7);
      timers.forEach((ms, i) => expect([i, withinJitter(ms, ATTEMPT_GAPS[i]!)]).toEqual([i, true]));
      const total = gaps.reduce((a, b) => a + b, 0);
      expect(total / 3_600_000).toBeGreaterThan(27.5 * (1 - JITTER));
      expect(total / 3_600_000).toBeLessThan(27.6 * (1 + JITTER));
      expect(await deliveries.getById(d.deliveryId)).toMatchObject({ status: 'failed', attempt_count: 8, last_response_code: 500, next_attempt_at: null });
      expect(await t.db.anyFirst(sql.unsafe`select attempt_number from webhook_attempts where delivery_id = ${d.deliveryId} order by started_at`)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(receiver.received('/down')).toHaveLength(8);

      // The API's retry: reset the row, then signal-with-start a new run of the same workflow id.
      const reset = await deliveries.resetForRetry(d.organizationId, d.deliveryId);
      expect(reset?.delivery).toMatchObject({ status: 'pending', attempt_count: 0 });
      await retryDeliveryWorkflow(e.client, taskQueue, { deliveryId: d.deliveryId, endpointId: d.endpointId, organizationId: d.organizationId, event: 'hostname.created', searchAttributes: false });
      expect(await d.handle.result()).toEqual({ status: 'succeeded', attempts: 1 });
    });
    expect(await deliveries.getById(d.deliveryId)).toMatchObject({ status: 'succeeded', attempt_count: 1, last_response_code: 200, next_attempt_at: null });
    expect(receiver.received('/down')).toHaveLength(9);
    expect(JSON.parse(receiver.received('/down')[8]!.body).id).toBe(JSON.parse(receiver.received('/down')[0]!.body).id);
  }, 60_000);
});
