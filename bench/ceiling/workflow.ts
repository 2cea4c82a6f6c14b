// The ceiling probe's workflow (bench/ceiling/main.ts): one local activity, then done — the
// least a webhook delivery can cost the server (one eager start, one workflow task completion).
import { proxyLocalActivities } from '@temporalio/workflow';
import type { ceilingActivities } from './activities.ts';

const { touch } = proxyLocalActivities<typeof ceilingActivities>({ startToCloseTimeout: '1 minute' });

export async function oneLocalActivityWorkflow(n: number): Promise<number> {
  return touch(n);
}
