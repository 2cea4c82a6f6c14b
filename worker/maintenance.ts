// Periodic housekeeping that needs no workflow: bounded, idempotent, safe to run on every worker.
import type { Db } from '../db/pool.ts';
import { purgeExpiredIdempotencyKeys } from '../db/repositories/idempotency-keys.ts';
import type { Logger } from '../logging/logger.ts';

export function startMaintenance(deps: { db: Db; logger: Logger }, intervalMs = 10 * 60_000): { stop(): void } {
  const run = async () => {
    try {
      let purged = 0;
      for (let n = -1; n !== 0 && purged < 1_000_000;) purged += n = await purgeExpiredIdempotencyKeys(deps.db);
      if (purged) deps.logger.info({ purged }, 'purged expired idempotency keys');
    } catch (error) {
      deps.logger.warn({ err: String(error) }, 'maintenance failed; retrying next interval');
    }
  };
  const timer = setInterval(() => void run(), intervalMs);
  timer.unref();
  void run();
  return { stop: () => clearInterval(timer) };
}
