// The HTTP-01 key authorizations the certificate activities store, as the edge's plain-HTTP
// listener reads them (one lookup per CA validation request).
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';

const KeyAuthorization = row(Type.Object({ key_authorization: Type.String() }));

export function acmeChallengesRepository(db: Db) {
  return {
    /** The key authorization stored for a challenge token; null when there is none. */
    async keyAuthorization(token: string): Promise<string | null> {
      return db.maybeOneFirst(sql.type(KeyAuthorization)`select key_authorization from acme_challenges where token = ${token}`);
    },
  };
}
