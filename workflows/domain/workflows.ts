import {
  ActivityFailure, ApplicationFailure, CancellationScope, condition, continueAsNew, isCancellation, log, patched,
  proxyActivities, proxyLocalActivities, setCurrentDetails, setHandler, TemporalFailure, upsertSearchAttributes, workflowInfo,
  type ActivityOptions, type LocalActivityOptions,
} from '@temporalio/workflow';
import type { SearchAttributeUpdatePair } from '@temporalio/common';
import type { createCertificateActivities } from '../../activities/certificates.ts';
import type { createDnsCheckActivities } from '../../activities/dns-check.ts';
import type { createVerifyAndIssueActivities } from '../../activities/verify-and-issue.ts';
import type { createDomainActivities, DomainState, Problem } from '../../activities/domain.ts';
import { ISSUANCE_WAIT_BUDGET_MS as ISSUE_WAIT_BUDGET_MS, refusalProblem } from '../../model/certificate-issuance.ts';
import type { DomainStatus } from '../../model/domain-status.ts';
import { HostgateDomainStatus, HostgateHostname, HostgateOrganizationId } from '../search-attributes.ts';
import {
  ACTIVE_DNS_RECHECK, backoff, CERT_BACKOFF_CAP, CERT_BACKOFF_FIRST, CERT_MAX_FAILURES, DNS_BACKOFF_CAP,
  DNS_BACKOFF_FIRST, DNS_GIVE_UP_AFTER, renewalTime,
} from './backoff.ts';
import type { DomainWorkflowCarry, DomainWorkflowInput } from './config.ts';
import { deleteSignal, resumeSignal, stateQuery, suspendSignal, verifySignal, type DomainWorkflowState } from './signals.ts';

// Postgres writes: short and idempotent. Retried without limit because giving up would leave the
// row and the workflow disagreeing; Postgres being down for a while is not a reason to fail.
const dbSteps = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' } } as const;
const db = proxyActivities<ReturnType<typeof createDomainActivities>>(dbSteps);

// DNS lookups: a few seconds each. A SERVFAIL/timeout comes back as a result (the workflow's own
// backoff handles it); only infrastructure errors (Postgres) land in this retry policy.
const dnsSteps = { startToCloseTimeout: '30 seconds', retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' } } as const;
const dnsOptions: ActivityOptions = dnsSteps;
const dns = proxyActivities<ReturnType<typeof createDnsCheckActivities>>(dnsOptions);

// ACME: the CA may be slow or rate-limit us. Retryable errors carry the CA's Retry-After as
// nextRetryDelay; refusals are non-retryable `CertificateRefused` and handled by the workflow.
const acmeOptions: ActivityOptions = {
  startToCloseTimeout: '3 minutes',
  // Short: a worker that died mid-validation is noticed within 10 s (the activity heartbeats every ≤2 s).
  heartbeatTimeout: '10 seconds',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '10 minutes', nonRetryableErrorTypes: ['CertificateRefused', 'DomainNotFound'] },
};
const acme = proxyActivities<ReturnType<typeof createCertificateActivities>>(acmeOptions);

// The same activities run as local activities on the fast path (FAST_PATH_PATCH): no task
// round trip through the server per step, only a marker in the history when the workflow task
// completes. A burst of verifies made ~20 server round trips per domain before; now it is ~1.
// Postgres and DNS steps keep their retry-forever policies (backoffs beyond a minute become
// durable timers, localRetryThreshold).
const dbLocal = proxyLocalActivities<ReturnType<typeof createDomainActivities>>(dbSteps);
const dnsLocalOptions: LocalActivityOptions = dnsSteps;
const dnsLocal = proxyLocalActivities<ReturnType<typeof createDnsCheckActivities>>(dnsLocalOptions);
// The DNS check that, when it moves the domain, goes straight on to the certificate (its issuance
// half reports rather than throws, and waits on the CA at most ~10 s): same retry-forever policy
// as a DNS check; a timed-out attempt re-runs and then finds the domain already moved.
const verifyLocalOptions: LocalActivityOptions = { ...dnsLocalOptions, startToCloseTimeout: '40 seconds' };
const verifyLocal = proxyLocalActivities<ReturnType<typeof createVerifyAndIssueActivities>>(verifyLocalOptions);

type AcmeActivities = ReturnType<typeof createCertificateActivities>;
// ACME on the fast path: the three steps (order, HTTP-01 validation, finalize + store) in ONE
// local activity with ONE attempt, bounded well below the workflow task timeout's heartbeat. If
// that attempt fails for any reason but a refusal (the CA slow or rate-limiting, a timeout, a
// crash), the steps run again as the regular activities above — heartbeats, retries, Retry-After —
// which resume from the order state in Postgres.
const acmeLocalOptions: LocalActivityOptions = {
  startToCloseTimeout: '15 seconds',
  retry: { maximumAttempts: 1 },
};
const acmeLocal = proxyLocalActivities<ReturnType<typeof createCertificateActivities>>(acmeLocalOptions);

/**
 * Patch id of the fast path: local activities, the DNS check that also moves the domain to
 * `pending_certificate`, issuance in one local attempt whose finalize also moves it to `active`,
 * no per-issuance account step, no second DNS check right after a successful one, search
 * attributes written when the workflow waits. Runs recorded before it keep the old path.
 */
export const FAST_PATH_PATCH = 'local-activities-merged-steps';

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

/** Marks "go step by step" inside issue(); never leaves the workflow. */
class StepByStep extends Error {
  constructor() { super('the one-attempt issuance did not finish; continuing step by step'); }
}

/** How long a successful DNS check stands in for the check before issuance (fast path). */
const JUST_VERIFIED_MS = 60_000;

/** Histories stay short: a new run every few hundred loop turns (or when the server suggests it). */
const MAX_TURNS_PER_RUN = 300;
/**
 * On the fast path a turn is also every DNS check while waiting for DNS, and a new run comes after
 * 40: a worker whose cache holds fewer workflows than are open replays a workflow's whole run on
 * every check, so the run's length is the price of each check (bench:lifecycle, 5,000 waiting).
 */
const FAST_MAX_TURNS_PER_RUN = 40;

/**
 * One workflow per domain (`domain/<id>`): DNS wait → certificate → active (renewal, DNS
 * re-checks) with suspension and deletion at any point. Postgres mirrors every move through the
 * `db` activities; the API reads Postgres, never this workflow.
 */
export async function domainLifecycleWorkflow(input: DomainWorkflowInput): Promise<void> {
  let flushIndex = () => {};
  try {
    await lifecycle(input, (flush) => { flushIndex = flush; });
  } finally {
    // The last status goes into the index before the run completes or continues as new.
    flushIndex();
  }
}

async function lifecycle(input: DomainWorkflowInput, onIndex: (flush: () => void) => void): Promise<void> {
  const { domainId, hostname } = input;
  const fast = patched(FAST_PATH_PATCH);
  const store = fast ? dbLocal : db;
  /** Workflow time of the last DNS check that found DNS right (fast path: skip re-checking at once). */
  let dnsVerifiedAt: number | null = null;
  /** The one-attempt issuance did not finish: the next issuance goes step by step. */
  let issueStepByStep = false;
  const turns = { n: 0 };
  const maxTurns = fast ? FAST_MAX_TURNS_PER_RUN : MAX_TURNS_PER_RUN;
  const carry: DomainWorkflowCarry = input.carry ?? {
    dnsWaitStartedAt: null, dnsChecks: 0, certFailures: 0, certificate: null, pending: { verify: false, delete: false, suspend: null, resume: false },
  };
  const pending = carry.pending;
  const query: DomainWorkflowState = { phase: 'starting', verifyRequests: 0, deleteRequested: pending.delete };
  let phaseScope: CancellationScope | null = null;

  setHandler(verifySignal, () => { pending.verify = true; query.verifyRequests++; });
  setHandler(deleteSignal, () => { pending.delete = true; query.deleteRequested = true; phaseScope?.cancel(); });
  setHandler(suspendSignal, ({ reason }) => { pending.suspend = reason; phaseScope?.cancel(); });
  setHandler(resumeSignal, () => { pending.resume = true; });
  setHandler(stateQuery, () => query);

  // Search attributes are on unless the caller says the server cannot index them (the
  // time-skipping test server knows no custom attributes). The old path upserts at every change;
  // the fast path collects changes and writes what differs from the indexed value when the
  // workflow is about to wait or end: a verify burst's pending_dns → pending_certificate → active
  // inside one workflow task is one visibility update, not three.
  const unindexed = new Map<string, SearchAttributeUpdatePair>();
  const index = (attributes: SearchAttributeUpdatePair[]) => {
    if (input.searchAttributes === false) return;
    if (!fast) return upsertSearchAttributes(attributes);
    for (const pair of attributes) unindexed.set(pair.key.name, pair);
  };
  const flushIndex = () => {
    const indexed = workflowInfo().typedSearchAttributes;
    const changed = [...unindexed.values()].filter((pair) => indexed.get(pair.key as never) !== pair.value);
    unindexed.clear();
    if (changed.length > 0) upsertSearchAttributes(changed);
  };
  onIndex(flushIndex);
  /** `condition`, with the search attributes brought up to date first. */
  const waitUntil = (fn: () => boolean, timeout?: number) => {
    flushIndex();
    return timeout === undefined ? condition(fn) : condition(fn, timeout);
  };
  const details = (text: string) => { query.phase = text; setCurrentDetails(`**${hostname}** (${domainId}): ${text}`); };

  index([
    { key: HostgateHostname, value: hostname },
    { key: HostgateOrganizationId, value: input.organizationId },
  ]);
  let cur: DomainState = input.carry?.state ?? await CancellationScope.nonCancellable(() => store.attachWorkflow({ domainId }));
  index([{ key: HostgateDomainStatus, value: cur.status }]);

  /** Moves the row if it still is where we think; either way `cur` ends up true to Postgres. */
  async function move(to: DomainStatus, reason: string): Promise<boolean> {
    const result = await CancellationScope.nonCancellable(() => store.transition({ domainId, to, reason, expectedSeq: cur.seq }));
    cur = { status: result.status, seq: result.seq };
    index([{ key: HostgateDomainStatus, value: cur.status }]);
    return result.status === to;
  }

  /** Runs a phase that a delete or suspend signal may interrupt. */
  async function interruptible(phase: () => Promise<void>): Promise<void> {
    phaseScope = new CancellationScope();
    try {
      await phaseScope.run(phase);
    } catch (error) {
      if (!isCancellation(error)) throw error;
    } finally {
      phaseScope = null;
    }
  }

  async function waitForDns(): Promise<void> {
    carry.dnsWaitStartedAt ??= Date.now();
    if (carry.nextDnsCheckAt) {
      // A new run continuing a wait: the backoff goes on where the last run left it.
      const wait = carry.nextDnsCheckAt - Date.now();
      carry.nextDnsCheckAt = null;
      if (wait > 0 && !pending.verify) await waitUntil(() => pending.verify, wait);
    }
    for (;;) {
      pending.verify = false;
      const summary = `DNS check #${carry.dnsChecks + 1} of ${hostname}`;
      if (fast) {
        const result = await verifyLocal.verifyDnsAndIssue.executeWithOptions({ ...verifyLocalOptions, summary: `${summary}; if right, the certificate (one local attempt)` }, [{ domainId, expectedSeq: cur.seq, hostname, isApex: input.isApex }]);
        carry.dnsChecks++;
        if (result.ok || result.state.seq !== cur.seq) {
          // DNS is right and the domain moved on (or someone else moved it meanwhile).
          if (result.ok) dnsVerifiedAt = Date.now();
          carry.dnsWaitStartedAt = null;
          carry.dnsChecks = 0;
          cur = result.state;
          index([{ key: HostgateDomainStatus, value: cur.status }]);
          const issuance = result.issuance;
          if (issuance?.ok) {
            carry.certFailures = 0;
            carry.certificate = { id: issuance.certificate.certificateId, notBefore: Date.parse(issuance.certificate.notBefore), notAfter: Date.parse(issuance.certificate.notAfter) };
          } else if (issuance?.refused) {
            carry.certFailures++;
            await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: issuance.refused }));
          } else if (issuance) {
            // Not finished in the one attempt (CA slow, rate limit…): the step-by-step activities next.
            issueStepByStep = true;
          }
          return;
        }
        if (await backOff(result)) return;
        continue;
      }
      const result = await dns.checkDns.executeWithOptions({ ...dnsOptions, summary }, [{ domainId }]);
      carry.dnsChecks++;
      if (result.ok) {
        carry.dnsWaitStartedAt = null;
        carry.dnsChecks = 0;
        await move('pending_certificate', 'DNS verified');
        return;
      }
      if (await backOff(result)) return;
    }
  }

  /**
   * Between DNS checks: true when this run stops waiting — the 14 days are over (the domain has
   * been moved to `failed`), or (fast path) the run is long enough to continue as new.
   */
  async function backOff(result: { problem: Problem | null }): Promise<boolean> {
    const waited = Date.now() - carry.dnsWaitStartedAt!;
    if (waited >= DNS_GIVE_UP_AFTER) {
      await move('failed', `no correct DNS after 14 days: ${result.problem?.code ?? 'unknown'}`);
      return true;
    }
    const delay = Math.min(backoff(carry.dnsChecks, DNS_BACKOFF_FIRST, DNS_BACKOFF_CAP), DNS_GIVE_UP_AFTER - waited);
    if (fast && ++turns.n >= FAST_MAX_TURNS_PER_RUN) {
      carry.nextDnsCheckAt = Date.now() + delay;
      return true;
    }
    details(`waiting for DNS (${result.problem?.code ?? 'not yet'}); next check in ${Math.round(delay / 1000)} s or on verify`);
    await waitUntil(() => pending.verify, delay);
    return false;
  }

  type Issued = { ok: true; certificate: NonNullable<DomainWorkflowCarry['certificate']>; state?: DomainState | undefined } | { ok: false; problem: Problem };

  /**
   * ACME order → challenges → finalize; returns the certificate or the CA's refusal. On the fast
   * path, finalize also records the outcome: `activateFromSeq` moves the domain to `active`,
   * otherwise (renewal) only the earlier problem is cleared.
   */
  async function issue(activateFromSeq?: number): Promise<Issued> {
    try {
      if (fast) {
        const then = activateFromSeq === undefined ? {} : { activateFromSeq };
        let cert: Awaited<ReturnType<AcmeActivities['finalizeCertificateOrder']>>;
        try {
          if (issueStepByStep) throw new StepByStep();
          cert = await acmeLocal.issueCertificate.executeWithOptions({ ...acmeLocalOptions, summary: `certificate for ${hostname}: ACME order, HTTP-01, finalize (one local attempt)` }, [{ domainId, then, waitBudgetMs: ISSUE_WAIT_BUDGET_MS }]);
        } catch (error) {
          if (!(error instanceof StepByStep) && !worthRetryingDurably(error)) throw error;
          issueStepByStep = false;
          log.info('issuance continues as durable activities', { error: (error as Error).message });
          details('obtaining a certificate (step by step, with retries)');
          flushIndex();
          const { orderUrl } = await acme.beginCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `ACME order for ${hostname}` }, [{ domainId }]);
          await acme.validateCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `HTTP-01 validation of ${hostname}` }, [{ domainId, orderUrl }]);
          cert = await acme.finalizeCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `finalize and store certificate of ${hostname}` }, [{ domainId, orderUrl, then }]);
        }
        return { ok: true, certificate: { id: cert.certificateId, notBefore: Date.parse(cert.notBefore), notAfter: Date.parse(cert.notAfter) }, state: cert.state };
      }
      await acme.ensureAcmeAccount.executeWithOptions({ ...acmeOptions, summary: 'ACME account' }, []);
      const { orderUrl } = await acme.beginCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `ACME order for ${hostname}` }, [{ domainId }]);
      await acme.validateCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `HTTP-01 validation of ${hostname}` }, [{ domainId, orderUrl }]);
      const cert = await acme.finalizeCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `finalize and store certificate of ${hostname}` }, [{ domainId, orderUrl }]);
      return { ok: true, certificate: { id: cert.certificateId, notBefore: Date.parse(cert.notBefore), notAfter: Date.parse(cert.notAfter) } };
    } catch (error) {
      const cause = applicationCause(error);
      if (cause?.type === 'CertificateRefused') {
        return { ok: false, problem: refusalProblem(cause) };
      }
      throw error;
    }
  }

  async function obtainCertificate(): Promise<void> {
    for (;;) {
      if (carry.certFailures > 0) {
        const delay = backoff(carry.certFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP);
        details(`certificate refused ${carry.certFailures}×; retrying in ${Math.round(delay / 1000)} s or on verify`);
        pending.verify = false;
        await waitUntil(() => pending.verify, delay);
      }
      details('obtaining a certificate');
      // The CA validates through DNS too: if it no longer points here, go back to waiting. (Not
      // when a check found it right a moment ago in this run: that is the verify burst's path.)
      const justVerified = fast && carry.certFailures === 0 && dnsVerifiedAt !== null && Date.now() - dnsVerifiedAt < JUST_VERIFIED_MS;
      if (!justVerified) {
        const summary = `DNS check of ${hostname} before issuance`;
        const check = fast
          ? await dnsLocal.checkDns.executeWithOptions({ ...dnsLocalOptions, summary }, [{ domainId }])
          : await dns.checkDns.executeWithOptions({ ...dnsOptions, summary }, [{ domainId }]);
        if (!check.ok && !check.retryable) {
          await move('pending_dns', 'DNS changed before issuance');
          return;
        }
      }
      dnsVerifiedAt = null;
      if (fast) {
        const result = await issue(cur.seq);
        if (result.ok) {
          carry.certFailures = 0;
          carry.certificate = result.certificate;
          if (result.state) {
            cur = result.state;
            index([{ key: HostgateDomainStatus, value: cur.status }]);
          }
          return;
        }
        carry.certFailures++;
        await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: result.problem }));
        if (carry.certFailures >= CERT_MAX_FAILURES) {
          await move('failed', `certificate refused ${carry.certFailures} times: ${result.problem.code}`);
          return;
        }
        continue;
      }
      const result = await issue();
      if (result.ok) {
        carry.certFailures = 0;
        carry.certificate = result.certificate;
        await CancellationScope.nonCancellable(() => db.recordProblem({ domainId, problem: null }));
        await move('active', 'certificate issued');
        return;
      }
      carry.certFailures++;
      await CancellationScope.nonCancellable(() => db.recordProblem({ domainId, problem: result.problem }));
      if (carry.certFailures >= CERT_MAX_FAILURES) {
        await move('failed', `certificate refused ${carry.certFailures} times: ${result.problem.code}`);
        return;
      }
    }
  }

  async function serveActive(turns: { n: number }): Promise<void> {
    carry.certificate ??= await store.latestCertificate({ domainId });
    let renewFailures = 0;
    for (;;) {
      const cert = carry.certificate;
      const renewAt = cert ? renewalTime(cert.notBefore, cert.notAfter) : Date.now();
      if (Date.now() >= renewAt) {
        details('renewing the certificate');
        const result = await issue();
        if (result.ok) {
          carry.certificate = result.certificate;
          renewFailures = 0;
          // (The fast path's finalize cleared the problem already.)
          if (!fast) await CancellationScope.nonCancellable(() => db.recordProblem({ domainId, problem: null }));
        } else {
          renewFailures++;
          await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: result.problem }));
          await waitUntil(() => pending.verify, backoff(renewFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP));
        }
        continue;
      }
      const wait = Math.min(renewAt - Date.now(), ACTIVE_DNS_RECHECK);
      details(`active; certificate renews ${new Date(renewAt).toISOString()}`);
      pending.verify = false;
      await waitUntil(() => pending.verify, wait);
      if (Date.now() < renewAt) {
        const summary = `DNS re-check of active ${hostname}`;
        const check = fast
          ? await dnsLocal.checkDns.executeWithOptions({ ...dnsLocalOptions, summary }, [{ domainId }])
          : await dns.checkDns.executeWithOptions({ ...dnsOptions, summary }, [{ domainId }]);
        if (!check.retryable) await CancellationScope.nonCancellable(() => store.setDnsBroken({ domainId, broken: !check.ok }));
      }
      if (++turns.n >= maxTurns || workflowInfo().continueAsNewSuggested) return;
    }
  }

  for (;;) {
    if (pending.delete || cur.status === 'deleting') {
      details('deleting: cleaning up');
      if (cur.status !== 'deleting' && cur.status !== 'deleted') await move('deleting', 'deletion requested');
      cur = await CancellationScope.nonCancellable(() => store.finishDeletion({ domainId }));
      index([{ key: HostgateDomainStatus, value: cur.status }]);
      log.info('domain deleted', { domainId });
      return;
    }
    if (cur.status === 'deleted') return;
    if (pending.suspend !== null) {
      const reason = pending.suspend;
      pending.suspend = null;
      if (cur.status !== 'suspended') await move('suspended', reason);
    }
    if (++turns.n >= maxTurns || workflowInfo().continueAsNewSuggested) {
      return continueAsNew<typeof domainLifecycleWorkflow>({ ...input, carry: { ...carry, state: cur } });
    }
    switch (cur.status) {
      case 'pending_dns':
        details('waiting for DNS');
        await interruptible(waitForDns);
        break;
      case 'pending_certificate':
        await interruptible(obtainCertificate);
        break;
      case 'active':
        await interruptible(() => serveActive(turns));
        break;
      case 'suspended':
        details('suspended; waiting for resume or delete');
        await waitUntil(() => pending.delete || pending.resume);
        if (pending.resume && !pending.delete) {
          pending.resume = false;
          carry.dnsWaitStartedAt = null;
          await move('pending_dns', 'resumed');
        }
        break;
      case 'failed':
        details('failed; a verify or resume request starts over');
        await waitUntil(() => pending.delete || pending.verify || pending.resume);
        if (!pending.delete) {
          pending.verify = false;
          pending.resume = false;
          carry.dnsWaitStartedAt = null;
          carry.certFailures = 0;
          await move('pending_dns', 'retry requested');
        }
        break;
    }
  }
}
