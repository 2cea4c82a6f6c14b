// active: renew the certificate at two thirds of its lifetime, re-check DNS every few hours and
// flag (not stop) a domain whose DNS moved away; returns when the run is long enough.
import { CancellationScope } from '@temporalio/workflow';
import { dnsLocal, dnsLocalOptions, store } from '../activity-proxies.ts';
import { ACTIVE_DNS_RECHECK, backoff, CERT_BACKOFF_CAP, CERT_BACKOFF_FIRST, renewalTime } from '../backoff.ts';
import type { DomainContext } from '../context.ts';
import { issue } from './issue.ts';

export async function serveActive(ctx: DomainContext): Promise<void> {
  const { carry, pending, domainId, hostname } = ctx;
  carry.certificate ??= await store.latestCertificate({ domainId });
  let renewFailures = 0;
  for (;;) {
    const cert = carry.certificate;
    const renewAt = cert ? renewalTime(cert.notBefore, cert.notAfter) : Date.now();
    if (Date.now() >= renewAt) {
      ctx.details('renewing the certificate');
      // (Finalize clears an earlier problem itself.)
      const result = await issue(ctx);
      if (result.ok) {
        carry.certificate = result.certificate;
        renewFailures = 0;
      } else {
        renewFailures++;
        await CancellationScope.nonCancellable(() => store.recordProblem({ domainId, problem: result.problem }));
        await ctx.waitUntil(() => pending.verify, backoff(renewFailures, CERT_BACKOFF_FIRST, CERT_BACKOFF_CAP));
      }
      continue;
    }
    const wait = Math.min(renewAt - Date.now(), ACTIVE_DNS_RECHECK);
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
