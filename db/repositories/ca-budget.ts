// The shared CA budget and the CAs' pauses (migration 020): the SQL of model/ca-budget.ts.
// Every worker admits its orders here, under one advisory lock per ACME account (directory),
// so two workers cannot both take the last place; a CA's Retry-After is a row all workers read.
import { Type } from 'typebox';
import { budgetTurn, WAITER_GRACE_MS, type Budget } from '../../model/ca-budget.ts';
import { NoRows, row, sql, type Db } from '../pool.ts';

const Window = row(Type.Object({ now: Type.Number(), placed: Type.Array(Type.Number()), renewal: Type.Boolean(), since: Type.Union([Type.Number(), Type.Null()]) }));
const Count = row(Type.Object({ n: Type.Number() }));
const Id = row(Type.Object({ id: Type.String() }));
const Paused = row(Type.Object({ directory_url: Type.String(), paused_until: Type.Number(), reason: Type.String() }));

export type BudgetAdmission = { admitted: true; placementId: string } | { admitted: false; retryAt: number; ahead: number };

/**
 * Statuses whose waiter still wants a certificate (a deleted or suspended domain's row is ignored).
 * hg_ca_budget_admit_plain (migration 023) names the same three.
 */
const WAITING_STATUSES = sql.join(['pending_dns', 'pending_certificate', 'active'].map((s) => sql.fragment`${s}`), sql.fragment`, `);

/** The one-statement admission's placement id (migration 023); null: take the transaction. */
const PlainAdmission = row(Type.Object({ id: Type.Union([Type.String(), Type.Null()]) }));

export function caBudgetRepository(db: Db) {
  return {
    /**
     * Admits a new order for `domainId` with the account of `directoryUrl`, or queues the domain
     * (renewals — the domain is active — before new domains, then the oldest) and says when its
     * turn is expected. Admitted: the placement is recorded and the domain leaves the queue.
     */
    async admit(directoryUrl: string, domainId: string, budget: Budget): Promise<BudgetAdmission> {
      // The usual case in one statement: room in the window and nobody queued (migration 023);
      // otherwise the transaction below works out the turn.
      const plain = await db.oneFirst(sql.type(PlainAdmission)`
        select hg_ca_budget_admit_plain(${directoryUrl}, ${domainId}, ${budget.orders}, ${budget.windowMs / 1000}, ${WAITER_GRACE_MS / 1000}) as id`);
      if (plain !== null) return { admitted: true, placementId: plain };
      return await db.transaction(async (tx) => {
        await tx.query(sql.unsafe`select pg_advisory_xact_lock(hashtext('ca-budget/' || ${directoryUrl}))`);
        const windowSecs = budget.windowMs / 1000;
        await tx.query(sql.type(NoRows)`
          delete from ca_budget_placements where directory_url = ${directoryUrl} and placed_at <= hg_now() - make_interval(secs => ${windowSecs})`);
        const w = await tx.one(sql.type(Window)`
          select (extract(epoch from hg_now()) * 1000)::float8 as now,
            coalesce((select array_agg((extract(epoch from placed_at) * 1000)::float8 order by placed_at)
              from ca_budget_placements where directory_url = ${directoryUrl} and placed_at > hg_now() - make_interval(secs => ${windowSecs})), '{}') as placed,
            coalesce((select status = 'active' from domains where id = ${domainId}), false) as renewal,
            (select (extract(epoch from since) * 1000)::float8 from ca_budget_waiters where directory_url = ${directoryUrl} and domain_id = ${domainId}) as since`);
        const since = w.since ?? w.now;
        // Waiters ahead: renewals before new domains, then the oldest (ties by id), still waiting.
        const ahead = await tx.oneFirst(sql.type(Count)`
          select count(*)::float8 as n from ca_budget_waiters q join domains d on d.id = q.domain_id
          where q.directory_url = ${directoryUrl} and q.domain_id <> ${domainId} and d.status in (${WAITING_STATUSES})
            and q.retry_at > hg_now() - make_interval(secs => ${WAITER_GRACE_MS / 1000})
            and (q.renewal > ${w.renewal}
              or (q.renewal = ${w.renewal} and (q.since < to_timestamp(${since / 1000}) or (q.since = to_timestamp(${since / 1000}) and q.domain_id < ${domainId}))))`);
        const turn = budgetTurn(w.placed, ahead, w.now, budget);
        if (turn.admitted) {
          const placementId = await tx.oneFirst(sql.type(Id)`
            insert into ca_budget_placements (directory_url, domain_id) values (${directoryUrl}, ${domainId}) returning id::text`);
          // Admitted here: it waits at no other CA either.
          await tx.query(sql.type(NoRows)`delete from ca_budget_waiters where domain_id = ${domainId}`);
          return { admitted: true as const, placementId };
        }
        await tx.query(sql.type(NoRows)`
          insert into ca_budget_waiters (directory_url, domain_id, renewal, since, retry_at)
          values (${directoryUrl}, ${domainId}, ${w.renewal}, to_timestamp(${since / 1000}), to_timestamp(${turn.retryAt / 1000}))
          on conflict (directory_url, domain_id) do update set renewal = excluded.renewal, retry_at = excluded.retry_at`);
        return { admitted: false as const, retryAt: turn.retryAt, ahead };
      });
    },

    /** Takes back an admitted order the CA never saw (it could not be reached). */
    async release(placementId: string): Promise<void> {
      await db.query(sql.type(NoRows)`delete from ca_budget_placements where id = ${placementId}::bigint`);
    },

    /** The domain no longer waits (its order went to no CA, e.g. a refusal): leaves the queue. */
    async leaveQueue(domainId: string): Promise<void> {
      await db.query(sql.type(NoRows)`delete from ca_budget_waiters where domain_id = ${domainId}`);
    },

    /** A CA told us to wait (Retry-After), failed (5xx) or did not answer: no new orders to it until `untilMs`. */
    async pause(directoryUrl: string, untilMs: number, reason: string): Promise<void> {
      await db.query(sql.type(NoRows)`
        insert into ca_status (directory_url, paused_until, reason) values (${directoryUrl}, to_timestamp(${untilMs / 1000}), ${reason})
        on conflict (directory_url) do update set paused_until = greatest(ca_status.paused_until, excluded.paused_until), reason = excluded.reason, updated_at = hg_now()`);
    },

    /** The CAs paused now (directory URL → until, epoch ms, and why). */
    async paused(): Promise<Map<string, { until: number; reason: string }>> {
      const rows = await db.any(sql.type(Paused)`
        select directory_url, (extract(epoch from paused_until) * 1000)::float8 as paused_until, reason from ca_status where paused_until > hg_now()`);
      return new Map(rows.map((r) => [r.directory_url, { until: r.paused_until, reason: r.reason }]));
    },

    /** Per configured CA: orders in its window, its budget, the domains waiting (the worker's gauges). */
    async readings(directories: ReadonlyArray<{ name: string; directoryUrl: string; budget: Budget }>): Promise<Array<{ ca: string; used: number; limit: number; waiting: number }>> {
      return await Promise.all(directories.map(async (d) => ({ ca: d.name, limit: d.budget.orders, ...await this.usage(d.directoryUrl, d.budget.windowMs) })));
    },

    /** Orders placed with the account in its window, and the domains waiting (metrics, tests). */
    async usage(directoryUrl: string, windowMs: number): Promise<{ used: number; waiting: number }> {
      const used = await db.oneFirst(sql.type(Count)`
        select count(*)::float8 as n from ca_budget_placements where directory_url = ${directoryUrl} and placed_at > hg_now() - make_interval(secs => ${windowMs / 1000})`);
      const waiting = await db.oneFirst(sql.type(Count)`
        select count(*)::float8 as n from ca_budget_waiters q join domains d on d.id = q.domain_id
        where q.directory_url = ${directoryUrl} and d.status in (${WAITING_STATUSES}) and q.retry_at > hg_now() - make_interval(secs => ${WAITER_GRACE_MS / 1000})`);
      return { used, waiting };
    },
  };
}

export type CaBudgetRepository = ReturnType<typeof caBudgetRepository>;
