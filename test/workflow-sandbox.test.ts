// The workflow sandbox as our patch of @temporalio/worker runs it (patches/@temporalio+worker+1.24.0.patch,
// docs/scale.md "The workflow sandbox's own costs"): one execution-timeout watchdog per activation
// instead of one per call into the sandbox, and the per-promise stack capture off unless asked for.
// Stuck workflow code must still fail its activation with the timeout, wherever in the activation it
// is stuck, and the worker must go on serving the other workflows.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, bundleWorkflowCode, makeTelemetryFilterString } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import { randomToken } from '../security/tokens.ts';
import { temporalAddress } from './support/temporal.ts';
import { waitFor } from './support/wait.ts';

const execFileAsync = promisify(execFile);
const EventType = temporal.api.enums.v1.EventType;
const workflowsPath = fileURLToPath(new URL('./fixtures/sandbox/workflows.ts', import.meta.url));

describe('workflow sandbox: one watchdog per activation, stack capture off by default', () => {
  let connection: Connection;
  let client: Client;
  let nativeConnection: NativeConnection;
  let workflowBundle: { code: string };

  beforeAll(async () => {
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* installed by another file in this registry */ }
    connection = await Connection.connect({ address: temporalAddress() });
    client = new Client({ connection, namespace: 'default' });
    nativeConnection = await NativeConnection.connect({ address: temporalAddress() });
    workflowBundle = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
  });
  afterAll(async () => {
    await nativeConnection?.close();
    await connection?.close();
  });

  /** A worker with a 1 s execution timeout, running `body` while it polls. */
  async function withWorker<T>(body: (taskQueue: string) => Promise<T>): Promise<T> {
    const taskQueue = `sandbox-${randomToken(8)}`;
    // isolateExecutionTimeout is read from the options although WorkerOptions' type leaves it out.
    const options = { connection: nativeConnection, namespace: 'default', taskQueue, workflowBundle, isolateExecutionTimeout: '1s' };
    const worker = await Worker.create(options as Parameters<typeof Worker.create>[0]);
    const running = worker.run();
    try {
      return await body(taskQueue);
    } finally {
      worker.shutdown();
      await running;
    }
  }

  /** The first failed workflow task of a run: its message, and the time from its start to its failure. */
  async function firstTaskFailure(workflowId: string): Promise<{ message: string; ms: number }> {
    return waitFor(`a failed workflow task of ${workflowId}`, async () => {
      const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
      const failed = events.find((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_FAILED);
      if (!failed) return undefined;
      const started = events.find((e) => e.eventId?.toString() === failed.workflowTaskFailedEventAttributes?.startedEventId?.toString());
      const ms = (Number(failed.eventTime?.seconds) - Number(started?.eventTime?.seconds)) * 1000 + ((failed.eventTime?.nanos ?? 0) - (started?.eventTime?.nanos ?? 0)) / 1e6;
      return { message: failed.workflowTaskFailedEventAttributes?.failure?.message ?? '', ms };
    });
  }

  it('the patch is in place: the sandbox exports its per-activation guard', () => {
    const require = createRequire(import.meta.url);
    const vmShared = require('@temporalio/worker/lib/workflow/vm-shared.js') as { runGuarded?: unknown; callTimeoutMs?: unknown };
    expect(typeof vmShared.runGuarded).toBe('function');
    expect(typeof vmShared.callTimeoutMs).toBe('function');
  });

  it('workflow code that never yields fails its activation at the execution timeout, and the worker serves the next workflow', async () => {
    await withWorker(async (taskQueue) => {
      const stuck = await client.workflow.start('spins', { taskQueue, workflowId: `spins-${randomToken(8)}`, workflowTaskTimeout: '20s' });
      const failure = await firstTaskFailure(stuck.workflowId);
      expect(failure.message).toMatch(/Script execution timed out after 1000ms/);
      expect(failure.ms).toBeGreaterThanOrEqual(900);
      expect(failure.ms).toBeLessThan(10_000);
      const fine = await client.workflow.start('waitsForGo', { taskQueue, workflowId: `fine-${randomToken(8)}` });
      await fine.signal('go');
      expect(await fine.result()).toBe('went');
      await stuck.terminate('test done');
    });
  });

  it("a condition's predicate that never returns is stopped the same way (it runs inside the guarded activation)", async () => {
    await withWorker(async (taskQueue) => {
      const stuck = await client.workflow.start('spinsInCondition', { taskQueue, workflowId: `cond-${randomToken(8)}`, workflowTaskTimeout: '20s' });
      await waitFor('the first task completed', async () => ((await stuck.fetchHistory()).events ?? []).some((e) => e.eventType === EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED));
      await stuck.signal('go');
      const failure = await firstTaskFailure(stuck.workflowId);
      expect(failure.message).toMatch(/Script execution timed out after 1000ms/);
      await stuck.terminate('test done');
    });
  });

  it('the __stack_trace query: refused with stack capture off (the default), answered with it on', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'hg-sandbox-'));
    const bundleFile = path.join(dir, 'bundle.js');
    writeFileSync(bundleFile, workflowBundle.code);
    try {
      const probe = async (mode: 'on' | 'off') => {
        const { stdout } = await execFileAsync(process.execPath, ['test/fixtures/sandbox/stack-trace-probe.ts', temporalAddress(), bundleFile, mode], { timeout: 60_000, env: { PATH: process.env.PATH ?? '' } });
        return JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { answered?: string; refused?: string; result?: string };
      };
      const off = await probe('off');
      expect(off.refused).toMatch(/stack traces are not enabled/);
      expect(off.result).toBe('went');
      const on = await probe('on');
      expect(on.answered).toMatch(/at waitsForGo \(.*fixtures\/sandbox\/workflows\.ts:\d+:\d+\)/);
      expect(on.result).toBe('went');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 90_000);
});
