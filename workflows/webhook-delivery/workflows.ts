import {
  ActivityFailure, ApplicationFailure, condition, continueAsNew, patched, proxyActivities, proxyLocalActivities, setCurrentDetails,
  setHandler, upsertSearchAttributes, workflowInfo, type ActivityOptions, type LocalActivityOptions,
} from '@temporalio/workflow';
import type { createWebhookActivities } from '../../activities/webhooks.ts';
import { HostgateAttempt, HostgateDeliveryStatus, HostgateNextAttemptAt } from '../../contracts/search-attributes.ts';
import type { WebhookDeliveryInput, WebhookDeliveryResult } from '../../contracts/webhook-delivery-workflow.ts';
import { MAX_ATTEMPTS, plannedDelay } from '../../model/webhook-schedule.ts';
import { deliveryStateQuery, retrySignal, type DeliveryWorkflowState } from './signals.ts';

// One attempt = load, sign, POST (at most HOSTGATE_WEBHOOK_TIMEOUT_MS, 15 s by default), record.
// The workflow owns the schedule: an HTTP failure is a result, never an activity failure, so this
// retry policy only covers infrastructure (Postgres down, the worker dying mid-attempt — the
// heartbeat notices within 5 s and the attempt runs again on another worker, same event id).
const attemptOptions: ActivityOptions = {
  startToCloseTimeout: '2 minutes',
  heartbeatTimeout: '5 seconds',
  retry: { initialInterval: '1 second', backoffCoefficient: 2, maximumInterval: '1 minute', nonRetryableErrorTypes: ['DeliveryNotFound'] },
};
const delivery = proxyActivities<ReturnType<typeof createWebhookActivities>>(attemptOptions);

// The first attempt of a run is a LOCAL activity with ONE try: it runs inside the workflow task
// the start handed to the worker (eager start, temporal/clients/webhook-delivery.ts), so a
// delivery that succeeds at once costs the server one start and one task completion instead of
// an activity task and a second workflow task (bench:webhooks; docs/scale.md, "Webhooks"). Its
// deadline covers the HTTP deadline (HOSTGATE_WEBHOOK_TIMEOUT_MS, 15 s by default) plus the lookup
// queue (5 s) and Postgres. If that try throws for any reason but a missing delivery (Postgres
// away, all lookups busy, the deadline, a crash), the same attempt runs again as the regular
// activity above, with its retry policy and heartbeats: at least once, as before.
const firstAttemptOptions: LocalActivityOptions = { startToCloseTimeout: '1 minute', retry: { maximumAttempts: 1 } };
const firstAttempt = proxyLocalActivities<ReturnType<typeof createWebhookActivities>>(firstAttemptOptions);
/** Runs recorded before it made their first attempt a regular activity (test/histories/webhook-delivery-activity-first-*). */
export const LOCAL_FIRST_ATTEMPT_PATCH = 'webhook-first-attempt-local';

const deliveryMissing = (error: unknown) => error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === 'DeliveryNotFound';

/** Histories stay short even for a delivery retried over and over. */
const MAX_HISTORY_EVENTS = 2_000;

/**
 * One workflow per delivery (`webhook-delivery/<id>`): attempt at once, then wait the scheduled,
 * jittered gap on a durable timer (longer when the receiver sent Retry-After), up to 8 attempts.
 * The `retry` signal resets the count and attempts at once, cutting a wait short; a retry that
 * arrives while an attempt is running is served right after it. Postgres mirrors every attempt
 * through the activity; the API reads Postgres, never this workflow.
 */
export async function webhookDeliveryWorkflow(input: WebhookDeliveryInput): Promise<WebhookDeliveryResult> {
  const { deliveryId } = input;
  const state: DeliveryWorkflowState = { attempt: input.carry?.attempt ?? 0, nextAttemptAt: null, status: 'pending', retries: 0 };
  let retryRequested = false;
  setHandler(retrySignal, () => { retryRequested = true; state.retries++; });
  setHandler(deliveryStateQuery, () => state);

  // Search attributes are on unless the server cannot index them (time-skipping test server).
  // The start sets endpoint, organization, status `pending` and attempt 1 (the first attempt is
  // immediate); the workflow updates them only when they change, since every upsert is a
  // visibility write on the server's hot path.
  const index: typeof upsertSearchAttributes = (attributes) => { if (input.searchAttributes !== false) upsertSearchAttributes(attributes); };
  const details = (text: string) => setCurrentDetails(`**${input.event}** delivery ${deliveryId} to ${input.endpointId}: ${text}`);
  let indexedAttempt = input.carry ? -1 : 1;
  // A continued run clears the next-attempt time the previous run indexed.
  let waiting = Boolean(input.carry);

  const finish = (status: WebhookDeliveryResult['status']): WebhookDeliveryResult => {
    state.status = status;
    state.nextAttemptAt = null;
    index([{ key: HostgateDeliveryStatus, value: status }, ...(waiting ? [{ key: HostgateNextAttemptAt, value: null }] : [])]);
    details(`${status} after ${state.attempt} attempt${state.attempt === 1 ? '' : 's'}`);
    return { status, attempts: state.attempt };
  };

  let waitMs = input.carry?.waitMs ?? 0;
  let firstOfRun = true;
  for (;;) {
    if (waitMs > 0 && !retryRequested) {
      const at = new Date(Date.now() + waitMs);
      state.nextAttemptAt = at.toISOString();
      index([{ key: HostgateNextAttemptAt, value: at }]);
      waiting = true;
      details(`attempt ${state.attempt} failed; attempt ${state.attempt + 1} at ${state.nextAttemptAt} or on retry`);
      await condition(() => retryRequested, waitMs);
      if (!retryRequested && (workflowInfo().continueAsNewSuggested || workflowInfo().historyLength > MAX_HISTORY_EVENTS)) {
        return continueAsNew<typeof webhookDeliveryWorkflow>({ ...input, carry: { attempt: state.attempt, waitMs: 0 } });
      }
    }
    waitMs = 0;
    const redelivery = retryRequested;
    if (retryRequested) {
      retryRequested = false;
      state.attempt = 0;
    }
    state.attempt++;
    state.nextAttemptAt = null;
    // Jitter is drawn here, in the workflow, so the schedule replays exactly.
    const planned = plannedDelay(state.attempt);
    if (state.attempt !== indexedAttempt || waiting) {
      index([{ key: HostgateAttempt, value: state.attempt }, ...(waiting ? [{ key: HostgateNextAttemptAt, value: null }] : [])]);
      indexedAttempt = state.attempt;
      waiting = false;
    }
    details(`attempt ${state.attempt} of ${MAX_ATTEMPTS}`);

    const args = [{ deliveryId, attempt: state.attempt, redelivery, plannedDelayMs: planned }] as const;
    const summary = `attempt ${state.attempt}${redelivery ? ' (retry requested)' : ''}`;
    let result;
    try {
      if (firstOfRun && patched(LOCAL_FIRST_ATTEMPT_PATCH)) {
        result = await firstAttempt.attemptWebhookDelivery.executeWithOptions({ ...firstAttemptOptions, summary: `${summary}, local` }, [...args])
          .catch((error: unknown) => { if (deliveryMissing(error)) throw error; return null; });
      }
      firstOfRun = false;
      result ??= await delivery.attemptWebhookDelivery.executeWithOptions({ ...attemptOptions, summary }, [...args]);
    } catch (error) {
      if (deliveryMissing(error)) return finish('missing');
      throw error;
    }
    // A retry requested while the attempt ran is served now, whatever that attempt's outcome.
    if (retryRequested) continue;
    if (result.nextDelayMs === null) {
      return finish(result.outcome === 'skipped' ? 'skipped' : result.status === 'succeeded' ? 'succeeded' : 'failed');
    }
    waitMs = result.nextDelayMs;
  }
}
