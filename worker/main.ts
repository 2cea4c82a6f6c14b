// Worker process: hosts every workflow and activity, sweeps the workflow outbox, and fans hostname
// events out to webhook deliveries. On SIGINT/SIGTERM the worker drains (Temporal finishes or
// hands back its in-flight tasks), then the loops stop and the connections close.
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createDb } from '../db/pool.ts';
import { boot } from '../process/boot.ts';
import { createOutboxDispatcher } from '../workflows/outbox-dispatcher.ts';
import { createWebhookFanOut } from '../workflows/webhook-delivery/fan-out.ts';
import { taskQueue } from '../workflows/shared.ts';
import { connectTemporal, ensureSearchAttributes } from '../workflows/temporal-connection.ts';
import { createHostgateWorker } from './create-worker.ts';
import { startMaintenance } from './maintenance.ts';
import { bundleIsFresh, buildWorkflowBundle, defaultBundlePath } from './workflow-bundle.ts';

const { config, logger, onShutdown } = boot('worker', ['database', 'temporal', 'encryption']);
// Signals are ours (process/boot.ts), not the Temporal runtime's.
Runtime.install({ shutdownSignals: [], telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });

const address = config.temporal.address!;
const queue = taskQueue(config.temporal.taskQueue);
const db = await createDb(config.databaseUrl!, { maximumPoolSize: config.databasePoolSize });
const adminConnection = await connectTemporal(address);
const added = await ensureSearchAttributes(adminConnection, config.temporal.namespace);
if (added.length) logger.info({ added }, 'registered search attributes');
await adminConnection.close();
const connection = await NativeConnection.connect({ address });

const bundlePath = config.worker.bundlePath ?? defaultBundlePath;
if (!bundleIsFresh(bundlePath)) {
  logger.info('workflow bundle missing or older than the sources; building it');
  await buildWorkflowBundle(bundlePath);
}
const worker = await createHostgateWorker({ connection, namespace: config.temporal.namespace, taskQueue: queue, db, logger, config, bundlePath });
// Starts and signals over the worker's own NativeConnection (Rust core), not the JS gRPC client.
const dispatcher = createOutboxDispatcher({ db, client: new Client({ connection, namespace: config.temporal.namespace }), taskQueue: queue, logger });
dispatcher.startLoop(1000);
// Hostname events → webhook deliveries, woken by LISTEN/NOTIFY at commit, swept every second.
const fanOut = createWebhookFanOut({ db, dispatcher, logger, databaseUrl: config.databaseUrl });
await fanOut.start();
const maintenance = startMaintenance({ db, logger });

logger.info({ taskQueue: queue, namespace: config.temporal.namespace }, 'worker running');
const running = worker.run();
onShutdown(async () => {
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
  maintenance.stop();
  await fanOut.stop();
  await dispatcher.stop();
  await db.end();
  await connection.close();
  logger.info('worker stopped');
});
// A worker that stops by itself (a fatal Temporal error) takes the process down with it.
await running;
