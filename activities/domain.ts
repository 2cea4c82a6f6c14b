// Domain activities. Dependencies are injected so the worker builds them once and tests can pass
// their own database. Activities throw on failure; the workflow's retry policy decides what next.
import { ApplicationFailure } from '@temporalio/common';
import { domainsRepository } from '../db/repositories/domains.ts';
import { sql, type Db } from '../db/pool.ts';
import type { DomainStatus } from '../model/domain-status.ts';
import type { Logger } from '../logging/logger.ts';

export interface DomainActivityDeps { db: Db; logger: Logger }

export function createDomainActivities({ db, logger }: DomainActivityDeps) {
  const domains = domainsRepository(db);
  return {
    /** Marks the row as having its workflow; returns the current status. */
    async attachWorkflow({ domainId }: { domainId: string }): Promise<DomainStatus> {
      await domains.markWorkflowStarted(domainId);
      const domain = await domains.getById(domainId);
      // Permanent: a workflow for a row that does not exist can never make progress.
      if (!domain) throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
      return domain.status;
    },

    /** Moves the domain when the lifecycle allows it; idempotent on retries. */
    async transition({ domainId, to, reason }: { domainId: string; to: DomainStatus; reason: string }): Promise<DomainStatus> {
      const result = await domains.transition(domainId, to, reason);
      if (!result.domain) throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
      if (!result.changed && result.reason === 'not_allowed') logger.warn({ domainId, from: result.domain.status, to }, 'transition not allowed; ignored');
      return result.domain.status;
    },

    /** Removes challenge tokens and certificate material, then marks the domain deleted. */
    async finishDeletion({ domainId }: { domainId: string }): Promise<DomainStatus> {
      await db.transaction(async (tx) => {
        await tx.query(sql.unsafe`delete from acme_challenges where domain_id = ${domainId}`);
        await tx.query(sql.unsafe`update certificates set private_key_enc = null, deleted_at = coalesce(deleted_at, hg_now()) where domain_id = ${domainId}`);
      });
      const result = await domains.transition(domainId, 'deleted', 'deleted by request');
      if (!result.domain) throw ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
      return result.domain.status;
    },
  };
}
