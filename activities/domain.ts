// Domain state activities: every lifecycle move of the workflow lands here, in Postgres, with the
// row's sequence number as a guard. Dependencies are injected; activities throw on failure and
// the workflow's retry policy decides what happens next.
import { ApplicationFailure } from '@temporalio/common';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { certificatesRepository } from '../db/repositories/certificates.ts';
import { domainVerificationRepository } from '../db/repositories/domain-verification.ts';
import { domainsRepository, type DomainRow } from '../db/repositories/domains.ts';
import { edgeRepository } from '../db/repositories/edge.ts';
import type { DomainTransitionName } from '../model/domain-status.ts';
import type { Logger } from '../logging/logger.ts';
import type { DomainState } from '../contracts/domain-workflow.ts';
import type { Problem } from '../model/problem.ts';
import { stillUsable } from '../model/certificate-lifetime.ts';

export interface DomainActivityDeps { db: Db; logger: Logger; config: Pick<Config, 'edgeDeployment' | 'edgeDeployOverdueSeconds'> }


/** What a domain waiting too long for an edge shows (docs/edge.md, "Active means served"). */
export const EDGE_NOT_DEPLOYED: Problem = {
  code: 'edge_not_deployed',
  message: 'The certificate is issued but no edge serves it yet. Check that the edge agent runs (`hostgate edge status`) and its log for this hostname.',
};

const missing = (domainId: string) => ApplicationFailure.nonRetryable(`domain ${domainId} does not exist`, 'DomainNotFound');
const state = (d: DomainRow): DomainState => ({ status: d.status, seq: d.status_seq });

export function createDomainActivities({ db, logger, config }: DomainActivityDeps) {
  const domains = domainsRepository(db);
  const verifications = domainVerificationRepository(db);
  const certificates = certificatesRepository(db);
  const edge = edgeRepository(db);
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
     * Makes the transition the workflow names (model/domain-status.ts) if the row is still at
     * `expectedSeq`; idempotent on retries (a retry after a committed move finds the row already
     * there) and never moves a domain backwards.
     */
    async transition({ domainId, transition, reason, expectedSeq, problem }: { domainId: string; transition: DomainTransitionName; reason: string; expectedSeq?: number; problem?: Problem | null }): Promise<DomainState & { changed: boolean }> {
      const result = await domains.transition(domainId, transition, reason, { ...(expectedSeq === undefined ? {} : { expectedSeq }), ...(problem === undefined ? {} : { problem }) });
      if (!result.domain) throw missing(domainId);
      if (!result.changed && result.reason !== 'already') logger.info({ domainId, at: result.domain.status, transition, reason: result.reason }, 'transition not applied');
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

    /**
     * The domain's stored certificate while more than a third of its life is left (issue 23): a
     * resumed domain, back in pending_certificate, is served with it instead of ordering another
     * one (an order spends the CA's rate limit; renewal orders at two thirds anyway).
     */
    async freshCertificate(domainId: string): Promise<{ certificateId: string; serial: string; notBefore: string; notAfter: string; custom?: boolean } | null> {
      const latest = await certificates.latestLive(domainId);
      // The customer's own certificate in place: served while valid, whatever its age (a custom
      // one taken out of place is not: a managed one is ordered).
      if (latest?.source === 'custom') {
        if (latest.withdrawn || Date.parse(latest.not_after) <= Date.now()) return null;
        const full = await certificates.byId(latest.id);
        return { certificateId: full.id, serial: full.serial, notBefore: full.not_before, notAfter: full.not_after, custom: true };
      }
      if (!latest || !stillUsable({ notBefore: Date.parse(latest.not_before), notAfter: Date.parse(latest.not_after) }, Date.now())) return null;
      const full = await certificates.byId(latest.id);
      return { certificateId: full.id, serial: full.serial, notBefore: full.not_before, notAfter: full.not_after };
    },

    /**
     * The current live certificate (an active domain whose workflow lost its carried state, or a
     * `certificate` signal): `custom` when it is the customer's own, in place; null when there is
     * none — or when the current one is a custom certificate taken out of place (a managed one
     * is to be ordered; it stays served until then).
     */
    async latestCertificate({ domainId }: { domainId: string }): Promise<{ id: string; notBefore: number; notAfter: number; custom?: boolean } | null> {
      const cert = await certificates.latestLive(domainId);
      if (!cert || cert.withdrawn) return null;
      return { id: cert.id, notBefore: Date.parse(cert.not_before), notAfter: Date.parse(cert.not_after), ...(cert.source === 'custom' ? { custom: true } : {}) };
    },

    /**
     * A domain whose certificate is stored but not yet served: moves it to `active` (clearing the
     * problem) once a live edge serves its newest certificate — or at once where no edge has to
     * (HOSTGATE_EDGE_DEPLOYMENT=skip). Guarded by the sequence number like every move. A
     * certificate stored longer ago than HOSTGATE_EDGE_DEPLOY_OVERDUE_SECONDS and still not
     * served is shown as the problem `edge_not_deployed`.
     */
    async activateIfDeployed({ domainId, expectedSeq }: { domainId: string; expectedSeq: number }): Promise<{ state: DomainState; deployed: boolean; overdue: boolean }> {
      const cert = await certificates.latestLive(domainId);
      const deployed = config.edgeDeployment === 'skip' || (cert !== null && await edge.isCertificateDeployed(cert.id));
      if (deployed) {
        const reason = config.edgeDeployment === 'skip' ? 'certificate issued' : 'certificate deployed at the edge';
        const result = await domains.transition(domainId, config.edgeDeployment === 'skip' ? 'certificate_issued' : 'certificate_deployed', reason, { expectedSeq, problem: null });
        if (!result.domain) throw missing(domainId);
        return { state: state(result.domain), deployed, overdue: false };
      }
      const domain = await domains.getById(domainId);
      if (!domain) throw missing(domainId);
      const overdue = cert !== null && cert.stored_seconds_ago >= config.edgeDeployOverdueSeconds;
      if (overdue && (domain.verification?.problem as Problem | null | undefined)?.code !== EDGE_NOT_DEPLOYED.code) await domains.setProblem(domainId, EDGE_NOT_DEPLOYED);
      return { state: state(domain), deployed, overdue };
    },

    /** Removes challenge tokens and certificate material, then marks the domain deleted. */
    async finishDeletion({ domainId }: { domainId: string }): Promise<DomainState> {
      await certificates.removeDomainMaterial(domainId);
      const result = await domains.transition(domainId, 'deletion_finished', 'deleted by request');
      if (!result.domain) throw missing(domainId);
      return state(result.domain);
    },
  };
}
