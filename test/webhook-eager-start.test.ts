// Eager start of delivery workflows (issue 26): the worker's dispatcher, on the worker's own
// NativeConnection, gets the first workflow task back in the start's answer and the delivery is
// one workflow task (its first attempt a local activity). Where the dispatcher is not in a worker —
// the API's gRPC client, or a NativeConnection with no worker polling the queue — the start falls
// back to an ordinary one, and the delivery still arrives. Real Postgres, Temporal and receiver.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { createLogger } from '../logging/logger.ts';
import { SecretBox } from '../security/secret-box.ts';
import { randomToken } from '../security/tokens.ts';
import { canStartEagerly, startDeliveryWorkflow } from '../temporal/clients/webhook-delivery.ts';
import { createHostgateWorker } from '../worker/create-worker.ts';
import type { WebhookDeliveryInput } from '../contracts/webhook-delivery-workflow.ts';
import { webhookTaskQueue } from '../contracts/task-queues.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

describe('delivery workflows: eager start', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let receiver: Receiver;
  const config = testConfig({ HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' });
  const box = new SecretBox(config.encryptionKeys);
  const logger = createLogger('silent', 'test-eager');

  beforeAll(async () => {
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* already installed in this process */ }
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await temporal?.close();
    await t?.drop();
  });

  /** A delivery to `path` (fanned out, not started): the start's input, as the outbox row holds it. */
  async function delivery(path: string): Promise<WebhookDeliveryInput> {
    const org = await organizationsRepository(t.db).create({ name: path });
    await webhookEndpointsRepository(t.db, box).create({ organizationId: org.id, url: receiver.url(path), events: ['*'] });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `${randomToken(8)}.eager.example`, isApex: false });
    const fanned = await webhookDeliveriesRepository(t.db).fanOut(100);
    expect(fanned.deliveries).toBe(1);
    return await t.db.oneFirst(sql.unsafe`select payload from workflow_outbox where id = ${fanned.outboxIds[0]!}`) as WebhookDeliveryInput;
  }
  const historyOf = async (client: Client, input: WebhookDeliveryInput) => (await client.workflow.getHandle(`webhook-delivery/${input.deliveryId}`).fetchHistory()).events ?? [];

  it('from a client on the worker\'s NativeConnection: started eagerly on the webhook task queue, one workflow task, the first attempt local', async () => {
    const taskQueue = `eager-${randomToken(8)}`;
    // Where the dispatcher starts deliveries: its worker polls it on the same connection.
    const deliveryQueue = webhookTaskQueue(taskQueue);
    const connection = await NativeConnection.connect({ address: temporal.address });
    try {
      const client = new Client({ connection, namespace: 'default' });
      expect(canStartEagerly(client)).toBe(true);
      const worker = await createHostgateWorker({ connection, namespace: 'default', taskQueue, db: t.db, config, logger });
      const input = await delivery('/eager');
      await worker.runUntil(async () => {
        // A started worker has free workflow-task slots: the server hands the first task back.
        expect(await startDeliveryWorkflow(client, deliveryQueue, input)).toBe('started_eagerly');
        await receiver.waitForRequests('/eager', 1, 15_000);
        expect(await client.workflow.getHandle(`webhook-delivery/${input.deliveryId}`).result()).toEqual({ status: 'succeeded', attempts: 1 });
        // A repeated start (outbox re-dispatch) is still a no-op.
        expect(await startDeliveryWorkflow(client, deliveryQueue, input)).toBe('already_started');
      });
      expect((await client.workflow.getHandle(`webhook-delivery/${input.deliveryId}`).describe()).taskQueue).toBe(deliveryQueue);
      const events = await historyOf(client, input);
      expect(events.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
      expect(events.filter((e) => e.activityTaskScheduledEventAttributes)).toEqual([]);
      expect(events.filter((e) => e.markerRecordedEventAttributes?.markerName === 'core_local_activity')).toHaveLength(1);
      expect(await webhookDeliveriesRepository(t.db).getById(input.deliveryId)).toMatchObject({ status: 'succeeded', attempt_count: 1, last_response_code: 200 });
    } finally {
      await connection.close();
    }
  }, 60_000);

  it('falls back to an ordinary start where no worker polls the queue, or over a plain gRPC client (the API\'s)', async () => {
    const taskQueue = `eager-fallback-${randomToken(8)}`;
    const deliveryQueue = webhookTaskQueue(taskQueue);
    const connection = await NativeConnection.connect({ address: temporal.address });
    try {
      const native = new Client({ connection, namespace: 'default' });
      const noWorker = await delivery('/no-worker');
      // Nobody on this connection polls the queue: the core does not ask, and nothing throws.
      expect(await startDeliveryWorkflow(native, deliveryQueue, noWorker)).toBe('started');
      // The API's client (grpc-js): it cannot ask for eager start at all (the SDK would throw).
      expect(canStartEagerly(temporal.client)).toBe(false);
      const viaApi = await delivery('/via-api');
      expect(await startDeliveryWorkflow(temporal.client, deliveryQueue, viaApi)).toBe('started');
      await new Promise((r) => setTimeout(r, 300));
      expect(receiver.received('/no-worker')).toHaveLength(0);

      // A worker that comes later picks both up from the task queue.
      const worker = await createHostgateWorker({ connection, namespace: 'default', taskQueue, db: t.db, config, logger });
      await worker.runUntil(async () => {
        await receiver.waitForRequests('/no-worker', 1, 15_000);
        await receiver.waitForRequests('/via-api', 1, 15_000);
        for (const input of [noWorker, viaApi]) {
          expect(await native.workflow.getHandle(`webhook-delivery/${input.deliveryId}`).result()).toEqual({ status: 'succeeded', attempts: 1 });
        }
      });
      expect(receiver.received('/no-worker')).toHaveLength(1);
      expect(receiver.received('/via-api')).toHaveLength(1);
    } finally {
      await connection.close();
    }
  }, 60_000);
});
