import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import { newId } from '../ids.ts';
import { afterCursor, toPage, type Page } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';

export const DestinationRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  url: Type.String(),
  host: Type.String(),
  port: Type.Number(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type DestinationRow = Static<typeof DestinationRow>;
const Destination = row(DestinationRow);
const columns = sql.fragment`id, organization_id, url, host, port, created_at, updated_at`;

export type DeleteResult = 'deleted' | 'not_found' | 'in_use';

export function destinationsRepository(db: Db) {
  return {
    /** `conn`: the caller's transaction, so the idempotent answer commits with the row (api/plugins/idempotency.ts). */
    async create(input: { organizationId: string; url: string; host: string; port: number }, conn: Pick<DatabaseTransactionConnection, 'one'> = db): Promise<DestinationRow> {
      return conn.one(sql.type(Destination)`
        insert into destinations (id, organization_id, url, host, port)
        values (${newId('destination')}, ${input.organizationId}, ${input.url}, ${input.host}, ${input.port})
        returning ${columns}`);
    },
    async get(organizationId: string, id: string): Promise<DestinationRow | null> {
      return db.maybeOne(sql.type(Destination)`select ${columns} from destinations where id = ${id} and organization_id = ${organizationId} and deleted_at is null`);
    },
    /**
     * Locks a live destination for the rest of the caller's transaction (FOR SHARE), so a
     * concurrent delete cannot remove it while a domain is being attached to it.
     */
    async lockLive(tx: DatabaseTransactionConnection, organizationId: string, id: string): Promise<DestinationRow | null> {
      return tx.maybeOne(sql.type(Destination)`select ${columns} from destinations where id = ${id} and organization_id = ${organizationId} and deleted_at is null for share`);
    },
    async onlyOne(organizationId: string): Promise<DestinationRow | null> {
      const rows = await db.any(sql.type(Destination)`select ${columns} from destinations where organization_id = ${organizationId} and deleted_at is null limit 2`);
      return rows.length === 1 ? rows[0]! : null;
    },
    async list<U>(organizationId: string, page: { limit: number; cursor?: string | undefined }, map: (d: DestinationRow) => U): Promise<Page<U>> {
      const rows = await db.any(sql.type(Destination)`
        select ${columns} from destinations where organization_id = ${organizationId} and deleted_at is null and ${afterCursor(page.cursor)}
        order by created_at desc, id desc limit ${page.limit + 1}`);
      return toPage(rows, page.limit, map);
    },
    /**
     * A new URL (PATCH /v1/destinations/{id}) in the caller's transaction. Its domains' updated_at
     * moves too, so an edge that missed the change notification (migration 013's trigger) finds
     * them on its next poll. Null when the destination is not the organization's or is deleted.
     */
    async update(organizationId: string, id: string, input: { url: string; host: string; port: number }, tx: DatabaseTransactionConnection): Promise<DestinationRow | null> {
      const updated = await tx.maybeOne(sql.type(Destination)`
        update destinations set url = ${input.url}, host = ${input.host}, port = ${input.port}, updated_at = hg_now()
        where id = ${id} and organization_id = ${organizationId} and deleted_at is null returning ${columns}`);
      if (updated) await tx.query(sql.unsafe`update domains set updated_at = hg_now() where destination_id = ${id} and status <> 'deleted'`);
      return updated;
    },
    /** Soft delete; refused while a non-deleted domain points at it. */
    async delete(organizationId: string, id: string, q: CommonQueryMethods = db): Promise<{ result: DeleteResult; destination: DestinationRow | null }> {
      return q.transaction(async (tx) => {
        const destination = await tx.maybeOne(sql.type(Destination)`select ${columns} from destinations where id = ${id} and organization_id = ${organizationId} and deleted_at is null for update`);
        if (!destination) return { result: 'not_found', destination: null };
        const inUse = await tx.exists(sql.unsafe`select 1 from domains where destination_id = ${id} and status <> 'deleted'`);
        if (inUse) return { result: 'in_use', destination };
        const deleted = await tx.one(sql.type(Destination)`update destinations set deleted_at = hg_now(), updated_at = hg_now() where id = ${id} returning ${columns}`);
        return { result: 'deleted', destination: deleted };
      });
    },
  };
}
