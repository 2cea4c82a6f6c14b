// The worker process (worker/main.ts: fan-out, outbox dispatcher, workflows, activities) is
// SIGKILLed while a delivery's request is out, and started again: the delivery completes on the
// new process with the same event id, and exactly one attempt is recorded.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import { verifyWebhook } from '../sdk/webhooks.ts';
import { SecretBox } from '../security/secret-box.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';
import { workerProcesses } from './support/worker-process.ts';
import { startReceiver, type Receiver } from './support/webhook-receiver.ts';

describe('worker killed mid-delivery', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let receiver: Receiver;
  const workers = workerProcesses(() => ({
    databaseUrl: t.url, temporalAddress: temporal.address, taskQueue: temporal.taskQueue,
    // Its own bundle file: the domain crash test may be building the other one right now.
    bundleFile: 'test-webhook-workflow-bundle.js', env: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true' },
  }));
  const startWorker = () => workers.start();
  const withOutput = (e: unknown) => { throw new Error(`${String(e)}\nworker output:\n${workers.output()}`); };

  beforeAll(async () => {
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    receiver = await startReceiver();
  });
  afterAll(async () => {
    workers.kill();
    await receiver?.close();
    await temporal?.close();
    await t?.drop();
  });

  it('delivers the same event after a SIGKILL while the request was out', async () => {
    const box = new SecretBox(testConfig().encryptionKeys);
    const org = await organizationsRepository(t.db).create({ name: 'Crash' });
    const { endpoint, secret } = await webhookEndpointsRepository(t.db, box).create({ organizationId: org.id, url: receiver.url('/crash'), events: ['hostname.created'] });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    // The first request is never answered: the attempt is in flight when the worker dies.
    receiver.on('/crash', (_r, n) => (n === 1 ? { hang: true } : { status: 200, body: 'got it' }));

    const first = startWorker();
    await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: 'shop.crash-webhooks.test', isApex: false });
    const [inFlight] = await receiver.waitForRequests('/crash', 1, 45_000).catch(withOutput);
    first.kill('SIGKILL');
    await new Promise((r) => first.once('exit', r));

    startWorker();
    const received = await receiver.waitForRequests('/crash', 2, 45_000).catch(withOutput);
    const deliveryId = await t.db.oneFirst(sql.unsafe`select id from webhook_deliveries where endpoint_id = ${endpoint.id}`) as string;
    const delivery = await waitFor('the delivery to be recorded as succeeded', async () => {
      const d = await webhookDeliveriesRepository(t.db).getById(deliveryId);
      return d?.status === 'succeeded' ? d : null;
    }, 20_000).catch(withOutput);

    const eventId = await t.db.oneFirst(sql.unsafe`select id from events where kind = 'hostname.created' and organization_id = ${org.id}`);
    const [a, b] = [inFlight!, received[1]!].map((r) => verifyWebhook(r.body, r.headers['service-signature'], secret));
    expect(a!.id).toBe(eventId);
    expect(b!.id).toBe(eventId);
    expect(received[1]!.headers['service-event-id']).toBe(eventId);
    expect(delivery).toMatchObject({ attempt_count: 1, last_response_code: 200, next_attempt_at: null });
    // The attempt that died with the worker left no row; the one that completed did.
    const attempts = await t.db.any(sql.unsafe`select attempt_number, response_code from webhook_attempts where delivery_id = ${deliveryId}`);
    expect(attempts).toEqual([{ attempt_number: 1, response_code: 200 }]);
    // One delivery for one event, however many processes looked at it.
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from webhook_deliveries where endpoint_id = ${endpoint.id}`)).toBe(1);
    expect(receiver.received('/crash')).toHaveLength(2);
  }, 120_000);
});
