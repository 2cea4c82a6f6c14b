// pending_dns: a DNS check on every verify until DNS is right — then, in the same local activity,
// the domain moves to pending_certificate and one attempt at the certificate is made — or until 14
// days have passed (failed). The periodic checks in between are the worker's DNS checker's
// (worker/dns-checker.ts, issue 26): it signals `verify` when it finds DNS right, and the workflow
// waits for that signal with one timer, the 14 days, instead of a timer per check.
// Runs recorded before the checker (patch `dns-checks-by-checker`) make their own periodic checks
// with backoff: the local path first, giving up within a second when DNS is slow or the probe lane
// busy, and then as a regular activity on the DNS task queue — a verify arriving meanwhile does
// not wait for that (activities/dns-check.ts, lanes). Such a run takes the checker's way at its
// next turn.
import { ActivityFailure, CancellationScope, condition, log, patched } from '@temporalio/workflow';
import type { Problem } from '../../../model/problem.ts';
import type { VerifyDnsInput } from '../../../activities/dns-check.ts';
import type { VerifyAndIssueResult } from '../../../activities/verify-and-issue.ts';
import { dnsBackground, dnsBackgroundOptions, lifecycleStore, moveLocal, moveLocalOptions, store, verifyLocal, verifyLocalOptions } from '../activity-proxies.ts';
import { dueOnArrival, dueOnArrivalProblem } from '../../../model/certificate-lifetime.ts';
import { lifetimeAware } from './certificate-pace.ts';
import { backoff, DNS_BACKOFF_CAP, DNS_BACKOFF_FIRST, DNS_GIVE_UP_AFTER } from '../../../model/domain-backoff.ts';
import { MAX_TURNS_PER_RUN, type DomainContext } from '../context.ts';

/**
 * Patch id of the periodic DNS checks that probe locally and fall back to the DNS task queue
 * (issue 14). Histories recorded before it ran every check as an unbounded local activity and
 * replay that way.
 */
export const DNS_QUEUE_PATCH = 'dns-checks-on-dns-queue';

/**
 * Patch id of the zero-downtime move step after a DNS check that found the hostname elsewhere
 * (issue 17). Histories recorded before it have no such step and replay without it.
 */
export const MOVES_PATCH = 'zero-downtime-move-step';

/**
 * Patch id of the periodic checks made by the worker's DNS checker instead of the workflow (issue
 * 26): the workflow waits for a verify without a timer per check. Asked at every turn of the wait,
 * so a run recorded before it replays its own checks and takes the checker's way from its first
 * turn on new code.
 */
export const DNS_CHECKER_PATCH = 'dns-checks-by-checker';

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
    const byChecker = patched(DNS_CHECKER_PATCH);
    if (byChecker && !pending.verify && !(await awaitVerify(ctx))) return;
    const onVerify = pending.verify;
    pending.verify = false;
    // On the checker's way the check reads the row first: when the checker has moved the domain
    // already (its verify woke us), the activity answers where it stands without a second lookup.
    const input = byChecker
      ? { domainId, expectedSeq: ctx.state.seq, transition: 'dns_verified' as const }
      : { domainId, expectedSeq: ctx.state.seq, hostname, isApex: ctx.input.isApex, transition: 'dns_verified' as const };
    let result: VerifyAndIssueResult;
    if (!onVerify && patched(DNS_QUEUE_PATCH)) {
      // A periodic check: the local path if DNS answers within the probe budget and the probe
      // lane has a permit free (one workflow task, as before), else the DNS task queue.
      const summary = `DNS check #${carry.dnsChecks + 1} of ${hostname} (periodic; on the DNS task queue if DNS is slow); if right, the certificate (one local attempt)`;
      const probe = await verifyLocal.verifyDnsAndIssue.executeWithOptions({ ...verifyLocalOptions, summary }, [{ ...input, probe: true }]);
      if (probe.deferred) {
        const checked = await periodicCheck(ctx, input);
        // A verify came in while the check waited or ran: check now on the fast path instead.
        if (checked === null) continue;
        result = checked;
      } else result = probe;
    } else {
      const summary = `DNS check #${carry.dnsChecks + 1} of ${hostname}; if right, the certificate (one local attempt)`;
      result = await verifyLocal.verifyDnsAndIssue.executeWithOptions({ ...verifyLocalOptions, summary }, [input]);
    }
    carry.dnsChecks++;
    if (result.ok || result.state.seq !== ctx.state.seq) {
      // DNS is right and the domain moved on (or someone else moved it meanwhile).
      await movedOn(ctx, result);
      return;
    }
    if (!result.retryable && !carry.movesOff && patched(MOVES_PATCH)) await moveStep(ctx);
    if (byChecker) {
      // Back to waiting for the next verify; every check is a turn of the run.
      if (++ctx.turns >= MAX_TURNS_PER_RUN) return;
      continue;
    }
    if (await backOff(ctx, result)) return;
  }
}

/**
 * Waits for a verify (the DNS checker's when it finds DNS right, or the API's) until the 14 days
 * are over: one timer for the whole wait. False when they are over (the domain has been moved to
 * `failed`, or elsewhere by someone else meanwhile).
 */
async function awaitVerify(ctx: DomainContext): Promise<boolean> {
  const { carry, pending } = ctx;
  const left = DNS_GIVE_UP_AFTER - (Date.now() - carry.dnsWaitStartedAt!);
  if (left > 0) {
    ctx.details('waiting for DNS; the DNS checker looks with backoff (5 s doubling to 1 h), a verify looks now');
    if (await ctx.waitUntil(() => pending.verify, left)) return true;
  }
  await ctx.transition('gave_up', 'no correct DNS after 14 days');
  return false;
}

/**
 * The hostname still points elsewhere: one step of its move — ownership TXT, then the certificate
 * by DNS-01 through the delegated CNAME (activities/moves.ts). Its outcome lives on the domain's
 * tracks in Postgres; a failure here never stops the DNS wait.
 */
async function moveStep(ctx: DomainContext): Promise<void> {
  try {
    const step = await moveLocal.advanceMove.executeWithOptions({ ...moveLocalOptions, summary: `zero-downtime move of ${ctx.hostname}: ownership TXT, delegated DNS-01 certificate` }, [{ domainId: ctx.domainId }]);
    if (!step.enabled) ctx.carry.movesOff = true;
  } catch (error) {
    if (!(error instanceof ActivityFailure)) throw error;
    log.warn('move step failed; the next DNS check tries again', { domainId: ctx.domainId, error: error.message });
  }
}

/**
 * A periodic check on the DNS task queue; null when a verify signal arrived first (the check is
 * then cancelled, and its late answer, if any, changes nothing: moves are guarded by `expectedSeq`
 * and an older check never overwrites a newer one).
 */
async function periodicCheck(ctx: DomainContext, input: VerifyDnsInput): Promise<VerifyAndIssueResult | null> {
  const summary = `DNS check #${ctx.carry.dnsChecks + 1} of ${ctx.hostname} (periodic, DNS task queue)`;
  const scope = new CancellationScope();
  let finished = false;
  const checking = scope.run(() => dnsBackground().recheckDns.executeWithOptions({ ...dnsBackgroundOptions, summary }, [input]))
    .finally(() => { finished = true; });
  // The check's own outcome decides unless a verify came first.
  checking.catch(() => undefined);
  await condition(() => finished || ctx.pending.verify);
  if (!finished) {
    scope.cancel();
    return null;
  }
  return await checking;
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
    carry.certificate = { id: issuance.certificate.certificateId, notBefore: Date.parse(issuance.certificate.notBefore), notAfter: Date.parse(issuance.certificate.notAfter),
      // The customer's own certificate, in place before DNS pointed here (no order was placed).
      ...(issuance.certificate.custom ? { custom: true } : {}) };
    // Already due for renewal: a problem and the backoff, not another order at once (issue 22).
    if (!carry.certificate.custom && lifetimeAware() && dueOnArrival(carry.certificate, Math.max(Date.now(), issuance.certificate.answeredAt ? Date.parse(issuance.certificate.answeredAt) : 0))) {
      carry.certFailures++;
      await CancellationScope.nonCancellable(() => lifecycleStore.certificateTrouble({ domainId: ctx.domainId, kind: 'due_on_arrival', problem: dueOnArrivalProblem(carry.certificate!) }));
    }
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
    await ctx.transition('gave_up', `no correct DNS after 14 days: ${result.problem?.code ?? 'unknown'}`);
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
