// Switches of the Temporal SDK's workflow sandbox that are not WorkerOptions but settings our patch of
// @temporalio/worker reads (patches/@temporalio+worker+1.24.0.patch, docs/scale.md "The workflow
// sandbox's own costs"). Each workflow thread copies the process environment when the SDK starts it,
// inside Worker.create, so a switch set here holds for the workers created after it.
import { fileURLToPath } from 'node:url';

/** The SDK's variable: '0' leaves out the per-promise stack capture behind the `__stack_trace` query. */
export const WORKFLOW_STACK_TRACES_VARIABLE = 'TEMPORAL_WORKFLOW_STACK_TRACES';

/**
 * Ours, read by the patch: each workflow thread loads the module named (worker/idle-gc.ts, the main
 * thread's own rule) and runs it with these settings and without the burst condition.
 */
export const IDLE_GC_MODULE_VARIABLE = 'HOSTGATE_WORKER_IDLE_GC_MODULE';
export const IDLE_GC_MS_VARIABLE = 'HOSTGATE_WORKER_IDLE_GC_MS';
export const IDLE_GC_GROWTH_MB_VARIABLE = 'HOSTGATE_WORKER_IDLE_GC_GROWTH_MB';
export const IDLE_GC_HIGH_WATER_MB_VARIABLE = 'HOSTGATE_WORKER_IDLE_GC_HIGH_WATER_MB';

export function applySdkSwitches(options: { workflowStackTraces: boolean; idleGc?: { periodMs: number; growthMb: number; highWaterMb: number } }): void {
  process.env[WORKFLOW_STACK_TRACES_VARIABLE] = options.workflowStackTraces ? '1' : '0';
  if (!options.idleGc) return;
  process.env[IDLE_GC_MODULE_VARIABLE] = fileURLToPath(new URL('./idle-gc.ts', import.meta.url));
  process.env[IDLE_GC_MS_VARIABLE] = String(options.idleGc.periodMs);
  process.env[IDLE_GC_GROWTH_MB_VARIABLE] = String(options.idleGc.growthMb);
  process.env[IDLE_GC_HIGH_WATER_MB_VARIABLE] = String(options.idleGc.highWaterMb);
}
