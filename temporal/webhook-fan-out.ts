// Turns committed hostname events into webhook deliveries, in the worker process. A step claims
// unfanned `events` rows (SKIP LOCKED, one short transaction), creates one delivery per subscribed
// endpoint and one `start_delivery` outbox row each, marks the events fanned out, then kicks the
// outbox dispatcher for exactly those rows, a few small slices at a time (no connection is held
// while Temporal is called; a failed kick is retried by the dispatcher's sweep).
//
// Wake-up: Postgres LISTEN on `hostgate_events` (a trigger on `events` notifies at commit), so a
// transition reaches the receiver in milliseconds; plus a sweep every second in case a
// notification was missed (listener reconnecting, notification before LISTEN). Several workers can
// run it side by side.
import { createNotifiedSweep } from '../db/notified-sweep.ts';
import type { Db } from '../db/pool.ts';
import { webhookDeliveriesRepository } from '../db/repositories/webhook-deliveries.ts';
import type { Logger } from '../logging/logger.ts';

export const EVENTS_CHANNEL = 'hostgate_events';
/** Events per fan-out transaction. */
const EVENT_BATCH = 20;
/** Outbox rows per dispatch, dispatches in flight, and the queue length at which the fan-out pauses. */
const KICK_SLICE = 10;
const KICKS_IN_FLIGHT = 5;
const QUEUE_HIGH = 50;
/**
 * With the worker's direct first attempts (onDeliveries), no receiver waits for a start: the
 * fan-out keeps creating deliveries (and so first attempts) while starts queue, up to this many.
 */
const QUEUE_HIGH_DIRECT = 5_000;

export interface WebhookFanOut {
  /** Fans out every pending event now; resolves with the number of deliveries created. */
  runOnce(): Promise<number>;
  /**
   * Starts the sweep (every `sweepIntervalMs`) and, when a database URL is given, the LISTEN
   * connection in the background: resolves at once, whether or not Postgres answers.
   */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export function createWebhookFanOut(deps: {
  db: Db;
  /** What a dispatch tells of its rows is not used here: a failed row is the dispatcher's sweep's. */
  dispatcher: { dispatch(ids: readonly number[]): Promise<unknown> };
  logger: Logger;
  /** For the LISTEN connection; without it the fan-out only sweeps. */
  databaseUrl?: string | undefined;
  sweepIntervalMs?: number;
  /** False only for the time-skipping test server (no custom search attributes). */
  searchAttributes?: boolean;
  /**
   * Called with each step's new deliveries once they are committed, beside their workflow starts
   * (worker/webhook-first-attempts.ts makes their first attempts at once); must not throw.
   */
  onDeliveries?: (deliveryIds: string[]) => void;
}): WebhookFanOut {
  const deliveries = webhookDeliveriesRepository(deps.db);
  const sweepIntervalMs = deps.sweepIntervalMs ?? 1000;
  const options = deps.searchAttributes === false ? { searchAttributes: false } : {};
  const queueHigh = deps.onDeliveries ? QUEUE_HIGH_DIRECT : QUEUE_HIGH;
  let stopped = false;
  // Outbox rows to dispatch, oldest first, in small slices a few at a time (dispatch, not kick:
  // kicks within 2 ms merge into one batch, and a batch waits for its slowest start before the
  // next begins; separate slices keep ≈ 50 starts in flight all the time, like the ceiling probe
  // of bench:webhooks, docs/scale.md "Webhooks"); the fan-out
  // pauses while enough are waiting. A burst of thousands of concurrent starts would make the
  // server finish every start before running any delivery (the first receiver would wait for the
  // last start), and rows queued here for long would be taken by the dispatcher's own sweep, all
  // at once. Unfanned events wait durably in `events` instead. A row whose kick fails is left to
  // that sweep.
  const kicks = new Set<Promise<unknown>>();
  const queue: number[] = [];
  let roomWaiters: (() => void)[] = [];
  const pump = () => {
    while (kicks.size < KICKS_IN_FLIGHT && queue.length) {
      const kick = deps.dispatcher.dispatch(queue.splice(0, KICK_SLICE));
      kicks.add(kick);
      void kick.finally(() => { kicks.delete(kick); pump(); });
    }
    if (queue.length < queueHigh || stopped) {
      const waiters = roomWaiters;
      roomWaiters = [];
      for (const resolve of waiters) resolve();
    }
  };

  async function drain(): Promise<number> {
    let created = 0;
    for (;;) {
      while (queue.length >= queueHigh && !stopped) await new Promise<void>((resolve) => roomWaiters.push(resolve));
      if (stopped) return created;
      const step = await deliveries.fanOut(EVENT_BATCH, options);
      created += step.deliveries;
      if (step.deliveryIds.length) deps.onDeliveries?.(step.deliveryIds);
      queue.push(...step.outboxIds);
      pump();
      if (step.events < EVENT_BATCH) return created;
    }
  }

  const sweep = createNotifiedSweep({ what: 'webhook fan-out', channel: EVENTS_CHANNEL, databaseUrl: deps.databaseUrl, sweepIntervalMs, logger: deps.logger, drain });

  return {
    runOnce: () => sweep.wake(),
    async start() {
      stopped = false;
      // Not awaited inside: the worker awaits start() before it polls Temporal, and a Postgres that
      // does not answer must not keep it from running its other work. The sweep delivers without
      // LISTEN, and the listener keeps reconnecting until it works.
      sweep.start(sweepIntervalMs);
    },
    async stop() {
      stopped = true;
      // Lets a drain waiting for room in the queue see the stop before the sweep awaits it.
      pump();
      await sweep.stop();
      // What was fanned out is dispatched before stopping (else the dispatcher's sweep would).
      while (kicks.size) await Promise.all(kicks);
    },
  };
}
