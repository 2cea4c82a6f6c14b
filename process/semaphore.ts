// A counting semaphore whose waiters give up at a deadline instead of queueing forever: how many of
// some scarce thing one process lets run at once (DNS checks inside workflow tasks, getaddrinfo
// calls on libuv's small thread pool).

/** A semaphore whose `acquire` gives up at a deadline instead of queueing forever. */
export class Semaphore {
  private available: number;
  private readonly capacity: number;
  private readonly waiters: { grant: () => void }[] = [];

  constructor(permits: number) {
    if (!Number.isInteger(permits) || permits < 1) throw new RangeError(`permits must be a positive integer, got ${permits}`);
    this.available = permits;
    this.capacity = permits;
  }

  /** A release function, or null when no permit came free within `timeoutMs`. */
  acquire(timeoutMs: number): Promise<(() => void) | null> {
    if (this.available > 0) {
      this.available--;
      return Promise.resolve(this.releaser());
    }
    if (timeoutMs <= 0) return Promise.resolve(null);
    return new Promise((resolve) => {
      const waiter = {
        grant: () => { clearTimeout(timer); resolve(this.releaser()); },
      };
      const timer = setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(null);
      }, timeoutMs);
      this.waiters.push(waiter);
    });
  }

  /** Permits in use (for metrics and tests). */
  get inUse(): number {
    return this.capacity - this.available;
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiters.shift();
      if (next) next.grant();
      else this.available++;
    };
  }
}
