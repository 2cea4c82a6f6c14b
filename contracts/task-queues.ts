// Task queue names, shared by the worker, the API and the CLI so they cannot drift apart.

/** Versioned so an incompatible worker fleet can be rolled out beside the old one. */
export const DEFAULT_TASK_QUEUE = 'hostgate-v1';

export function taskQueue(override?: string): string {
  return override ?? DEFAULT_TASK_QUEUE;
}

/**
 * The task queue of the periodic DNS checks of pending_dns domains: regular activities served by
 * a Worker of their own in the worker process (worker/create-worker.ts) with their own slots, so
 * slow DNS cannot hold the workflow-task or activity slots that verifies, issuance and deletions
 * need.
 */
export function dnsTaskQueue(mainTaskQueue: string): string {
  return `${mainTaskQueue}-dns`;
}

/**
 * The task queue of new webhook delivery workflows (issue 26): served by a Worker of their own in
 * the worker process (worker/create-worker.ts) with their own workflow-task and local-activity
 * slots, since a delivery's first attempt runs inside its workflow task and holds that slot for as
 * long as the receiver takes (up to the 15 s HTTP deadline): a burst to slow receivers then queues
 * deliveries, not domain workflows. Deliveries started before it run on the main queue, whose
 * worker still serves them.
 */
export function webhookTaskQueue(mainTaskQueue: string): string {
  return `${mainTaskQueue}-webhooks`;
}
