// The agent's background loops: each runs at most once at a time (a slow pass is not stacked
// behind itself), a failure is logged and retried at the next tick, and stop() ends them all.
import type { Logger } from '../../logging/logger.ts';

export class Intervals {
  readonly #timers: NodeJS.Timeout[] = [];
  #stopped = false;
  readonly #logger: Logger;
  constructor(logger: Logger) { this.#logger = logger; }

  every(ms: number, what: string, fn: () => Promise<unknown>): void {
    this.#stopped = false;
    let running = false;
    this.#timers.push(setInterval(() => {
      if (running || this.#stopped) return;
      running = true;
      fn().catch((error) => this.#logger.warn({ err: String(error) }, `edge: ${what} failed; retrying in ${ms} ms`)).finally(() => { running = false; });
    }, ms));
  }

  stop(): void {
    this.#stopped = true;
    for (const t of this.#timers) clearInterval(t);
    this.#timers.length = 0;
  }
}
