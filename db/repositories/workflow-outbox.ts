// Workflow starts and signals requested by transactions, dispatched after commit. What a row may
// carry is the union in contracts/outbox-messages.ts; rows are checked against it when leased, so
// a row the dispatcher cannot understand is dead-lettered instead of reaching Temporal or
// stopping the queue.
import type { CommonQueryMethods } from 'slonik';
import { Type } from 'typebox';
import { Compile } from 'typebox/compile';
import { DOMAIN_WORKFLOW_PREFIX, WAKE_UP_SIGNALS, type DomainSignalPayload } from '../../contracts/domain-workflow.ts';
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

const IdRow = row(Type.Object({ id: Type.Number() }));

/**
 * Whether a pending row holds back the rows after it of the same workflow: every row does (a
 * domain's start precedes its signals; suspend, resume and delete arrive in the order they were
 * made) except a wake-up signal, which only says "look now" — a delete is never queued behind
 * those, however many an edge or a burst of verifies produced.
 */
const holdsBackLater = (e: ReturnType<typeof sql.identifier>) => sql.fragment`
  not (${e}.kind = 'signal_domain' and ${e}.payload->>'signal' = any(${sql.array([...WAKE_UP_SIGNALS], 'text')}))`;

/**
 * `insert into workflow_outbox … select` of one domain signal per workflow id of `source` (a
 * query with a column `w`). A wake-up signal (`verify`, `deployed`) coalesces: a workflow that
 * already has the same one pending and not yet leased gets no second row (a leased one may be on
 * its way already and not carry what the caller just committed, so it does not count).
 */
export function domainSignalInsert(source: ReturnType<typeof sql.fragment>, payload: DomainSignalPayload) {
  const coalesce = WAKE_UP_SIGNALS.includes(payload.signal);
  return sql.fragment`
    insert into workflow_outbox (kind, workflow_id, payload)
    select 'signal_domain', s.w, ${sql.jsonb(payload as never)} from (${source}) as s
    where not (${coalesce} and exists (
      select 1 from workflow_outbox o
      where o.workflow_id = s.w and o.kind = 'signal_domain' and o.dispatched_at is null
        and (o.locked_until is null or o.locked_until < now()) and o.payload->>'signal' = ${payload.signal}))`;
}

export function workflowOutboxRepository(db: Db) {
  return {
    async enqueue<K extends OutboxKind>(q: CommonQueryMethods, kind: K, workflowId: string, payload: OutboxPayload<K>): Promise<number> {
      return q.oneFirst(sql.type(IdRow)`
        insert into workflow_outbox (kind, workflow_id, payload) values (${kind}, ${workflowId}, ${sql.jsonb(payload as never)})
        returning id`);
    },
    /** Queues one signal for each domain's workflow (coalesced: `domainSignalInsert`); returns the new rows' ids. */
    async enqueueDomainSignals(q: CommonQueryMethods, domainIds: readonly string[], payload: DomainSignalPayload): Promise<number[]> {
      if (domainIds.length === 0) return [];
      const source = sql.fragment`select unnest(${sql.array(domainIds.map((id) => `${DOMAIN_WORKFLOW_PREFIX}${id}`), 'text')}) as w`;
      const rows = await q.any(sql.type(IdRow)`${domainSignalInsert(source, payload)} returning id`);
      return rows.map((r) => r.id);
    },
    /**
     * Leases up to `limit` pending rows for 30 s (SKIP LOCKED: concurrent dispatchers take
     * different rows) and returns them, checked: `messages` to dispatch, `invalid` to
     * dead-letter. The connection is released before anything is sent. A row waits while an
     * earlier row of the same workflow is pending, so a domain's start is always delivered before
     * its signals and lifecycle signals keep their order — unless that earlier row is a wake-up
     * signal (`holdsBackLater`).
     */
    async lease(limit: number, ids?: readonly number[]): Promise<{ messages: LeasedMessage[]; invalid: InvalidOutboxRow[]; leased: number }> {
      const only = ids ? sql.fragment`and o.id = any(${sql.array([...ids], 'int8')})` : sql.fragment``;
      const rows = await db.any(sql.type(LeasedRow)`
        update workflow_outbox set locked_until = now() + interval '30 seconds', attempts = attempts + 1
        where id in (
          select o.id from workflow_outbox o
          where o.dispatched_at is null and (o.locked_until is null or o.locked_until < now()) ${only}
            and not exists (select 1 from workflow_outbox e where e.workflow_id = o.workflow_id and e.dispatched_at is null and e.id < o.id
              and ${holdsBackLater(sql.identifier(['e']))})
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
