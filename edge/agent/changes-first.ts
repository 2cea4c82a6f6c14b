// Changes before background work (issue 26, the add p99 at 100,000 hostnames). A full pass is
// hundreds of slices (digest pages, validation, diffs, deployment reports) that yield to the event
// loop between them; but a change is itself a dozen awaits (its Postgres read, five HAProxy
// commands, the files), and with a bare yield one background slice ran at every one of them: at
// 30,051 hostnames an added hostname took up to 232 ms during the pass that follows a staged boot
// (p50 33 ms). Here a slice waits while any change is in flight, so a change waits for at most
// the one slice already running when it arrived. And changes come in streams (a bulk import, the
// benchmark's 50 adds back to back, ≈ 10 ms apart): a slice started in the gap between two was
// still in Postgres when the next arrived (the slow adds at 100,051 all fell in the digest read),
// so a slice also waits for QUIET_MS without a change. A steady stream of changes cannot starve
// the background: after MAX_WAIT_MS a slice goes anyway.
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** The longest a background slice waits for changes in flight before it runs anyway. */
const MAX_WAIT_MS = 250;
/** How long after the last change a background slice waits before it runs. */
const QUIET_MS = 20;

/** What a background slice awaits before the next: a turn of the event loop, or ChangesFirst.pause. */
export type Pause = () => Promise<void>;

export interface ChangesFirst {
  /** Marks a change as in flight from now until `done()` (e.g. from its notification on). */
  begin(): () => void;
  /** Runs `fn` as a change: background slices wait until it (and every other change) is done. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Between two background slices: lets the event loop turn, then waits while a change is in flight and QUIET_MS after it. */
  pause(): Promise<void>;
  /** Changes in flight now (for tests). */
  inFlight(): number;
}

export function createChangesFirst(maxWaitMs = MAX_WAIT_MS, quietMs = QUIET_MS): ChangesFirst {
  let active = 0;
  let waiters: (() => void)[] = [];
  /** When the last change ended (performance.now()). */
  let lastEnded = Number.NEGATIVE_INFINITY;

  /** Resolves when no change is in flight, or after `ms`. */
  const idle = (ms: number) => new Promise<void>((resolve) => {
    const timer = setTimeout(() => { waiters = waiters.filter((w) => w !== wake); resolve(); }, ms);
    const wake = () => { clearTimeout(timer); resolve(); };
    waiters.push(wake);
  });

  const begin = () => {
    active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      lastEnded = performance.now();
      if (--active > 0) return;
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    };
  };

  return {
    begin,
    async run(fn) {
      const done = begin();
      try {
        return await fn();
      } finally {
        done();
      }
    },
    async pause() {
      await yieldToLoop();
      const deadline = performance.now() + maxWaitMs;
      for (;;) {
        const now = performance.now();
        if (now >= deadline) return;
        if (active > 0) { await idle(deadline - now); continue; }
        const quiet = now - lastEnded;
        if (quiet >= quietMs) return;
        await new Promise((resolve) => setTimeout(resolve, Math.min(quietMs - quiet, deadline - now)));
      }
    },
    inFlight: () => active,
  };
}
