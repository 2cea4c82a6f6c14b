// A full GC of the worker's main thread once it goes quiet after a burst (docs/scale.md, "A full GC
// when the worker goes quiet"). V8 leaves a heap as a burst left it while the process stays
// quiet: after 5,000 creates the main thread held 330 MB of heap, of which ≈ 100 MB live. The
// workflow threads collect too, by the same rule less its burst condition (our SDK patch,
// workflow-worker-thread.js); both read HOSTGATE_WORKER_IDLE_GC_MS and _GROWTH_MB.
import { performance } from 'node:perf_hooks';
import v8 from 'node:v8';
import vm from 'node:vm';

export interface IdleGcOptions {
  /** How long the thread must have been quiet after a burst; 0: never. */
  periodMs: number;
  /** Heap growth since the last collection that makes one worth it, in MiB. */
  growthMb: number;
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
 * Once a burst is over — the event loop busy more than a quarter of some moment since the last
 * collection, then less than that for `periodMs` on end — and the heap grew by `growthMb` since
 * the last collection: one full, compacting GC (V8's "last resort", which also gives the freed pages
 * back to the system; a plain major GC frees the heap but keeps the pages: RSS 392 → 345 MB against
 * 395 → 60 MB in a probe). The loop is looked at every quarter period (at most every second), so
 * a burst that has just begun is seen before the collection, not averaged away over the period
 * (looking once a period collected in the first second of a 200-verify burst, which then ran
 * 0.9 s slower). Only after a burst, because a quiet worker with 5,000 pending domains still
 * allocates for its DNS checks and V8 collects that itself; collecting on growth alone cost
 * ≈ 0.5 s of CPU for every 64 MiB of a wave of checks. Returns the stop function.
 */
export function startIdleGc(options: IdleGcOptions): () => void {
  if (options.periodMs <= 0) return () => undefined;
  const collect = exposeGc();
  const decide = quietCollector(options.periodMs, options.growthMb * 1024 * 1024, v8.getHeapStatistics().total_heap_size, performance.now());
  let utilization = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const busy = performance.eventLoopUtilization(now, utilization).utilization;
    utilization = now;
    const before = v8.getHeapStatistics().total_heap_size;
    if (!decide.look(busy, before, performance.now())) return;
    const started = performance.now();
    collect({ type: 'major', execution: 'sync', flavor: 'last-resort' });
    const after = v8.getHeapStatistics().total_heap_size;
    decide.collected(after);
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
 * previous look, the heap's size and the time, and says whether to collect now; `collected` takes
 * the heap's size after the collection.
 */
export function quietCollector(periodMs: number, growthBytes: number, heapBytes: number, nowMs: number) {
  let heapAfter = heapBytes;
  let hadBurst = false;
  let lastBusyAt = nowMs;
  return {
    look(busy: number, heap: number, now: number): boolean {
      if (busy > IDLE_GC_BUSY_FRACTION) {
        hadBurst = true;
        lastBusyAt = now;
        return false;
      }
      // Growth from the lowest the heap has been since, V8's own collections included.
      heapAfter = Math.min(heapAfter, heap);
      return hadBurst && now - lastBusyAt >= periodMs && heap - heapAfter >= growthBytes;
    },
    collected(heap: number): void {
      heapAfter = heap;
      hadBurst = false;
    },
  };
}
