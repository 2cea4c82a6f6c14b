// What the certificate activities and the domain workflow agree on about issuance. Workflow code
// imports this module: it stays pure and deterministic (no Node or Temporal imports).
import type { Problem } from './problem.ts';

/**
 * How long the one-attempt issuance (the workflow's fast path, a local activity) waits on the CA
 * for validation and issuance before leaving the rest to the step-by-step activities. Below the
 * local activity's start-to-close timeout, so the attempt reports instead of timing out.
 */
export const ISSUANCE_WAIT_BUDGET_MS = 10_000;

/** The Temporal failure type of a CA's final refusal (the workflow retries it with its own backoff). */
export const CERTIFICATE_REFUSED = 'CertificateRefused';

/** The first detail of a CertificateRefused failure. */
export interface RefusalDetails {
  code: string; acmeType: string | null;
  /** Not before this (epoch ms): the per-domain brake says when its window frees. */
  retryAt?: number;
}

export function refusalDetails(code: string, acmeType?: string, retryAt?: number): RefusalDetails {
  return { code, acmeType: acmeType ?? null, ...(retryAt === undefined ? {} : { retryAt }) };
}

/** When a refusal may be retried, if it says (the brake); null: the caller's backoff decides. */
export function refusalRetryAt(failure: { details?: readonly unknown[] | null | undefined }): number | null {
  const retryAt = (failure.details?.[0] as { retryAt?: unknown } | undefined)?.retryAt;
  return typeof retryAt === 'number' ? retryAt : null;
}

/** What a refusal shows in `verification.problem`: its code (certificate_refused if none) and message. */
export function refusalProblem(failure: { message: string; details?: readonly unknown[] | null | undefined }): Problem {
  const detail = (failure.details?.[0] ?? {}) as { code?: string };
  return { code: detail.code ?? 'certificate_refused', message: failure.message };
}
