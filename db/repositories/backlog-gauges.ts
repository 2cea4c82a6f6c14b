// What the metrics endpoints read from Postgres at scrape time: how far the workflow outbox is
// behind, how many webhook deliveries wait, how many domains are in each status, how far the DNS
// checkers are behind. Cheap queries (partial indexes, counts over small sets; the oldest due DNS
// check is the first entry of dns_check_schedule's index on next_check_at); one round trip.
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

export interface BacklogGauges {
  outboxPending: number;
  /** Age of the oldest undispatched outbox row, seconds (0 when none). */
  outboxOldestSeconds: number;
  deliveriesPending: number;
  domainsByStatus: Record<string, number>;
  /** DNS checks due and not claimed by any DNS checker, counted up to DNS_DUE_COUNT_CAP. */
  dnsChecksDue: number;
  /** How long the oldest due DNS check has been due, seconds (0 when none): the checkers' lag. */
  dnsCheckOldestDueSeconds: number;
}

/**
 * The due count stops here: past it the checkers are far behind whatever the exact number, and
 * counting a huge backlog on every scrape would cost what the gauge is meant to warn about.
 */
export const DNS_DUE_COUNT_CAP = 10_000;

export function backlogGaugesRepository(db: Db) {
  return {
    async read(): Promise<BacklogGauges> {
      const r = await db.one(sql.type(row(Type.Object({ pending: Type.Number(), oldest: Type.Number(), deliveries: Type.Number(), statuses: Type.Unknown(), dns_due: Type.Number(), dns_oldest: Type.Number() })))`
        select
          (select count(*)::int from workflow_outbox where dispatched_at is null) as pending,
          coalesce((select extract(epoch from hg_now() - min(created_at))::float8 from workflow_outbox where dispatched_at is null), 0) as oldest,
          (select count(*)::int from webhook_deliveries where status = 'pending') as deliveries,
          coalesce((select jsonb_object_agg(status, n) from (select status, count(*)::int as n from domains group by status) s), '{}'::jsonb) as statuses,
          (select count(*)::int from (select 1 from dns_check_schedule where next_check_at <= hg_now() limit ${DNS_DUE_COUNT_CAP}) due) as dns_due,
          coalesce((select greatest(0, extract(epoch from hg_now() - min(next_check_at)))::float8 from dns_check_schedule where next_check_at <= hg_now()), 0) as dns_oldest`);
      return {
        outboxPending: r.pending, outboxOldestSeconds: r.oldest, deliveriesPending: r.deliveries, domainsByStatus: r.statuses as Record<string, number>,
        dnsChecksDue: r.dns_due, dnsCheckOldestDueSeconds: r.dns_oldest,
      };
    },
  };
}
