// The two tracks of a zero-downtime move (migration 010, docs/zero-downtime-moves.md) — ownership
// and certificate, stored beside the hostname's status — and the certificate attempts the abuse
// limits count.
import { Type } from 'typebox';
import { NoRows, row, sql, type Db } from '../pool.ts';
import type { Problem } from '../../model/problem.ts';

export type OwnershipStatus = 'pending' | 'verified';
export type CertificateTrackStatus = 'pending_validation' | 'issued' | 'deployed';

export interface OwnershipTrack {
  status: OwnershipStatus;
  checked_at: string | null;
  verified_at: string | null;
  /** The TXT values found at `_hostgate.<hostname>` by the last check. */
  found: string[] | null;
  problem: Problem | null;
}

export interface CertificateTrack {
  status: CertificateTrackStatus;
  method: 'dns-01' | 'http-01';
  certificate_id: string | null;
  updated_at: string;
  problem: Problem | null;
}

const StatusRow = row(Type.Object({ status: Type.String() }));
const IdRow = row(Type.Object({ id: Type.Number() }));
const CountsRow = row(Type.Object({
  pending_validations: Type.Number(), orders_3h: Type.Number(), certs_week: Type.Number(), failed_hour: Type.Number(),
}));

export interface AttemptCounts {
  /** Other domains of the organization in pre-validation now (not held back by a limit). */
  pendingValidations: number;
  /** Certificate orders of the organization in the last 3 hours. */
  orders3h: number;
  /** Certificates issued to the organization for this registered domain in the last 7 days. */
  certsWeek: number;
  /** Validations of this hostname the CA refused in the last hour. */
  failedHour: number;
}

/**
 * Days a certificate attempt is kept: the longest window an abuse limit counts over (a week, for
 * certificates per registered domain) and a day's margin. Retention deletes older ones.
 */
export const CERTIFICATE_ATTEMPTS_KEPT_DAYS = 8;

export function domainMovesRepository(db: Db) {
  return {
    async setOwnership(domainId: string, track: OwnershipTrack): Promise<void> {
      await db.query(sql.type(NoRows)`update domains set ownership = ${sql.jsonb(track as never)}, updated_at = hg_now()
        where id = ${domainId} and ownership is distinct from ${sql.jsonb(track as never)}`);
    },

    async setCertificateTrack(domainId: string, track: CertificateTrack): Promise<void> {
      await db.query(sql.type(NoRows)`update domains set certificate_track = ${sql.jsonb(track as never)}, updated_at = hg_now() where id = ${domainId}`);
    },

    /**
     * The certificate track after a DNS-01 issuance: `issued`, or `deployed` at once when an edge
     * already reported serving it (the edge may be faster than this write: edge.ts sets
     * `deployed` on the track of a certificate it deploys).
     *
     * Two statements, not one: the row is locked first, and the edge's record is read after, in a
     * statement of its own. An edge's `recordDeployments` locks the same row before it looks at
     * the track, so one of the two always sees the other's commit. In one statement the look at
     * `edge_deployments` used the snapshot from before the lock wait, and an edge's record
     * committed meanwhile was missed by both: the track said `issued` until the edge's next whole
     * report (docs/zero-downtime-moves.md).
     */
    async markIssued(domainId: string, certificateId: string): Promise<'issued' | 'deployed'> {
      return db.transaction(async (tx) => {
        await tx.query(sql.type(NoRows)`select from domains where id = ${domainId} for no key update`);
        return tx.oneFirst(sql.type(StatusRow)`
          update domains set updated_at = hg_now(), certificate_track = jsonb_build_object(
            'status', case when exists (select 1 from edge_deployments where domain_id = ${domainId} and certificate_id = ${certificateId}) then 'deployed' else 'issued' end,
            'method', 'dns-01', 'certificate_id', ${certificateId}::text, 'updated_at', hg_now(), 'problem', null)
          where id = ${domainId} returning certificate_track->>'status' as status`) as Promise<'issued' | 'deployed'>;
      });
    },

    /** What the abuse limits count for one more order of this domain. */
    async counts(input: { organizationId: string; domainId: string; hostname: string; registeredDomain: string }): Promise<AttemptCounts> {
      const r = await db.one(sql.type(CountsRow)`
        select
          (select count(*) from domains where organization_id = ${input.organizationId} and id <> ${input.domainId}
             and status = 'pending_dns' and certificate_track->>'status' = 'pending_validation'
             and coalesce(certificate_track->'problem'->>'code', '') not like '%\_limit')::int as pending_validations,
          (select count(*) from certificate_attempts where organization_id = ${input.organizationId}
             and created_at > hg_now() - interval '3 hours')::int as orders_3h,
          (select count(*) from certificate_attempts where organization_id = ${input.organizationId}
             and registered_domain = ${input.registeredDomain} and outcome = 'issued' and created_at > hg_now() - interval '7 days')::int as certs_week,
          (select count(*) from certificate_attempts where hostname = ${input.hostname}
             and outcome = 'failed' and created_at > hg_now() - interval '1 hour')::int as failed_hour`);
      return { pendingValidations: r.pending_validations, orders3h: r.orders_3h, certsWeek: r.certs_week, failedHour: r.failed_hour };
    },

    async recordAttempt(input: { organizationId: string; domainId: string; hostname: string; registeredDomain: string; method: 'dns-01' | 'http-01' }): Promise<number> {
      return db.oneFirst(sql.type(IdRow)`
        insert into certificate_attempts (organization_id, domain_id, hostname, registered_domain, method)
        values (${input.organizationId}, ${input.domainId}, ${input.hostname}, ${input.registeredDomain}, ${input.method}) returning id`);
    },

    async finishAttempt(id: number, outcome: 'issued' | 'failed' | 'abandoned'): Promise<void> {
      await db.query(sql.type(NoRows)`update certificate_attempts set outcome = ${outcome}, updated_at = hg_now() where id = ${id}`);
    },
  };
}

export type DomainMovesRepository = ReturnType<typeof domainMovesRepository>;
