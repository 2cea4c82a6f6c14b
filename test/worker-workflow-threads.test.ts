// The main task queue's workflow code runs on HOSTGATE_WORKER_WORKFLOW_THREADS threads (default 1,
// the SDK's own default). A bulk import's first workflow tasks drain after the creates at what those
// threads get of the CPU; a second thread drains them sooner and costs memory beyond the worker's
// budget (docs/scale.md, "A bulk import…", "The first tasks"). Real Postgres and Temporal: domain
// workflows started all at once each run their first task (attach sets `workflow_started_at`) on a
// worker with two threads and a cache smaller than the burst; the setting reaches the main worker
// only (the webhook task queue's worker keeps the SDK default). The same worker polls the task
// queue itself with half its workflow-task polls (NEW_WORKFLOW_POLL_RATIO).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { sql } from '../db/pool.ts';
import { destinationsRepository } from '../db/repositories/destinations.ts';
import { domainsRepository } from '../db/repositories/domains.ts';
import { organizationsRepository } from '../db/repositories/organizations.ts';
import { createLogger } from '../logging/logger.ts';
import { randomToken } from '../security/tokens.ts';
import { startDomainWorkflow } from '../temporal/clients/domain.ts';
import { cachedWorkflowsFor, createHostgateWorker, NEW_WORKFLOW_POLL_RATIO, webhookCachedWorkflows } from '../worker/create-worker.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

describe('worker: workflow threads of the main task queue', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let connection: NativeConnection;
  const logger = createLogger('silent', 'test-threads');

  beforeAll(async () => {
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* already installed in this process */ }
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    connection = await NativeConnection.connect({ address: temporal.address });
  });
  afterAll(async () => {
    await connection?.close();
    await temporal?.close();
    await t?.drop();
  });

  it('runs domain workflows on two threads when set: a burst of 60 first tasks all attach, with 20 cached', async () => {
    const taskQueue = `threads-${randomToken(8)}`;
    const config = testConfig({ HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS: '20', HOSTGATE_WORKER_WORKFLOW_THREADS: '2' });
    expect(config.worker.workflowThreads).toBe(2);
    const worker = await createHostgateWorker({ connection, namespace: 'default', taskQueue, db: t.db, config, logger });
    // The SDK's default is one thread; deliveries keep it (their tasks are one local activity each).
    expect(worker.main.options.workflowThreadPoolSize).toBe(2);
    expect(worker.webhooks.options.workflowThreadPoolSize).toBe(1);
    // Half its workflow-task polls ask the task queue itself, where every first task is (the SDK's
    // default is a fifth: 2 polls over the server's 4 partitions); deliveries keep the default.
    expect(worker.main.options.nonStickyToStickyPollRatio).toBe(NEW_WORKFLOW_POLL_RATIO);
    expect(NEW_WORKFLOW_POLL_RATIO).toBe(1);
    expect(worker.webhooks.options.nonStickyToStickyPollRatio).toBe(0.2);

    const org = await organizationsRepository(t.db).create({ name: 'threads' });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const ids: string[] = [];
    for (let i = 0; i < 60; i++) {
      const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `shop${i}.${randomToken(6)}.threads.example`, isApex: false });
      ids.push(domain.id);
    }
    const client = new Client({ connection, namespace: 'default' });
    const history = await worker.runUntil(async () => {
      await Promise.all(ids.map((domainId, i) => startDomainWorkflow(client, taskQueue, { domainId, organizationId: org.id, hostname: `shop${i}.threads.example`, isApex: false })));
      await waitFor('every workflow\'s first task (attach)', async () => {
        const n = await t.db.oneFirst(sql.unsafe`select count(*)::int from domains where id = any(${sql.array(ids, 'text')}) and workflow_started_at is not null`) as number;
        return n === ids.length;
      }, 30_000, 200);
      // The attach commits inside the task: its completion reaches the history a moment later.
      return waitFor('the last one\'s first task completed', async () => {
        const events = (await client.workflow.getHandle(`domain/${ids[59]!}`).fetchHistory()).events ?? [];
        return events.some((e) => e.workflowTaskCompletedEventAttributes) ? events : null;
      }, 10_000, 100);
    });
    // Each waits for DNS: one workflow task, its attach a local activity, and no failed task.
    expect(history.filter((e) => e.workflowTaskCompletedEventAttributes)).toHaveLength(1);
    expect(history.filter((e) => e.workflowTaskFailedEventAttributes)).toEqual([]);
  }, 90_000);

  it('one thread by default (the memory budget holds with it), and HOSTGATE_WORKER_WORKFLOW_THREADS is checked', async () => {
    const worker = await createHostgateWorker({ connection, namespace: 'default', taskQueue: `threads-one-${randomToken(8)}`, db: t.db, config: testConfig(), logger });
    expect(worker.main.options.workflowThreadPoolSize).toBe(1);
    // The default budget (1,024 MiB) less the base (550) at 0.15 MiB a cached workflow, less the
    // webhook worker's 100 (docs/scale.md "The memory budget, re-derived").
    expect(worker.main.options.maxCachedWorkflows).toBe(3060);
    // Started and shut down, so it lets go of the connection.
    await worker.runUntil(async () => undefined);
    expect(() => testConfig({ HOSTGATE_WORKER_WORKFLOW_THREADS: '0' })).toThrow(/HOSTGATE_WORKER_WORKFLOW_THREADS/);
  }, 60_000);

  it('takes each workflow thread beyond the first off the memory budget: fewer cached, the same budget', async () => {
    const webhookCached = webhookCachedWorkflows(testConfig().worker.webhooks.workflowTaskSlots);
    expect(webhookCached).toBe(100);
    // (budget − 550 − 350 per thread beyond the first) ÷ 0.15, less the deliveries' 100; never below 100.
    expect(cachedWorkflowsFor(1024)).toBe(3060);
    expect(cachedWorkflowsFor(1024, { workflowThreads: 2 })).toBe(726);
    expect(cachedWorkflowsFor(2048, { workflowThreads: 2 })).toBe(7553);
    expect(cachedWorkflowsFor(2048, { workflowThreads: 4 })).toBe(2886);
    expect(cachedWorkflowsFor(1024, { workflowThreads: 3 })).toBe(100);
    expect(cachedWorkflowsFor(256)).toBe(100);
    // A worker sizes its cache from its own thread count, and a set cache still wins.
    const twoThreads = await createHostgateWorker({ connection, namespace: 'default', taskQueue: `threads-budget-${randomToken(8)}`, db: t.db, config: testConfig({ HOSTGATE_WORKER_WORKFLOW_THREADS: '2', HOSTGATE_WORKER_MEMORY_MB: '2048' }), logger });
    expect(twoThreads.main.options.maxCachedWorkflows).toBe(7553);
    expect(twoThreads.webhooks.options.maxCachedWorkflows).toBe(100);
    await twoThreads.runUntil(async () => undefined);
    const set = await createHostgateWorker({ connection, namespace: 'default', taskQueue: `threads-set-${randomToken(8)}`, db: t.db, config: testConfig({ HOSTGATE_WORKER_WORKFLOW_THREADS: '2', HOSTGATE_WORKER_MAX_CACHED_WORKFLOWS: '700' }), logger });
    expect(set.main.options.maxCachedWorkflows).toBe(700);
    await set.runUntil(async () => undefined);
  }, 60_000);
});
