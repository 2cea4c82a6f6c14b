// Temporal for one test file: the shared dev server, a task queue of its own, and a real worker
// running this repository's workflows and activities.
import { Client, Connection } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import type { Config } from '../../config/index.ts';
import type { Db } from '../../db/pool.ts';
import { testConfig } from './app.ts';
import { createLogger } from '../../logging/logger.ts';
import { randomToken } from '../../security/tokens.ts';
import { createHostgateWorker, type HostgateWorker } from '../../worker/create-worker.ts';

let runtimeInstalled = false;

export interface TestTemporal {
  address: string;
  taskQueue: string;
  connection: Connection;
  client: Client;
  close(): Promise<void>;
}

export function temporalAddress(): string {
  const address = process.env.HG_TEST_TEMPORAL_ADDRESS;
  if (!address) throw new Error('HG_TEST_TEMPORAL_ADDRESS is not set: run tests through jest (global setup)');
  return address;
}

export async function createTestTemporal(): Promise<TestTemporal> {
  const address = temporalAddress();
  const connection = await Connection.connect({ address });
  const client = new Client({ connection, namespace: 'default' });
  return { address, taskQueue: `test-${randomToken(12)}`, connection, client, close: () => connection.close() };
}

export interface RunningWorker { worker: HostgateWorker; stop(): Promise<void> }

export async function startTestWorker(t: TestTemporal, db: Db, config: Config = testConfig()): Promise<RunningWorker> {
  if (!runtimeInstalled) {
    runtimeInstalled = true;
    try {
      Runtime.install({ shutdownSignals: [], logger: new DefaultLogger(process.env.HG_TEST_SDK_LOG === 'debug' ? 'DEBUG' : 'WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'ERROR' }) } } });
    } catch { /* already installed in this module registry */ }
  }
  const nativeConnection = await NativeConnection.connect({ address: t.address });
  const worker = await createHostgateWorker({ connection: nativeConnection, namespace: 'default', taskQueue: t.taskQueue, db, config, logger: createLogger((process.env.HG_TEST_WORKER_LOG ?? 'silent') as 'silent', 'test-worker') });
  const running = worker.run();
  return {
    worker,
    async stop() {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await running;
      await nativeConnection.close();
    },
  };
}
