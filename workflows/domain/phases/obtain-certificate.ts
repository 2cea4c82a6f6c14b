// pending_certificate: a DNS check unless one just found DNS right, then a certificate; refusals
// back off (at once on verify) and after CERT_MAX_FAILURES the domain is failed. A certificate
// due on arrival backs off like a refusal; the per-domain brake is waited out (certificate-pace.ts).
import { CancellationScope, patched } from '@temporalio/workflow';
import { dueOnArrival, dueOnArrivalProblem } from '../../../model/certificate-lifetime.ts';
import { dnsLocal, dnsLocalOptions, lifecycleStore, moveStore, store } from '../activity-proxies.ts';
import { backoff, CERT_BACKOFF_CAP, CERT_BACKOFF_FIRST, CERT_MAX_FAILURES } from '../../../model/domain-backoff.ts';
import type { DomainContext } from '../context.ts';
import { awaitDeployment } from './await-deployment.ts';
import { lifetimeAware, usable, waitForBrake } from './certificate-pace.ts';
import { issue } from './issue.ts';
import { MOVES_PATCH } from './wait-for-dns.ts';

/** How long a successful DNS check stands in for the check before issuance. */
const JUST_VERIFIED_MS = 60_000;

export async function obtainCertificate(ctx: DomainContext): Promise<void> {
  const { carry, pending, domainId, hostname } = ctx;
  const aware = lifetimeAware();
  // The customer's own certificate is in place: no order; active once an edge serves it.
  if (carry.certificate?.custom) return awaitDeployment(ctx);
  // A zero-downtime move's certificate, obtained before DNS pointed here, when the check that
  // moved the domain did not take it in (the periodic one on the DNS task queue issues nothing).
  if (!carry.certificate && !carry.movesOff && patched(MOVES_PATCH)) carry.certificate = await moveStore.heldCertificate({ domainId });
  // Issued but not yet served (an edge must deploy it before the domain is active).
  if (carry.certificate && usable(carry.certificate, Date.now(), aware)) return awaitDeployment(ctx);
  for (;;) {
    if (carry.certFailures > 0) {
      const delay = backoff(carry.certFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP);
      ctx.details(`certificate refused ${carry.certFailures}×; retrying in ${Math.round(delay / 1000)} s or on verify`);
      pending.verify = false;
      await ctx.waitUntil(() => pending.verify, delay);
    }
    ctx.details('obtaining a certificate');
    // The CA validates through DNS too: if it no longer points here, go back to waiting. (Not
    // when a check found it right a moment ago in this run: that is the verify burst's path.)
    const justVerified = carry.certFailures === 0 && ctx.dnsVerifiedAt !== null && Date.now() - ctx.dnsVerifiedAt < JUST_VERIFIED_MS;
    if (!justVerified) {
      const check = await dnsLocal.checkDns.executeWithOptions({ ...dnsLocalOptions, summary: `DNS check of ${hostname} before issuance` }, [{ domainId }]);
      if (!check.ok && !check.retryable) {
        await ctx.transition('dns_lost', 'DNS changed before issuance');
        return;
      }
    }
    ctx.dnsVerifiedAt = null;
    const result = await issue(ctx, ctx.state.seq);
    if (result.ok) {
      carry.certificate = result.certificate;
      if (result.state) ctx.adopt(result.state);
      if (!aware || !dueOnArrival(result.certificate, result.arrivedAt)) {
        carry.certFailures = 0;
        return;
      }
      // Already due: ordering again now would loop. A problem, and the refusal backoff.
      carry.certFailures++;
      await CancellationScope.nonCancellable(() => lifecycleStore.certificateTrouble({ domainId, kind: 'due_on_arrival', problem: dueOnArrivalProblem(result.certificate) }));
      // Finalize activated it (no edge to wait for): the active phase paces its renewal.
      if (ctx.state.status !== 'pending_certificate') return;
    } else if (aware && result.retryAt !== null) {
      // The per-domain brake (the activity recorded the history row): not a failure, a wait.
      await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: result.problem }));
      await waitForBrake(ctx, result.retryAt);
      if (ctx.turnEndsRun()) return;
      continue;
    } else {
      carry.certFailures++;
      await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: result.problem }));
    }
    if (carry.certFailures >= CERT_MAX_FAILURES) {
      await ctx.transition('gave_up', `certificate refused ${carry.certFailures} times: ${result.ok ? 'certificate_due_on_arrival' : result.problem.code}`);
      return;
    }
    if (aware && ctx.turnEndsRun()) return;
  }
}
