import { continueAsNew, deprecatePatch } from '@temporalio/workflow';
import type { DomainWorkflowInput } from '../../contracts/domain-workflow.ts';
import { DomainContext } from './context.ts';
import { deleting } from './phases/deleting.ts';
import { takeCurrentCertificate } from './phases/custom-certificate.ts';
import { obtainCertificate } from './phases/obtain-certificate.ts';
import { serveActive } from './phases/serve-active.ts';
import { failed, suspended } from './phases/waiting.ts';
import { waitForDns } from './phases/wait-for-dns.ts';

/**
 * Patch id of the fast path (local activities, the DNS check that also moves the domain to
 * `pending_certificate`, issuance in one local attempt whose finalize also moves it to `active`,
 * search attributes written when the workflow waits). Every run takes it now: histories recorded
 * before it were retired (docs/api-decisions.md, "Domain workflow"). Deprecated rather than
 * removed so that runs recorded with its marker still replay; remove the call once no such run
 * can be open.
 */
export const FAST_PATH_PATCH = 'local-activities-merged-steps';

/**
 * One workflow per domain (`domain/<id>`): DNS wait → certificate → active (renewal, DNS
 * re-checks) with suspension and deletion at any point. Postgres mirrors every move through the
 * domain activities; the API reads Postgres, never this workflow.
 */
export async function domainLifecycleWorkflow(input: DomainWorkflowInput): Promise<void> {
  deprecatePatch(FAST_PATH_PATCH);
  const ctx = new DomainContext(input);
  try {
    await ctx.attach();
    await lifecycle(ctx);
  } finally {
    // The last status goes into the index before the run completes or continues as new.
    ctx.flushIndex();
  }
}

/** One phase per turn, chosen by the status in Postgres; pending delete and suspend come first. */
async function lifecycle(ctx: DomainContext): Promise<void> {
  const { pending } = ctx;
  for (;;) {
    if (pending.delete || ctx.state.status === 'deleting') return deleting(ctx);
    if (ctx.state.status === 'deleted') return;
    if (pending.suspend !== null) {
      const reason = pending.suspend;
      pending.suspend = null;
      if (ctx.state.status !== 'suspended') await ctx.transition('suspend', reason);
    }
    // The customer's own certificate was put in place or removed (phases/custom-certificate.ts).
    if (pending.certificate) await takeCurrentCertificate(ctx);
    if (ctx.turnEndsRun()) {
      return continueAsNew<typeof domainLifecycleWorkflow>({ ...ctx.input, carry: { ...ctx.carry, state: ctx.state } });
    }
    switch (ctx.state.status) {
      case 'pending_dns':
        ctx.details('waiting for DNS');
        await ctx.interruptible(waitForDns);
        break;
      case 'pending_certificate':
        await ctx.interruptible(obtainCertificate);
        break;
      case 'active':
        await ctx.interruptible(serveActive);
        break;
      case 'suspended':
        await suspended(ctx);
        break;
      case 'failed':
        await failed(ctx);
        break;
    }
  }
}
