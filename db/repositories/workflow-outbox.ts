import type { CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

export const OutboxRow = Type.Object({
  id: Type.Number(),
  kind: Type.Union([Type.Literal('start_domain'), Type.Literal('signal_domain'), Type.Literal('start_delivery'), Type.Literal('retry_delivery'),
    // billing/<org id>: signal-with-start of the organization's billing workflow (migration 009).
    Type.Literal('signal_billing')]),
  workflow_id: Type.String(),
  payload: Type.Record(Type.String(), Type.Unknown()),
  attempts: Type.Number(),
});
export type OutboxRow = Static<typeof OutboxRow>;
const Outbox = row(OutboxRow);

export function workflowOutboxRepository(db: Db) {
  return {
    async enqueue(q: CommonQueryMethods, kind: OutboxRow['kind'], workflowId: string, payload: Record<string, unknown>): Promise<number> {
      return q.oneFirst(sql.type(row(Type.Object({ id: Type.Number() })))`
        insert into workflow_outbox (kind, workflow_id, payload) values (${kind}, ${workflowId}, ${sql.jsonb(payload as never)})
        returning id`);
    },
    /**
     * Leases up to `limit` pending rows for 30 s (SKIP LOCKED: concurrent dispatchers take
     * different rows) and returns them; the connection is released before anything is sent.
     * A row waits while an earlier row of the same workflow is pending, so a domain's start is
     * always delivered before its signals.
     */
    async lease(limit: number, ids?: readonly number[]): Promise<readonly OutboxRow[]> {
      const only = ids ? sql.fragment`and o.id = any(${sql.array([...ids], 'int8')})` : sql.fragment``;
      return db.any(sql.type(Outbox)`
        update workflow_outbox set locked_until = now() + interval '30 seconds', attempts = attempts + 1
        where id in (
          select o.id from workflow_outbox o
          where o.dispatched_at is null and (o.locked_until is null or o.locked_until < now()) ${only}
            and not exists (select 1 from workflow_outbox e where e.workflow_id = o.workflow_id and e.dispatched_at is null and e.id < o.id)
          order by o.id limit ${limit} for update skip locked)
        returning id, kind, workflow_id, payload, attempts`);
    },
    async markDispatched(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await db.query(sql.unsafe`update workflow_outbox set dispatched_at = hg_now(), locked_until = null, last_error = null where id = any(${sql.array([...ids], 'int8')})`);
    },
    /** Frees a row for the next pass and records why it failed. */
    async release(id: number, error: string): Promise<void> {
      await db.query(sql.unsafe`update workflow_outbox set locked_until = null, last_error = ${error.slice(0, 1000)} where id = ${id}`);
    },
    async pendingCount(): Promise<number> {
      return db.oneFirst(sql.type(row(Type.Object({ n: Type.Number() })))`select count(*)::int as n from workflow_outbox where dispatched_at is null`);
    },
  };
}
