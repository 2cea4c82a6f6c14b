// Workflow histories: where the time between the verify signal and `active` goes, step by step.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { inParallel } from '../support/run.ts';

// @temporalio/proto is CommonJS whose exports Node cannot detect statically.
const { temporal } = proto;

type Ts = { seconds?: { toString(): string } | number | null; nanos?: number | null } | null | undefined;
const tsMs = (ts: Ts) => (ts ? Number(ts.seconds?.toString() ?? 0) * 1000 + (ts.nanos ?? 0) / 1e6 : Number.NaN);

export interface StepTimes { local: boolean; doneAfterSignal: number[]; took: number[]; queued: number[]; retries: number }
export interface StepReport { keys: string[]; steps: Map<string, StepTimes>; signalDelay: number[]; eventsAfterSignal: number[]; workflowTasksAfterSignal: number[] }

/** What a local activity marker says about its run (sdk-core's `core_local_activity` marker data). */
function localActivityMarker(e: { markerRecordedEventAttributes?: { markerName?: string | null; details?: Record<string, { payloads?: Array<{ data?: Uint8Array | null }> | null }> | null } | null }): { type: string; completedAt: number; attempt: number } | null {
  const attrs = e.markerRecordedEventAttributes;
  if (attrs?.markerName !== 'core_local_activity') return null;
  const raw = attrs.details?.data?.payloads?.[0]?.data;
  if (!raw) return null;
  try {
    const data = JSON.parse(Buffer.from(raw).toString('utf8')) as { activity_type?: string; complete_time?: Ts & { seconds?: number }; attempt?: number };
    return { type: data.activity_type ?? '?', completedAt: tsMs(data.complete_time), attempt: data.attempt ?? 1 };
  } catch {
    return null;
  }
}

/**
 * Per step after the first `verify` signal, keyed `name` or `name #n` for repeats, in order:
 * activities (scheduled → started → completed events) and local activities (their markers, which
 * carry the completion time). "took" = this step done − previous step done (or the signal).
 * With `sentAt` (when each verify request was sent) also the delay until the signal was recorded.
 */
export async function activitySteps(client: Client, ids: readonly string[], sentAt: Map<string, number> | null): Promise<StepReport> {
  const E = temporal.api.enums.v1.EventType;
  const steps = new Map<string, StepTimes>();
  const keys: string[] = [];
  const report: StepReport = { keys, steps, signalDelay: [], eventsAfterSignal: [], workflowTasksAfterSignal: [] };
  await inParallel(ids, 8, async (id) => {
    const history = await client.workflow.getHandle(`domain/${id}`).fetchHistory();
    const events = history.events ?? [];
    const signal = events.findIndex((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED && e.workflowExecutionSignaledEventAttributes?.signalName === 'verify');
    if (signal < 0) return;
    const signalAt = tsMs(events[signal]!.eventTime);
    let lastDone = signalAt;
    const sent = sentAt?.get(id);
    if (sent !== undefined) report.signalDelay.push(signalAt - sent);
    const after = events.slice(signal + 1);
    report.eventsAfterSignal.push(after.length);
    report.workflowTasksAfterSignal.push(after.filter((e) => e.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED).length);
    const scheduled = new Map<string, { key: string; at: number; started: number; attempt: number }>();
    const seen = new Map<string, number>();
    const step = (name: string, local: boolean) => {
      const n = (seen.get(name) ?? 0) + 1;
      seen.set(name, n);
      const key = `${n === 1 ? name : `${name} #${n}`}${local ? ' (local)' : ''}`;
      let entry = steps.get(key);
      if (!entry) { entry = { local, doneAfterSignal: [], took: [], queued: [], retries: 0 }; steps.set(key, entry); if (!keys.includes(key)) keys.push(key); }
      return { key, entry };
    };
    const done = (entry: StepTimes, at: number, attempt: number) => {
      entry.doneAfterSignal.push(at - signalAt);
      entry.took.push(at - lastDone);
      entry.retries += attempt - 1;
      lastDone = at;
    };
    for (const e of after) {
      const at = tsMs(e.eventTime);
      if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED) {
        const { key } = step(e.activityTaskScheduledEventAttributes?.activityType?.name ?? '?', false);
        scheduled.set(String(e.eventId), { key, at, started: Number.NaN, attempt: 1 });
      } else if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_STARTED) {
        const s = scheduled.get(String(e.activityTaskStartedEventAttributes?.scheduledEventId));
        if (s) { s.started = at; s.attempt = e.activityTaskStartedEventAttributes?.attempt ?? 1; }
      } else if (e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED || e.eventType === E.EVENT_TYPE_ACTIVITY_TASK_FAILED) {
        const attrs = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
        const s = scheduled.get(String(attrs?.scheduledEventId));
        if (!s) continue;
        const entry = steps.get(s.key)!;
        entry.queued.push(s.started - s.at);
        done(entry, at, s.attempt);
      } else if (e.eventType === E.EVENT_TYPE_MARKER_RECORDED) {
        const marker = localActivityMarker(e as never);
        if (!marker) continue;
        done(step(marker.type, true).entry, Number.isFinite(marker.completedAt) ? marker.completedAt : at, marker.attempt);
      }
    }
  });
  return report;
}
