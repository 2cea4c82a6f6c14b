// deleting → deleted: whatever the workflow was doing has been cancelled; remove challenge
// tokens and key material, then the run ends.
import { CancellationScope, log } from '@temporalio/workflow';
import { store } from '../activity-proxies.ts';
import type { DomainContext } from '../context.ts';

export async function deleting(ctx: DomainContext): Promise<void> {
  const { domainId } = ctx;
  ctx.details('deleting: cleaning up');
  if (ctx.state.status !== 'deleting' && ctx.state.status !== 'deleted') await ctx.transition('delete', 'deletion requested');
  ctx.adopt(await CancellationScope.nonCancellable(() => store.finishDeletion({ domainId })));
  log.info('domain deleted', { domainId });
}
