// The first attempt of every new webhook delivery, made by the worker right after the fan-out
// commits, beside (not after) the start of the delivery's workflow (issue 26; docs/api-decisions.md,
// "Attempts"; docs/scale.md, "Webhooks"). A delivery's workflow costs the Temporal server ≈ 14 ms of CPU; on the dev
// server that caps a burst at ≈ 50–80 workflows a second however cheap the rest is, so a burst of
// 1,500 deliveries reached its last receiver ≈ 30 s after the commit. The POST itself needs none of
// that: here it goes out at once, and the workflow, when it runs, adopts the outcome from the row
// (done, or attempt 2 at the recorded time) and owns every later attempt, retry and signal.
//
// At least once is kept: the delivery row and its workflow's start commit together in the fan-out;
// this is only a head start. Exactly one of the two makes attempt 1 (a claim in Postgres,
// `claimFirstAttempt`); a claim left by a process that died mid-attempt lapses after the HTTP
// deadline + 15 s and the workflow takes it over. Bounded: `concurrency` attempts out at once and
// at most `maxQueued` waiting; beyond that a delivery's first attempt is left to its workflow.
import type { Logger } from '../logging/logger.ts';

export interface FirstAttempts {
  /** Queues these deliveries' first attempts; never throws, never waits. */
  add(deliveryIds: readonly string[]): void;
  /** Stops taking new ones and waits for those out. */
  stop(): Promise<void>;
  /** Attempts out and waiting (tests, metrics). */
  readonly inFlight: number;
  readonly queued: number;
}

export function createFirstAttempts(deps: {
  attempt: (deliveryId: string) => Promise<boolean>;
  logger: Logger;
  /** Attempts out at once (HOSTGATE_WEBHOOK_DIRECT_ATTEMPTS); 0 turns the head start off. */
  concurrency: number;
  maxQueued?: number;
}): FirstAttempts {
  const maxQueued = deps.maxQueued ?? 5_000;
  const queue: string[] = [];
  const out = new Set<Promise<void>>();
  let stopped = false;

  const start = (id: string) => {
    const run = deps.attempt(id).then(() => undefined, (error: unknown) => {
      // Postgres away, a bug: the workflow makes the attempt (its claim is free or lapses).
      deps.logger.warn({ deliveryId: id, err: String(error) }, 'direct first webhook attempt failed; the delivery workflow makes it');
    });
    out.add(run);
    void run.finally(() => { out.delete(run); pump(); });
  };
  const pump = () => {
    while (!stopped && out.size < deps.concurrency && queue.length) start(queue.shift()!);
  };

  return {
    add(deliveryIds) {
      if (stopped || deps.concurrency <= 0) return;
      for (const id of deliveryIds) {
        if (out.size < deps.concurrency) start(id);
        else if (queue.length < maxQueued) queue.push(id);
        else break; // the rest: their workflows make the first attempt
      }
    },
    async stop() {
      stopped = true;
      queue.length = 0;
      while (out.size) await Promise.all(out);
    },
    get inFlight() { return out.size; },
    get queued() { return queue.length; },
  };
}
