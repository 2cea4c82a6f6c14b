// Retention as a workflow: batches of one target until a batch comes back short, each batch one
// activity (bounded: `batch` rows per statement); a run that reaches `maxBatchesPerRun` continues
// as new so its history stays short however much there is to purge. Started by its Schedule
// (temporal/clients/retention-schedules.ts); a run still going when the next is due makes that one skip.
import { continueAsNew, log, proxyActivities } from '@temporalio/workflow';
import type { createMaintenanceActivities } from '../../activities/maintenance.ts';
import type { RetentionInput, RetentionResult } from '../../contracts/retention.ts';

const { purgeBatch } = proxyActivities<ReturnType<typeof createMaintenanceActivities>>({
  // One bounded DELETE; Postgres being away is retried, not a reason to fail the run.
  startToCloseTimeout: '2 minutes',
  retry: { initialInterval: '5 seconds', backoffCoefficient: 2, maximumInterval: '5 minutes' },
});

const DEFAULT_MAX_BATCHES_PER_RUN = 200;

export async function retentionWorkflow(input: RetentionInput): Promise<RetentionResult> {
  const max = input.maxBatchesPerRun ?? DEFAULT_MAX_BATCHES_PER_RUN;
  let deleted = input.deletedBefore ?? 0;
  for (let batches = 1; ; batches++) {
    const n = await purgeBatch({ target: input.target, periods: input.periods, limit: input.batch });
    deleted += n;
    if (n < input.batch) {
      if (deleted > 0) log.info('retention run done', { target: input.target, deleted });
      return { target: input.target, deleted, batches };
    }
    if (batches >= max) return continueAsNew<typeof retentionWorkflow>({ ...input, deletedBefore: deleted });
  }
}
