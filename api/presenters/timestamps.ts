// One timestamp format on every read: RFC 3339, UTC, milliseconds, `Z` (`2026-11-26T15:04:27.666Z`).
// Columns already leave the database so (db/pool.ts); timestamps kept inside JSON documents (a
// domain's verification and tracks) were written by Postgres's own JSON rendering
// (`2026-11-26T15:15:40.59+00:00`) or by older code, and are rewritten here.

// Most values are already in the format (every column is): returned as they are. Parsing and
// re-rendering each one cost 1.8 s of 58 s of the API's CPU in bench:api's read phases (--cpu-prof).
const CANONICAL = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** `value` as RFC 3339 UTC with milliseconds; a value that is not a time is a bug, said loudly. */
export function timestamp(value: string): string {
  if (CANONICAL.test(value)) return value;
  const ms = Date.parse(value);
  if (Number.isNaN(ms)) throw new Error(`not a timestamp: ${JSON.stringify(value)}`);
  return new Date(ms).toISOString();
}

export function timestampOrNull(value: string | null | undefined): string | null {
  return value === null || value === undefined ? null : timestamp(value);
}
