// Changes before background work (issue 26, the add p99 at 100,000 hostnames). A full pass is
// hundreds of slices (digest pages, validation, diffs, deployment reports) that yield to the event
// loop between them; but a change is itself a dozen awaits (its Postgres read, five HAProxy
// commands, the files), and with a bare yield one background slice ran at every one of them: at
// 30,051 hostnames an added hostname took up to 232 ms during the pass that follows a staged boot
// (p50 33 ms). Here a slice waits while any change is in flight, so a change waits for at most
// the one slice already running when it arrived. A steady stream of changes cannot starve the
// background: after MAX_WAIT_MS a slice goes anyway.
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** The longest a background slice waits for changes in flight before it runs anyway. */
const MAX_WAIT_MS = 250;

/** What a background slice awaits before the next: a turn of the event loop, or ChangesFirst.pause. */
export type Pause = () => Promise<void>;

export interface ChangesFirst {
  /** Marks a change as in flight from now until `done()` (e.g. from its notification on). */
  begin(): () => void;
  /** Runs `fn` as a change: background slices wait until it (and every other change) is done. */
  run<T>(fn: () => Promise<T>): Promise<T>;
  /** Between two background slices: lets the event loop turn, then waits while a change is in flight. */
  pause(): Promise<void>;
  /** Changes in flight now (for tests). */
  inFlight(): number;
}

export function createChangesFirst(maxWaitMs = MAX_WAIT_MS): ChangesFirst {
  let active = 0;
  let waiters: (() => void)[] = [];

  const begin = () => {
    active++;
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
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
      if (active === 0) return;
      await new Promise<void>((resolve) => {
        const timer = setTimeout(() => { waiters = waiters.filter((w) => w !== wake); resolve(); }, maxWaitMs);
        const wake = () => { clearTimeout(timer); resolve(); };
        waiters.push(wake);
      });
    },
    inFlight: () => active,
  };
}
