// The last DNS check's outcome, kept in `domains.verification` (jsonb) and shown on reads as
// `verification` (see api/presenters/domain.ts, which reads checked_at, found and problem).
import type { DnsRecord } from '../../model/dns-records.ts';
import { Type } from 'typebox';
import { domainStatuses, type DomainStatus } from '../../model/domain-status.ts';
import { NoRows, row, sql, type Db } from '../pool.ts';
import { appendEvent } from './events.ts';
import type { Problem } from '../../model/problem.ts';

const BrokenRow = row(Type.Object({
  organization_id: Type.String(), hostname: Type.String(), status: Type.String(), destination_id: Type.String(),
  external_customer_id: Type.Union([Type.String(), Type.Null()]), metadata: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]), dns_broken: Type.Boolean(),
}));
const StateRow = row(Type.Object({ status: Type.Unsafe<DomainStatus>(Type.Union(domainStatuses.map((s) => Type.Literal(s)))), status_seq: Type.Number() }));

export interface StoredVerification {
  checked_at: string;
  expected: DnsRecord[];
  found: DnsRecord[];
  problem: Problem | null;
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

    /**
     * Sets `verification.dns_broken`; the first time it becomes true a `hostname.dns_broken` event
     * is appended in the same transaction. Returns whether the flag changed, null when the domain
     * does not exist.
     */
    async setDnsBroken(domainId: string, broken: boolean): Promise<boolean | null> {
      return db.transaction(async (tx) => {
        const current = await tx.maybeOne(sql.type(BrokenRow)`
          select organization_id, hostname, status, destination_id, external_customer_id, metadata, coalesce((verification->>'dns_broken')::boolean, false) as dns_broken
          from domains where id = ${domainId} for update`);
        if (!current) return null;
        if (current.dns_broken === broken) return false;
        await tx.query(sql.type(NoRows)`update domains set verification = coalesce(verification, '{}'::jsonb) || jsonb_build_object('dns_broken', ${broken}::boolean), updated_at = hg_now() where id = ${domainId}`);
        if (broken) {
          await appendEvent(tx, current.organization_id, 'hostname.dns_broken', {
            id: domainId, hostname: current.hostname, status: current.status, destination_id: current.destination_id, external_customer_id: current.external_customer_id, metadata: current.metadata,
          });
        }
        return true;
      });
    },
  };
}
