// Domain state activities: every lifecycle move of the workflow lands here, in Postgres, with the
// row's sequence number as a guard. Dependencies are injected; activities throw on failure and
// the workflow's retry policy decides what happens next.
import { ApplicationFailure } from '@temporalio/common';
import type { Db } from '../db/pool.ts';
import { certificatesRepository } from '../db/repositories/certificates.ts';
import { domainVerificationRepository } from '../db/repositories/domain-verification.ts';
import { domainsRepository, type DomainRow } from '../db/repositories/domains.ts';
import type { DomainStatus } from '../model/domain-status.ts';
import type { Logger } from '../logging/logger.ts';
import type { DomainState } from '../workflows/domain/config.ts';

export interface DomainActivityDeps { db: Db; logger: Logger }

// The workflow's contract owns DomainState; re-exported for the activity modules that use it.
export type { DomainState };
export interface Problem { code: string; message: string }

const missing = (domainId: string) => ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
const state = (d: DomainRow): DomainState => ({ status: d.status, seq: d.status_seq });

export function createDomainActivities({ db, logger }: DomainActivityDeps) {
  const domains = domainsRepository(db);
  const verifications = domainVerificationRepository(db);
  const certificates = certificatesRepository(db);
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
      const changed = await verifications.setDnsBroken(domainId, broken);
      if (changed === null) throw missing(domainId);
      return changed;
    },

    /** The newest live certificate (an active domain whose workflow lost its carried state). */
    async latestCertificate({ domainId }: { domainId: string }): Promise<{ id: string; notBefore: number; notAfter: number } | null> {
      const cert = await certificates.latestLive(domainId);
      return cert ? { id: cert.id, notBefore: Date.parse(cert.not_before), notAfter: Date.parse(cert.not_after) } : null;
    },

    /** Removes challenge tokens and certificate material, then marks the domain deleted. */
    async finishDeletion({ domainId }: { domainId: string }): Promise<DomainState> {
      await certificates.removeDomainMaterial(domainId);
      const result = await domains.transition(domainId, 'deleted', 'deleted by request');
      if (!result.domain) throw missing(domainId);
      return state(result.domain);
    },
  };
}
