// Waiting on the CA inside an activity: heartbeats, cancellable pauses, and the deadline of the
// current call (a caller's budget, else the per-activity wait limit).
import { AsyncLocalStorage } from 'node:async_hooks';
import { setTimeout as delay } from 'node:timers/promises';
import { asyncLocalStorage } from '@temporalio/activity';

export interface WaitingOptions {
  /** Called while waiting on the CA; defaults to Temporal's heartbeat inside a (regular) activity, else nothing. */
  heartbeat?: ((details?: unknown) => void) | undefined;
  /** How long one activity waits for the CA to validate or issue before failing retryably (ms). */
  waitTimeoutMs?: number | undefined;
  /** Longest pause between two polls of an order (ms). */
  maxPollIntervalMs?: number | undefined;
}

export interface Waiting {
  heartbeat(details?: unknown): void;
  /** Sleeps; inside an activity a cancellation interrupts it (Context.sleep throws CancelledFailure). */
  pause(ms: number): Promise<void>;
  /** When the current call must stop waiting (epoch ms). */
  deadline(): number;
  maxPollIntervalMs: number;
  /** Runs `fn` with its waits on the CA bounded by `budgetMs` from now. */
  withBudget<T>(budgetMs: number, fn: () => Promise<T>): Promise<T>;
}

/**
 * Temporal's heartbeat for the activity this code runs in. Not for a local activity (the fast
 * path: issueCertificate, verifyDnsAndIssue): the server knows no task token for it, so each
 * heartbeat only made the worker log "Activity heartbeat failed … UnknownActivity"; its bound is
 * its start-to-close timeout and the wait budget, not a heartbeat timeout.
 */
function temporalHeartbeat(details?: unknown): void {
  const context = asyncLocalStorage.getStore();
  if (context && !context.info.isLocal) context.heartbeat(details);
}

export function createWaiting(options: WaitingOptions): Waiting {
  const waitTimeoutMs = options.waitTimeoutMs ?? 120_000;
  /** Deadline (epoch ms) for waiting on the CA within one call, when the caller set a budget. */
  const budget = new AsyncLocalStorage<number>();
  return {
    heartbeat: options.heartbeat ?? temporalHeartbeat,
    pause(ms) {
      const context = asyncLocalStorage.getStore();
      return context ? context.sleep(ms) : delay(ms);
    },
    deadline: () => Math.min(Date.now() + waitTimeoutMs, budget.getStore() ?? Number.POSITIVE_INFINITY),
    maxPollIntervalMs: options.maxPollIntervalMs ?? 2_000,
    withBudget: (budgetMs, fn) => budget.run(Date.now() + budgetMs, fn),
  };
}
