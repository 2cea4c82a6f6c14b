// Obtaining one certificate: one local attempt (order, HTTP-01, finalize + store), and when that
// does not finish for any reason but a refusal, the same steps as regular activities with
// heartbeats, retries and Retry-After, resuming from the order state in Postgres.
import { ActivityFailure, ApplicationFailure, isCancellation, log, TemporalFailure } from '@temporalio/workflow';
import type { DomainState } from '../../../contracts/domain-workflow.ts';
import type { Problem } from '../../../model/problem.ts';
import { CERTIFICATE_REFUSED, refusalProblem, refusalRetryAt } from '../../../model/certificate-issuance.ts';
import { acme, acmeLocal, acmeLocalOptions, acmeOptions, ISSUE_WAIT_BUDGET_MS, type AcmeActivities } from '../activity-proxies.ts';
import type { DomainWorkflowCarry } from '../../../contracts/domain-workflow.ts';
import type { DomainContext } from '../context.ts';

export type Issued = { ok: true; certificate: NonNullable<DomainWorkflowCarry['certificate']>; state?: DomainState | undefined; arrivedAt: number }
  /** `retryAt`: the refusal says when to try again (the per-domain brake). */
  | { ok: false; problem: Problem; retryAt: number | null };

/**
 * The ApplicationFailure an activity failed with: wrapped in an ActivityFailure for activities,
 * as is for local activities.
 */
function applicationCause(error: unknown): ApplicationFailure | null {
  if (error instanceof ActivityFailure) return error.cause instanceof ApplicationFailure ? error.cause : null;
  return error instanceof ApplicationFailure ? error : null;
}

/** Failures that mean "this attempt did not work out" rather than "the CA said no" or "stop". */
function worthRetryingDurably(error: unknown): boolean {
  if (!(error instanceof TemporalFailure) || isCancellation(error)) return false;
  const cause = applicationCause(error);
  return !(cause && (cause.type === 'CertificateRefused' || cause.type === 'DomainNotFound'));
}

/** Marks "go step by step" inside issue(); never leaves it. */
class StepByStep extends Error {
  constructor() { super('the one-attempt issuance did not finish; continuing step by step'); }
}

/**
 * ACME order → challenges → finalize; returns the certificate or the CA's refusal. Finalize also
 * records the outcome: a first certificate asks for the transition `certificate_issued` from
 * `expectedSeq` (made only where no edge has to serve it first), a renewal only clears the
 * earlier problem.
 */
export async function issue(ctx: DomainContext, expectedSeq?: number): Promise<Issued> {
  const { domainId, hostname } = ctx;
  try {
    const then = expectedSeq === undefined ? {} : { transition: 'certificate_issued' as const, expectedSeq };
    let cert: Awaited<ReturnType<AcmeActivities['finalizeCertificateOrder']>>;
    try {
      if (ctx.issueStepByStep) throw new StepByStep();
      cert = await acmeLocal.issueCertificate.executeWithOptions({ ...acmeLocalOptions, summary: `certificate for ${hostname}: ACME order, HTTP-01, finalize (one local attempt)` }, [{ domainId, then, waitBudgetMs: ISSUE_WAIT_BUDGET_MS }]);
    } catch (error) {
      if (!(error instanceof StepByStep) && !worthRetryingDurably(error)) throw error;
      ctx.issueStepByStep = false;
      log.info('issuance continues as durable activities', { error: (error as Error).message });
      ctx.details('obtaining a certificate (step by step, with retries)');
      ctx.flushIndex();
      const { orderUrl } = await acme.beginCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `ACME order for ${hostname}` }, [{ domainId }]);
      await acme.validateCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `HTTP-01 validation of ${hostname}` }, [{ domainId, orderUrl }]);
      cert = await acme.finalizeCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `finalize and store certificate of ${hostname}` }, [{ domainId, orderUrl, then }]);
    }
    // Arrival as the activity saw it, when later than this workflow task's time (see IssuedCertificate).
    const arrivedAt = Math.max(Date.now(), cert.answeredAt ? Date.parse(cert.answeredAt) : 0);
    return { ok: true, certificate: { id: cert.certificateId, notBefore: Date.parse(cert.notBefore), notAfter: Date.parse(cert.notAfter) }, state: cert.state, arrivedAt };
  } catch (error) {
    const cause = applicationCause(error);
    if (cause?.type === CERTIFICATE_REFUSED) return { ok: false, problem: refusalProblem(cause), retryAt: refusalRetryAt(cause) };
    throw error;
  }
}
