// The workflow outbox carries ONE kind of message per row kind (db/repositories/workflow-outbox.ts),
// checked when a dispatcher leases the row: a row that is not a valid message (a manual edit, a
// writer from another version) is dead-lettered with a clear log, and neither stops the dispatcher
// nor holds back the workflow's later rows. Real Postgres and a real Temporal dev server (no
// worker: starts only queue, signals to workflows that do not exist are no-ops).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { pino } from 'pino';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { DEAD_LETTER_PREFIX, workflowOutboxRepository } from '../db/repositories/workflow-outbox.ts';
import { loggerOptions } from '../logging/logger.ts';
import { createOutboxDispatcher, DISPATCH_DEADLINE_MS, type OutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { nativeClientProvider } from '../temporal/connection.ts';
import { startTcpProxy } from './support/tcp-proxy.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';

describe('workflow outbox messages', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let dispatcher: OutboxDispatcher;
  const logged: { level: number; msg: string; outboxId?: number; problems?: string[] }[] = [];

  beforeAll(async () => {
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    const logger = pino(loggerOptions('info', 'test'), { write: (line: string) => { logged.push(JSON.parse(line)); } });
    dispatcher = createOutboxDispatcher({ db: t.db, client: temporal.client, taskQueue: temporal.taskQueue, logger });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await temporal?.close();
    await t?.drop();
  });

  const insert = (kind: string, workflowId: string, payload: unknown) => t.db.oneFirst(sql.unsafe`
    insert into workflow_outbox (kind, workflow_id, payload) values (${kind}, ${workflowId}, ${sql.jsonb(payload as never)}) returning id`) as Promise<number>;
  const rowOf = (id: number) => t.db.one(sql.unsafe`select dispatched_at is not null as done, last_error from workflow_outbox where id = ${id}`) as Promise<{ done: boolean; last_error: string | null }>;

  it('dead-letters rows that are not valid messages, logs why, and dispatches the rest', async () => {
    const noHostname = await insert('start_domain', 'domain/dom_bad1', { domainId: 'dom_bad1', organizationId: 'org_1' });
    const unknownSignal = await insert('signal_domain', 'domain/dom_bad2', { signal: 'explode' });
    // Held behind the invalid row of the same workflow until that one is out of the queue.
    const laterSignal = await insert('signal_domain', 'domain/dom_bad2', { signal: 'verify' });
    const wrongWorkflow = await insert('start_delivery', 'domain/dom_bad3', { deliveryId: 'whd_1', endpointId: 'we_1', organizationId: 'org_1', event: 'hostname.created' });
    const notAnObject = await insert('retry_delivery', 'webhook-delivery/whd_2', 'whd_2');

    await dispatcher.kick();
    await dispatcher.kick();

    const dead = await Promise.all([noHostname, unknownSignal, wrongWorkflow, notAnObject].map(rowOf));
    for (const row of dead) {
      expect(row.done).toBe(true);
      expect(row.last_error?.startsWith(DEAD_LETTER_PREFIX)).toBe(true);
    }
    expect(dead.map((row) => row.last_error)).toEqual([
      'dead letter: invalid start_domain message: /payload must have required properties hostname',
      'dead letter: invalid signal_domain message: /payload/signal must be equal to one of the allowed values',
      'dead letter: invalid start_delivery message: /workflow_id must match pattern "^webhook-delivery/.+"',
      'dead letter: invalid retry_delivery message: /payload must be object',
    ]);
    // The valid signal behind the bad one went out (its workflow does not exist: a no-op).
    expect(await rowOf(laterSignal)).toEqual({ done: true, last_error: null });
    expect(await workflowOutboxRepository(t.db).pendingCount()).toBe(0);

    const errors = logged.filter((l) => l.level === 50);
    expect(errors.map((l) => l.outboxId).sort((a, b) => a! - b!)).toEqual([noHostname, unknownSignal, wrongWorkflow, notAnObject]);
    for (const l of errors) {
      expect(l.msg).toBe('workflow outbox row is not a valid message; dead-lettered (not dispatched)');
      expect(l.problems!.length).toBeGreaterThan(0);
    }
  });

  it('dispatches valid messages of every kind', async () => {
    const start = await insert('start_domain', 'domain/dom_ok1', { domainId: 'dom_ok1', organizationId: 'org_1', hostname: 'shop.outbox.example', isApex: false, searchAttributes: false });
    const delivery = await insert('start_delivery', 'webhook-delivery/whd_ok1', { deliveryId: 'whd_ok1', endpointId: 'we_1', organizationId: 'org_1', event: 'hostname.created', searchAttributes: false });
    await dispatcher.kick([start, delivery]);
    expect(await rowOf(start)).toEqual({ done: true, last_error: null });
    expect(await rowOf(delivery)).toEqual({ done: true, last_error: null });
    const started = await temporal.client.workflow.getHandle('domain/dom_ok1').describe();
    expect(started.type).toBe('domainLifecycleWorkflow');
    expect((await temporal.client.workflow.getHandle('webhook-delivery/whd_ok1').describe()).type).toBe('webhookDeliveryWorkflow');
  });

  it('a Temporal that accepts calls and never answers holds a dispatch for the deadline only; the row goes out once it answers', async () => {
    const [host, port] = temporal.address.split(':') as [string, string];
    const proxy = await startTcpProxy(host, Number(port));
    const provider = nativeClientProvider(`127.0.0.1:${proxy.port}`, 'default');
    const frozenLogger = pino({ level: 'silent' });
    const viaProxy = createOutboxDispatcher({ db: t.db, client: provider.get, taskQueue: temporal.taskQueue, logger: frozenLogger });
    try {
      const first = await insert('start_delivery', 'webhook-delivery/whd_frz1', { deliveryId: 'whd_frz1', endpointId: 'we_1', organizationId: 'org_1', event: 'hostname.created', searchAttributes: false });
      await viaProxy.kick([first]);
      expect(await rowOf(first)).toEqual({ done: true, last_error: null });

      proxy.freeze();
      const held = await insert('start_delivery', 'webhook-delivery/whd_frz2', { deliveryId: 'whd_frz2', endpointId: 'we_1', organizationId: 'org_1', event: 'hostname.created', searchAttributes: false });
      const started = Date.now();
      await viaProxy.kick([held]);
      const waited = Date.now() - started;
      // Bounded by the deadline (not by the frozen connection), and the row is back in the queue.
      expect(waited).toBeGreaterThanOrEqual(DISPATCH_DEADLINE_MS - 500);
      expect(waited).toBeLessThan(DISPATCH_DEADLINE_MS + 5_000);
      const row = await rowOf(held);
      expect(row.done).toBe(false);
      expect(row.last_error).toMatch(/Timeout expired|DEADLINE_EXCEEDED|no answer from Temporal/);

      proxy.thaw();
      await viaProxy.kick([held]);
      expect(await rowOf(held)).toEqual({ done: true, last_error: null });
    } finally {
      proxy.thaw();
      await viaProxy.stop();
      await provider.close();
      await proxy.close();
    }
  }, 60_000);

  describe('signals to a domain', () => {
    const outbox = () => workflowOutboxRepository(t.db);
    const pendingOf = (workflowId: string) => t.db.any(sql.unsafe`
      select payload->>'signal' as signal from workflow_outbox
      where workflow_id = ${workflowId} and kind = 'signal_domain' and dispatched_at is null order by id`)
      .then((rows) => (rows as readonly { signal: string }[]).map((r) => r.signal));

    it('wake-up signals (verify, deployed) coalesce to one pending each; lifecycle signals never do', async () => {
      for (let i = 0; i < 5; i++) {
        await outbox().enqueueDomainSignals(t.db, ['dom_co1'], { signal: 'verify' });
        await outbox().enqueueDomainSignals(t.db, ['dom_co1'], { signal: 'deployed' });
      }
      await outbox().enqueueDomainSignals(t.db, ['dom_co1'], { signal: 'suspend', reason: 'test' });
      await outbox().enqueueDomainSignals(t.db, ['dom_co1'], { signal: 'suspend', reason: 'test' });
      expect(await pendingOf('domain/dom_co1')).toEqual(['verify', 'deployed', 'suspend', 'suspend']);
    });

    it('a wake-up already leased (maybe on its way) does not absorb a new one', async () => {
      const [first] = await outbox().enqueueDomainSignals(t.db, ['dom_co2'], { signal: 'verify' });
      await t.db.query(sql.unsafe`update workflow_outbox set locked_until = now() + interval '30 seconds' where id = ${first!}`);
      const second = await outbox().enqueueDomainSignals(t.db, ['dom_co2'], { signal: 'verify' });
      expect(second).toHaveLength(1);
      expect(await pendingOf('domain/dom_co2')).toEqual(['verify', 'verify']);
    });

    it('a delete is leased in the same pass as the wake-ups queued before it; suspend → resume keep their order', async () => {
      await outbox().enqueueDomainSignals(t.db, ['dom_co3'], { signal: 'verify' });
      await outbox().enqueueDomainSignals(t.db, ['dom_co3'], { signal: 'deployed' });
      const [del] = await outbox().enqueueDomainSignals(t.db, ['dom_co3'], { signal: 'delete' });
      const [suspend] = await outbox().enqueueDomainSignals(t.db, ['dom_co4'], { signal: 'suspend', reason: 'test' });
      const [resume] = await outbox().enqueueDomainSignals(t.db, ['dom_co4'], { signal: 'resume' });
      const leased = await outbox().lease(100, [del!, suspend!, resume!]);
      // The delete does not wait for the verify and deployed rows ahead of it; the resume waits for the suspend.
      expect(leased.messages.map((m) => m.id).sort((a, b) => a - b)).toEqual([del, suspend]);
      await outbox().markDispatched([suspend!]);
      expect((await outbox().lease(100, [resume!])).messages.map((m) => m.id)).toEqual([resume]);
    });

    it('verify requests through the repository coalesce too', async () => {
      const org = await organizationsRepository(t.db).create({ name: 'coalesce' });
      const dest = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
      const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dest.id, hostname: 'shop.coalesce.example', isApex: false });
      for (let i = 0; i < 20; i++) expect(await domainsRepository(t.db).requestVerify(org.id, domain.id)).not.toBeNull();
      expect(await pendingOf(`domain/${domain.id}`)).toEqual(['verify']);
      await t.db.query(sql.unsafe`update workflow_outbox set dispatched_at = now() where workflow_id = ${`domain/${domain.id}`}`);
    });
  });
});
