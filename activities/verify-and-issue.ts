// The fast path of the domain workflow as ONE local activity: the DNS check that moves the domain
// to `pending_certificate` when DNS is right, then — only if this call moved it — the issuance
// (order, HTTP-01, finalize + store, `active`). A verify burst then costs the workflow one step
// instead of two. Both halves are the same code as the separate activities, resumable from
// Postgres; an issuance that does not finish here (anything but a refusal) is reported, not
// thrown, so the workflow continues with the step-by-step activities.
import { ApplicationFailure } from '@temporalio/common';
import type { Logger } from '../logging/logger.ts';
import { CERTIFICATE_REFUSED, ISSUANCE_WAIT_BUDGET_MS, refusalProblem, refusalRetryAt } from '../model/certificate-issuance.ts';
import type { CertificateActivities, IssuedCertificate } from './certificates.ts';
import type { DnsCheckResult, VerifyDnsInput } from './dns-check.ts';
import type { createDnsCheckActivities } from './dns-check.ts';
import type { DomainState } from '../contracts/domain-workflow.ts';
import type { Problem } from '../model/problem.ts';

export interface VerifyAndIssueResult extends DnsCheckResult {
  state: DomainState;
  /** Present when this call moved the domain to `pending_certificate` and tried to issue. */
  issuance?: { ok: true; certificate: IssuedCertificate } | { ok: false; refused: Problem | null; message: string };
}

/** The workflow has the hostname; keep it out of the history. */
function withoutHostname<T extends { hostname: string }>(result: T): Omit<T, 'hostname'> {
  const { hostname: _hostname, ...rest } = result;
  return rest;
}

export function createVerifyAndIssueActivities(deps: {
  dns: ReturnType<typeof createDnsCheckActivities>;
  certificates: CertificateActivities;
  logger: Logger;
  /** A usable certificate obtained before DNS pointed at us (a zero-downtime move), if any. */
  preissued?: (domainId: string) => Promise<IssuedCertificate | null>;
  /** Moves a domain whose certificate an edge serves to `active` (activities/domain.ts). */
  activateIfDeployed?: (input: { domainId: string; expectedSeq: number }) => Promise<{ state: DomainState }>;
}) {
  const { dns, certificates, logger, preissued, activateIfDeployed } = deps;
  return {
    async verifyDnsAndIssue(input: VerifyDnsInput): Promise<VerifyAndIssueResult> {
      const { domainId, expectedSeq } = input;
      const checked = await dns.verifyDns(input);
      const movedHere = checked.ok && checked.state.status === 'pending_certificate' && checked.state.seq === expectedSeq + 1;
      if (!movedHere) return withoutHostname(checked);
      // A zero-downtime move: the certificate is already held (and usually served by the edge
      // already): no second order; active as soon as an edge serves it, which is now, typically.
      const held = preissued && activateIfDeployed ? await preissued(domainId) : null;
      if (held) {
        const activated = await activateIfDeployed!({ domainId, expectedSeq: checked.state.seq });
        return { ...withoutHostname(checked), state: activated.state, issuance: { ok: true, certificate: held } };
      }
      try {
        const certificate = await certificates.issueCertificate({ domainId, then: { transition: 'certificate_issued', expectedSeq: checked.state.seq }, waitBudgetMs: ISSUANCE_WAIT_BUDGET_MS, justMovedHostname: checked.hostname });
        return { ...withoutHostname(checked), state: certificate.state ?? checked.state, issuance: { ok: true, certificate } };
      } catch (error) {
        if (error instanceof ApplicationFailure && error.type === 'DomainNotFound') throw error;
        // A refusal that says when to come back (the shared CA budget, the per-domain brake) is a
        // wait, not a failure: reported as unfinished, so the workflow's step-by-step path meets
        // it again and waits it out (obtain-certificate.ts) instead of counting a refusal.
        if (error instanceof ApplicationFailure && error.type === CERTIFICATE_REFUSED && refusalRetryAt(error) === null) {
          return { ...withoutHostname(checked), issuance: { ok: false, refused: refusalProblem(error), message: error.message } };
        }
        logger.info({ domainId, err: (error as Error)?.message }, 'issuance left to the step-by-step activities');
        return { ...withoutHostname(checked), issuance: { ok: false, refused: null, message: (error as Error)?.message ?? String(error) } };
      }
    },
  };
}
