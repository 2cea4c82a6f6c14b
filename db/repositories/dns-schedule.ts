// The DNS check schedule of pending domains (migration 021): one row per `pending_dns` domain,
// kept by a trigger on `domains`, claimed in batches by the worker's DNS checker
// (worker/dns-checker.ts). Several checkers share the table: a claim skips rows another holds
// (FOR UPDATE SKIP LOCKED) and pushes the rows it takes a lease ahead, so no row is checked twice.
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

/** Notified (at commit) when a domain enters `pending_dns`: a first check is due. */
export const DNS_CHECKS_CHANNEL = 'hostgate_dns_checks';

/** A claimed row: what the check needs without reading the domain again. */
export interface ClaimedCheck {
  domainId: string;
  hostname: string;
  isApex: boolean;
  /** The domain's status sequence number when claimed. */
  seq: number;
  /** Checks already made in this wait (this one is `checks + 1`). */
  checks: number;
}

/** What a finished check sets: the next slot, and whether it counts as a check of the wait. */
export interface CheckDone { domainId: string; delayMs: number; counted: boolean }

const Claimed = row(Type.Object({ domain_id: Type.String(), hostname: Type.String(), is_apex: Type.Boolean(), status_seq: Type.Number(), checks: Type.Number() }));
const Slot = row(Type.Object({ next_check_ms: Type.Number(), checks: Type.Number() }));

export function dnsScheduleRepository(db: Db) {
  return {
    /**
     * Takes up to `limit` due rows, oldest slot first, and pushes them `leaseMs` ahead (the claim:
     * another checker skips them until `done` sets their next slot or the lease runs out).
     */
    async claimDue(limit: number, leaseMs: number): Promise<ClaimedCheck[]> {
      const rows = await db.any(sql.type(Claimed)`
        with due as (
          select s.domain_id from dns_check_schedule s
          where s.next_check_at <= hg_now()
          order by s.next_check_at
          limit ${limit}
          for update skip locked
        )
        update dns_check_schedule s set next_check_at = hg_now() + make_interval(secs => ${leaseMs / 1000})
        from due, domains d
        where s.domain_id = due.domain_id and d.id = s.domain_id
        returning s.domain_id, d.hostname, d.is_apex, d.status_seq, s.checks`);
      return rows.map((r) => ({ domainId: r.domain_id, hostname: r.hostname, isApex: r.is_apex, seq: r.status_seq, checks: r.checks }));
    },

    /** Sets the next slot of every finished check in one statement (rows gone meanwhile are skipped). */
    async done(checks: readonly CheckDone[]): Promise<void> {
      if (checks.length === 0) return;
      await db.query(sql.unsafe`
        update dns_check_schedule s
        set next_check_at = hg_now() + make_interval(secs => c.delay_ms / 1000.0), checks = s.checks + (case when c.counted then 1 else 0 end)
        from unnest(${sql.array(checks.map((c) => c.domainId), 'text')}::text[], ${sql.array(checks.map((c) => Math.max(0, Math.round(c.delayMs))), 'int8')}::int8[], ${sql.array(checks.map((c) => c.counted), 'bool')}::bool[])
          as c(domain_id, delay_ms, counted)
        where s.domain_id = c.domain_id`);
    },

    /**
     * Takes the domain's move-order lease for `ms` (a DNS-01 order of a zero-downtime move): false
     * when another step holds it, or the domain is not waiting for DNS (no row).
     */
    async takeMoveOrder(domainId: string, ms: number): Promise<boolean> {
      const result = await db.query(sql.unsafe`
        update dns_check_schedule set move_order_until = hg_now() + make_interval(secs => ${ms / 1000})
        where domain_id = ${domainId} and (move_order_until is null or move_order_until <= hg_now())`);
      return result.rowCount > 0;
    },

    async releaseMoveOrder(domainId: string): Promise<void> {
      await db.query(sql.unsafe`update dns_check_schedule set move_order_until = null where domain_id = ${domainId}`);
    },

    /** Makes a domain's row due now (tests, operators). False when the domain has no row. */
    async dueNow(domainId: string): Promise<boolean> {
      const result = await db.query(sql.unsafe`update dns_check_schedule set next_check_at = hg_now() where domain_id = ${domainId}`);
      return result.rowCount > 0;
    },

    /** A domain's slot, or null when it is not waiting for DNS. */
    async slotOf(domainId: string): Promise<{ nextCheckAt: Date; checks: number } | null> {
      const r = await db.maybeOne(sql.type(Slot)`select (extract(epoch from next_check_at) * 1000)::float8 as next_check_ms, checks from dns_check_schedule where domain_id = ${domainId}`);
      return r ? { nextCheckAt: new Date(r.next_check_ms), checks: r.checks } : null;
    },

    /** Rows due now and not claimed (a gauge of how far behind the checkers are). */
    async dueCount(): Promise<number> {
      return db.oneFirst(sql.type(row(Type.Object({ n: Type.Number() })))`select count(*)::int as n from dns_check_schedule where next_check_at <= hg_now()`);
    },
  };
}
