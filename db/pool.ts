// The slonik pool every process uses. Rows are validated against the TypeBox schema given to
// `sql.type(...)`, so schema drift fails loudly at the query instead of leaking odd shapes.
import { createHash } from 'node:crypto';
import { createPool, SchemaValidationError, sql as slonikSql, type DatabasePool, type Interceptor, type QueryResultRow } from 'slonik';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';
import type { DriverFactory } from '@slonik/driver';
import { createPgDriverFactory } from '@slonik/pg-driver';
import { rejectAfter } from '../process/deadline.ts';

export type Db = DatabasePool;
export const sql = slonikSql;

/** Wraps a TypeBox object schema as a Standard Schema, which is what slonik's sql.type accepts. */
export function row<T extends TSchema>(schema: T): StandardSchemaV1<unknown, Static<T>> {
  const validator = Compile(schema);
  return {
    '~standard': {
      version: 1,
      vendor: 'typebox',
      validate(value: unknown) {
        if (validator.Check(value)) return { value: value as Static<T> };
        const issues = [...validator.Errors(value)].slice(0, 5).map((e) => ({ message: `${e.instancePath || '/'} ${e.message}` }));
        return { issues };
      },
    },
  };
}

/**
 * The row type of a statement that returns no rows (insert, update or delete without
 * `returning`): typed like every other query, and a row coming back fails loudly.
 */
export const NoRows = row(Type.Object({}, { additionalProperties: false }));

const resultParser: Interceptor = {
  name: 'typebox-result-parser',
  transformRow(context, query, row, fields) {
    const parser = context.resultParser;
    if (!parser) return row;
    const result = parser['~standard'].validate(row);
    if (result instanceof Promise) throw new Error('async result parsers are not supported');
    if (result.issues) throw new SchemaValidationError(query, row as never, result.issues as never);
    return result.value as QueryResultRow;
  },
};

// Every statement is a named prepared statement (the name is a hash of its text): Postgres parses
// and plans each distinct statement once per connection instead of on every execution. The
// statements here are fixed templates with parameters, so the set of names stays small; a
// domain transition (one CTE statement) is executed thousands of times in a burst.
const statementNames = new Map<string, string>();
const preparedStatements: Interceptor = {
  name: 'prepared-statements',
  transformQuery(_context, query) {
    if (query.name) return query;
    let name = statementNames.get(query.sql);
    if (!name) {
      name = `hg_${createHash('sha1').update(query.sql).digest('hex').slice(0, 20)}`;
      // Bounded: texts built at runtime beyond the templates (never expected) do not grow it.
      if (statementNames.size < 5000) statementNames.set(query.sql, name);
    }
    return { ...query, name };
  },
};

// Timestamps leave the database as ISO 8601 strings with an offset ("…Z"), which is what the
// API returns; bigint counters as numbers (they stay far below 2^53).
const typeParsers = [
  { name: 'timestamptz', parse: (v: string) => new Date(v).toISOString() },
  { name: 'timestamp', parse: (v: string) => new Date(`${v}Z`).toISOString() },
  { name: 'int8', parse: (v: string) => Number(v) },
  { name: 'numeric', parse: (v: string) => Number(v) },
];

// slonik re-emits every query error as an 'error' event on the pool or transaction before
// throwing it; with no listener Node turns that emit into an "Unhandled error" that replaces the
// real one (a unique violation would surface as a generic Error). The thrown error is what we
// handle, so the events only need a listener.
const ignore = () => undefined;
type Emitting = { on?: (event: string, fn: () => void) => unknown; listenerCount?: (event: string) => number };
function quiet<T>(target: T): T {
  const e = target as Emitting;
  if (typeof e.on === 'function' && e.listenerCount?.('error') === 0) e.on('error', ignore);
  return target;
}
function guardTransactions<T extends { transaction: (...args: never[]) => unknown }>(target: T): T {
  const original = target.transaction.bind(target) as (handler: (tx: never) => unknown, retries?: number) => unknown;
  (target as { transaction: unknown }).transaction = (handler: (tx: never) => unknown, retries?: number) =>
    original((tx) => handler(guardTransactions(quiet(tx as never) as never) as never), retries);
  return target;
}

/**
 * A Postgres call that ran out of its client-side time: the pool had no free connection within
 * `acquireTimeoutMs`, or a statement got no answer within `queryTimeoutMs` (Postgres frozen,
 * the network path black-holed). Callers answer "unavailable, retry" (the API: 503 + Retry-After).
 */
export class DatabaseTimeoutError extends Error {
  readonly phase: 'acquire' | 'query';
  constructor(phase: 'acquire' | 'query', ms: number) {
    super(phase === 'acquire' ? `no database connection became free within ${ms} ms` : `the database did not answer within ${ms} ms`);
    this.name = 'DatabaseTimeoutError';
    this.phase = phase;
  }
}

export interface DbLimits {
  maximumPoolSize?: number;
  /** Server-side statement_timeout; the client gives up QUERY_GRACE_MS later (see boundedDriver). */
  statementTimeoutMs?: number;
  /** TCP connect + startup + authentication of a new connection. */
  connectTimeoutMs?: number;
  /** Postgres ends a session that sits idle inside a transaction this long (a stuck caller). */
  idleInTransactionTimeoutMs?: number;
  /** How long a call may wait for a free pool connection; unset: DEFAULT_ACQUIRE_TIMEOUT_MS (30 s). */
  acquireTimeoutMs?: number;
}

/**
 * Past the server's statement_timeout, the client waits this much longer before it decides the
 * server itself is gone. A live server cancels the statement first (a clean error, connection
 * kept); only a frozen or unreachable one lets the client-side timer fire.
 */
export const QUERY_GRACE_MS = 1000;

/**
 * slonik's pg driver with a client-side deadline on every statement. statement_timeout is
 * enforced by the server, so a server that is frozen (SIGSTOP, a paused VM) or a black-holed
 * path never answers it: the client gives up on its own and discards the connection (slonik then
 * opens a fresh one for the next caller). Destroying does not wait for the stuck socket to close
 * — it may stay half-open until the server wakes — so the caller gets its error at once.
 */
function boundedDriver(queryTimeoutMs: number): DriverFactory {
  const base = createPgDriverFactory();
  return async (args) => {
    const driver = await base(args);
    return {
      ...driver,
      async createClient() {
        const client = await driver.createClient();
        let timedOut = false;
        const destroy = client.destroy;
        return {
          ...client,
          query: (text, values, options) => rejectAfter(client.query(text, values, options), queryTimeoutMs, () => {
            timedOut = true;
            destroy().catch(ignore);
            return new DatabaseTimeoutError('query', queryTimeoutMs);
          }),
          destroy: () => (timedOut ? Promise.resolve() : destroy()),
        };
      },
    };
  };
}

/**
 * A bounded wait for a pool slot in front of slonik (whose own queue waits forever). The
 * semaphore has as many permits as the pool has connections, so slonik never queues: a call
 * either gets a permit within the limit and runs, or fails before anything was sent to Postgres
 * (no write can happen after its caller was told it failed).
 */
function boundedAcquisition(pool: DatabasePool, permits: number, timeoutMs: number): DatabasePool {
  let free = permits;
  const waiting: Array<(granted: boolean) => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next(true); else free++;
  };
  const acquire = (): Promise<void> => {
    if (free > 0) { free--; return Promise.resolve(); }
    return new Promise<void>((resolve, reject) => {
      const grant = (granted: boolean) => { clearTimeout(timer); if (granted) resolve(); };
      const timer = setTimeout(() => {
        const i = waiting.indexOf(grant);
        if (i >= 0) waiting.splice(i, 1);
        reject(new DatabaseTimeoutError('acquire', timeoutMs));
      }, timeoutMs);
      waiting.push(grant);
    });
  };
  const gated = new Set(['any', 'anyFirst', 'exists', 'many', 'manyFirst', 'maybeOne', 'maybeOneFirst', 'one', 'oneFirst', 'query', 'transaction', 'connect']);
  return new Proxy(pool, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver) as unknown;
      if (typeof property !== 'string' || !gated.has(property) || typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        await acquire();
        try {
          return await (value as (...a: unknown[]) => Promise<unknown>).apply(target, args);
        } finally {
          release();
        }
      };
    },
  });
}

/** Defaults for processes that pass no limits (worker, edge, CLI): generous, but never unbounded. */
const DEFAULT_STATEMENT_TIMEOUT_MS = 30_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 10_000;
const DEFAULT_IDLE_IN_TRANSACTION_MS = 60_000;
/**
 * Waiting for a pooled connection: slonik queues without a limit, so a process whose connections
 * are all stuck (Postgres frozen) or busy (a flood of port-80 challenge lookups) would pile up
 * waiters for ever. Past it the caller gets DatabaseTimeoutError('acquire') and retries.
 */
const DEFAULT_ACQUIRE_TIMEOUT_MS = 30_000;

export async function createDb(databaseUrl: string, options: DbLimits = {}): Promise<Db> {
  const statementTimeout = options.statementTimeoutMs ?? DEFAULT_STATEMENT_TIMEOUT_MS;
  const maximumPoolSize = options.maximumPoolSize ?? 10;
  const pool = await createPool(databaseUrl, {
    driverFactory: boundedDriver(statementTimeout + QUERY_GRACE_MS),
    interceptors: [preparedStatements, resultParser],
    typeParsers,
    maximumPoolSize,
    statementTimeout,
    connectionTimeout: options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS,
    idleInTransactionSessionTimeout: options.idleInTransactionTimeoutMs ?? DEFAULT_IDLE_IN_TRANSACTION_MS,
    // slonik's default runs DISCARD ALL whenever a connection goes back to the pool: a second
    // round trip for every query. Nothing here leaves session state behind (no SET, no temporary
    // tables, no session advisory locks outside migrate's own connection, LISTEN on its own
    // client), so there is nothing to reset. Measured in bench:lifecycle: 3,860 DISCARD ALL for
    // 100 verified domains, more statements than the work itself.
    resetConnection: async () => undefined,
    // Opening a backend costs Postgres a fork; keep idle connections longer than slonik's 5 s so
    // a worker between bursts does not reconnect for every one.
    idleTimeout: 60_000,
  });
  const guarded = guardTransactions(quiet(pool));
  return boundedAcquisition(guarded, maximumPoolSize, options.acquireTimeoutMs ?? DEFAULT_ACQUIRE_TIMEOUT_MS);
}
