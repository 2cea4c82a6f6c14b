// The phases that only wait for a person: suspended (resume or delete) and failed (verify,
// resume or delete starts over).
import type { DomainContext } from '../context.ts';

export async function suspended(ctx: DomainContext): Promise<void> {
  const { carry, pending } = ctx;
  ctx.details('suspended; waiting for resume or delete');
  await ctx.waitUntil(() => pending.delete || pending.resume);
  if (pending.resume && !pending.delete) {
    pending.resume = false;
    carry.dnsWaitStartedAt = null;
    await ctx.transition('resume', 'resumed');
  }
}

export async function failed(ctx: DomainContext): Promise<void> {
  const { carry, pending } = ctx;
  ctx.details('failed; a verify or resume request starts over');
  await ctx.waitUntil(() => pending.delete || pending.verify || pending.resume);
  if (!pending.delete) {
    pending.verify = false;
    pending.resume = false;
    carry.dnsWaitStartedAt = null;
    carry.certFailures = 0;
    await ctx.transition('retry', 'retry requested');
  }
}
