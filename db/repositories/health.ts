// The readiness probe's question to Postgres (api/routes/health.ts, `/readyz`): one round trip
// that needs a pooled connection and a backend that answers. It reads no table, so a probe stays
// cheap however large the database grows; the route bounds how long it waits.
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

export function healthRepository(db: Db) {
  return {
    /** Resolves once Postgres has answered; rejects with the driver's error when it cannot. */
    async ping(): Promise<void> {
      await db.oneFirst(sql.type(row(Type.Object({ ok: Type.Literal(1) })))`select 1 as ok`);
    },
  };
}
