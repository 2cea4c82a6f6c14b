// The worker's direct first attempt (worker/webhook-first-attempts.ts) beside each delivery's
// workflow, on real Postgres, Temporal and HTTP receivers: exactly one of the two makes attempt 1,
// the workflow adopts the outcome from the row and owns what follows, and a claim left by a
// process that died lapses so the workflow takes the attempt over.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import { createLogger } from '../logging/logger.ts';
import { createFirstAttempts } from '../worker/webhook-first-attempts.ts';
import { deliveryStateQuery } from '../workflows/webhook-delivery/signals.ts';
import type { TestApp } from './support/app.ts';
import { waitFor } from './support/wait.ts';
import type { Receiver } from './support/webhook-receiver.ts';
import { startWebhookStack, type Vendor, type WebhookPipeline, type WebhookStack } from './support/webhook-pipeline.ts';

const TIMEOUT_MS = 2_000;

describe('the direct first attempt of a webhook delivery', () => {
  let stack: WebhookStack;
  let t: TestApp;
  let pipeline: WebhookPipeline;
  let receiver: Receiver;
  /** The direct path's own switch for a test: off, the fan-out only starts workflows. */
  let direct = true;

  beforeAll(async () => {
    stack = await startWebhookStack({ label: 'first', timeoutMs: TIMEOUT_MS, concurrency: 8, direct: () => direct });
    ({ t, pipeline, receiver } = stack);
  });
  afterAll(async () => {
    await stack?.close();
  });

  const org = () => stack.vendor();
  const endpoint = (api: Vendor['api'], path: string) => stack.endpoint(api, path);
  const createDomain = (o: Vendor) => stack.createDomainRow(o);
  const deliveriesTo = (endpointId: string) => stack.deliveriesTo(endpointId);
  const attemptRows = (deliveryId: string) => t.database.db.anyFirst(sql.unsafe`select attempt_number from webhook_attempts where delivery_id = ${deliveryId} order by attempt_number`);
  const handle = (deliveryId: string) => stack.handle(deliveryId);

  it('a burst: every delivery arrives exactly once, and each workflow finishes succeeded with the direct attempt adopted', async () => {
    const o = await org();
    const ep = await endpoint(o.api, '/burst');
    for (let i = 0; i < 30; i++) await createDomain(o);
    await receiver.waitForRequests('/burst', 30, 20_000);
    const rows = await waitFor('30 deliveries succeeded', async () => {
      const r = await deliveriesTo(ep.id);
      return r.length === 30 && r.every((d) => d.status === 'succeeded') ? r : null;
    }, 20_000);
    // A delivery can succeed before its workflow has even started (that is the head start): wait
    // for each workflow to exist, then for its result.
    const results = await Promise.all(rows.map(async (d) => {
      await waitFor(`workflow of ${d.id} started`, () => handle(d.id).describe(), 30_000);
      return handle(d.id).result();
    }));
    expect(results.every((r) => r.status === 'succeeded' && r.attempts === 1)).toBe(true);
    // Settle: a second POST of any of them would have arrived by now.
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received('/burst')).toHaveLength(30);
    for (const d of rows) expect(await attemptRows(d.id)).toEqual([1]);
  });

  it('a failed direct attempt: the workflow adopts its schedule and makes attempt 2 itself', async () => {
    const o = await org();
    const ep = await endpoint(o.api, '/fails-once');
    receiver.on('/fails-once', (_r, count) => (count === 1 ? { status: 500 } : { status: 204 }));
    await createDomain(o);
    const [first] = await receiver.waitForRequests('/fails-once', 1, 10_000);
    const [row] = await waitFor('attempt 1 recorded', async () => {
      const r = await deliveriesTo(ep.id);
      return r[0]?.attempt_count === 1 && !r[0].attempting ? r : null;
    });
    expect(row!.status).toBe('pending');
    expect(row!.next_attempt_at).not.toBeNull();
    // The workflow waits for the time the direct attempt recorded, not a second draw of its own.
    const state = await waitFor('the workflow waiting', async () => {
      const s = await handle(row!.id).query(deliveryStateQuery);
      return s.nextAttemptAt ? s : null;
    });
    expect(state.attempt).toBe(1);
    expect(Math.abs(Date.parse(state.nextAttemptAt!) - Date.parse(row!.next_attempt_at!))).toBeLessThan(1_000);
    const [, second] = await receiver.waitForRequests('/fails-once', 2, 15_000);
    expect(second!.at - first!.at).toBeGreaterThan(3_000);
    expect(await handle(row!.id).result()).toEqual({ status: 'succeeded', attempts: 2 });
    expect(await attemptRows(row!.id)).toEqual([1, 2]);
  });

  it('the workflow finding attempt 1 out waits for it and adopts it; a claim left by a dead process lapses and the workflow sends', async () => {
    direct = false;
    try {
      const o = await org();
      const ep = await endpoint(o.api, '/claimed');
      const deliveries = webhookDeliveriesRepository(t.database.db);
      // Hold the fan-out's workflow starts back: claim both deliveries' attempt 1 first, as a
      // direct attempt would, then let the workflows start.
      await pipeline.fanOut.stop();
      await createDomain(o);
      await createDomain(o);
      const step = await deliveries.fanOut(10);
      expect(step.deliveryIds).toHaveLength(2);
      const [alive, dead] = step.deliveryIds as [string, string];
      expect(await deliveries.claimFirstAttempt(alive, 60_000)).toBe(true);
      expect(await deliveries.claimFirstAttempt(dead, 60_000)).toBe(true);
      // A second claim within the lease is refused.
      expect(await deliveries.claimFirstAttempt(alive, 60_000)).toBe(false);
      // `dead`: its claimant died an hour ago.
      await t.database.db.query(sql.unsafe`update webhook_deliveries set attempting_since = now() - interval '1 hour' where id = ${dead}`);
      await t.dispatcher.dispatch(step.outboxIds);

      await receiver.waitForRequests('/claimed', 1, 15_000);
      expect(await handle(dead).result()).toEqual({ status: 'succeeded', attempts: 1 });

      // `alive` is still out: its workflow waits (the attempt in flight), sends nothing.
      await new Promise((r) => setTimeout(r, 1_500));
      expect(receiver.received('/claimed')).toHaveLength(1);
      const description = await handle(alive).describe();
      expect(description.status.name).toBe('RUNNING');
      // The claimant records its outcome: the workflow adopts it.
      await deliveries.recordAttempt({ deliveryId: alive, attempt: 1, startedAt: new Date().toISOString(), durationMs: 12, responseCode: 200, responseBody: 'ok', error: null, status: 'succeeded', lastError: null, nextDelayMs: null });
      expect(await handle(alive).result()).toEqual({ status: 'succeeded', attempts: 1 });
      expect(receiver.received('/claimed')).toHaveLength(1);
    } finally {
      direct = true;
      await pipeline.fanOut.start();
    }
  });

  it('bounded: beyond its queue a first attempt is left to the workflow, and 0 turns the head start off', async () => {
    const calls: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((r) => { release = r; });
    const limited = createFirstAttempts({ attempt: async (id) => { calls.push(id); await gate; return true; }, logger: createLogger('silent', 't'), concurrency: 2, maxQueued: 3 });
    limited.add(['a', 'b', 'c', 'd', 'e', 'f', 'g']);
    expect(limited.inFlight).toBe(2);
    expect(limited.queued).toBe(3);
    release();
    await limited.stop();
    expect(calls).toEqual(['a', 'b']);
    const off = createFirstAttempts({ attempt: async (id) => { calls.push(id); return true; }, logger: createLogger('silent', 't'), concurrency: 0 });
    off.add(['x']);
    expect(off.inFlight + off.queued).toBe(0);
  });
});
