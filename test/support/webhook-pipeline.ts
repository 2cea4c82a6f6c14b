// The worker's webhook pipeline for tests, wired as worker/main.ts wires it: the fan-out (LISTEN on
// the test database) creates deliveries and kicks their starts through the test app's dispatcher,
// and each new delivery's first attempt goes out at once beside its workflow
// (worker/webhook-first-attempts.ts). Plus the vendor side: an organization with an API key and a
// destination, and a webhook endpoint created through the API; and the whole stack of a webhook
// test file (app, worker, pipeline, receiver) with the reads its tests share.
import { expect } from '@jest/globals';
import { createWebhookAttempts } from '../../activities/webhooks.ts';
import { sql } from '../../db/pool.ts';
import { domainsRepository } from '../../db/repositories/domains.ts';
import { createLogger } from '../../logging/logger.ts';
import { createWebhookFanOut, type WebhookFanOut } from '../../temporal/webhook-fan-out.ts';
import { createFirstAttempts, type FirstAttempts } from '../../worker/webhook-first-attempts.ts';
import { createOrgWithKey, createTestApp, type TestApp } from './app.ts';
import { client } from './http.ts';
import { startTestWorker, type RunningWorker } from './temporal.ts';
import { startReceiver, type Receiver } from './webhook-receiver.ts';

export interface WebhookPipeline { fanOut: WebhookFanOut; firstAttempts: FirstAttempts; stop(): Promise<void> }

export async function startWebhookPipeline(t: TestApp, options: {
  timeoutMs: number;
  /** First attempts out at once (default: the config's HOSTGATE_WEBHOOK_DIRECT_ATTEMPTS). */
  concurrency?: number;
  /** Whether a new delivery gets its direct first attempt (default: always). */
  direct?: () => boolean;
}): Promise<WebhookPipeline> {
  const logger = createLogger('silent', 'test-webhook-pipeline');
  const attempts = createWebhookAttempts({ db: t.database.db, logger, secretBox: t.app.secretBox, allowPrivateTargets: true, timeoutMs: options.timeoutMs });
  const firstAttempts = createFirstAttempts({ attempt: attempts.directFirstAttempt, logger, concurrency: options.concurrency ?? t.config.webhooks.directAttempts });
  const fanOut = createWebhookFanOut({
    db: t.database.db, dispatcher: t.dispatcher, logger, databaseUrl: t.database.url,
    onDeliveries: (ids) => { if (options.direct?.() ?? true) firstAttempts.add(ids); },
  });
  await fanOut.start();
  return {
    fanOut, firstAttempts,
    async stop() {
      await fanOut.stop();
      await firstAttempts.stop();
    },
  };
}

export type Vendor = Awaited<ReturnType<typeof createOrgWithKey>> & { api: ReturnType<typeof client>; destination: string };

/** An organization with an API key and a destination (`name` must be unique in the test). */
export async function createVendor(t: TestApp, name: string): Promise<Vendor> {
  const o = await createOrgWithKey(t, undefined, name);
  const api = client(t.app, o.auth);
  const destination = (await api.post('/v1/destinations', { url: `https://app-${name.replace(/\W+/g, '-')}.vendor.example` })).json().data.id as string;
  return { ...o, api, destination };
}

/** A webhook endpoint for `hostname.created` at `url`, with its signing secret. */
export async function createEndpoint(api: ReturnType<typeof client>, url: string): Promise<{ id: string; secret: string }> {
  const res = await api.post('/v1/webhook-endpoints', { url, events: ['hostname.created'] });
  expect(res.statusCode).toBe(201);
  return res.json().data as { id: string; secret: string };
}

export type DeliveryRow = { id: string; status: string; attempt_count: number; attempting: boolean; next_attempt_at: string | null };

/** App, worker, pipeline and receiver for one test file; `label` names its organizations and hostnames. */
export async function startWebhookStack(options: { label: string; timeoutMs: number; config?: Record<string, string>; concurrency?: number; direct?: () => boolean }) {
  const t = await createTestApp({ config: { HOSTGATE_ALLOW_PRIVATE_TARGETS: 'true', HOSTGATE_WEBHOOK_TIMEOUT_MS: String(options.timeoutMs), ...options.config } });
  const worker: RunningWorker = await startTestWorker(t.temporal, t.database.db, t.config);
  const pipeline = await startWebhookPipeline(t, options);
  const receiver: Receiver = await startReceiver();
  let n = 0;
  return {
    t, worker, pipeline, receiver,
    vendor: () => createVendor(t, `${options.label} ${++n}`),
    endpoint: (api: Vendor['api'], path: string) => createEndpoint(api, receiver.url(path)),
    /** A domain row and its `hostname.created` event; its workflow's start row is left in the outbox. */
    createDomainRow: (o: Vendor) => domainsRepository(t.database.db).create({ organizationId: o.org.id, destinationId: o.destination, hostname: `shop${++n}.${options.label}.example`, isApex: false, externalCustomerId: null }),
    deliveriesTo: (endpointId: string) => t.database.db.any(sql.unsafe`
      select id, status, attempt_count, attempting_since is not null as attempting, next_attempt_at from webhook_deliveries where endpoint_id = ${endpointId} order by created_at`) as Promise<readonly DeliveryRow[]>,
    handle: (deliveryId: string) => t.temporal.client.workflow.getHandle(`webhook-delivery/${deliveryId}`),
    async close() {
      await pipeline.stop();
      await worker.stop();
      await receiver.close();
      await t.close();
    },
  };
}
export type WebhookStack = Awaited<ReturnType<typeof startWebhookStack>>;
