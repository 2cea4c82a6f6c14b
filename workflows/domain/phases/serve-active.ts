// active: renew the certificate at two thirds of its lifetime (model/certificate-lifetime.ts),
// re-check DNS every few hours and flag (not stop) a domain whose DNS moved away; returns when the
// run is long enough. A renewal that fails, or yields a certificate already due, backs off; the
// per-domain brake is waited out; expiry notices go out when due (certificate-pace.ts).
import { CancellationScope } from '@temporalio/workflow';
import { customTakeoverAt, dueOnArrival, dueOnArrivalProblem, expiryNoticeTimes, renewsAt } from '../../../model/certificate-lifetime.ts';
import { dnsLocal, dnsLocalOptions, lifecycleStore, store } from '../activity-proxies.ts';
import { ACTIVE_DNS_RECHECK, backoff, CERT_BACKOFF_CAP, CERT_BACKOFF_FIRST, renewalTime } from '../../../model/domain-backoff.ts';
import type { DomainContext } from '../context.ts';
import { expiryNotices, lifetimeAware, waitForBrake } from './certificate-pace.ts';
import { takeOverLapsing } from './custom-certificate.ts';
import { issue } from './issue.ts';

export async function serveActive(ctx: DomainContext): Promise<void> {
  const { carry, pending, domainId, hostname } = ctx;
  carry.certificate ??= await store.latestCertificate({ domainId });
  const aware = lifetimeAware();
  let renewFailures = 0;
  for (;;) {
    const cert = carry.certificate;
    // A custom certificate is not renewed: a managed one takes over near its end (if DNS points here).
    const renewAt = cert ? (cert.custom ? customTakeoverAt(cert) : aware ? renewsAt(cert) : renewalTime(cert.notBefore, cert.notAfter)) : Date.now();
    if (aware) await expiryNotices(ctx, cert);
    if (Date.now() >= renewAt && cert?.custom) {
      if (!(await takeOverLapsing(ctx, cert))) {
        ctx.details(`custom certificate lapses ${new Date(cert.notAfter).toISOString()}; DNS does not point here, so no managed one is ordered yet`);
        pending.verify = false;
        // Asked again at the DNS re-check's pace (or on verify), before and after it lapses.
        await ctx.waitUntil(() => pending.verify, ACTIVE_DNS_RECHECK);
        if (ctx.turnEndsRun()) return;
        continue;
      }
      // Withdrawn (still served until the managed one is stored): renewed like a managed one, now.
      carry.certificate = { id: cert.id, notBefore: cert.notBefore, notAfter: cert.notAfter };
      carry.certFailures = 0;
    }
    if (Date.now() >= renewAt) {
      // A certificate that came due on arrival, or a refused renewal, backs off before the next
      // order (the count is the carry's: obtain-certificate.ts and the verify path share it).
      if (aware && carry.certFailures > 0) {
        const delay = backoff(carry.certFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP);
        ctx.details(`renewal failed ${carry.certFailures}×; retrying in ${Math.round(delay / 1000)} s or on verify`);
        pending.verify = false;
        await ctx.waitUntil(() => pending.verify, delay);
      }
      ctx.details('renewing the certificate');
      // (Finalize clears an earlier problem itself.)
      const result = await issue(ctx);
      if (result.ok) {
        carry.certificate = result.certificate;
        renewFailures = 0;
        if (aware && dueOnArrival(result.certificate, result.arrivedAt)) {
          carry.certFailures++;
          await CancellationScope.nonCancellable(() => lifecycleStore.certificateTrouble({ domainId, kind: 'due_on_arrival', problem: dueOnArrivalProblem(result.certificate) }));
        } else carry.certFailures = 0;
      } else if (aware) {
        await CancellationScope.nonCancellable(() => lifecycleStore.renewalFailed({ domainId, problem: result.problem }));
        if (result.retryAt !== null) await waitForBrake(ctx, result.retryAt);
        else carry.certFailures++;
      } else {
        renewFailures++;
        await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: result.problem }));
        await ctx.waitUntil(() => pending.verify, backoff(renewFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP));
      }
      if (aware && ctx.turnEndsRun()) return;
      continue;
    }
    let wait = Math.min(renewAt - Date.now(), ACTIVE_DNS_RECHECK);
    // Wake for the next expiry notice too (a certificate we serve but cannot renew early enough).
    if (aware && cert) {
      const next = expiryNoticeTimes(cert, cert.custom ? 'custom' : 'managed').find((n) => n.at > Date.now());
      if (next !== undefined) wait = Math.min(wait, next.at - Date.now());
    }
    ctx.details(`active; certificate renews ${new Date(renewAt).toISOString()}`);
    pending.verify = false;
    await ctx.waitUntil(() => pending.verify, wait);
    if (Date.now() < renewAt) {
      const check = await dnsLocal.checkDns.executeWithOptions({ ...dnsLocalOptions, summary: `DNS re-check of active ${hostname}` }, [{ domainId }]);
      if (!check.retryable) await CancellationScope.nonCancellable(() => store.setDnsBroken({ domainId, broken: !check.ok }));
    }
    if (ctx.turnEndsRun()) return;
  }
}
