import type { CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

export const OutboxRow = Type.Object({
  id: Type.Number(),
  kind: Type.Union([Type.Literal('start_domain'), Type.Literal('signal_domain')]),
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
     * Claims pending rows for one dispatcher. SKIP LOCKED lets several API processes dispatch at
     * once without taking the same row; a row whose dispatch fails stays pending for the next pass.
     */
    async claim<T>(limit: number, handler: (rows: readonly OutboxRow[]) => Promise<Map<number, string | null>>, ids?: readonly number[]): Promise<number> {
      return db.transaction(async (tx) => {
        const only = ids ? sql.fragment`and id = any(${sql.array([...ids], 'int8')})` : sql.fragment``;
        const rows = await tx.any(sql.type(Outbox)`
          select id, kind, workflow_id, payload, attempts from workflow_outbox
          where dispatched_at is null ${only} order by id limit ${limit} for update skip locked`);
        if (rows.length === 0) return 0;
        const results = await handler(rows);
        for (const r of rows) {
          const error = results.get(r.id);
          if (error === null) {
            await tx.query(sql.unsafe`update workflow_outbox set dispatched_at = hg_now(), attempts = attempts + 1 where id = ${r.id}`);
          } else {
            await tx.query(sql.unsafe`update workflow_outbox set attempts = attempts + 1, last_error = ${(error ?? 'not dispatched').slice(0, 1000)} where id = ${r.id}`);
          }
        }
        return rows.length;
      });
    },
    async pendingCount(): Promise<number> {
      return db.oneFirst(sql.type(row(Type.Object({ n: Type.Number() })))`select count(*)::int as n from workflow_outbox where dispatched_at is null`);
    },
  };
}
