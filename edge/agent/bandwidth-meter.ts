// Bandwidth meter: reads HAProxy's per-host byte counters and hands them to the repository, which
// turns them into deltas against the last stored reading and adds those to hourly buckets in one
// transaction. Counters are absolute and the baseline lives in Postgres, so a reading that
// fails to commit is simply counted by the next one; an agent restart loses nothing.
import type { CounterReading, EdgeRepository } from '../../db/repositories/edge.ts';
import type { Logger } from '../../logging/logger.ts';
import type { HaproxyRuntime } from './haproxy-runtime.ts';

export interface BandwidthMeter {
  /** Reads and records once; returns the bytes added (0 when nothing moved). */
  readOnce(): Promise<{ bytesIn: number; bytesOut: number; hosts: number }>;
}

export function createBandwidthMeter(deps: {
  edgeId: string;
  runtime: HaproxyRuntime;
  repository: EdgeRepository;
  logger: Logger;
  /** The domain a hostname belongs to (from the routes the agent has seen), null if unknown. */
  domainOf: (hostname: string) => string | null;
}): BandwidthMeter {
  return {
    async readOnce() {
      const key = await deps.runtime.processKey();
      const counters = await deps.runtime.readCounters();
      // A reload between the two reads would mix two workers' counters: read again next time.
      if ((await deps.runtime.processKey()) !== key) return { bytesIn: 0, bytesOut: 0, hosts: 0 };
      const readings: CounterReading[] = [];
      for (const [hostname, c] of counters) {
        const domainId = deps.domainOf(hostname);
        if (!domainId) { deps.logger.warn({ host: hostname }, 'bytes counted for a hostname of no known domain; not recorded'); continue; }
        readings.push({ hostname, domainId, bytesIn: c.bytesIn, bytesOut: c.bytesOut });
      }
      const added = await deps.repository.recordBandwidth(deps.edgeId, key, readings);
      return { ...added, hosts: readings.length };
    },
  };
}
