// Worker process: hosts every workflow and activity (and, on the DNS task queue, the periodic DNS
// checks of workflows recorded before the DNS checker; on the webhook task queue, with slots of
// their own, the webhook delivery workflows), runs the DNS checker of pending domains
// (worker/dns-checker.ts, LISTEN on this database), sweeps the workflow outbox, fans hostname events out to webhook deliveries, keeps the
// retention Schedules up to date and serves its metrics. On SIGINT/SIGTERM the worker drains
// (Temporal finishes or hands back its in-flight tasks), then the loops stop and the connections
// close.
import { Client } from '@temporalio/client';
import { NativeConnection, Runtime, makeTelemetryFilterString } from '@temporalio/worker';
import { createDb } from '../db/pool.ts';
import { backlogGaugesRepository } from '../db/repositories/backlog-gauges.ts';
import { caBudgetRepository } from '../db/repositories/ca-budget.ts';
import { challengeZoneRepository } from '../db/repositories/challenge-zone.ts';
import { registerBacklogGauges } from '../metrics/worker.ts';
import { registerCaBudgetGauges } from '../metrics/ca-budget.ts';
import { registerEdgeTrafficGauges } from '../metrics/edge-traffic.ts';
import { trafficRepository } from '../db/repositories/traffic.ts';
import { collectProcessMetrics, startMetricsServer } from '../metrics/serve.ts';
import { ensureRetentionSchedules } from '../temporal/clients/retention-schedules.ts';
import { boot } from '../process/boot.ts';
import { createOutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { createWebhookFanOut } from '../temporal/webhook-fan-out.ts';
import { taskQueue, webhookTaskQueue } from '../contracts/task-queues.ts';
import { connectTemporal, ensureSearchAttributes } from '../temporal/connection.ts';
import { createWebhookAttempts } from '../activities/webhooks.ts';
import { SecretBox } from '../security/secret-box.ts';
import { createHostgateWorker } from './create-worker.ts';
import { startIdleGc } from './idle-gc.ts';
import { createFirstAttempts } from './webhook-first-attempts.ts';
import { bundleIsFresh, buildWorkflowBundle, defaultBundlePath } from './workflow-bundle.ts';

const { config, logger, onShutdown } = boot('worker', ['database', 'temporal', 'encryption']);
// Signals are ours (process/boot.ts), not the Temporal runtime's. The SDK's own metrics (task
// slots, poll and task latencies, sticky cache) are served by the Rust core on a port of their
// own when HOSTGATE_WORKER_SDK_METRICS_PORT is set (docs/operations.md, "Metrics").
const sdkMetrics = config.metrics.workerSdkPort > 0 ? { metrics: { prometheus: { bindAddress: `${config.metrics.host}:${config.metrics.workerSdkPort}`, useSecondsForDurations: true } } } : {};
Runtime.install({ shutdownSignals: [], telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) }, ...sdkMetrics } });

const address = config.temporal.address!;
const queue = taskQueue(config.temporal.taskQueue);
const db = await createDb(config.db.url!, { maximumPoolSize: config.db.poolSize });
// Zero-downtime moves: the challenge zone's SOA and NS rows exist from the start, not from the first
// DNS-01 — before them PowerDNS answers REFUSED and the delegation cannot be checked (issue 22).
if (config.moves.challengeZone) {
  await challengeZoneRepository(db).ensureZone(config.moves.challengeZone)
    .then(() => logger.info({ zone: config.moves.challengeZone }, 'challenge zone ready (SOA, NS)'))
    .catch((error: unknown) => logger.error({ err: String(error) }, 'challenge zone could not be created; the first DNS-01 tries again'));
}
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
// Starts and signals over the worker's own NativeConnection (Rust core), not the JS gRPC client.
const client = new Client({ connection, namespace: config.temporal.namespace });
const dispatcher = createOutboxDispatcher({ db, client, taskQueue: queue, logger });
// The DNS checker hands the verifies its moves queue to this dispatcher (one per process).
const worker = await createHostgateWorker({ connection, namespace: config.temporal.namespace, taskQueue: queue, db, logger, config, bundlePath, databaseUrl: config.db.url, dispatcher });
dispatcher.startLoop(1000);
// Hostname events → webhook deliveries, woken by LISTEN/NOTIFY at commit, swept every second.
// Each new delivery's first attempt goes out at once, beside its workflow's start (docs/api-decisions.md "Attempts").
const webhookAttempts = createWebhookAttempts({ db, logger, secretBox: new SecretBox(config.encryptionKeys), allowPrivateTargets: config.allowPrivateTargets, timeoutMs: config.webhooks.timeoutMs });
const firstAttempts = createFirstAttempts({ attempt: webhookAttempts.directFirstAttempt, logger, concurrency: config.webhooks.directAttempts });
const fanOut = createWebhookFanOut({ db, dispatcher, logger, databaseUrl: config.db.url, onDeliveries: (ids) => firstAttempts.add(ids) });
await fanOut.start();
// Retention runs on Temporal Schedules (visible in the Web UI); every worker start brings them up
// to date. Not fatal: a worker that cannot write them still serves (the next start tries again).
await ensureRetentionSchedules(client, { taskQueue: queue, periods: config.retention, batch: config.retention.batch })
  .then((done) => logger.info({ schedules: done }, 'retention schedules up to date'))
  .catch((error: unknown) => logger.error({ err: String(error) }, 'retention schedules could not be created or updated'));
collectProcessMetrics('worker');
registerBacklogGauges(backlogGaugesRepository(db).read);
registerCaBudgetGauges(() => caBudgetRepository(db).readings(config.acme.directories));
registerEdgeTrafficGauges(async () => {
  const traffic = trafficRepository(db);
  const [from, to] = [new Date(Date.now() - 3_600_000), new Date(Date.now() + 60_000)];
  return { edges: await traffic.edgeTotals(from, to), requests: await traffic.edgeRequests(from, to) };
});
const metrics = await startMetricsServer({ host: config.metrics.host, port: config.metrics.workerPort, logger });

logger.info({ taskQueue: queue, webhookTaskQueue: webhookTaskQueue(queue), namespace: config.temporal.namespace }, 'worker running');
const running = worker.run();
// The main thread collects once it goes quiet after a burst, or at once over the memory budget's
// high-water mark (the workflow threads run the same rule: worker/idle-gc.ts).
const stopIdleGc = startIdleGc({
  ...config.worker.idleGc,
  onCollect: ({ beforeBytes, afterBytes, ms }) => logger.debug({ heap_mib_before: Math.round(beforeBytes / 1048576), heap_mib_after: Math.round(afterBytes / 1048576), ms: Math.round(ms) }, 'full GC of the main thread (quiet after a burst, or over the high-water mark)'),
});
onShutdown(async () => {
  stopIdleGc();
  if (worker.getState() === 'RUNNING') worker.shutdown();
  await running.catch(() => undefined);
  await metrics.close();
  await fanOut.stop();
  await firstAttempts.stop();
  await dispatcher.stop();
  await db.end();
  await connection.close();
  logger.info('worker stopped');
});
// A worker that stops by itself (a fatal Temporal error) takes the process down with it.
await running;
