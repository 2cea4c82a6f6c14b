// Keyset pagination on (created_at, id), newest first. A page costs one index range scan at any
// depth: the cursor is the last row's (created_at, id), never an offset.
import { idPrefixes, type IdKind } from './ids.ts';
import { sql } from './pool.ts';

export interface PageRequest { limit: number; cursor?: string | undefined }
export interface Page<T> { data: T[]; has_more: boolean; next_cursor: string | null }

export class InvalidCursorError extends Error {
  constructor(message = 'cursor is not valid: pass the next_cursor value of a previous page unchanged') {
    super(message);
  }
}

export function encodeCursor(createdAt: string, id: string): string {
  return Buffer.from(JSON.stringify([createdAt, id])).toString('base64url');
}

export function decodeCursor(cursor: string): { createdAt: string; id: string } {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && typeof value[0] === 'string' && typeof value[1] === 'string'
      && /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/.test(value[0]) && !Number.isNaN(Date.parse(value[0]))
      && /^[a-z]{2,4}_[0-9a-z]{1,60}$/.test(value[1])) {
      return { createdAt: value[0], id: value[1] };
    }
  } catch { /* fall through */ }
  throw new InvalidCursorError();
}

/**
 * Refuses a cursor made by another collection: its position is an id of that collection, and
 * applied here it would silently start the page at an unrelated place (issue 14). A cursor
 * carries the id of the last row of its page, so the id's type prefix says where it came from.
 */
export function requireCursorOf(cursor: string | undefined, kind: IdKind): void {
  if (cursor === undefined) return;
  if (!decodeCursor(cursor).id.startsWith(`${idPrefixes[kind]}_`)) throw new InvalidCursorError('this cursor belongs to another list: pass the next_cursor of a page of this same list');
}

/** The WHERE fragment that starts a page after the cursor (true when there is none). */
export function afterCursor(cursor: string | undefined, table?: string) {
  if (!cursor) return sql.fragment`true`;
  const { createdAt, id } = decodeCursor(cursor);
  const c = table ? sql.identifier([table, 'created_at']) : sql.identifier(['created_at']);
  const i = table ? sql.identifier([table, 'id']) : sql.identifier(['id']);
  return sql.fragment`(${c}, ${i}) < (${createdAt}::timestamptz, ${id})`;
}

/** Rows were fetched with `limit + 1`; trims the probe row and builds the page metadata. */
export function toPage<T extends { created_at: string; id: string }, U>(rows: readonly T[], limit: number, map: (row: T) => U): Page<U> {
  return pageOfRows(rows, limit, map, (last) => encodeCursor(last.created_at, last.id));
}

/**
 * A page out of `limit + 1` rows fetched (the extra one only says there is more), its cursor made
 * from its last row by `cursorOf`: for lists keyed on something else than (created_at, id).
 */
export function pageOfRows<T, U>(rows: readonly T[], limit: number, map: (row: T) => U, cursorOf: (last: T) => string): Page<U> {
  const hasMore = rows.length > limit;
  const pageRows = hasMore ? rows.slice(0, limit) : rows;
  const last = pageRows.at(-1);
  return {
    data: pageRows.map(map),
    has_more: hasMore,
    next_cursor: hasMore && last !== undefined ? cursorOf(last) : null,
  };
}
