import {
  ActivityFailure, ApplicationFailure, CancellationScope, condition, continueAsNew, isCancellation, log,
  proxyActivities, setCurrentDetails, setHandler, upsertSearchAttributes, workflowInfo, type ActivityOptions,
} from '@temporalio/workflow';
import type { createCertificateActivities } from '../../activities/certificates.ts';
import type { createDnsCheckActivities } from '../../activities/dns-check.ts';
import type { createDomainActivities, DomainState, Problem } from '../../activities/domain.ts';
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
const db = proxyActivities<ReturnType<typeof createDomainActivities>>({
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute' },
});

// DNS lookups: a few seconds each. A SERVFAIL/timeout comes back as a result (the workflow's own
// backoff handles it); only infrastructure errors (Postgres) land in this retry policy.
const dnsOptions: ActivityOptions = {
  startToCloseTimeout: '30 seconds',
  retry: { initialInterval: '2 seconds', backoffCoefficient: 2, maximumInterval: '1 minute' },
};
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

/** Histories stay short: a new run every few hundred loop turns (or when the server suggests it). */
const MAX_TURNS_PER_RUN = 300;

/**
 * One workflow per domain (`domain/<id>`): DNS wait → certificate → active (renewal, DNS
 * re-checks) with suspension and deletion at any point. Postgres mirrors every move through the
 * `db` activities; the API reads Postgres, never this workflow.
 */
export async function domainLifecycleWorkflow(input: DomainWorkflowInput): Promise<void> {
  const { domainId, hostname } = input;
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
  // time-skipping test server knows no custom attributes).
  const index: typeof upsertSearchAttributes = (attributes) => { if (input.searchAttributes !== false) upsertSearchAttributes(attributes); };
  const details = (text: string) => { query.phase = text; setCurrentDetails(`**${hostname}** (${domainId}): ${text}`); };

  index([
    { key: HostgateHostname, value: hostname },
    { key: HostgateOrganizationId, value: input.organizationId },
  ]);
  let cur: DomainState = input.carry?.state ?? await CancellationScope.nonCancellable(() => db.attachWorkflow({ domainId }));
  index([{ key: HostgateDomainStatus, value: cur.status }]);

  /** Moves the row if it still is where we think; either way `cur` ends up true to Postgres. */
  async function move(to: DomainStatus, reason: string): Promise<boolean> {
    const result = await CancellationScope.nonCancellable(() => db.transition({ domainId, to, reason, expectedSeq: cur.seq }));
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
    for (;;) {
      pending.verify = false;
      const result = await dns.checkDns.executeWithOptions({ ...dnsOptions, summary: `DNS check #${carry.dnsChecks + 1} of ${hostname}` }, [{ domainId }]);
      carry.dnsChecks++;
      if (result.ok) {
        carry.dnsWaitStartedAt = null;
        carry.dnsChecks = 0;
        await move('pending_certificate', 'DNS verified');
        return;
      }
      const waited = Date.now() - carry.dnsWaitStartedAt;
      if (waited >= DNS_GIVE_UP_AFTER) {
        await move('failed', `no correct DNS after 14 days: ${result.problem?.code ?? 'unknown'}`);
        return;
      }
      const delay = Math.min(backoff(carry.dnsChecks, DNS_BACKOFF_FIRST, DNS_BACKOFF_CAP), DNS_GIVE_UP_AFTER - waited);
      details(`waiting for DNS (${result.problem?.code ?? 'not yet'}); next check in ${Math.round(delay / 1000)} s or on verify`);
      await condition(() => pending.verify, delay);
    }
  }

  /** ACME order → challenges → finalize; returns the certificate or the CA's refusal. */
  async function issue(): Promise<{ ok: true; certificate: NonNullable<DomainWorkflowCarry['certificate']> } | { ok: false; problem: Problem }> {
    try {
      await acme.ensureAcmeAccount.executeWithOptions({ ...acmeOptions, summary: 'ACME account' }, []);
      const { orderUrl } = await acme.beginCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `ACME order for ${hostname}` }, [{ domainId }]);
      await acme.validateCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `HTTP-01 validation of ${hostname}` }, [{ domainId, orderUrl }]);
      const cert = await acme.finalizeCertificateOrder.executeWithOptions({ ...acmeOptions, summary: `finalize and store certificate of ${hostname}` }, [{ domainId, orderUrl }]);
      return { ok: true, certificate: { id: cert.certificateId, notBefore: Date.parse(cert.notBefore), notAfter: Date.parse(cert.notAfter) } };
    } catch (error) {
      if (error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'CertificateRefused') {
        const detail = (error.cause.details?.[0] ?? {}) as { code?: string };
        return { ok: false, problem: { code: detail.code ?? 'certificate_refused', message: error.cause.message } };
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
        await condition(() => pending.verify, delay);
      }
      details('obtaining a certificate');
      // The CA validates through DNS too: if it no longer points here, go back to waiting.
      const check = await dns.checkDns.executeWithOptions({ ...dnsOptions, summary: `DNS check of ${hostname} before issuance` }, [{ domainId }]);
      if (!check.ok && !check.retryable) {
        await move('pending_dns', 'DNS changed before issuance');
        return;
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
    carry.certificate ??= await db.latestCertificate({ domainId });
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
          await CancellationScope.nonCancellable(() => db.recordProblem({ domainId, problem: null }));
        } else {
          renewFailures++;
          await CancellationScope.nonCancellable(() => db.recordProblem({ domainId, problem: result.problem }));
          await condition(() => pending.verify, backoff(renewFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP));
        }
        continue;
      }
      const wait = Math.min(renewAt - Date.now(), ACTIVE_DNS_RECHECK);
      details(`active; certificate renews ${new Date(renewAt).toISOString()}`);
      pending.verify = false;
      await condition(() => pending.verify, wait);
      if (Date.now() < renewAt) {
        const check = await dns.checkDns.executeWithOptions({ ...dnsOptions, summary: `DNS re-check of active ${hostname}` }, [{ domainId }]);
        if (!check.retryable) await CancellationScope.nonCancellable(() => db.setDnsBroken({ domainId, broken: !check.ok }));
      }
      if (++turns.n >= MAX_TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) return;
    }
  }

  const turns = { n: 0 };
  for (;;) {
    if (pending.delete || cur.status === 'deleting') {
      details('deleting: cleaning up');
      if (cur.status !== 'deleting' && cur.status !== 'deleted') await move('deleting', 'deletion requested');
      cur = await CancellationScope.nonCancellable(() => db.finishDeletion({ domainId }));
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
    if (++turns.n >= MAX_TURNS_PER_RUN || workflowInfo().continueAsNewSuggested) {
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
        await condition(() => pending.delete || pending.resume);
        if (pending.resume && !pending.delete) {
          pending.resume = false;
          carry.dnsWaitStartedAt = null;
          await move('pending_dns', 'resumed');
        }
        break;
      case 'failed':
        details('failed; a verify or resume request starts over');
        await condition(() => pending.delete || pending.verify || pending.resume);
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
