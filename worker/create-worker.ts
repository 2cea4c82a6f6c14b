import { Client } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import { createDnsCheckActivities } from '../activities/dns-check.ts';
import { createOutboxDispatcher, type OutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { createDnsChecker, type DnsChecker } from './dns-checker.ts';
import { dnsTaskQueue, webhookTaskQueue } from '../contracts/task-queues.ts';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../logging/logger.ts';
import { bundleFromSource, readBundle } from './workflow-bundle.ts';
import { applySdkSwitches } from './sdk-switches.ts';

export interface HostgateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Db;
  logger: Logger;
  config: Config;
  /** Prebuilt bundle path; omitted in tests, which bundle from source. */
  bundlePath?: string | undefined;
  /** Workflow sources to bundle instead of workflows/index.ts (test/worker-rollout.test.ts runs a v2). */
  workflowsPath?: string | undefined;
  /** For the DNS checker's LISTEN; without it the checker sweeps every second (tests). */
  databaseUrl?: string | undefined;
  /**
   * The process's outbox dispatcher (worker/main.ts runs its sweep), which sends the verify a DNS
   * checker's move queued; without it (tests) the worker makes one of its own on its connection.
   */
  dispatcher?: Pick<OutboxDispatcher, 'dispatch'> | undefined;
}

// The memory budget's three terms, fitted to the worker's RSS in bench:lifecycle with 5,000 pending
// domains (2 vCPU EPYC, 2026-11-29, docs/scale.md "The memory budget, re-derived"): cache 300,
// 1,813 and all 5,000, one and two workflow threads. Sized for the peak — the RSS when the last of
// 5,000 first tasks has run, before the idle GC (worker/idle-gc.ts) gives the burst's garbage back
// — since that is what a container's limit must hold; once quiet the same worker used 355–810 MiB.

/**
 * What a worker process holds at a burst's peak besides its cached workflows (pools, the DNS
 * checker, code, the burst's uncollected garbage): 530 MiB fitted with one workflow thread (RSS
 * 559 MiB at 300 cached, 940 at 1,813, 1,057 at 5,000), rounded up.
 */
export const WORKER_BASE_MB = 550;
/**
 * What each workflow thread beyond the first adds at that peak: its own V8 isolate and its
 * garbage. 50–330 MiB over the three cache sizes (once quiet 0–50 MiB); more than the high end is
 * taken, as two threads with 1,350 cached still peaked at 931 and 1,013 MiB.
 */
export const WORKFLOW_THREAD_MB = 350;
/**
 * What one more cached domain workflow adds: 0.054–0.106 MiB at the peak, 0.079–0.097 MiB once
 * quiet (the slopes over 300 → 5,000 cached), taken as 0.15 for room: at 0.12 (3,850 cached) one
 * thread peaked at 967 and 1,003 MiB of the 1,024. It was 0.3 when each run had its own copy of
 * the workflow modules (now shared: workflow-bundle.ts) and the threads never collected.
 */
export const CACHED_WORKFLOW_MB = 0.15;

/**
 * The share of the main worker's workflow-task polls that ask the task queue itself rather than
 * this worker's sticky queue (the SDK's `nonStickyToStickyPollRatio`, default 0.2: 2 of its 10
 * polls). A new workflow's first task is only ever on the task queue, and a domain workflow that
 * waits days for DNS is rarely still cached when it wakes, so few of its tasks are sticky. With 2
 * such polls over the server's 4 partitions of a task queue (Temporal's default), a bulk import's
 * first tasks came out at 1–2 a second while the starts arrived (bench:lifecycle, 5,000 creates:
 * the last first task 110 s after the last create); with 5 (ratio 1: 5 and 5 of 10) at 4–9 a
 * second (71–75 s, four runs; a poller autoscaler 120 s, one partition instead of 4 on the dev
 * server 68 s). docs/scale.md "The first tasks…".
 */
export const NEW_WORKFLOW_POLL_RATIO = 1;

/**
 * Delivery workflows the webhook task queue's worker keeps in memory between tasks: a delivery
 * that succeeds at once is one workflow task and leaves the cache when it completes, so this only
 * holds those waiting between attempts (hours apart: a replay of a few dozen events each time is
 * cheap). At least its workflow-task slots (the SDK caps the slots at the cache).
 */
export function webhookCachedWorkflows(webhookWorkflowTaskSlots: number): number {
  return Math.max(100, webhookWorkflowTaskSlots);
}

/**
 * Workflows kept in memory between tasks, from the process's memory budget
 * (HOSTGATE_WORKER_MEMORY_MB) less its base and its workflow threads beyond the first, at the
 * measured size of one cached domain workflow: memory stays under the budget however many
 * workflows are open, and a workflow not kept only costs a replay of its (short) run when it next
 * has a task — which, since the DNS checker, is when its DNS is right or someone acts on it, not
 * every backoff step. The webhook worker's cache (`webhookCached`, counted at a domain workflow's
 * size: a delivery's run is shorter) comes off the same budget. Never below 100 (the SDK needs a
 * few to run at all). 1,024 MiB (the default) → 3,060 domain workflows beside 100 deliveries with
 * one thread, 726 with two.
 */
export function cachedWorkflowsFor(memoryMb: number, { workflowThreads = 1, webhookCached = webhookCachedWorkflows(0) }: { workflowThreads?: number; webhookCached?: number } = {}): number {
  const forCache = memoryMb - WORKER_BASE_MB - (workflowThreads - 1) * WORKFLOW_THREAD_MB;
  return Math.max(100, Math.floor(forCache / CACHED_WORKFLOW_MB) - webhookCached);
}

/**
 * The three Temporal workers of one worker process and its DNS checker, run and stopped together:
 * `main` hosts every workflow and activity of the task queue; `dns` serves only the periodic DNS
 * checks on the DNS task queue (contracts/task-queues.ts `dnsTaskQueue`) that workflows recorded
 * before the checker still make, with slots of its own, so slow DNS holds those and nothing else
 * (issue 14); `webhooks` serves the delivery workflows on the webhook task queue
 * (`webhookTaskQueue`) with slots of their own, so receivers that take up to the HTTP deadline
 * hold those and nothing else (issue 26); `checker` makes the periodic checks of pending domains
 * from the schedule in Postgres (worker/dns-checker.ts, issue 26). Every worker process polls all
 * three queues, so any number of them can run side by side.
 */
export interface HostgateWorker {
  main: Worker;
  dns: Worker;
  webhooks: Worker;
  checker: DnsChecker;
  /** Runs all until all stop; a worker that stops by itself (fatal error) stops the others. */
  run(): Promise<void>;
  /** Runs all until `until` settles, then shuts them down (tests). */
  runUntil<R>(until: Promise<R> | (() => Promise<R>)): Promise<R>;
  shutdown(): void;
  /** The main worker's state. */
  getState(): ReturnType<Worker['getState']>;
}

export async function createHostgateWorker(options: HostgateWorkerOptions): Promise<HostgateWorker> {
  const activities = createActivities({ db: options.db, logger: options.logger, config: options.config });
  // One bundle for both workers that run workflows (the main and the webhook task queue's).
  const workflowBundle = options.bundlePath ? readBundle(options.bundlePath) : await bundleFromSource(options.workflowsPath);
  const webhookCached = webhookCachedWorkflows(options.config.worker.webhooks.workflowTaskSlots);
  // Before the workers: their workflow threads read the switches when the SDK starts them.
  applySdkSwitches({ workflowStackTraces: options.config.worker.workflowStackTraces, idleGc: options.config.worker.idleGc });
  const main = await createMainWorker(options, activities, workflowBundle, webhookCached);
  const webhooks = await createWebhookWorker(options, activities, workflowBundle, webhookCached);
  const signals = options.dispatcher ?? createOutboxDispatcher({ db: options.db, client: new Client({ connection: options.connection, namespace: options.namespace }), taskQueue: options.taskQueue, logger: options.logger });
  const checker = createDnsChecker({
    db: options.db,
    logger: options.logger,
    databaseUrl: options.databaseUrl,
    check: activities.checkScheduled,
    // The verify its move queued, sent at once (the worker's outbox sweep is the fallback).
    dispatchSignals: (ids) => signals.dispatch(ids),
    moveStep: options.config.moves.challengeZone ? (domainId) => activities.advanceMove({ domainId }) : undefined,
    // Latency-bound (three DNS round trips and a statement each): with 20 in flight a burst of
    // creates outran the checks on a loaded machine (bench:lifecycle, docs/scale.md).
    concurrency: options.config.worker.dnsCheckerConcurrency,
  });
  const dns = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: dnsTaskQueue(options.taskQueue),
    activities: { recheckDns: createDnsCheckActivities({ db: options.db, config: options.config }).recheckDns },
    maxConcurrentActivityTaskExecutions: options.config.worker.dnsActivitySlots,
    shutdownGraceTime: '20 seconds',
  });
  const shutdown = () => {
    for (const w of [main, dns, webhooks]) if (w.getState() === 'RUNNING') w.shutdown();
  };
  return {
    main,
    dns,
    webhooks,
    checker,
    async run() {
      const runs = [main.run(), dns.run(), webhooks.run()];
      checker.start();
      try {
        // Whichever stops first (shutdown or a fatal error) takes the other along.
        await Promise.race(runs.map((r) => r.then(shutdown, (error: unknown) => { shutdown(); throw error; })));
        await Promise.all(runs);
      } finally {
        await checker.stop();
      }
    },
    async runUntil<R>(until: Promise<R> | (() => Promise<R>)) {
      const others = [dns, webhooks];
      const runs = others.map((w) => w.run());
      checker.start();
      try {
        return await main.runUntil(until);
      } finally {
        await checker.stop();
        for (const w of others) if (w.getState() === 'RUNNING') w.shutdown();
        await Promise.all(runs);
      }
    },
    shutdown,
    getState: () => main.getState(),
  };
}

type Activities = ReturnType<typeof createActivities>;

async function createMainWorker(options: HostgateWorkerOptions, activities: Activities, workflowBundle: { code: string }, webhookCached: number): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    // Every workflow type, the delivery workflow included although new deliveries start on the
    // webhook task queue: runs started on this queue by an earlier build (or by an API or worker
    // not yet upgraded, during a rolling deploy) have their later tasks — timers between attempts,
    // retry signals, continue-as-new — here for up to ≈ 27.5 h of attempts, and only this worker
    // polls it.
    workflowBundle,
    activities,
    // Matches the orchestrator's stop grace (docker-compose stop_grace_period 30s).
    shutdownGraceTime: '20 seconds',
    // A workflow task holds its slot while its local activities run (a whole verify → active
    // chain on the fast path). More slots than the CPU can serve only interleave the chains: every
    // domain then finishes late instead of the first ones finishing early (bench:lifecycle).
    maxConcurrentWorkflowTaskExecutions: options.config.worker.workflowTaskSlots,
    maxConcurrentLocalActivityExecutions: options.config.worker.localActivitySlots,
    maxConcurrentActivityTaskExecutions: options.config.worker.activitySlots,
    maxCachedWorkflows: options.config.worker.maxCachedWorkflows ?? cachedWorkflowsFor(options.config.worker.memoryMb, { workflowThreads: options.config.worker.workflowThreads, webhookCached }),
    // Workflow code runs on these threads, each run on one of them; one by default, the SDK's
    // (reuseV8Context). After a bulk import's creates the first tasks drain at that thread's share
    // of the CPU (bench:lifecycle on a loaded machine, with our SDK patch: the last of 5,000 first
    // tasks 193 s after the last create with one thread, 160 s with two). Each thread beyond the
    // first comes off the memory budget (WORKFLOW_THREAD_MB), so it costs cached workflows, not
    // memory beyond the budget (docs/scale.md "The first tasks", "The memory budget, re-derived").
    workflowThreadPoolSize: options.config.worker.workflowThreads,
    // Half of the workflow-task polls go to the task queue itself (new workflows, and runs no longer
    // cached), not the SDK's fifth: NEW_WORKFLOW_POLL_RATIO above.
    nonStickyToStickyPollRatio: NEW_WORKFLOW_POLL_RATIO,
  });
}

/**
 * The webhook task queue's worker: delivery workflows and their attempts only. A delivery's first
 * attempt is a local activity inside its workflow task (workflows/webhook-delivery/workflows.ts),
 * so it holds a workflow-task slot and a local-activity slot until the receiver answers or the
 * HTTP deadline passes; here those are this worker's slots, not the ones domain workflows need.
 * The dispatcher's eager starts (temporal/clients/webhook-delivery.ts) take this worker's slots
 * too: it polls the queue they name, on the same connection.
 */
async function createWebhookWorker(options: HostgateWorkerOptions, activities: Activities, workflowBundle: { code: string }, webhookCached: number): Promise<Worker> {
  const slots = options.config.worker.webhooks;
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: webhookTaskQueue(options.taskQueue),
    workflowBundle,
    // The main worker's own instance of the activity (one set of activities per process).
    activities: { attemptWebhookDelivery: activities.attemptWebhookDelivery },
    shutdownGraceTime: '20 seconds',
    maxConcurrentWorkflowTaskExecutions: slots.workflowTaskSlots,
    maxConcurrentLocalActivityExecutions: slots.localActivitySlots,
    maxConcurrentActivityTaskExecutions: slots.activitySlots,
    maxCachedWorkflows: webhookCached,
  });
}
