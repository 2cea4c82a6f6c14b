// Turns committed workflow_outbox rows into Temporal starts and signals. Requests commit a row and
// return; the API kicks the dispatcher right after commit (fast path) and the worker sweeps on an
// interval (slow path, covers a Temporal outage or a crashed API). Rows are dispatched in id
// order, so a domain's start always precedes its signals.
import type { Client } from '@temporalio/client';
import { domainsRepository } from '../db/repositories/domains.ts';
import { workflowOutboxRepository, type InvalidOutboxRow, type LeasedMessage } from '../db/repositories/workflow-outbox.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../logging/logger.ts';
import { signalDomainWorkflow, startDomainWorkflow } from './clients/domain.ts';
import { domainIdOfWorkflow, domainWorkflowId } from '../contracts/domain-workflow.ts';
import { retryDeliveryWorkflow, startDeliveryWorkflow } from './clients/webhook-delivery.ts';
import { signalBillingWorkflow } from './clients/billing.ts';
import { webhookTaskQueue } from '../contracts/task-queues.ts';
import { rejectAfter } from '../process/deadline.ts';

/**
 * How long one start or signal may take, connecting included. They answer in milliseconds; a
 * Temporal frontend that accepts the call and never answers (frozen, partitioned) would otherwise
 * hold the sweep — and with it every start and signal — forever. Past it the row is released and
 * the next sweep tries again.
 */
export const DISPATCH_DEADLINE_MS = 10_000;

class DispatchTimeoutError extends Error {
  constructor(what: string) {
    super(`${what} got no answer from Temporal within ${DISPATCH_DEADLINE_MS} ms`);
    this.name = 'DispatchTimeoutError';
  }
}

/** The promise, or DispatchTimeoutError once `deadline` (epoch ms) has passed. */
const before = <T>(promise: Promise<T>, deadline: number, what: string): Promise<T> => rejectAfter(promise, deadline - Date.now(), () => new DispatchTimeoutError(what));

/** An error and its causes in one line ("Failed to start Workflow: 4 DEADLINE_EXCEEDED: …"). */
function describe(error: unknown): string {
  const parts: string[] = [];
  for (let e: unknown = error, depth = 0; e !== undefined && e !== null && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const text = e instanceof Error ? e.message : String(e);
    if (text && !parts.includes(text)) parts.push(text);
  }
  return parts.join(': ');
}

/** What a `dispatch` did with its rows. */
export interface DispatchOutcome { dispatched: number; failed: number }

export interface OutboxDispatcher {
  /** Dispatches the given rows now (or every pending row); resolves when done, never rejects. */
  kick(ids?: readonly number[]): Promise<void>;
  /**
   * Dispatches exactly these rows now, without waiting to merge with other kicks: for a caller
   * that already batches and keeps several slices in flight (the webhook fan-out), where a merge
   * would turn its slices back into one batch that waits for its slowest start. Tells how many of
   * the rows went out and how many failed (left for the sweep to retry); rows another dispatcher
   * holds or already sent count as neither. Never rejects.
   */
  dispatch(ids: readonly number[]): Promise<DispatchOutcome>;
  /** Sweeps pending rows and re-queues starts for live domains without a workflow. */
  reconcile(): Promise<{ dispatched: number; requeued: number }>;
  startLoop(intervalMs: number): void;
  stop(): Promise<void>;
}

export function createOutboxDispatcher(deps: {
  db: Db;
  /** A client, or how to get one (connected on first use, e.g. over a NativeConnection). */
  client: Client | (() => Promise<Client>);
  /** The main task queue; deliveries go to its webhook task queue (contracts/task-queues.ts). */
  taskQueue: string;
  logger: Logger;
}): OutboxDispatcher {
  const clientOf = typeof deps.client === 'function' ? deps.client : () => Promise.resolve(deps.client as Client);
  // New delivery runs (a start, or a retry of a finished delivery) go to the webhook task queue. A
  // retry of a running delivery is a signal by workflow id: it reaches the run on whichever queue
  // it started (the main queue, for runs of an earlier build).
  const deliveryQueue = webhookTaskQueue(deps.taskQueue);
  const outbox = workflowOutboxRepository(deps.db);
  const domains = domainsRepository(deps.db);
  let timer: NodeJS.Timeout | null = null;
  let running: Promise<unknown> = Promise.resolve();
  let stopped = false;

  async function dispatchOne(r: LeasedMessage): Promise<void> {
    const deadline = Date.now() + DISPATCH_DEADLINE_MS;
    const client = await before(clientOf(), deadline, 'connecting');
    // The gRPC deadline cancels the call on the wire; the timer covers what happens before it is sent.
    await before(client.withDeadline(deadline, async () => {
      switch (r.kind) {
        case 'start_domain': await startDomainWorkflow(client, deps.taskQueue, r.payload); break;
        case 'signal_domain': await signalDomainWorkflow(client, domainIdOfWorkflow(r.workflow_id), r.payload.signal, r.payload.reason); break;
        case 'start_delivery': await startDeliveryWorkflow(client, deliveryQueue, r.payload); break;
        case 'retry_delivery': await retryDeliveryWorkflow(client, deliveryQueue, r.payload); break;
        // Billing: a provider event for `billing/<org id>`, signal-with-start.
        case 'signal_billing': await signalBillingWorkflow(client, deps.taskQueue, { organizationId: r.payload.organizationId, ...(r.payload.searchAttributes === false ? { searchAttributes: false } : {}) }, r.payload.signal); break;
      }
    }), deadline + 1000, `${r.kind} ${r.workflow_id}`);
  }

  /** A row no dispatcher can act on: logged and taken out of the queue, never retried. */
  async function deadLetter(r: InvalidOutboxRow): Promise<void> {
    const reason = `invalid ${r.kind} message: ${r.problems.join('; ')}`;
    deps.logger.error({ outboxId: r.id, kind: r.kind, workflowId: r.workflow_id, problems: r.problems }, 'workflow outbox row is not a valid message; dead-lettered (not dispatched)');
    await outbox.deadLetter(r.id, reason).catch((error: unknown) => {
      // Its lease runs out and the next pass finds it again.
      deps.logger.warn({ outboxId: r.id, err: String(error) }, 'could not dead-letter an invalid outbox row; will retry');
    });
  }

  async function sweep(ids?: readonly number[]): Promise<{ leased: number } & DispatchOutcome> {
    const total = { leased: 0, dispatched: 0, failed: 0 };
    for (;;) {
      const { messages: rows, invalid, leased } = await outbox.lease(100, ids);
      await Promise.all(invalid.map(deadLetter));
      const done: number[] = [];
      await Promise.all(rows.map(async (r) => {
        try {
          await dispatchOne(r);
          done.push(r.id);
        } catch (error) {
          const message = describe(error);
          deps.logger.warn({ outboxId: r.id, workflowId: r.workflow_id, err: message }, 'workflow dispatch failed; will retry');
          await outbox.release(r.id, message).catch(() => undefined);
        }
      }));
      await outbox.markDispatched(done);
      total.leased += leased;
      total.dispatched += done.length;
      total.failed += rows.length - done.length;
      if (leased < 100 || ids) return total;
    }
  }

  // Kicks with ids (a request's own rows) go out in batches, a few batches at a time: ids that
  // arrive while they are being dispatched wait for the next one. A burst of creates then costs one
  // lease and one markDispatched per batch instead of per couple of rows (issue 26: at 250
  // creates/s the 2 ms windows of concurrent flushes held one or two rows each, two statements
  // and two WAL flushes per create), and the starts no longer pile up concurrently on the event
  // loop the requests share. Idle, a kick still goes out after 2 ms.
  // One batch at a time held a verify's signal behind a whole batch of starts (bench:lifecycle,
  // 200 verifies at once: verify → signal dispatched p50 0.51 → 1.00 s); a few keep the lease
  // and markDispatched per batch and let a signal overtake a slow batch.
  const BATCHES_IN_FLIGHT = 3;
  interface Batch { ids: Set<number>; done: Promise<void>; settle: (error?: unknown) => void }
  const newBatch = (): Batch => {
    let settle!: (error?: unknown) => void;
    const done = new Promise<void>((resolve, reject) => { settle = (error) => (error === undefined ? resolve() : reject(error)); });
    return { ids: new Set(), done, settle };
  };
  let collecting: Batch | null = null;
  let inFlight = 0;
  let timerSet = false;
  function scheduleBatch(): void {
    if (inFlight >= BATCHES_IN_FLIGHT || timerSet || !collecting) return;
    timerSet = true;
    setTimeout(() => {
      timerSet = false;
      const batch = collecting!;
      collecting = null;
      inFlight++;
      void (async () => {
        const ids = [...batch.ids];
        for (let i = 0; i < ids.length; i += 100) await sweep(ids.slice(i, i + 100));
      })().then(() => batch.settle(), (error: unknown) => batch.settle(error ?? new Error('outbox flush failed'))).finally(() => {
        inFlight--;
        scheduleBatch();
      });
    }, 2);
  }
  function queueIds(ids: readonly number[]): Promise<void> {
    collecting ??= newBatch();
    for (const id of ids) collecting.ids.add(id);
    const { done } = collecting;
    scheduleBatch();
    return done;
  }

  // Kicks without ids (a request committed a row and does not know its id) share sweeps too: one
  // runs at a time, and kicks that arrive meanwhile get one more pass after it, not a sweep each.
  // Under a burst of verifies this was one lease transaction per request.
  let sweeping: Promise<void> | null = null;
  let sweepAgain = false;
  function sharedSweep(): Promise<void> {
    if (sweeping) {
      sweepAgain = true;
      return sweeping;
    }
    sweeping = (async () => {
      await new Promise((r) => setTimeout(r, 2));
      do {
        sweepAgain = false;
        await sweep();
      } while (sweepAgain);
    })().finally(() => { sweeping = null; });
    return sweeping;
  }

  const dispatcher: OutboxDispatcher = {
    async kick(ids) {
      // Kicks from concurrent requests share one lease query (queueIds).
      const run = (ids ? queueIds(ids) : sharedSweep()).catch((error: unknown) => deps.logger.warn({ err: String(error) }, 'outbox kick failed; the sweep will retry'));
      running = Promise.all([running, run]);
      await run;
    },
    dispatch(ids) {
      const run = sweep(ids).then(({ dispatched, failed }) => ({ dispatched, failed }), (error: unknown) => {
        deps.logger.warn({ err: String(error) }, 'outbox dispatch failed; the sweep will retry');
        return { dispatched: 0, failed: ids.length };
      });
      running = Promise.all([running, run]);
      return run;
    },
    async reconcile() {
      const { leased: dispatched } = await sweep();
      // A live domain whose start row was lost (it cannot be, but a manual DB edit can) gets a new one.
      const orphans = await domains.withoutWorkflow(60, 100);
      for (const d of orphans) {
        await deps.db.transaction((tx) => outbox.enqueue(tx, 'start_domain', domainWorkflowId(d.id), { domainId: d.id, organizationId: d.organization_id, hostname: d.hostname, isApex: d.is_apex }));
      }
      return { dispatched, requeued: orphans.length };
    },
    startLoop(intervalMs) {
      const tick = async () => {
        if (stopped) return;
        const run = dispatcher.reconcile().catch((error: unknown) => deps.logger.warn({ err: String(error) }, 'outbox sweep failed; retrying'));
        running = run;
        await run;
        if (!stopped) timer = setTimeout(tick, intervalMs);
      };
      timer = setTimeout(tick, 0);
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await running;
    },
  };
  return dispatcher;
}
