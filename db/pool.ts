// The slonik pool every process uses. Rows are validated against the TypeBox schema given to
// `sql.type(...)`, so schema drift fails loudly at the query instead of leaking odd shapes.
import { createHash } from 'node:crypto';
import { createPool, SchemaValidationError, sql as slonikSql, type DatabasePool, type Interceptor, type QueryResultRow } from 'slonik';
import type { StandardSchemaV1 } from '@standard-schema/spec';
import { Type, type Static, type TSchema } from 'typebox';
import { Compile } from 'typebox/compile';

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

export async function createDb(databaseUrl: string, options: { maximumPoolSize?: number } = {}): Promise<Db> {
  const pool = await createPool(databaseUrl, {
    interceptors: [preparedStatements, resultParser],
    typeParsers,
    maximumPoolSize: options.maximumPoolSize ?? 10,
    statementTimeout: 30_000,
    connectionTimeout: 10_000,
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
  return guardTransactions(quiet(pool));
}
