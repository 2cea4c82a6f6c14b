// Webhook deliveries on a task queue of their own (issue 26), on real Postgres, Temporal and HTTP
// receivers: while many receivers hang until the HTTP deadline, a domain workflow's steps still
// run at once (its worker has only 4 workflow-task slots here; the deliveries hold the webhook
// worker's), and every delivery still arrives exactly once per attempt, signed. Runs started on
// the main queue, as an earlier build did, still complete there, and retries reach them by id.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { workflowOutboxRepository } from '../db/repositories/workflow-outbox.ts';
import { verifyWebhook } from '../sdk/webhooks.ts';
import { webhookTaskQueue } from '../contracts/task-queues.ts';
import type { WebhookDeliveryInput } from '../contracts/webhook-delivery-workflow.ts';
import { startDeliveryWorkflow } from '../temporal/clients/webhook-delivery.ts';
import type { TestApp } from './support/app.ts';
import { waitFor } from './support/wait.ts';
import type { Receiver } from './support/webhook-receiver.ts';
import { startWebhookStack, type Vendor, type WebhookStack } from './support/webhook-pipeline.ts';

/** The receivers' deadline: the production one (HOSTGATE_WEBHOOK_TIMEOUT_MS). */
const TIMEOUT_MS = 15_000;
/** Deliveries hanging at once: 6 × the main worker's workflow-task slots. */
const HANGING = 24;
/**
 * A domain step (start → attached, delete → deleted) takes well under a second on a quiet machine;
 * the bound leaves room for a loaded one (2 cores shared with other work) and stays far below the
 * deadline a held slot would add.
 */
const DOMAIN_STEP_BOUND_MS = 5_000;

describe('webhook deliveries on their own task queue', () => {
  let stack: WebhookStack;
  let t: TestApp;
  let receiver: Receiver;
  let n = 0;

  beforeAll(async () => {
    // The fan-out, direct first attempts and dispatch wired as the worker process wires them. The
    // main worker is small: 4 deliveries holding its slots would stall every domain.
    stack = await startWebhookStack({
      label: 'queue', timeoutMs: TIMEOUT_MS,
      config: { HOSTGATE_WORKER_WORKFLOW_TASK_SLOTS: '4', HOSTGATE_WORKER_LOCAL_ACTIVITY_SLOTS: '4' },
    });
    ({ t, receiver } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const org = () => stack.vendor();
  const endpoint = (api: Vendor['api'], path: string) => stack.endpoint(api, path);
  /** A domain row and its `hostname.created` event, without its workflow. */
  const createDomainRow = (o: Vendor) => stack.createDomainRow(o);
  const deliveriesTo = (endpointId: string) => stack.deliveriesTo(endpointId);
  const handle = (deliveryId: string) => stack.handle(deliveryId);
  /** [attempt number in its run of the schedule, number over the delivery's life] of each attempt row. */
  const attemptNumbers = async (deliveryId: string) => (await t.database.db.any(sql.unsafe`
    select attempt_number, sequence_number from webhook_attempts where delivery_id = ${deliveryId} order by sequence_number`) as readonly { attempt_number: number; sequence_number: number }[]).map((a) => [a.attempt_number, a.sequence_number]);
  /** Each request's event id, after checking its signature with the endpoint's secret. */
  const verifiedEventIds = (path: string, secret: string) => receiver.received(path).map((r) => {
    const event = verifyWebhook(r.body, r.headers['service-signature'], secret);
    expect(r.headers['service-event-id']).toBe(event.id);
    return event.id;
  });

  it('receivers hanging until the deadline hold only the webhook worker: a domain starts and is deleted at once meanwhile; every delivery then arrives once per attempt', async () => {
    const vendor = await org();
    const ep = await endpoint(vendor.api, '/hang');
    // A domain of another vendor will start and be deleted while the deliveries hang.
    const other = await org();
    let hanging = true;
    receiver.on('/hang', () => (hanging ? { hang: true } : { status: 200 }));
    for (let i = 0; i < HANGING; i++) await createDomainRow(vendor);
    await receiver.waitForRequests('/hang', HANGING, 20_000);

    // The domain's workflow: its first step (attach), then a delete.
    const createdAt = Date.now();
    const created = await other.api.post('/v1/domains', { hostname: `shop${++n}.other.example`, destination_id: other.destination });
    expect(created.statusCode).toBe(201);
    const domainId = created.json().data.id as string;
    await waitFor('the domain workflow attached', async () => t.database.db.maybeOneFirst(sql.unsafe`select workflow_started_at from domains where id = ${domainId}`), 30_000, 50);
    const attachMs = Date.now() - createdAt;
    const deleteAt = Date.now();
    expect((await other.api.delete(`/v1/domains/${domainId}`)).statusCode).toBe(202);
    await waitFor('the domain deleted', async () => (await other.api.get(`/v1/domains/${domainId}`)).json().data?.status === 'deleted', 30_000, 50);
    const deleteMs = Date.now() - deleteAt;
    const during = await deliveriesTo(ep.id);
    // (Both figures in the message when it fails. Measured: 1.0–2.2 s each; with deliveries on
    // the main queue, as before, attach waited for the hung attempts: 15.0 s, the whole deadline.)
    expect({ attachInBound: attachMs < DOMAIN_STEP_BOUND_MS, deleteInBound: deleteMs < DOMAIN_STEP_BOUND_MS, attachMs, deleteMs })
      .toEqual({ attachInBound: true, deleteInBound: true, attachMs, deleteMs });
    // All of it while every delivery's first attempt was still out, each delivery's workflow on
    // the webhook task queue (its first workflow task waiting on that attempt, holding a slot).
    expect(during.filter((d) => d.attempting && d.attempt_count === 0)).toHaveLength(HANGING);
    const queues = await Promise.all(during.map((d) => waitFor(`workflow of ${d.id}`, async () => (await handle(d.id).describe()).taskQueue, 15_000)));
    expect(new Set(queues)).toEqual(new Set([webhookTaskQueue(t.temporal.taskQueue)]));

    // The receivers answer again: attempt 1 timed out, attempt 2 (≈ 5 s later) succeeds.
    hanging = false;
    const done = await waitFor('every delivery succeeded', async () => {
      const r = await deliveriesTo(ep.id);
      return r.every((d) => d.status === 'succeeded') ? r : null;
    }, 60_000, 200);
    const results = await Promise.all(done.map((d) => handle(d.id).result()));
    expect(results).toEqual(done.map(() => ({ status: 'succeeded', attempts: 2 })));
    for (const d of done) expect(await attemptNumbers(d.id)).toEqual([[1, 1], [2, 2]]);
    // Exactly twice per event (the hung attempt and the answered one), every one signed.
    await new Promise((r) => setTimeout(r, 500));
    const counts = new Map<string, number>();
    for (const id of verifiedEventIds('/hang', ep.secret)) counts.set(id, (counts.get(id) ?? 0) + 1);
    expect(counts.size).toBe(HANGING);
    expect([...counts.values()].every((c) => c === 2)).toBe(true);
  }, 120_000);

  describe('runs started on the main task queue by an earlier build', () => {
    beforeAll(async () => {
      // From here on the test fans out and starts deliveries itself, the way an earlier build did.
      await stack.pipeline.fanOut.stop();
    });

    /** A new delivery to `path`, fanned out but not started: its outbox row's id and payload. */
    async function fannedOut(o: Vendor, endpointId: string) {
      await createDomainRow(o);
      await webhookDeliveriesRepository(t.database.db).fanOut(100);
      const [delivery] = await deliveriesTo(endpointId);
      const row = await t.database.db.one(sql.unsafe`select id, payload from workflow_outbox where kind = 'start_delivery' and workflow_id = ${`webhook-delivery/${delivery!.id}`}`) as { id: number; payload: WebhookDeliveryInput };
      return { deliveryId: delivery!.id, outboxId: row.id, input: row.payload };
    }

    it('completes on the main queue; the start re-dispatched now is a no-op; a retry after it finished runs on the webhook queue', async () => {
      const o = await org();
      const ep = await endpoint(o.api, '/older');
      const d = await fannedOut(o, ep.id);
      // What an earlier build's dispatcher did: the start on the main task queue.
      expect(await startDeliveryWorkflow(t.temporal.client, t.temporal.taskQueue, d.input)).toBe('started');
      expect(await handle(d.deliveryId).result()).toEqual({ status: 'succeeded', attempts: 1 });
      const first = await handle(d.deliveryId).describe();
      expect(first.taskQueue).toBe(t.temporal.taskQueue);
      expect(verifiedEventIds('/older', ep.secret)).toHaveLength(1);
      // This build's dispatcher finding the row still pending: the same workflow id, no second run.
      await t.dispatcher.kick([d.outboxId]);
      expect(await t.database.db.oneFirst(sql.unsafe`select dispatched_at is not null from workflow_outbox where id = ${d.outboxId}`)).toBe(true);
      await new Promise((r) => setTimeout(r, 500));
      expect((await handle(d.deliveryId).describe()).runId).toBe(first.runId);
      expect(receiver.received('/older')).toHaveLength(1);

      // A retry of the finished delivery: a new run of the same id, on the webhook task queue.
      expect((await o.api.post(`/v1/webhook-deliveries/${d.deliveryId}/retry`)).statusCode).toBe(200);
      await receiver.waitForRequests('/older', 2, 15_000);
      const again = await waitFor('the retry run', async () => {
        const info = await handle(d.deliveryId).describe();
        return info.runId !== first.runId && info.status.name === 'COMPLETED' ? info : null;
      }, 15_000);
      expect(again.taskQueue).toBe(webhookTaskQueue(t.temporal.taskQueue));
      const ids = verifiedEventIds('/older', ep.secret);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
    }, 60_000);

    it('a retry signal reaches a run waiting on the main queue by its id: it attempts at once, in the same run', async () => {
      const o = await org();
      const ep = await endpoint(o.api, '/older-busy');
      receiver.on('/older-busy', (_r, k) => (k === 1 ? { status: 500 } : { status: 204 }));
      const d = await fannedOut(o, ep.id);
      // An earlier build's dispatcher: the start on the main queue, and its row marked dispatched
      // (rows of one workflow go in order: the retry's row would wait behind a pending start).
      expect(await startDeliveryWorkflow(t.temporal.client, t.temporal.taskQueue, d.input)).toBe('started');
      await workflowOutboxRepository(t.database.db).markDispatched([d.outboxId]);
      // Attempt 1 failed; the next is ≈ 5 s away on the run's timer.
      await waitFor('attempt 1 recorded', async () => (await deliveriesTo(ep.id))[0]?.attempt_count === 1, 15_000, 50);
      const waiting = await handle(d.deliveryId).describe();
      expect(waiting.taskQueue).toBe(t.temporal.taskQueue);
      const retriedAt = Date.now();
      expect((await o.api.post(`/v1/webhook-deliveries/${d.deliveryId}/retry`)).statusCode).toBe(200);
      await receiver.waitForRequests('/older-busy', 2, 10_000);
      expect(Date.now() - retriedAt).toBeLessThan(3_000);
      expect(await handle(d.deliveryId).result()).toEqual({ status: 'succeeded', attempts: 1 });
      const after = await handle(d.deliveryId).describe();
      expect([after.runId, after.taskQueue]).toEqual([waiting.runId, t.temporal.taskQueue]);
      const ids = verifiedEventIds('/older-busy', ep.secret);
      expect(ids).toHaveLength(2);
      expect(ids[1]).toBe(ids[0]);
      // The retry restarted the schedule (attempt 1 again), the 2nd attempt of the delivery's life.
      expect(await attemptNumbers(d.deliveryId)).toEqual([[1, 1], [1, 2]]);
    }, 60_000);
  });
});
