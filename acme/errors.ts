// What the CA's answers mean for us: an error response (CaProblemError) or no answer at all
// (CaConnectionError), and the classification of either — or of a problem document found on an
// order or challenge — as retryable (rate limits, 5xx, bad nonces, connection failures; with the
// CA's Retry-After) or permanent (a refusal, with the stable code shown in verification.problem).
import { retryAfterSeconds } from '../model/retry-after.ts';

export interface AcmeProblem { type?: string; detail?: string; status?: number; subproblems?: AcmeProblem[] }

export type AcmeErrorClass =
  | { kind: 'retryable'; message: string; retryAfterSeconds?: number }
  | { kind: 'permanent'; code: string; message: string; acmeType?: string };

/** An error response from the CA (status ≥ 400), with its problem document and Retry-After. */
export class CaProblemError extends Error {
  readonly status: number;
  readonly problem: AcmeProblem | null;
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, problem: AcmeProblem | null, retryAfterSeconds: number | undefined, url: string | undefined) {
    super(`ACME server answered ${status}${problem?.type ? ` ${problem.type}` : ''}${problem?.detail ? `: ${problem.detail}` : ''}${url ? ` (${url})` : ''}`);
    this.name = 'CaProblemError';
    this.status = status;
    this.problem = problem;
    this.retryAfterSeconds = retryAfterSeconds;
  }
}

/** The CA could not be reached (refused, reset, timed out, TLS failure). */
export class CaConnectionError extends Error {
  readonly code: string | undefined;
  constructor(message: string, code?: string) {
    super(message);
    this.name = 'CaConnectionError';
    this.code = code;
  }
}

const ACME_ERROR = 'urn:ietf:params:acme:error:';
const RETRYABLE_TYPES = new Set(['rateLimited', 'serverInternal', 'badNonce', 'orderNotReady', 'accountDoesNotExist']);
// Validation problems (connection, dns, tls, unauthorized, incorrectResponse) describe the CA's
// attempt to reach the customer's hostname: they end the order, so they are refusals, not outages.
const PERMANENT: Record<string, { code: string; message: string }> = {
  rejectedIdentifier: { code: 'rejected_identifier', message: 'The certificate authority will not issue a certificate for this hostname' },
  unsupportedIdentifier: { code: 'rejected_identifier', message: 'The certificate authority does not support this hostname' },
  caa: { code: 'caa_forbids_ca', message: "A CAA record of this hostname does not allow our certificate authority to issue for it" },
  unauthorized: { code: 'challenge_failed', message: 'The certificate authority could not confirm that this hostname points to us' },
  incorrectResponse: { code: 'challenge_failed', message: 'The certificate authority got a wrong answer to its HTTP-01 challenge for this hostname' },
  connection: { code: 'challenge_unreachable', message: 'The certificate authority could not connect to this hostname to validate it' },
  tls: { code: 'challenge_unreachable', message: 'The certificate authority could not connect to this hostname to validate it' },
  dns: { code: 'challenge_dns_failed', message: 'The certificate authority could not look up this hostname in DNS' },
  badCSR: { code: 'bad_csr', message: 'The certificate authority refused our certificate request' },
  badPublicKey: { code: 'bad_csr', message: 'The certificate authority refused our certificate key' },
  malformed: { code: 'ca_request_malformed', message: 'The certificate authority refused our request as malformed' },
  userActionRequired: { code: 'ca_account_action_required', message: 'Our account with the certificate authority needs attention' },
  externalAccountRequired: { code: 'ca_account_action_required', message: 'The certificate authority requires an external account binding' },
  invalidContact: { code: 'ca_account_action_required', message: 'The certificate authority refused our contact address' },
  unsupportedContact: { code: 'ca_account_action_required', message: 'The certificate authority refused our contact address' },
};
const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ECONNABORTED', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ENOTFOUND', 'EADDRNOTAVAIL', 'ERR_SOCKET_CONNECTION_TIMEOUT', 'ERR_TLS_CERT_ALTNAME_INVALID', 'DEPTH_ZERO_SELF_SIGNED_CERT', 'SELF_SIGNED_CERT_IN_CHAIN', 'UNABLE_TO_VERIFY_LEAF_SIGNATURE', 'CERT_HAS_EXPIRED']);

export function isProblem(value: unknown): value is AcmeProblem {
  return typeof value === 'object' && value !== null && typeof (value as AcmeProblem).type === 'string';
}

/** The problem type without the `urn:ietf:params:acme:error:` prefix (`rateLimited`, `caa`, …). */
export function shortType(type: string | undefined): string | undefined {
  return type?.startsWith(ACME_ERROR) ? type.slice(ACME_ERROR.length) : type;
}

/** A `badNonce` answer (acme-client retries those itself, with the answer's fresh nonce). */
export function isBadNonce(data: unknown): boolean {
  return isProblem(data) && data.type === `${ACME_ERROR}badNonce`;
}

/** Classifies a problem document (from a response, an order or a challenge) and its HTTP status. */
export function classifyProblem(problem: AcmeProblem | null, status: number | undefined, retryAfterSeconds: number | undefined): AcmeErrorClass {
  const type = shortType(problem?.type);
  const detail = problem?.detail?.replace(/\s+/g, ' ').trim();
  const httpStatus = status ?? problem?.status;
  const retry = (what: string): AcmeErrorClass => ({
    kind: 'retryable', message: `${what}${detail ? `: ${detail}` : ''}`, ...(retryAfterSeconds ? { retryAfterSeconds } : {}),
  });
  if (type === 'compound' && problem?.subproblems?.length) {
    // The first permanent subproblem decides; all-retryable stays retryable.
    const classes = problem.subproblems.map((p) => classifyProblem(p, undefined, retryAfterSeconds));
    return classes.find((c) => c.kind === 'permanent') ?? classes[0]!;
  }
  if (type && RETRYABLE_TYPES.has(type)) return retry(`The certificate authority asked us to retry (${type})`);
  if (httpStatus !== undefined && (httpStatus === 429 || httpStatus >= 500)) return retry(`The certificate authority is unavailable (HTTP ${httpStatus})`);
  const known = type ? PERMANENT[type] : undefined;
  const base = known ?? { code: 'certificate_refused', message: 'The certificate authority refused the certificate' };
  return { kind: 'permanent', code: base.code, message: detail ? `${base.message}: ${detail}` : base.message, ...(problem?.type ? { acmeType: problem.type } : {}) };
}

/**
 * Maps what an ACME call threw (or a problem document found on an order or challenge) to
 * retryable / permanent. Unknown errors are retryable: the activity's retry policy bounds them.
 */
export function classifyAcmeError(error: unknown): AcmeErrorClass {
  if (error instanceof CaProblemError) return classifyProblem(error.problem, error.status, error.retryAfterSeconds);
  if (error instanceof CaConnectionError) return { kind: 'retryable', message: error.message };
  if (isProblem(error)) return classifyProblem(error, undefined, undefined);
  const e = error as { code?: unknown; message?: unknown; response?: { status?: number; data?: unknown; headers?: Record<string, unknown> } } | null;
  if (e?.response?.status) {
    return classifyProblem(isProblem(e.response.data) ? e.response.data : null, e.response.status, parseRetryAfter(e.response.headers?.['retry-after']));
  }
  const message = typeof e?.message === 'string' ? e.message : String(error);
  if (typeof e?.code === 'string' && NETWORK_CODES.has(e.code)) return { kind: 'retryable', message: `Could not reach the certificate authority (${e.code}): ${message}` };
  return { kind: 'retryable', message: `ACME request failed: ${message}` };
}

/** Retry-After as seconds (delta-seconds or an HTTP date), undefined when absent or past. */
export function parseRetryAfter(value: unknown, now = Date.now()): number | undefined {
  return retryAfterSeconds(value, now);
}
