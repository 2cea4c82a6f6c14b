// A full GC of each of the worker's threads once it goes quiet after a burst, or at once when the
// process is over its memory budget's high-water mark (docs/scale.md, "A full GC when the worker
// goes quiet", "The budget as a bound"). V8 leaves a heap as a burst left it while the process stays
// quiet: after 5,000 creates the main thread held 330 MB of heap, of which ≈ 100 MB live. The main
// thread runs it from worker/main.ts; each workflow thread loads this module and runs it too (our
// SDK patch, workflow-worker-thread.js, reading the settings worker/sdk-switches.ts writes).
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

export interface IdleGcOptions {
  /** How long the thread must have been quiet after a burst; 0: never. */
  periodMs: number;
  /** Heap growth since the last collection that makes one worth it, in MiB. */
  growthMb: number;
  /**
   * The process's RSS, in MiB, above which a thread that has grown by `growthMb` collects at once,
   * mid-burst too, at most once a period: 90 % of HOSTGATE_WORKER_MEMORY_MB. Unset: never.
   */
  highWaterMb?: number;
  /**
   * Collect only after a burst (the main thread: with 5,000 pending domains it allocates for its
   * DNS checks while quiet, and V8 collects that itself). False for a workflow thread: workflow
   * code runs only when a workflow has a task, so a quiet thread's heap does not grow.
   */
  afterBurstOnly?: boolean;
  /** Told the heap before and after each collection (a log line). */
  onCollect?: (outcome: { beforeBytes: number; afterBytes: number; ms: number }) => void;
}

/** A moment busier than this fraction of itself counts as a burst: a burst never pays for a collection. */
export const IDLE_GC_BUSY_FRACTION = 0.25;

/**
 * `gc` without --expose-gc on the command line: the flag applies to the contexts created while it
 * is set, so it is set for one new context and cleared at once (no other context gets a `gc`).
 */
export function exposeGc(): (options: object) => void {
  v8.setFlagsFromString('--expose-gc');
  try {
    return vm.runInNewContext('gc') as (options: object) => void;
  } finally {
    v8.setFlagsFromString('--no-expose-gc');
  }
}

/**
 * Runs the rule below on the calling thread. Once a burst is over — the event loop busy more than
 * a quarter of some moment since the last collection, then less than that for `periodMs` on end —
 * and the heap grew by `growthMb` since the last collection: one full, compacting GC (V8's "last
 * resort", which also gives the freed pages back to the system; a plain major GC frees the heap but
 * keeps the pages: RSS 392 → 345 MB against 395 → 60 MB in a probe). The loop is looked at every
 * quarter period (at most every second), so a burst that has just begun is seen before the
 * collection, not averaged away over the period (looking once a period collected in the first
 * second of a 200-verify burst, which then ran 0.9 s slower). On the main thread only after a
 * burst, because a quiet worker with 5,000 pending domains still allocates for its DNS checks and
 * V8 collects that itself; collecting on growth alone cost ≈ 0.5 s of CPU for every 64 MiB of a
 * wave of checks. Over the high-water mark, at once (`quietCollector`). Returns the stop function.
 */
export function startIdleGc(options: IdleGcOptions): () => void {
  if (options.periodMs <= 0) return () => undefined;
  const collect = exposeGc();
  const highWaterBytes = (options.highWaterMb ?? Infinity) * 1024 * 1024;
  const decide = quietCollector(options.periodMs, options.growthMb * 1024 * 1024, v8.getHeapStatistics().total_heap_size, performance.now(), { highWaterBytes, afterBurstOnly: options.afterBurstOnly ?? true });
  let utilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, utilization).utilization;
    utilization = now;
    const before = v8.getHeapStatistics().total_heap_size;
    // The process's RSS (all threads), read only when a high-water mark is set.
    const rss = Number.isFinite(highWaterBytes) ? process.memoryUsage.rss() : 0;
    if (!decide.look(busy, before, performance.now(), rss)) return;
    const started = performance.now();
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = v8.getHeapStatistics().total_heap_size;
    decide.collected(after, performance.now());
    options.onCollect?.({ beforeBytes: before, afterBytes: after, ms: performance.now() - started });
  }, lookEveryMs(options.periodMs));
  timer.unref();
  return () => clearInterval(timer);
}

/** How often the loop is looked at: a quarter period, at most every second. */
export function lookEveryMs(periodMs: number): number {
  return Math.min(1_000, Math.max(10, Math.round(periodMs / 4)));
}

/**
 * The rule apart from its readings: `look` takes the share of the time the loop was busy since the
 * previous look, the heap's size, the time and the process's RSS, and says whether to collect now;
 * `collected` takes the heap's size after the collection and the time.
 * - Quiet: after a burst (or at any time, `afterBurstOnly: false`), once quiet for the period, the
 *   heap grown by the threshold since the last collection.
 * - Over the high-water mark: the heap grown by the threshold and no collection for a period, even
 *   mid-burst. A burst's garbage is most of a worker's peak (1,015 MiB at the last of 5,000 first
 *   tasks, 619 MiB once quiet); this keeps the peak near the budget at the price of a collection
 *   during the burst (≈ 0.2–0.3 s of the thread's time), at most one a period per thread.
 */
export function quietCollector(periodMs: number, growthBytes: number, heapBytes: number, nowMs: number, { highWaterBytes = Infinity, afterBurstOnly = true }: { highWaterBytes?: number; afterBurstOnly?: boolean } = {}) {
  let heapAfter = heapBytes;
  let hadBurst = false;
  let lastBusyAt = nowMs;
  let lastCollectedAt = -Infinity;
  return {
    look(busy: number, heap: number, now: number, rss = 0): boolean {
      // Growth from the lowest the heap has been since, V8's own collections included.
      heapAfter = Math.min(heapAfter, heap);
      const grown = heap - heapAfter >= growthBytes;
      const isBusy = busy > IDLE_GC_BUSY_FRACTION;
      // A busy moment counts toward the quiet rule whether or not the mark collects now.
      if (isBusy) lastBusyAt = now;
      if (grown && rss >= highWaterBytes && now - lastCollectedAt >= periodMs) return true;
      if (isBusy) {
        hadBurst = true;
        return false;
      }
      return (hadBurst || !afterBurstOnly) && now - lastBusyAt >= periodMs && grown;
    },
    collected(heap: number, now: number): void {
      heapAfter = heap;
      hadBurst = false;
      lastCollectedAt = now;
    },
  };
}
