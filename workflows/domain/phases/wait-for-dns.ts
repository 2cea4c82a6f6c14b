// pending_dns: DNS checks with backoff (at once on verify) until DNS is right — then, in the same
// local activity, the domain moves to pending_certificate and one attempt at the certificate is
// made — or until 14 days have passed (failed).
import { CancellationScope } from '@temporalio/workflow';
import type { Problem } from '../../../activities/domain.ts';
import type { VerifyAndIssueResult } from '../../../activities/verify-and-issue.ts';
import { store, verifyLocal, verifyLocalOptions } from '../activity-proxies.ts';
import { backoff, DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST, DNS_GIVE_UP_AFTER } from '../backoff.ts';
import { MAX_TURNS_PER_RUN, type DomainContext } from '../context.ts';

export async function waitForDns(ctx: DomainContext): Promise<void> {
  const { carry, pending, domainId, hostname } = ctx;
  carry.dnsWaitStartedAt ??= Date.now();
  if (carry.nextDnsCheckAt) {
    // A new run continuing a wait: the backoff goes on where the last run left it.
    const wait = carry.nextDnsCheckAt - Date.now();
    carry.nextDnsCheckAt = null;
    if (wait > 0 && !pending.verify) await ctx.waitUntil(() => pending.verify, wait);
  }
  for (;;) {
    pending.verify = false;
    const summary = `DNS check #${carry.dnsChecks + 1} of ${hostname}; if right, the certificate (one local attempt)`;
    const result = await verifyLocal.verifyDnsAndIssue.executeWithOptions({ ...verifyLocalOptions, summary }, [{ domainId, expectedSeq: ctx.state.seq, hostname, isApex: ctx.input.isApex }]);
    carry.dnsChecks++;
    if (result.ok || result.state.seq !== ctx.state.seq) {
      // DNS is right and the domain moved on (or someone else moved it meanwhile).
      await movedOn(ctx, result);
      return;
    }
    if (await backOff(ctx, result)) return;
  }
}

/** Takes in what the check that moved the domain on did, its certificate attempt included. */
async function movedOn(ctx: DomainContext, result: VerifyAndIssueResult): Promise<void> {
  const { carry } = ctx;
  if (result.ok) ctx.dnsVerifiedAt = Date.now();
  carry.dnsWaitStartedAt = null;
  carry.dnsChecks = 0;
  ctx.adopt(result.state);
  const issuance = result.issuance;
  if (issuance?.ok) {
    carry.certFailures = 0;
    carry.certificate = { id: issuance.certificate.certificateId, notBefore: Date.parse(issuance.certificate.notBefore), notAfter: Date.parse(issuance.certificate.notAfter) };
  } else if (issuance?.refused) {
    carry.certFailures++;
    await CancellationScope.nonCancellable(() => store.recordProblem({ domainId: ctx.domainId, problem: issuance.refused }));
  } else if (issuance) {
    // Not finished in the one attempt (CA slow, rate limit…): the step-by-step activities next.
    ctx.issueStepByStep = true;
  }
}

/**
 * Between DNS checks: true when this run stops waiting — the 14 days are over (the domain has
 * been moved to `failed`), or the run is long enough to continue as new.
 */
async function backOff(ctx: DomainContext, result: { problem: Problem | null }): Promise<boolean> {
  const { carry } = ctx;
  const waited = Date.now() - carry.dnsWaitStartedAt!;
  if (waited >= DNS_GIVE_UP_AFTER) {
    await ctx.move('failed', `no correct DNS after 14 days: ${result.problem?.code ?? 'unknown'}`);
    return true;
  }
  const delay = Math.min(backoff(carry.dnsChecks, DNS_BACKOFF_FIRST, DNS_BACKOFF_CAP), DNS_GIVE_UP_AFTER - waited);
  // Every check is a turn (not the server's continue-as-new suggestion: the main loop asks that).
  if (++ctx.turns >= MAX_TURNS_PER_RUN) {
    carry.nextDnsCheckAt = Date.now() + delay;
    return true;
  }
  ctx.details(`waiting for DNS (${result.problem?.code ?? 'not yet'}); next check in ${Math.round(delay / 1000)} s or on verify`);
  await ctx.waitUntil(() => ctx.pending.verify, delay);
  return false;
}
