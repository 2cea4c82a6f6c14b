// The worker under measurement: `worker/main.ts` in a child process of its own, so /proc can tell
// its CPU and memory apart from everything else; its log lines are counted by level and message.
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import readline from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { checkInterrupted, progress, sleep } from '../support/run.ts';

// @temporalio/proto is CommonJS whose exports Node cannot detect statically.
const { temporal } = proto;

export interface WorkerChild {
  pid: number;
  exited: boolean;
  /** Log lines (LOG_LEVEL=warn) by level and message. */
  logCounts: Map<string, number>;
  tail: string[];
  stop(): Promise<void>;
}

const levels: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' };

/** A log line's counting key: pino's level and message, or the SDK logger's first line; null for other output. */
function logKey(line: string): string | null {
  try {
    const j = JSON.parse(line) as { level?: number; msg?: string; step?: string; err?: string };
    return `${levels[j.level ?? 0] ?? 'log'}: ${j.msg ?? ''}${j.step ? ` (step ${j.step})` : ''}`;
  } catch {
    // The SDK's own logger: "[LEVEL] message { multi-line object }"; only its first line counts.
    const m = /\[(TRACE|DEBUG|INFO|WARN|ERROR)\]\s*(.*)/.exec(line);
    return m ? `sdk ${m[1]!.toLowerCase()}: ${m[2]!.replace(/\s*\{.*$/, '').slice(0, 100)}` : null;
  }
}

/** Spawns the worker with exactly `env`; with `profileDir` it writes a V8 CPU profile there on exit. */
export function startWorkerChild(env: Record<string, string>, profileDir: string | undefined): WorkerChild {
  const script = fileURLToPath(new URL('../../worker/main.ts', import.meta.url));
  const profile = profileDir ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(profileDir)] : [];
  const child: ChildProcess = spawn(process.execPath, [...profile, script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stopping = false;
  // BENCH_WORKER_LOG=<file>: every line the worker writes, kept for reading after the run.
  const keep = process.env.BENCH_WORKER_LOG ? fs.createWriteStream(process.env.BENCH_WORKER_LOG, { flags: 'a' }) : null;
  const onLine = (line: string) => {
    if (!line.trim()) return;
    keep?.write(`${line}\n`);
    handle.tail.push(line.slice(0, 400));
    if (handle.tail.length > 20) handle.tail.shift();
    const key = logKey(line);
    if (key !== null) handle.logCounts.set(key, (handle.logCounts.get(key) ?? 0) + 1);
  };
  readline.createInterface({ input: child.stdout! }).on('line', onLine);
  readline.createInterface({ input: child.stderr! }).on('line', onLine);
  const exit = new Promise<void>((resolve) => child.once('exit', (code, signal) => {
    handle.exited = true;
    if (!stopping) progress(`worker exited unexpectedly (code ${code}, signal ${signal}); last output:\n${handle.tail.join('\n')}`);
    resolve();
  }));
  const handle: WorkerChild = {
    pid: child.pid!,
    exited: false,
    logCounts: new Map(),
    tail: [],
    async stop() {
      stopping = true;
      if (handle.exited) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => { progress('worker did not stop within 25 s of SIGTERM; killing it'); child.kill('SIGKILL'); }, 25_000);
      await exit;
      clearTimeout(timer);
    },
  };
  return handle;
}

/** Waits (at most 60 s) until the worker polls both the workflow and the activity task queue. */
export async function waitUntilPolling(worker: WorkerChild, connection: Connection, namespace: string, taskQueue: string): Promise<void> {
  const workerStart = Date.now();
  for (;;) {
    checkInterrupted();
    if (worker.exited) throw new Error('the worker exited during start-up');
    const polling = await Promise.all([temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW, temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY].map(async (taskQueueType) =>
      (await connection.workflowService.describeTaskQueue({ namespace, taskQueue: { name: taskQueue }, taskQueueType })).pollers?.length ?? 0));
    if (polling.every((n) => n > 0)) break;
    if (Date.now() - workerStart > 60_000) throw new Error(`the worker did not poll ${taskQueue} within 60 s; its output:\n${worker.tail.join('\n')}`);
    await sleep(200);
  }
  progress(`worker pid ${worker.pid} polling ${taskQueue} (${((Date.now() - workerStart) / 1000).toFixed(1)} s after spawn)`);
}
