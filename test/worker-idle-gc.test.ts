// A full GC of each worker thread once it goes quiet, or at once over the memory budget's
// high-water mark (worker/idle-gc.ts; the workflow threads load the same module through our SDK
// patch and run it without the burst condition; docs/scale.md "A full GC when the worker goes
// quiet", "The budget as a bound"). The rule on its own (when to collect: never during a burst
// under the mark, once after it; over the mark at once, once a period); V8's last-resort GC reached
// without --expose-gc giving a real heap back; and the workflow thread of a real worker (real
// Postgres and Temporal) giving back what a burst left once quiet, which it keeps with the rule off.
import { createRequire } from 'node:module';
import v8 from 'node:v8';
import vm from 'node:vm';
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
import { exposeGc, lookEveryMs, quietCollector, startIdleGc } from '../worker/idle-gc.ts';
import { testConfig } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { createTestTemporal, type TestTemporal } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const MiB = 1024 * 1024;
/** First tasks in the workflow-thread burst. */
const BURST = 60;

describe('worker: a full GC once a thread goes quiet (main thread)', () => {
  it('the rule: after a burst, once quiet for a period and grown by the threshold; never during a burst, before the period, without growth or without a burst', () => {
    const period = 5_000;
    const growth = 64 * MiB;
    const c = quietCollector(period, growth, 100 * MiB, 0);
    // Quiet, the heap growing (a wave of DNS checks): no burst, no collection.
    expect(c.look(0.1, 200 * MiB, 1_000)).toBe(false);
    expect(c.look(0.1, 300 * MiB, 10_000)).toBe(false);
    // A burst: never during it.
    expect(c.look(0.9, 350 * MiB, 11_000)).toBe(false);
    expect(c.look(0.6, 360 * MiB, 12_000)).toBe(false);
    // Quiet, but not yet for a whole period since the last busy moment.
    expect(c.look(0.05, 360 * MiB, 16_000)).toBe(false);
    // A burst that has just begun again: seen, and the period starts over.
    expect(c.look(0.3, 360 * MiB, 16_250)).toBe(false);
    expect(c.look(0.05, 360 * MiB, 21_000)).toBe(false);
    // Quiet for the period: collect.
    expect(c.look(0.05, 360 * MiB, 21_250)).toBe(true);
    c.collected(96 * MiB, 21_250);
    // Once per burst: quiet growth after it does not collect again.
    expect(c.look(0.05, 200 * MiB, 40_000)).toBe(false);
    // A small burst whose heap grew less than the threshold: not worth it, until it has grown.
    expect(c.look(0.5, 120 * MiB, 41_000)).toBe(false);
    expect(c.look(0.05, 120 * MiB, 47_000)).toBe(false);
    expect(c.look(0.05, 170 * MiB, 60_000)).toBe(true);
    // Growth counts from the lowest the heap has been (V8's own collections included).
    c.collected(150 * MiB, 60_000);
    expect(c.look(0.05, 90 * MiB, 61_000)).toBe(false);
    expect(c.look(0.5, 140 * MiB, 62_000)).toBe(false);
    expect(c.look(0.05, 160 * MiB, 70_000)).toBe(true);
    // Looked at every quarter period, at most every second.
    expect(lookEveryMs(5_000)).toBe(1_000);
    expect(lookEveryMs(200)).toBe(50);
  });

  it('over the high-water mark: at once, mid-burst too, once grown, at most once a period', () => {
    const period = 5_000;
    const highWater = 900 * MiB;
    const c = quietCollector(period, 64 * MiB, 100 * MiB, 0, { highWaterBytes: highWater });
    // A burst under the mark: as before, never during it.
    expect(c.look(0.9, 400 * MiB, 1_000, 800 * MiB)).toBe(false);
    // Over the mark, the heap grown: now, though the burst goes on.
    expect(c.look(0.9, 420 * MiB, 2_000, 950 * MiB)).toBe(true);
    c.collected(120 * MiB, 2_000);
    // Still over the mark (the RSS lags, or the live heap is large): not again within the period…
    expect(c.look(0.9, 400 * MiB, 6_000, 950 * MiB)).toBe(false);
    // …nor, after it, without the threshold's growth since the collection.
    expect(c.look(0.9, 150 * MiB, 8_000, 950 * MiB)).toBe(false);
    expect(c.look(0.9, 200 * MiB, 9_000, 950 * MiB)).toBe(true);
    c.collected(110 * MiB, 9_000);
    // The burst goes on under the mark, then ends: the quiet rule takes over (one more collection
    // once quiet for the period).
    expect(c.look(0.9, 150 * MiB, 10_000, 800 * MiB)).toBe(false);
    expect(c.look(0.05, 180 * MiB, 14_000, 700 * MiB)).toBe(false);
    expect(c.look(0.05, 180 * MiB, 15_000, 700 * MiB)).toBe(true);
    // No mark (the default): the RSS changes nothing.
    const none = quietCollector(period, 64 * MiB, 100 * MiB, 0);
    expect(none.look(0.9, 900 * MiB, 1_000, 4096 * MiB)).toBe(false);
  });

  it('without the burst condition (a workflow thread): once quiet for the period and grown, burst or not', () => {
    const c = quietCollector(5_000, 64 * MiB, 100 * MiB, 0, { afterBurstOnly: false });
    expect(c.look(0.1, 200 * MiB, 4_000)).toBe(false);
    expect(c.look(0.1, 200 * MiB, 5_000)).toBe(true);
    c.collected(90 * MiB, 5_000);
    expect(c.look(0.1, 120 * MiB, 20_000)).toBe(false);
    expect(c.look(0.6, 200 * MiB, 21_000)).toBe(false);
    expect(c.look(0.1, 200 * MiB, 26_000)).toBe(true);
    // A busy moment the high-water mark collected on still starts the quiet period over.
    const marked = quietCollector(5_000, 64 * MiB, 100 * MiB, 0, { afterBurstOnly: false, highWaterBytes: 900 * MiB });
    expect(marked.look(0.9, 200 * MiB, 1_000, 950 * MiB)).toBe(true);
    marked.collected(100 * MiB, 1_000);
    expect(marked.look(0.1, 200 * MiB, 5_500, 800 * MiB)).toBe(false);
    expect(marked.look(0.1, 200 * MiB, 6_000, 800 * MiB)).toBe(true);
  });

  it('gets V8\'s last-resort GC without --expose-gc, which gives a burst\'s heap back; no other context gets `gc`; a period of 0 starts nothing', () => {
    const collect = exposeGc();
    expect(vm.runInNewContext('typeof gc')).toBe('undefined');
    const start = v8.getHeapStatistics().total_heap_size;
    let held: unknown[] | null = [];
    while (v8.getHeapStatistics().total_heap_size < start + 128 * MiB) held.push(Array.from({ length: 10_000 }, (_, j) => ({ j, s: `x${j}` })));
    expect(held.length).toBeGreaterThan(0);
    held = null;
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    expect(v8.getHeapStatistics().total_heap_size).toBeLessThan(start + 16 * MiB);
    const stop = startIdleGc({ periodMs: 0, growthMb: 1, onCollect: () => { throw new Error('collected with a period of 0'); } });
    stop();
  });

  it('is on by default (5 s quiet, 64 MiB grown, over 90 % of the memory budget), 0 turns it off, and a bad setting stops the start with its name', () => {
    expect(testConfig().worker.idleGc).toEqual({ periodMs: 5_000, growthMb: 64, highWaterMb: 921 });
    expect(testConfig({ HOSTGATE_WORKER_IDLE_GC_MS: '0' }).worker.idleGc.periodMs).toBe(0);
    // The high-water mark: 90 % of the memory budget.
    expect(testConfig().worker.idleGc.highWaterMb).toBe(921);
    expect(testConfig({ HOSTGATE_WORKER_MEMORY_MB: '2048' }).worker.idleGc.highWaterMb).toBe(1843);
    expect(() => testConfig({ HOSTGATE_WORKER_IDLE_GC_MS: '-1' })).toThrow(/HOSTGATE_WORKER_IDLE_GC_MS/);
    expect(() => testConfig({ HOSTGATE_WORKER_IDLE_GC_MS: 'soon' })).toThrow(/HOSTGATE_WORKER_IDLE_GC_MS/);
    expect(() => testConfig({ HOSTGATE_WORKER_IDLE_GC_GROWTH_MB: '0' })).toThrow(/HOSTGATE_WORKER_IDLE_GC_GROWTH_MB/);
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
