// A domain's workflow through the real dev server, with the real activities writing Postgres.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { sql } from '../db/pool.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { stateQuery } from '../workflows/domain/signals.ts';
import { createOutboxDispatcher, type OutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, startTestWorker, type RunningWorker, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('domain workflow round-trip', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let worker: RunningWorker;
  let dispatcher: OutboxDispatcher;
  let orgId: string;

  beforeAll(async () => {
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    worker = await startTestWorker(temporal, t.db);
    dispatcher = createOutboxDispatcher({ db: t.db, client: temporal.client, taskQueue: temporal.taskQueue, logger: createLogger('silent', 'test') });
    orgId = (await organizationsRepository(t.db).create({ name: 'Round trip' })).id;
    await t.db.query(sql.unsafe`insert into destinations (id, organization_id, url, host, port) values ('dst_rt', ${orgId}, 'https://app.example.com', 'app.example.com', 443)`);
  });
  afterAll(async () => {
    await dispatcher.stop();
    await worker.stop();
    await temporal.close();
    await t.drop();
  });

  it('starts once per domain, receives signals, and records deletion in Postgres', async () => {
    const domains = domainsRepository(t.db);
    const { domain, outboxId } = await domains.create({ organizationId: orgId, destinationId: 'dst_rt', hostname: 'shop.roundtrip.example', isApex: false });
    await dispatcher.kick([outboxId]);
    // The activity marks the row when the workflow attaches.
    const attached = await waitFor('workflow to attach', async () => (await domains.getById(domain.id))?.workflow_started_at);
    expect(typeof attached).toBe('string');

    const handle = temporal.client.workflow.getHandle(`domain/${domain.id}`);
    const description = await handle.describe();
    expect(description.type).toBe('domainLifecycleWorkflow');
    expect(description.taskQueue).toBe(temporal.taskQueue);
    expect(description.memo).toEqual({ hostname: 'shop.roundtrip.example', organizationId: orgId });

    // A second start request for the same domain is a no-op (same run).
    const again = await domains.transition(domain.id, 'resume', null);
    expect(again.changed).toBe(false);
    await t.db.query(sql.unsafe`insert into workflow_outbox (kind, workflow_id, payload) values ('start_domain', ${`domain/${domain.id}`}, ${sql.jsonb({ domainId: domain.id, organizationId: orgId, hostname: domain.hostname })})`);
    await dispatcher.kick();
    const runs = await temporal.client.workflow.list({ query: `WorkflowId = "domain/${domain.id}"` });
    let count = 0;
    for await (const _ of runs) count++;
    expect(count).toBe(1);

    // verify → the workflow counts it.
    await domains.requestVerify(orgId, domain.id);
    await dispatcher.kick();
    await waitFor('verify to arrive', async () => (await handle.query(stateQuery)).verifyRequests === 1);

    // delete → row goes deleting now, deleted once the workflow cleaned up.
    const deleting = await domains.transition(domain.id, 'delete', 'test', { organizationId: orgId, signal: { signal: 'delete' } });
    expect(deleting.changed && deleting.domain.status).toBe('deleting');
    await dispatcher.kick();
    await handle.result();
    const final = await domains.getById(domain.id);
    expect(final?.status).toBe('deleted');

    const history = await t.db.any(sql.unsafe`select seq, from_status, to_status from domain_status_history where domain_id = ${domain.id} order by seq`);
    expect(history).toEqual([
      { seq: 0, from_status: null, to_status: 'pending_dns' },
      { seq: 1, from_status: 'pending_dns', to_status: 'deleting' },
      { seq: 2, from_status: 'deleting', to_status: 'deleted' },
    ]);
    const events = await t.db.anyFirst(sql.unsafe`select kind from events where domain_id = ${domain.id} order by created_at, id`);
    expect(events).toEqual(['hostname.created', 'hostname.deleting', 'hostname.deleted']);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where dispatched_at is null`)).toBe(0);
  });

  it('the reconciler starts a live domain that never got a start request, and only that one', async () => {
    const domains = domainsRepository(t.db);
    const lost = await domains.create({ organizationId: orgId, destinationId: 'dst_rt', hostname: 'lost.roundtrip.example', isApex: false });
    const queued = await domains.create({ organizationId: orgId, destinationId: 'dst_rt', hostname: 'queued.roundtrip.example', isApex: false });
    // One start row lost (a manual edit), one already dispatched but its workflow not yet attached.
    await t.db.query(sql.unsafe`delete from workflow_outbox where id = ${lost.outboxId}`);
    await t.db.query(sql.unsafe`update workflow_outbox set dispatched_at = now() where id = ${queued.outboxId}`);
    await t.db.query(sql.unsafe`update domains set created_at = now() - interval '2 minutes' where id in (${lost.domain.id}, ${queued.domain.id})`);
    const first = await dispatcher.reconcile();
    expect(first.requeued).toBe(1);
    await dispatcher.kick(); // the worker's next sweep
    await waitFor('the lost domain to get its workflow', async () => (await domains.getById(lost.domain.id))?.workflow_started_at);
    const second = await dispatcher.reconcile();
    expect(second.requeued).toBe(0);
    expect(await t.db.oneFirst(sql.unsafe`select count(*)::int from workflow_outbox where workflow_id = ${`domain/${queued.domain.id}`}`)).toBe(1);
  });
});
