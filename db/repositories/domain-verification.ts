// The last DNS check's outcome, kept in `domains.verification` (jsonb) and shown on reads as
// `verification` (see api/presenters/domain.ts, which reads checked_at, found and problem).
import type { DnsRecord } from '../../model/dns-records.ts';
import { sql, type Db } from '../pool.ts';

export interface StoredVerification {
  checked_at: string;
  expected: DnsRecord[];
  found: DnsRecord[];
  problem: { code: string; message: string } | null;
}

export function domainVerificationRepository(db: Db) {
  return {
    /**
     * Stores the check result's keys (checked_at, expected, found, problem), keeping any other keys
     * other activities keep there (e.g. dns_broken); false when the domain does not exist or is
     * deleted. A result older than the stored one is not written, so a slow retry cannot overwrite
     * a newer check. `updated_at` is left alone: a periodic re-check is not a change to the domain.
     */
    async save(domainId: string, verification: StoredVerification): Promise<boolean> {
      const result = await db.query(sql.unsafe`
        update domains set verification = coalesce(verification, '{}'::jsonb) || ${sql.jsonb(verification)}
        where id = ${domainId} and status <> 'deleted'
          and (verification->>'checked_at' is null or (verification->>'checked_at')::timestamptz <= ${verification.checked_at}::timestamptz)`);
      if (result.rowCount > 0) return true;
      return db.exists(sql.unsafe`select 1 from domains where id = ${domainId} and status <> 'deleted'`);
    },
  };
}
