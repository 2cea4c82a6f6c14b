// What the metrics endpoints read from Postgres at scrape time: how far the workflow outbox is
// behind, how many webhook deliveries wait, how many domains are in each status. Cheap queries
// (partial indexes, counts over small sets); one round trip.
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

export interface BacklogGauges {
  outboxPending: number;
  /** Age of the oldest undispatched outbox row, seconds (0 when none). */
  outboxOldestSeconds: number;
  deliveriesPending: number;
  domainsByStatus: Record<string, number>;
}

export function backlogGaugesRepository(db: Db) {
  return {
    async read(): Promise<BacklogGauges> {
      const r = await db.one(sql.type(row(Type.Object({ pending: Type.Number(), oldest: Type.Number(), deliveries: Type.Number(), statuses: Type.Unknown() })))`
        select
          (select count(*)::int from workflow_outbox where dispatched_at is null) as pending,
          coalesce((select extract(epoch from hg_now() - min(created_at))::float8 from workflow_outbox where dispatched_at is null), 0) as oldest,
          (select count(*)::int from webhook_deliveries where status = 'pending') as deliveries,
          coalesce((select jsonb_object_agg(status, n) from (select status, count(*)::int as n from domains group by status) s), '{}'::jsonb) as statuses`);
      return { outboxPending: r.pending, outboxOldestSeconds: r.oldest, deliveriesPending: r.deliveries, domainsByStatus: r.statuses as Record<string, number> };
    },
  };
}
