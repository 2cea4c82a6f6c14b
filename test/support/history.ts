// Reading workflow histories in tests: which activities ran, whether as activities (scheduled
// events) or as local activities (sdk-core's `core_local_activity` markers).
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The activity type a local activity marker records, or null for other events. */
export function localActivityType(event: HistoryEvent): string | null {
  const attrs = event.markerRecordedEventAttributes;
  if (attrs?.markerName !== 'core_local_activity') return null;
  const raw = attrs.details?.data?.payloads?.[0]?.data;
  if (!raw) return null;
  try {
    return (JSON.parse(Buffer.from(raw).toString('utf8')) as { activity_type?: string }).activity_type ?? null;
  } catch {
    return null;
  }
}

/** Activity types run in this history, in order, each once per run (local or not). */
export function activityRuns(events: readonly HistoryEvent[]): string[] {
  return events.flatMap((e) => {
    const scheduled = e.activityTaskScheduledEventAttributes?.activityType?.name;
    if (scheduled) return [scheduled];
    const local = localActivityType(e);
    return local ? [local] : [];
  });
}

/** Every run's events of a workflow, oldest run first (following continue-as-new backwards). */
export async function historyOfAllRuns(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  const runs: HistoryEvent[][] = [];
  let runId: string | undefined;
  for (;;) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.unshift(events);
    const previous = events[0]?.workflowExecutionStartedEventAttributes?.continuedExecutionRunId;
    if (!previous) return runs.flat();
    runId = previous;
  }
}
