// A full GC of each worker thread once it goes quiet (worker/idle-gc.ts, and the same rule in our
// SDK patch for the workflow threads; docs/scale.md "A full GC when the worker goes quiet"). Real
// V8 heaps: garbage left by a burst is given back once the thread has been quiet for a period; a
// busy thread is left alone; the workflow threads of a real worker (real Postgres and Temporal)
// collect too, and keep their heap with the rule off.
import { createRequire } from 'node:module';
import v8 from 'node:v8';
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
import { createHostgateWorker } from '../worker/create-worker.ts';
import { startIdleGc } from '../worker/idle-gc.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;
/** First tasks in the workflow-thread burst. */
const BURST = 60;

/** Garbage: ≈ `mb` MiB of small objects, unreachable once this returns. */
function makeGarbage(mb: number): number {
  let kept = 0;
  for (let i = 0; i < mb * 8; i++) {
    const chunk = Array.from({ length: 2_000 }, (_, j) => ({ i, j, s: `x${i}-${j}` }));
    kept += chunk.length;
  }
  return kept;
}

describe('worker: a full GC once a thread goes quiet (main thread)', () => {
  it('collects the garbage a burst left once the thread is quiet for a period', async () => {
    const collected: { beforeBytes: number; afterBytes: number; ms: number }[] = [];
    const stop = startIdleGc({ periodMs: 200, growthMb: 8, onCollect: (o) => collected.push(o) });
    try {
      // A burst: the heap grows to more than twice what it was (this jest process holds a lot), then
      // all of it becomes garbage.
      const start = v8.getHeapStatistics().total_heap_size;
      let held: unknown[] | null = [];
      while (v8.getHeapStatistics().total_heap_size < 2.2 * start) held.push(Array.from({ length: 10_000 }, (_, j) => ({ j, s: `x${j}` })));
      held = null;
      await waitFor('a quiet-time collection', async () => collected.length > 0, 5_000, 50);
    } finally {
      stop();
    }
    const [first] = collected;
    expect(first!.beforeBytes - first!.afterBytes).toBeGreaterThan(8 * MiB);
  });

  it('leaves a busy thread alone, and a period of 0 never collects', async () => {
    const collected: unknown[] = [];
    const stop = startIdleGc({ periodMs: 200, growthMb: 8, onCollect: (o) => collected.push(o) });
    try {
      // Busy: the event loop runs garbage-making work ≈ 90 % of the time for 1.5 s.
      const until = Date.now() + 1_500;
      while (Date.now() < until) {
        const slice = Date.now() + 45;
        while (Date.now() < slice) makeGarbage(1);
        await sleep(5);
      }
      expect(collected).toEqual([]);
    } finally {
      stop();
    }
    const off = startIdleGc({ periodMs: 0, growthMb: 1, onCollect: (o) => collected.push(o) });
    makeGarbage(32);
    await sleep(500);
    off();
    expect(collected).toEqual([]);
  });
});

describe('worker: a full GC once a thread goes quiet (the workflow threads, our SDK patch)', () => {
  let t: TestDatabase;
  let temporal: TestTemporal;
  let connection: NativeConnection;
  const logger = createLogger('silent', 'test-idle-gc');
  // The SDK's workflow threads, as it starts them (node:worker_threads' Worker, watched).
  const threads: import('node:worker_threads').Worker[] = [];
  const workerThreads = createRequire(import.meta.url)('node:worker_threads') as typeof import('node:worker_threads');
  const Original = workerThreads.Worker;

  beforeAll(async () => {
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* already installed in this process */ }
    workerThreads.Worker = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        // A thread inherits the process's own environment, which jest keeps apart from the
        // `process.env` a test module sees (where createHostgateWorker writes the rule): handed over.
        super(args[0], { ...args[1], env: { ...process.env } });
        if (String(args[0]).includes('workflow-worker-thread')) threads.push(this);
      }
    };
    t = await createTestDatabase();
    temporal = await createTestTemporal();
    connection = await NativeConnection.connect({ address: temporal.address });
  });
  afterAll(async () => {
    workerThreads.Worker = Original;
    await connection?.close();
    await temporal?.close();
    await t?.drop();
  });

  /** BURST domain workflows' first tasks on a worker with this quiet-time rule; its main workflow thread's heap, after the burst and after a quiet second. */
  async function burst(idleGc: string): Promise<{ burstBytes: number; quietBytes: number }> {
    threads.length = 0;
    const taskQueue = `idle-gc-${randomToken(8)}`;
    const config = testConfig({ HOSTGATE_WORKER_IDLE_GC_MS: idleGc, HOSTGATE_WORKER_IDLE_GC_GROWTH_MB: '1' });
    const worker = await createHostgateWorker({ connection, namespace: 'default', taskQueue, db: t.db, config, logger });
    expect(threads.length).toBeGreaterThanOrEqual(1);
    const org = await organizationsRepository(t.db).create({ name: `idle-gc ${idleGc}` });
    const dst = await destinationsRepository(t.db).create({ organizationId: org.id, url: 'https://app.example.com', host: 'app.example.com', port: 443 });
    const ids: string[] = [];
    for (let i = 0; i < BURST; i++) {
      const { domain } = await domainsRepository(t.db).create({ organizationId: org.id, destinationId: dst.id, hostname: `shop${i}.${randomToken(6)}.idle-gc.example`, isApex: false });
      ids.push(domain.id);
    }
    const client = new Client({ connection, namespace: 'default' });
    const heap = async () => Math.max(...await Promise.all(threads.map(async (w) => (await w.getHeapStatistics()).total_heap_size)));
    return worker.runUntil(async () => {
      await Promise.all(ids.map((domainId, i) => startDomainWorkflow(client, taskQueue, { domainId, organizationId: org.id, hostname: `shop${i}.idle-gc.example`, isApex: false })));
      await waitFor('every workflow\'s first task (attach)', async () => {
        const n = await t.db.oneFirst(sql.unsafe`select count(*)::int from domains where id = any(${sql.array(ids, 'text')}) and workflow_started_at is not null`) as number;
        return n === ids.length;
      }, 30_000, 100);
      const burstBytes = await heap();
      await sleep(1_500);
      const quietBytes = await heap();
      return { burstBytes, quietBytes };
    });
  }

  it('a workflow thread gives back what a burst left once quiet; with the rule off it keeps it', async () => {
    const on = await burst('250');
    const off = await burst('0');
    // Without the rule (the SDK as shipped), a quiet second leaves the heap as the burst left it.
    expect(off.quietBytes).toBeGreaterThan(off.burstBytes * 0.9);
    // With it, the thread's heap falls well below that (a light burst: a collection may already
    // come during it).
    expect(on.quietBytes).toBeLessThan(off.quietBytes * 0.7);
  }, 120_000);
});
