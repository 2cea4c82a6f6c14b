// The customer's own certificate in the domain workflow (issue 22, part B; docs/custom-certificates.md).
// A `certificate` signal (PUT or DELETE of it) makes the workflow take the current certificate in:
// a custom one in place stops managed issuance (pending_certificate waits for an edge to serve it,
// active waits for its takeover time instead of renewing); none in place (removed) means a
// managed order now. Near its end, if DNS points here, a managed certificate replaces it.
import { CancellationScope, patched } from '@temporalio/workflow';
import { dnsLocal, dnsLocalOptions, lifecycleStore, store } from '../activity-proxies.ts';
import type { DomainContext } from '../context.ts';

/**
 * Patch id of taking the current certificate in on a `certificate` signal. Histories recorded
 * before it never got that signal; the marker keeps a worker of the previous version from
 * replaying a run that took the step.
 */
export const CUSTOM_CERTIFICATE_PATCH = 'custom-certificate';

/** After a `certificate` signal: the current certificate becomes the one the phases work on. */
export async function takeCurrentCertificate(ctx: DomainContext): Promise<void> {
  ctx.pending.certificate = false;
  if (!patched(CUSTOM_CERTIFICATE_PATCH)) return;
  // Null when the current one is a custom certificate taken out of place: order a managed one.
  ctx.carry.certificate = await CancellationScope.nonCancellable(() => store.latestCertificate({ domainId: ctx.domainId }));
  ctx.carry.certFailures = 0;
}

/**
 * A custom certificate at its takeover time: if DNS points here, it is withdrawn (still served
 * until the managed one is stored) and true is returned — the caller orders a managed one. Else
 * false: the caller waits and asks again (the customer may still upload a renewed one).
 */
export async function takeOverLapsing(ctx: DomainContext, cert: { id: string }): Promise<boolean> {
  const check = await dnsLocal.checkDns.executeWithOptions({ ...dnsLocalOptions, summary: `DNS check of ${ctx.hostname} before replacing its lapsing custom certificate` }, [{ domainId: ctx.domainId }]);
  if (!check.ok) return false;
  await CancellationScope.nonCancellable(() => lifecycleStore.withdrawLapsingCustom({ domainId: ctx.domainId, certificateId: cert.id }));
  return true;
}
