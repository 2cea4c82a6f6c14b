// The maintenance area's contract: which retention runs exist, the ids of their Temporal
// Schedules (what operators find in the Web UI under Schedules), how often each runs, and what a
// run is given. Imports nothing of ours: db/repositories/retention.ts takes the target names and
// periods from here.
import type { Duration } from '@temporalio/common';

/** Every retention target, each on a schedule of its own. */
export const RETENTION_TARGETS = ['workflow-outbox', 'webhook-history', 'widget-sessions', 'idempotency-keys', 'certificate-attempts', 'traffic-minutes', 'traffic-hours'] as const;

/** What one retention run purges (also the name of its Temporal Schedule). */
export type RetentionTarget = (typeof RETENTION_TARGETS)[number];

export interface RetentionPeriods {
  /** Dispatched outbox rows (dead letters are kept as long as events, for diagnosis). */
  outboxDays: number;
  /** Events, finished webhook deliveries and their attempts. */
  eventsDays: number;
  /** Widget sessions, counted from their expiry. */
  widgetSessionsDays: number;
}

/**
 * Schedule id of a target: one per target and task queue (a fleet on another, versioned task
 * queue keeps schedules of its own; creating one that exists updates it instead).
 */
export function retentionScheduleId(target: RetentionTarget, taskQueue: string): string {
  return `retention/${target}@${taskQueue}`;
}

/** Workflow id of a scheduled run (the schedule appends the run's time). */
export function retentionWorkflowId(target: RetentionTarget, taskQueue: string): string {
  return `retention/${target}@${taskQueue}`;
}

/** How often each target is purged: often enough that one run stays a few batches. */
export const RETENTION_EVERY: Record<RetentionTarget, Duration> = {
  'workflow-outbox': '15m',
  'webhook-history': '1h',
  'widget-sessions': '1h',
  'idempotency-keys': '10m',
  'certificate-attempts': '1h',
  // Traffic analytics (docs/analytics.md): minute rows kept 48 h, hour rows 400 days.
  'traffic-minutes': '15m',
  'traffic-hours': '1h',
};

export interface RetentionInput {
  target: RetentionTarget;
  periods: RetentionPeriods;
  /** Rows one statement deletes at most. */
  batch: number;
  /** Batches one run deletes at most before it continues as new (bounded history). */
  maxBatchesPerRun?: number;
  /** Rows deleted by earlier runs of this chain (continue-as-new), for the result. */
  deletedBefore?: number;
}

export interface RetentionResult { target: RetentionTarget; deleted: number; batches: number }
