// The only module that creates or changes the maintenance Schedules: at every worker start, one
// Schedule per retention target is created, or updated to today's interval, periods and batch
// when it exists (idempotent: any number of workers may start at once). Runs that overlap are
// skipped (SKIP, the default); a worker fleet that was down catches up at most once.
import { ScheduleAlreadyRunning, type Client } from '@temporalio/client';
import type { Duration } from '@temporalio/common';
import type { retentionWorkflow } from '../../workflows/maintenance/workflows.ts';
import { RETENTION_EVERY, RETENTION_TARGETS, retentionScheduleId, retentionWorkflowId, type RetentionPeriods, type RetentionTarget } from '../../contracts/retention.ts';

export interface RetentionScheduleOptions {
  taskQueue: string;
  periods: RetentionPeriods;
  batch: number;
  /** Interval per target (default RETENTION_EVERY). */
  every?: Partial<Record<RetentionTarget, Duration>>;
}

/** Creates or updates every retention Schedule; returns what it did per schedule id. */
export async function ensureRetentionSchedules(client: Client, options: RetentionScheduleOptions): Promise<Record<string, 'created' | 'updated'>> {
  const done: Record<string, 'created' | 'updated'> = {};
  for (const target of RETENTION_TARGETS) {
    const scheduleId = retentionScheduleId(target, options.taskQueue);
    const spec = { intervals: [{ every: options.every?.[target] ?? RETENTION_EVERY[target] }] };
    const action = {
      type: 'startWorkflow' as const,
      workflowType: 'retentionWorkflow',
      workflowId: retentionWorkflowId(target, options.taskQueue),
      taskQueue: options.taskQueue,
      args: [{ target, periods: options.periods, batch: options.batch }] as Parameters<typeof retentionWorkflow>,
      // A purge that cannot finish in an hour is stuck; the next scheduled run starts afresh.
      workflowRunTimeout: '1 hour',
    };
    const memo = { purpose: `Hostgate retention: deletes ${target} rows past their retention period in batches of ${options.batch} (docs/operations.md)` };
    try {
      await client.schedule.create({ scheduleId, spec, action, memo, policies: { catchupWindow: '1 hour' } });
      done[scheduleId] = 'created';
    } catch (error) {
      if (!(error instanceof ScheduleAlreadyRunning)) throw error;
      await client.schedule.getHandle(scheduleId).update((previous) => ({ ...previous, spec, action }));
      done[scheduleId] = 'updated';
    }
  }
  return done;
}
