// The shared CA budget (issue 22): at most `orders` new orders per `windowMs` per ACME account,
// whichever worker places them. Orders beyond it wait their turn — renewals first, then the
// oldest — and each waiter is told when its turn is expected. Pure: db/repositories/ca-budget.ts
// reads the window and the queue under a lock and applies this.

export interface Budget { orders: number; windowMs: number }

/** A waiter that has not come back this long after its expected turn no longer holds its place. */
export const WAITER_GRACE_MS = 30_000;

/**
 * Whether an order may leave now, given the placement times in the window (ascending) and how many
 * waiters are ahead of it; else when its turn is expected. The budget is `orders` slots: a slot
 * is free now, or frees when its placement leaves the window; the waiters take the slots in the
 * order they free, and a slot taken at t frees again at t + window.
 */
export function budgetTurn(placedAsc: readonly number[], ahead: number, now: number, budget: Budget): { admitted: true } | { admitted: false; retryAt: number } {
  const inWindow = placedAsc.filter((t) => t > now - budget.windowMs);
  const free = Math.max(0, budget.orders - inWindow.length);
  if (ahead < free) return { admitted: true };
  const frees = [...Array<number>(free).fill(now), ...inWindow.slice(-budget.orders).map((t) => t + budget.windowMs)].sort((a, b) => a - b);
  return { admitted: false, retryAt: frees[ahead % budget.orders]! + budget.windowMs * Math.floor(ahead / budget.orders) };
}

/** The problem code of an order waiting for the shared CA budget (a `certificate` problem, never a failure). */
export const BUDGET_WAIT_CODE = 'ca_budget_wait';

export function budgetProblem(budget: Budget, ahead: number, retryAt: number): { code: string; message: string } {
  return {
    code: BUDGET_WAIT_CODE,
    message: `Our certificate authority accounts' budget (${budget.orders} new orders per ${windowText(budget.windowMs)}) is used up; ${ahead} order${ahead === 1 ? '' : 's'} ${ahead === 1 ? 'is' : 'are'} ahead of this one, which is expected to be placed at ${new Date(retryAt).toISOString()}`,
  };
}

function windowText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${ms / 3_600_000} h`;
  if (ms % 60_000 === 0) return `${ms / 60_000} min`;
  return `${Math.round(ms / 1000)} s`;
}
