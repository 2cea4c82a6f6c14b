// The first-task shapes bench/temporal-start/main.ts compares: a domain workflow's first task is a
// local activity (attach) and a 14-day timer (the DNS wait); each shape leaves one or both out. A
// sink (no history event, no server call) tells the bench when the first task has run.
import { condition, proxyLocalActivities, proxySinks, type Sinks } from '@temporalio/workflow';

export interface FirstTaskSinks extends Sinks { probe: { firstTaskDone(): void } }
const { probe } = proxySinks<FirstTaskSinks>();
const { touch } = proxyLocalActivities<{ touch(): Promise<void> }>({ startToCloseTimeout: '1 minute' });
const FOURTEEN_DAYS = 14 * 24 * 3600 * 1000;

export async function localActivityAndTimer(): Promise<void> {
  await touch();
  probe.firstTaskDone();
  await condition(() => false, FOURTEEN_DAYS);
}
export async function timerOnly(): Promise<void> {
  probe.firstTaskDone();
  await condition(() => false, FOURTEEN_DAYS);
}
export async function localActivityOnly(): Promise<void> {
  await touch();
  probe.firstTaskDone();
  await condition(() => false);
}
export async function nothing(): Promise<void> {
  probe.firstTaskDone();
  await condition(() => false);
}
