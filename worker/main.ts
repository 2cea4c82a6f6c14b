// Worker process: hosts every workflow and activity, sweeps the workflow outbox, and fans hostname
// events out to webhook deliveries.
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfig, ConfigError } from '../config/index.ts';
import { createDb } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { createOutboxDispatcher } from '../workflows/outbox-dispatcher.ts';
import { createWebhookFanOut } from '../workflows/webhook-delivery/fan-out.ts';
import { taskQueue } from '../workflows/shared.ts';
import { connectTemporal, ensureSearchAttributes } from '../workflows/temporal-connection.ts';
import { createHostgateWorker } from './create-worker.ts';
import { startMaintenance } from './maintenance.ts';
import { bundleIsFresh, buildWorkflowBundle, defaultBundlePath } from './workflow-bundle.ts';

let config;
try {
  config = loadConfig(process.env, ['database', 'temporal', 'encryption']);
} catch (error) {
  if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
  throw error;
}
const logger = createLogger(config.logLevel, 'worker');
Runtime.install({ shutdownSignals: [], telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });

const address = config.temporal.address!;
const queue = taskQueue(config.temporal.taskQueue);
const db = await createDb(config.databaseUrl!, { maximumPoolSize: config.databasePoolSize });
const adminConnection = await connectTemporal(address);
const added = await ensureSearchAttributes(adminConnection, config.temporal.namespace);
if (added.length) logger.info({ added }, 'registered search attributes');
const connection = await NativeConnection.connect({ address });

const bundlePath = process.env.HOSTGATE_WORKFLOW_BUNDLE ?? defaultBundlePath;
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

let stopping = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal: sig }, 'worker shutting down');
    worker.shutdown();
  });
}
logger.info({ taskQueue: queue, namespace: config.temporal.namespace }, 'worker running');
await worker.run();
maintenance.stop();
await fanOut.stop();
await dispatcher.stop();
await db.end();
await connection.close();
await adminConnection.close();
logger.info('worker stopped');
