// The real worker process (worker/main.ts) for tests that kill it: spawned with the test's
// database and task queue, its output kept for failure messages.
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { testEncryptionKeys } from './app.ts';

export interface WorkerProcessOptions {
  databaseUrl: string;
  temporalAddress: string;
  taskQueue: string;
  /** Bundle file of its own per test file: parallel files must not build the same one. */
  bundleFile: string;
  env?: Record<string, string>;
}

export interface WorkerProcesses {
  start(): ChildProcess;
  /** Everything the processes started so far printed. */
  output(): string;
  /** SIGKILLs the current process, if any. */
  kill(): void;
}

export function workerProcesses(options: () => WorkerProcessOptions): WorkerProcesses {
  let current: ChildProcess | null = null;
  let output = '';
  return {
    start() {
      const o = options();
      const child = spawn(process.execPath, ['worker/main.ts'], {
        env: {
          PATH: process.env.PATH,
          DATABASE_URL: o.databaseUrl,
          TEMPORAL_ADDRESS: o.temporalAddress,
          TEMPORAL_TASK_QUEUE: o.taskQueue,
          HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys,
          HOSTGATE_WORKFLOW_BUNDLE: path.resolve('.data', o.bundleFile),
          LOG_LEVEL: 'warn',
          // No edge runs beside these workers: a certificate activates its domain at once.
          HOSTGATE_EDGE_DEPLOYMENT: 'skip',
          ...o.env,
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout?.on('data', (d: Buffer) => { output += d.toString(); });
      child.stderr?.on('data', (d: Buffer) => { output += d.toString(); });
      current = child;
      return child;
    },
    output: () => output,
    kill: () => { current?.kill('SIGKILL'); },
  };
}
