// Traffic analytics in the agent: the log receiver, the open minute buckets, and their flush to
// Postgres — one statement per flush (db/repositories/traffic.ts) together with the stick table's
// request total, so completeness (lines received ÷ requests HAProxy counted) is measured over the
// same flushes. A flush that fails keeps its buckets for the next one (merged, never doubled);
// what cannot be flushed at a stop is lost and logged.
import type { Db } from '../../db/pool.ts';
import { trafficRepository, type StickReading } from '../../db/repositories/traffic.ts';
import type { Logger } from '../../logging/logger.ts';
import { TrafficAggregator } from '../../model/analytics-counters.ts';
import type { AdminSocket } from './admin-socket.ts';
import { startTrafficLogReceiver, type TrafficLogReceiver } from './traffic-log.ts';

/** Past this many open buckets (Postgres away for long), new domains' lines are counted as lost. */
const MAX_OPEN_BUCKETS = 200_000;

export interface TrafficTotals { lines: number; countedLines: number; countedRequests: number; unattributed: number; malformed: number; flushes: number; failedFlushes: number }

export function createTrafficAnalytics(deps: { db: Db; admin: AdminSocket; edgeId: string; port: number; portFile: string; logger: Logger }) {
  const repo = trafficRepository(deps.db);
  const aggregator = new TrafficAggregator();
  let receiver: TrafficLogReceiver | null = null;
  let flushing: Promise<unknown> = Promise.resolve();
  const totals: TrafficTotals = { lines: 0, countedLines: 0, countedRequests: 0, unattributed: 0, malformed: 0, flushes: 0, failedFlushes: 0 };

  /** The stick table's request total over all hosts, with the worker it belongs to. */
  async function readStick(): Promise<StickReading | null> {
    try {
      const info = await deps.admin.worker('show info');
      const pid = /^Pid: (\d+)$/m.exec(info)?.[1];
      const start = /^Start_time_sec: (\d+)$/m.exec(info)?.[1];
      if (!pid || !start) return null;
      const table = await deps.admin.worker('show table bandwidth');
      if (!table.startsWith('# table: bandwidth')) return null;
      let requests = 0;
      for (const m of table.matchAll(/\bhttp_req_cnt=(\d+)/g)) requests += Number(m[1]);
      return { processKey: `${pid}@${start}`, requests };
    } catch {
      return null;
    }
  }

  async function flushOnce(options: { readHaproxy: boolean }): Promise<{ rows: number; lines: number; countedRequests: number | null }> {
    const reading = options.readHaproxy ? await readStick() : null;
    const batch = aggregator.take();
    if (batch.rows.length === 0 && batch.lines === 0 && reading === null) return { rows: 0, lines: 0, countedRequests: null };
    try {
      const { countedRequests } = await repo.flush(deps.edgeId, batch, reading);
      totals.lines += batch.lines; totals.countedLines += batch.countedLines; totals.unattributed += batch.unattributed; totals.malformed += batch.malformed;
      totals.countedRequests += countedRequests ?? batch.countedLines;
      totals.flushes++;
      return { rows: batch.rows.length, lines: batch.lines, countedRequests };
    } catch (error) {
      totals.failedFlushes++;
      if (aggregator.size + batch.rows.length <= MAX_OPEN_BUCKETS) aggregator.putBack(batch);
      throw error;
    }
  }

  return {
    aggregator,
    totals,
    /** The port HAProxy sends to (0: logging off); known once started. */
    get port() { return receiver?.port ?? 0; },
    async start(): Promise<void> {
      if (deps.port === 0 || receiver) return;
      receiver = await startTrafficLogReceiver(deps.port, aggregator, deps.portFile);
    },
    /** One flush; flushes never overlap (a slow one makes the next wait, not run beside it). */
    flush(options: { readHaproxy?: boolean } = {}) {
      const next = flushing.then(() => flushOnce({ readHaproxy: options.readHaproxy ?? true }));
      flushing = next.catch(() => undefined);
      return next;
    },
    /** Stops receiving; the caller flushes what is left. */
    async close(): Promise<void> {
      const r = receiver;
      receiver = null;
      await r?.close();
    },
  };
}
export type TrafficAnalytics = ReturnType<typeof createTrafficAnalytics>;
