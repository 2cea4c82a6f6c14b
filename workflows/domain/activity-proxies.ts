// How the domain workflow calls its activities: one proxy per timeout class. Activities are
// imported as types only, so no Postgres, DNS or HTTP code reaches the workflow bundle.
import { proxyActivities, proxyLocalActivities, workflowInfo, type ActivityOptions, type LocalActivityOptions } from '@temporalio/workflow';
import type { createCertificateActivities } from '../../activities/certificates.ts';
import type { createCertificateLifecycleActivities } from '../../activities/certificate-lifecycle.ts';
import type { createDnsCheckActivities } from '../../activities/dns-check.ts';
import type { createDomainActivities } from '../../activities/domain.ts';
import type { createMoveActivities } from '../../activities/moves.ts';
import type { createVerifyAndIssueActivities } from '../../activities/verify-and-issue.ts';
import { dnsTaskQueue } from '../../contracts/task-queues.ts';

export type AcmeActivities = ReturnType<typeof createCertificateActivities>;

// The common path runs as local activities: no task round trip through the server per step, only
// a marker in the history when the workflow task completes (a burst of verifies made ~20 server
// round trips per domain with regular activities; now it is ~1).

// Postgres writes: short and idempotent. Retried without limit because giving up would leave the
// row and the workflow disagreeing; Postgres being down for a while is not a reason to fail.
// (Backoffs beyond a minute become durable timers, localRetryThreshold.)
const dbSteps = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } } as const;
export const store = proxyLocalActivities<ReturnType<typeof createDomainActivities>>(dbSteps);
/** The certificate history, problems and notices (activities/certificate-lifecycle.ts). */
export const lifecycleStore = proxyLocalActivities<ReturnType<typeof createCertificateLifecycleActivities>>(dbSteps);

// DNS lookups: a few seconds each. A SERVFAIL/timeout comes back as a result (the workflow's own
// backoff handles it); only infrastructure errors (Postgres) land in this retry policy.
const dnsSteps = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' } } as const;
export const dnsLocalOptions: LocalActivityOptions = dnsSteps;
export const dnsLocal = proxyLocalActivities<ReturnType<typeof createDnsCheckActivities>>(dnsLocalOptions);

// The periodic DNS check of a pending_dns domain (not the one a verify asks for): a REGULAR
// activity on the DNS task queue, whose worker has slots of its own. A resolver answering in
// seconds then costs those slots only; the workflow-task slots stay free (issue 14). Its lookups
// are bounded by the background budget (15 s); the same retry-forever policy as a local check
// covers Postgres being away. No schedule-to-start limit: a backlog only spaces the checks out.
export const dnsBackgroundOptions: ActivityOptions = { ...dnsSteps, startToCloseTimeout: '1 minute' };
/** Built per call: the queue is named after the workflow's own (tests run one per file). */
export function dnsBackground() {
  return proxyActivities<Pick<ReturnType<typeof createDnsCheckActivities>, 'recheckDns'>>({ ...dnsBackgroundOptions, taskQueue: dnsTaskQueue(workflowInfo().taskQueue) });
}

// The DNS check that, when it moves the domain, goes straight on to the certificate (its issuance
// half reports rather than throws, and waits on the CA at most ~10 s): same retry-forever policy
// as a DNS check; a timed-out attempt re-runs and then finds the domain already moved.
export const verifyLocalOptions: LocalActivityOptions = { ...dnsLocalOptions, startToCloseTimeout: '40 seconds' };
export const verifyLocal = proxyLocalActivities<ReturnType<typeof createVerifyAndIssueActivities>>(verifyLocalOptions);

// ACME in ONE local activity with ONE attempt (order, HTTP-01 validation, finalize + store),
// bounded well below the workflow task timeout's heartbeat. If that attempt fails for any reason
// but a refusal (the CA slow or rate-limiting, a timeout, a crash), the steps run again as the
// regular activities below, which resume from the order state in Postgres.
export const acmeLocalOptions: LocalActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
};
export const acmeLocal = proxyLocalActivities<AcmeActivities>(acmeLocalOptions);
/** How long that attempt waits on the CA (validation, issuance) before leaving it to the activities. */
export { ISSUANCE_WAIT_BUDGET_MS as ISSUE_WAIT_BUDGET_MS } from '../../model/certificate-issuance.ts';

// ACME step by step: the CA may be slow or rate-limit us. Retryable errors carry the CA's
// Retry-After as nextRetryDelay; refusals are non-retryable `CertificateRefused` and handled by
// the workflow.
export const acmeOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  // Short: a worker that died mid-validation is noticed within 10 s (the activity heartbeats every ≤2 s).
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: ['CertificateRefused', 'DomainNotFound'] },
};
export const acme = proxyActivities<AcmeActivities>(acmeOptions);

// One step of a zero-downtime move (activities/moves.ts): TXT and CNAME lookups, and at most one
// DNS-01 order, which waits on the CA at most 30 s (DNS01_WAIT_BUDGET_MS). Outcomes are stored on
// the domain's tracks, not thrown; what is thrown (Postgres away) is retried a few times and then
// left to the next DNS check: the move must never hold up the hostname's own lifecycle.
export const moveLocalOptions: LocalActivityOptions = {
  startToCloseTimeout: '60 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumAttempts: 3 },
};
export const moveLocal = proxyLocalActivities<Pick<ReturnType<typeof createMoveActivities>, 'advanceMove'>>(moveLocalOptions);
/** One read (a held certificate of a move): the Postgres-steps policy. */
export const moveStore = proxyLocalActivities<Pick<ReturnType<typeof createMoveActivities>, 'heldCertificate'>>(dbSteps);
