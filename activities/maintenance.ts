// Maintenance activities: one bounded retention batch (db/repositories/retention.ts) per call.
import type { Db } from '../db/pool.ts';
import { retentionRepository, type RetentionPeriods, type RetentionTarget } from '../db/repositories/retention.ts';
import { countRetentionDeletes } from '../metrics/worker.ts';

export function createMaintenanceActivities({ db }: { db: Db }) {
  const retention = retentionRepository(db);
  return {
    /** Deletes at most `limit` rows of the target past its retention; returns how many. */
    async purgeBatch({ target, periods, limit }: { target: RetentionTarget; periods: RetentionPeriods; limit: number }): Promise<number> {
      const n = await retention.purge(target, periods, limit);
      countRetentionDeletes(target, n);
      return n;
    },
  };
}
