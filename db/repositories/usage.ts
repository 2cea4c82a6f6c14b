// Usage counters (migrations 009, 022): read in one statement (the usage row plus its counter
// shards); written only by the triggers there and by the period close of the billing workflow.
import type { CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { row, sql, type Db } from '../pool.ts';
import { BillingStatus, Plan } from './organizations.ts';

export const UsageRow = Type.Object({
  plan: Plan,
  billing_status: BillingStatus,
  period_start: Type.String(),
  period_end: Type.String(),
  active_hostnames: Type.Number(),
  peak_hostnames: Type.Number(),
  bandwidth_bytes: Type.Number(),
});
export type UsageRow = Static<typeof UsageRow>;
const Usage = row(UsageRow);

export const ClosedPeriodRow = Type.Object({
  period_start: Type.String(),
  period_end: Type.String(),
  peak_hostnames: Type.Number(),
  bandwidth_bytes: Type.Number(),
});
export type ClosedPeriodRow = Static<typeof ClosedPeriodRow>;
const ClosedPeriod = row(ClosedPeriodRow);

export const DomainBandwidthRow = Type.Object({
  period_start: Type.String(),
  period_end: Type.String(),
  bytes_in: Type.Number(),
  bytes_out: Type.Number(),
});
export type DomainBandwidthRow = Static<typeof DomainBandwidthRow>;
const DomainBandwidth = row(DomainBandwidthRow);

/**
 * The period containing now of the usage row `u`: its own, or — when it ended with no domain
 * change since (nothing rolled the row forward yet) — the next one (`rolled`). One definition for
 * the organization's usage and a domain's bandwidth, so their figures cover the same period.
 */
const currentPeriod = sql.fragment`(
  select u.period_end <= now() as rolled,
    case when u.period_end <= now() then c.period_start else u.period_start end as period_start,
    case when u.period_end <= now() then c.period_end else u.period_end end as period_end
  from hg_period_containing(u.period_anchor, now()) c
)`;

/**
 * The active count of the usage row `u` with the increments still in its shards (migration 022).
 * Only increments committed since the last fold are there, so the count has only grown since:
 * the period's true peak is the greater of the row's peak and this count.
 */
const activeWithShards = sql.fragment`(
  select u.active_hostnames + coalesce(sum(s.added), 0)::int as active_hostnames
  from organization_usage_shards s where s.organization_id = u.organization_id
)`;

export function usageRepository(db: Db) {
  return {
    /**
     * The organization's usage for the period containing now. A period that ended with no domain
     * change since (nothing rolled the row forward yet) is read as rolled: the next period, whose
     * peak so far is the unchanged active count. Bandwidth from the per-organization hourly sums.
     */
    async get(organizationId: string): Promise<UsageRow | null> {
      return db.maybeOne(sql.type(Usage)`
        select o.plan, o.billing_status, p.period_start, p.period_end, a.active_hostnames,
          case when p.rolled then a.active_hostnames else greatest(u.peak_hostnames, a.active_hostnames) end as peak_hostnames,
          (select coalesce(sum(b.bytes), 0) from organization_bandwidth_hourly b
           where b.organization_id = o.id and b.hour >= p.period_start and b.hour < p.period_end)::bigint as bandwidth_bytes
        from organizations o
        join organization_usage u on u.organization_id = o.id
        cross join lateral ${currentPeriod} p
        cross join lateral ${activeWithShards} a
        where o.id = ${organizationId}`);
    },

    /**
     * One domain's bytes (the edge's hourly buckets, migration 008) in its organization's current
     * period — the period `get` reports, so a domain's figures add up to the organization's.
     */
    async domainBandwidth(organizationId: string, domainId: string): Promise<DomainBandwidthRow | null> {
      return db.maybeOne(sql.type(DomainBandwidth)`
        select p.period_start, p.period_end,
          coalesce(sum(b.bytes_in), 0)::bigint as bytes_in, coalesce(sum(b.bytes_out), 0)::bigint as bytes_out
        from organization_usage u
        cross join lateral ${currentPeriod} p
        left join domain_bandwidth_hourly b on b.domain_id = ${domainId} and b.hour >= p.period_start and b.hour < p.period_end
        where u.organization_id = ${organizationId}
        group by p.period_start, p.period_end`);
    },

    /**
     * Closes the period that started at `periodStart` (the billing workflow's clock decides when)
     * and returns it with its peak. Idempotent: a period already closed (by an earlier attempt,
     * or lazily by a domain change after its end) is read back from `usage_periods`.
     */
    async closePeriod(organizationId: string, periodStart: string): Promise<ClosedPeriodRow | null> {
      return db.transaction(async (tx) => {
        // The roll folds the counter shards into the row (migration 022) and holds them to this
        // commit: the row's peak and active count below are the whole of them.
        await tx.query(sql.unsafe`select 1 from hg_usage_roll(${organizationId}, clock_timestamp())`);
        await tx.query(sql.unsafe`
          with u as (select * from organization_usage where organization_id = ${organizationId} and period_start = ${periodStart}::timestamptz for update),
          closed as (
            insert into usage_periods (organization_id, period_start, period_end, peak_hostnames, bandwidth_bytes)
            select u.organization_id, u.period_start, u.period_end, u.peak_hostnames,
              (select coalesce(sum(b.bytes), 0) from organization_bandwidth_hourly b where b.organization_id = u.organization_id and b.hour >= u.period_start and b.hour < u.period_end)
            from u on conflict (organization_id, period_start) do nothing
          )
          update organization_usage o set period_start = n.period_start, period_end = n.period_end, peak_hostnames = o.active_hostnames
          from u cross join lateral hg_period_containing(u.period_anchor, u.period_end) n
          where o.organization_id = u.organization_id`);
        return tx.maybeOne(sql.type(ClosedPeriod)`
          select period_start, period_end, peak_hostnames, bandwidth_bytes from usage_periods
          where organization_id = ${organizationId} and period_start = ${periodStart}::timestamptz`);
      });
    },

    /**
     * The start of our period that a provider's invoice for a period ending at `periodEnd` bills:
     * the latest one that began at least an hour before that end (Stripe's period bounds and ours
     * differ by the seconds between its clock and ours), open or closed.
     */
    async periodStartBefore(organizationId: string, periodEnd: string): Promise<string | null> {
      return db.maybeOneFirst(sql.type(row(Type.Object({ period_start: Type.String() })))`
        select period_start from (
          select period_start from usage_periods where organization_id = ${organizationId}
          union all select period_start from organization_usage where organization_id = ${organizationId}
        ) p where period_start <= ${periodEnd}::timestamptz - interval '1 hour'
        order by period_start desc limit 1`);
    },

    /**
     * Switches the organization to periods counted from `anchor` at the instant `at` (now when
     * null): the running period closes there with its peak so far, and the new one runs from `at`
     * to the end of the anchor's period containing it, starting with peak = active. A
     * subscription's first period (anchor = at = its start); back to calendar months at
     * cancellation (anchor 2000-01-01, at = now: a short period to the end of the month).
     */
    async restartPeriods(q: CommonQueryMethods, organizationId: string, anchor: string, at: string | null): Promise<void> {
      await q.query(sql.unsafe`select 1 from hg_usage_roll(${organizationId}, clock_timestamp())`);
      await q.query(sql.unsafe`
        with u as (select *, coalesce(${at}::timestamptz, now()) as at from organization_usage where organization_id = ${organizationId} for update),
        closed as (
          insert into usage_periods (organization_id, period_start, period_end, peak_hostnames, bandwidth_bytes)
          select u.organization_id, u.period_start, u.at, u.peak_hostnames,
            (select coalesce(sum(b.bytes), 0) from organization_bandwidth_hourly b where b.organization_id = u.organization_id and b.hour >= u.period_start and b.hour < u.at)
          from u where u.at > u.period_start
          on conflict (organization_id, period_start) do nothing
        )
        update organization_usage o set period_anchor = ${anchor}::timestamptz,
          period_start = case when u.at > u.period_start then u.at else u.period_start end, period_end = n.period_end,
          peak_hostnames = case when u.at > u.period_start then o.active_hostnames else o.peak_hostnames end
        from u cross join lateral hg_period_containing(${anchor}::timestamptz, u.at) n
        where o.organization_id = u.organization_id`);
    },
  };
}
