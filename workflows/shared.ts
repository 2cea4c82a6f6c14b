// Names shared by the worker, the API and the CLI so they cannot drift apart.

/** Versioned so an incompatible worker fleet can be rolled out beside the old one. */
export const DEFAULT_TASK_QUEUE = 'hostgate-v1';

export function taskQueue(override?: string): string {
  return override ?? DEFAULT_TASK_QUEUE;
}
