// Domain state activities: every lifecycle move of the workflow lands here, in Postgres, with the
// row's sequence number as a guard. Dependencies are injected; activities throw on failure and
// the workflow's retry policy decides what happens next.
import { ApplicationFailure } from '@temporalio/common';
import { domainsRepository, type DomainRow } from '../db/repositories/domains.ts';
import { appendEvent } from '../db/repositories/events.ts';
import { row, sql, type Db } from '../db/pool.ts';
import type { DomainStatus } from '../model/domain-status.ts';
import type { Logger } from '../logging/logger.ts';
import type { DomainState } from '../workflows/domain/config.ts';
import { Type } from 'typebox';

export interface DomainActivityDeps { db: Db; logger: Logger }

// The workflow's contract owns DomainState; re-exported for the activity modules that use it.
export type { DomainState };
export interface Problem { code: string; message: string }

const missing = (domainId: string) => ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
const state = (d: DomainRow): DomainState => ({ status: d.status, seq: d.status_seq });

export function createDomainActivities({ db, logger }: DomainActivityDeps) {
  const domains = domainsRepository(db);
  return {
    /** Marks the row as having its workflow; returns where the domain stands. */
    async attachWorkflow({ domainId }: { domainId: string }): Promise<DomainState> {
      await domains.markWorkflowStarted(domainId);
      const domain = await domains.getById(domainId);
      // Permanent: a workflow for a row that does not exist can never make progress.
      if (!domain) throw missing(domainId);
      return state(domain);
    },

    /**
     * Moves the domain if the row is still at `expectedSeq`; idempotent on retries (a retry after
     * a committed move finds the row already there) and never moves a domain backwards.
     */
    async transition({ domainId, to, reason, expectedSeq, problem }: { domainId: string; to: DomainStatus; reason: string; expectedSeq?: number; problem?: Problem | null }): Promise<DomainState & { changed: boolean }> {
      const result = await domains.transition(domainId, to, reason, { ...(expectedSeq === undefined ? {} : { expectedSeq }), ...(problem === undefined ? {} : { problem }) });
      if (!result.domain) throw missing(domainId);
      if (!result.changed && result.reason !== 'already') logger.info({ domainId, at: result.domain.status, to, reason: result.reason }, 'transition not applied');
      return { ...state(result.domain), changed: result.changed };
    },

    /** Shows what blocks progress (e.g. the CA refused) in `verification.problem`. */
    async recordProblem({ domainId, problem }: { domainId: string; problem: Problem | null }): Promise<void> {
      await domains.setProblem(domainId, problem);
    },

    /**
     * An active domain whose DNS stopped pointing at us keeps serving; it is flagged, and the
     * first time it breaks a `hostname.dns_broken` event goes out. Returns whether the flag changed.
     */
    async setDnsBroken({ domainId, broken }: { domainId: string; broken: boolean }): Promise<boolean> {
      return db.transaction(async (tx) => {
        const current = await tx.maybeOne(sql.type(row(Type.Object({ organization_id: Type.String(), hostname: Type.String(), status: Type.String(), destination_id: Type.String(), external_customer_id: Type.Union([Type.String(), Type.Null()]), dns_broken: Type.Boolean() })))`
          select organization_id, hostname, status, destination_id, external_customer_id, coalesce((verification->>'dns_broken')::boolean, false) as dns_broken
          from domains where id = ${domainId} for update`);
        if (!current) throw missing(domainId);
        if (current.dns_broken === broken) return false;
        await tx.query(sql.unsafe`update domains set verification = coalesce(verification, '{}'::jsonb) || jsonb_build_object('dns_broken', ${broken}::boolean), updated_at = hg_now() where id = ${domainId}`);
        if (broken) {
          await appendEvent(tx, current.organization_id, 'hostname.dns_broken', {
            id: domainId, hostname: current.hostname, status: current.status, destination_id: current.destination_id, external_customer_id: current.external_customer_id,
          });
        }
        return true;
      });
    },

    /** The newest live certificate (an active domain whose workflow lost its carried state). */
    async latestCertificate({ domainId }: { domainId: string }): Promise<{ id: string; notBefore: number; notAfter: number } | null> {
      const cert = await db.maybeOne(sql.type(row(Type.Object({ id: Type.String(), not_before: Type.String(), not_after: Type.String() })))`
        select id, not_before, not_after from certificates where domain_id = ${domainId} and deleted_at is null order by not_after desc limit 1`);
      return cert ? { id: cert.id, notBefore: Date.parse(cert.not_before), notAfter: Date.parse(cert.not_after) } : null;
    },

    /** Removes challenge tokens and certificate material, then marks the domain deleted. */
    async finishDeletion({ domainId }: { domainId: string }): Promise<DomainState> {
      await db.transaction(async (tx) => {
        await tx.query(sql.unsafe`delete from acme_challenges where domain_id = ${domainId}`);
        await tx.query(sql.unsafe`update acme_orders set private_key_enc = null, key_id = null, status = 'abandoned'
          where domain_id = ${domainId} and status not in ('completed', 'invalid', 'abandoned')`);
        await tx.query(sql.unsafe`update certificates set private_key_enc = null, deleted_at = coalesce(deleted_at, hg_now()) where domain_id = ${domainId}`);
      });
      const result = await domains.transition(domainId, 'deleted', 'deleted by request');
      if (!result.domain) throw missing(domainId);
      return state(result.domain);
    },
  };
}
