// Bounds on DNS work inside one worker: a semaphore (process/semaphore.ts: how many local-activity
// DNS checks may run at once, and so how many workflow-task slots they can hold), and a promise
// raced against a deadline (a whole check's time budget).

export const DEADLINE_PASSED = Symbol('deadline passed');

/** The promise's value, or DEADLINE_PASSED when it has not settled by `deadline` (epoch ms). */
export async function beforeDeadline<T>(promise: Promise<T>, deadline: number): Promise<T | typeof DEADLINE_PASSED> {
  let timer: NodeJS.Timeout | undefined;
  try {
    return await Promise.race([promise, new Promise<typeof DEADLINE_PASSED>((resolve) => { timer = setTimeout(() => resolve(DEADLINE_PASSED), Math.max(0, deadline - Date.now())); })]);
  } finally {
    clearTimeout(timer);
  }
}
