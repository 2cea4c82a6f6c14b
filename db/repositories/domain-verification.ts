// The last DNS check's outcome, kept in `domains.verification` (jsonb) and shown on reads as
// `verification` (see api/presenters/domain.ts, which reads checked_at, found and problem).
import type { DnsRecord } from '../../model/dns-records.ts';
import { Type } from 'typebox';
import { domainStatuses, type DomainStatus } from '../../model/domain-status.ts';
import { row, sql, type Db } from '../pool.ts';

const StateRow = row(Type.Object({ status: Type.Unsafe<DomainStatus>(Type.Union(domainStatuses.map((s) => Type.Literal(s)))), status_seq: Type.Number() }));

export interface StoredVerification {
  checked_at: string;
  expected: DnsRecord[];
  found: DnsRecord[];
  problem: { code: string; message: string } | null;
}

export function domainVerificationRepository(db: Db) {
  return {
    /**
     * `save`, returning where the domain stands (status and sequence number) when the result was
     * written, null when a newer check was stored already, 'gone' when the domain is deleted.
     */
    async saveReturningState(domainId: string, verification: StoredVerification): Promise<{ status: DomainStatus; status_seq: number } | null | 'gone'> {
      const row = await db.maybeOne(sql.type(StateRow)`
        update domains set verification = coalesce(verification, '{}'::jsonb) || ${sql.jsonb(verification)}
        where id = ${domainId} and status <> 'deleted'
          and (verification->>'checked_at' is null or (verification->>'checked_at')::timestamptz <= ${verification.checked_at}::timestamptz)
        returning status, status_seq`);
      if (row) return row;
      return await db.exists(sql.unsafe`select 1 from domains where id = ${domainId} and status <> 'deleted'`) ? null : 'gone';
    },

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
