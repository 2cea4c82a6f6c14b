import { NativeConnection, Worker, type WorkerOptions } from '@temporalio/worker';
import { createActivities } from '../activities/index.ts';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../logging/logger.ts';
import { readBundle, workflowsPath } from './workflow-bundle.ts';

export interface HostgateWorkerOptions {
  connection: NativeConnection;
  namespace: string;
  taskQueue: string;
  db: Db;
  logger: Logger;
  config: Config;
  /** Prebuilt bundle path; omitted in tests, which bundle from source. */
  bundlePath?: string | undefined;
}

export async function createHostgateWorker(options: HostgateWorkerOptions): Promise<Worker> {
  const workflowSource: Pick<WorkerOptions, 'workflowBundle' | 'workflowsPath'> = options.bundlePath
    ? { workflowBundle: readBundle(options.bundlePath) }
    : { workflowsPath };
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: options.taskQueue,
    ...workflowSource,
    activities: createActivities({ db: options.db, logger: options.logger, config: options.config }),
    // Matches the orchestrator's stop grace (docker-compose stop_grace_period 30s).
    shutdownGraceTime: '20 seconds',
    // A workflow task holds its slot while its local activities run (a whole verify → active
    // chain on the fast path). More slots than the CPU can serve only interleave the chains: every
    // domain then finishes late instead of the first ones finishing early (bench:lifecycle).
    maxConcurrentWorkflowTaskExecutions: options.config.worker.workflowTaskSlots,
    maxConcurrentLocalActivityExecutions: options.config.worker.localActivitySlots,
    maxConcurrentActivityTaskExecutions: options.config.worker.activitySlots,
    ...(options.config.worker.maxCachedWorkflows === undefined ? {} : { maxCachedWorkflows: options.config.worker.maxCachedWorkflows }),
  });
}
