// How the CA's answers leave an activity: as Temporal failures the workflow's retry policy
// understands. Refusals are non-retryable `CertificateRefused` carrying `{ code, acmeType }`
// (model/certificate-issuance.ts reads them back); everything else is a retryable
// `CaUnavailable`, with the CA's Retry-After as nextRetryDelay when it gave one.
import { ApplicationFailure, type Duration } from '@temporalio/common';
import { CaConnectionError, CaProblemError, classifyAcmeError, shortType } from '../../acme/errors.ts';
import type { Logger } from '../../logging/logger.ts';
import { CERTIFICATE_REFUSED, refusalDetails } from '../../model/certificate-issuance.ts';

/** The Temporal failure for a classified error: CertificateRefused (final) or CaUnavailable. */
export function acmeFailure(error: unknown): ApplicationFailure {
  if (error instanceof ApplicationFailure) return error;
  const c = classifyAcmeError(error);
  const cause = error instanceof Error ? error : undefined;
  if (c.kind === 'permanent') {
    return ApplicationFailure.create({ nonRetryable: true, type: CERTIFICATE_REFUSED, message: c.message, details: [refusalDetails(c.code, c.acmeType)], cause });
  }
  return ApplicationFailure.create({
    type: 'CaUnavailable', message: c.message, cause,
    ...(c.retryAfterSeconds ? { nextRetryDelay: `${c.retryAfterSeconds}s` as const } : {}),
  });
}

/** A final refusal found by us (an order closed, a certificate that does not match). */
export function refused(code: string, message: string, acmeType?: string, retryAt?: number): ApplicationFailure {
  return ApplicationFailure.create({ nonRetryable: true, type: CERTIFICATE_REFUSED, message, details: [refusalDetails(code, acmeType, retryAt)] });
}

/** The CA is still working on it (or says two contradicting things): ask again after a while. */
export function caStillBusy(message: string, nextRetryDelay: Duration = '10s'): ApplicationFailure {
  return ApplicationFailure.create({ type: 'CaUnavailable', message, nextRetryDelay });
}

export interface CaCalls {
  /** Turns what an ACME call threw into the classified Temporal failure (and logs it). */
  failed(what: string, error: unknown): Promise<ApplicationFailure>;
  /** Runs one ACME call; a failure becomes the classified Temporal failure. */
  ca<T>(what: string, call: () => Promise<T>): Promise<T>;
}

export function createCaCalls(deps: { directoryUrl: string; logger: Logger; accountForgotten(): Promise<void> }): CaCalls {
  const { directoryUrl, logger } = deps;
  async function failed(what: string, error: unknown): Promise<ApplicationFailure> {
    if (error instanceof CaConnectionError) {
      error = new CaConnectionError(`Could not reach the certificate authority at ${new URL(directoryUrl).origin}${error.code ? ` (${error.code})` : ''}`, error.code);
    }
    // The CA forgot our account (a test CA restarted): register again on the next attempt.
    if (error instanceof CaProblemError && shortType(error.problem?.type) === 'accountDoesNotExist') await deps.accountForgotten();
    const failure = acmeFailure(error);
    logger.warn({ step: what, type: failure.type, nonRetryable: failure.nonRetryable, err: (error as Error)?.message }, 'ACME call failed');
    return failure;
  }
  return {
    failed,
    async ca(what, call) {
      try {
        return await call();
      } catch (error) {
        throw await failed(what, error);
      }
    },
  };
}
