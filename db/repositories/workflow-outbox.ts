// Workflow starts and signals requested by transactions, dispatched after commit. What a row may
// carry is the union in contracts/outbox-messages.ts; rows are checked against it when leased, so
// a row the dispatcher cannot understand is dead-lettered instead of reaching Temporal or
// stopping the queue.
import type { CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { OutboxMessage, outboxVariants, type OutboxKind, type OutboxPayload } from '../../contracts/outbox-messages.ts';
import { row, sql, type Db } from '../pool.ts';

/** A leased row that passed the check: its message plus the row's bookkeeping. */
export type LeasedMessage = OutboxMessage & { id: number; attempts: number };
/** A leased row that did not: what it held and why it was refused. */
export interface InvalidOutboxRow { id: number; kind: string; workflow_id: string; problems: string[] }

const isMessage = Compile(OutboxMessage);
// Per kind, so a refusal names what is wrong with THAT kind of message (a union's own error
// only says that no variant matched).
const validators = new Map<string, ReturnType<typeof Compile>>(Object.entries(outboxVariants).map(([kind, schema]) => [kind, Compile(schema)]));

// Leased rows are read loosely and checked one by one: one bad row must not fail the whole lease.
const LeasedRow = row(Type.Object({ id: Type.Number(), kind: Type.String(), workflow_id: Type.String(), payload: Type.Unknown(), attempts: Type.Number() }));
type LeasedRow = { id: number; kind: string; workflow_id: string; payload: unknown; attempts: number };

function check(r: LeasedRow): { ok: true; message: LeasedMessage } | { ok: false; invalid: InvalidOutboxRow } {
  const candidate = { kind: r.kind, workflow_id: r.workflow_id, payload: r.payload };
  if (isMessage.Check(candidate)) return { ok: true, message: { ...candidate, id: r.id, attempts: r.attempts } };
  const validator = validators.get(r.kind);
  const problems = validator
    ? [...new Set(validator.Errors(candidate).map((e) => `${e.instancePath || '/'} ${e.message}`))].slice(0, 5)
    : [`unknown kind ${JSON.stringify(r.kind)}`];
  return { ok: false, invalid: { id: r.id, kind: r.kind, workflow_id: r.workflow_id, problems } };
}

/** Prefix of `last_error` on dead-lettered rows (`where last_error like 'dead letter:%'`). */
export const DEAD_LETTER_PREFIX = 'dead letter: ';

export function workflowOutboxRepository(db: Db) {
  return {
    async enqueue<K extends OutboxKind>(q: CommonQueryMethods, kind: K, workflowId: string, payload: OutboxPayload<K>): Promise<number> {
      return q.oneFirst(sql.type(row(Type.Object({ id: Type.Number() })))`
        insert into workflow_outbox (kind, workflow_id, payload) values (${kind}, ${workflowId}, ${sql.jsonb(payload as never)})
        returning id`);
    },
    /**
     * Leases up to `limit` pending rows for 30 s (SKIP LOCKED: concurrent dispatchers take
     * different rows) and returns them, checked: `messages` to dispatch, `invalid` to
     * dead-letter. The connection is released before anything is sent. A row waits while an
     * earlier row of the same workflow is pending, so a domain's start is always delivered before
     * its signals.
     */
    async lease(limit: number, ids?: readonly number[]): Promise<{ messages: LeasedMessage[]; invalid: InvalidOutboxRow[]; leased: number }> {
      const only = ids ? sql.fragment`and o.id = any(${sql.array([...ids], 'int8')})` : sql.fragment``;
      const rows = await db.any(sql.type(LeasedRow)`
        update workflow_outbox set locked_until = now() + interval '30 seconds', attempts = attempts + 1
        where id in (
          select o.id from workflow_outbox o
          where o.dispatched_at is null and (o.locked_until is null or o.locked_until < now()) ${only}
            and not exists (select 1 from workflow_outbox e where e.workflow_id = o.workflow_id and e.dispatched_at is null and e.id < o.id)
          order by o.id limit ${limit} for update skip locked)
        returning id, kind, workflow_id, payload, attempts`);
      const messages: LeasedMessage[] = [];
      const invalid: InvalidOutboxRow[] = [];
      for (const r of rows) {
        const checked = check(r);
        if (checked.ok) messages.push(checked.message);
        else invalid.push(checked.invalid);
      }
      return { messages, invalid, leased: rows.length };
    },
    async markDispatched(ids: readonly number[]): Promise<void> {
      if (ids.length === 0) return;
      await db.query(sql.unsafe`update workflow_outbox set dispatched_at = hg_now(), locked_until = null, last_error = null where id = any(${sql.array([...ids], 'int8')})`);
    },
    /** Frees a row for the next pass and records why it failed. */
    async release(id: number, error: string): Promise<void> {
      await db.query(sql.unsafe`update workflow_outbox set locked_until = null, last_error = ${error.slice(0, 1000)} where id = ${id}`);
    },
    /**
     * Takes a row no dispatcher can act on out of the queue for good: marked dispatched (so the
     * workflow's later rows are not held behind it and no pass leases it again), with why in
     * `last_error`, prefixed DEAD_LETTER_PREFIX.
     */
    async deadLetter(id: number, reason: string): Promise<void> {
      await db.query(sql.unsafe`update workflow_outbox set dispatched_at = hg_now(), locked_until = null, last_error = ${`${DEAD_LETTER_PREFIX}${reason}`.slice(0, 1000)} where id = ${id}`);
    },
    async pendingCount(): Promise<number> {
      return db.oneFirst(sql.type(row(Type.Object({ n: Type.Number() })))`select count(*)::int as n from workflow_outbox where dispatched_at is null`);
    },
  };
}
