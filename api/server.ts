// API process: config → database → Temporal client (connected on first use, so the API starts
// while Temporal is still booting and /readyz tells the truth) → outbox dispatcher → listen.
// On SIGINT/SIGTERM `app.close()` stops accepting, lets in-flight requests finish, then runs the
// onClose hook below, which closes what this process opened, in reverse order.
import { requestDbLimits } from '../config/index.ts';
import { createDb } from '../db/pool.ts';
import { collectProcessMetrics, startMetricsServer } from '../metrics/serve.ts';
import { boot } from '../process/boot.ts';
import { createOutboxDispatcher } from '../temporal/outbox-dispatcher.ts';
import { taskQueue } from '../contracts/task-queues.ts';
import { nativeClientProvider } from '../temporal/connection.ts';
import { buildApp } from './app.ts';

const { config, logger, onShutdown } = boot('api', ['database', 'temporal', 'encryption']);
// Every Postgres call of a request is bounded (docs/api-decisions.md, "Bounded waits").
const db = await createDb(config.db.url!, requestDbLimits(config));
// One Temporal connection (the Rust core's): starts and signals of the dispatcher, and readiness.
const temporal = nativeClientProvider(config.temporal.address!, config.temporal.namespace);
const dispatcher = createOutboxDispatcher({ db, client: temporal.get, taskQueue: taskQueue(config.temporal.taskQueue), logger });
const app = await buildApp({ config, db, temporal: { client: temporal.get }, dispatcher, logger });
// Prometheus metrics on a port of their own, not the public API's (off unless
// HOSTGATE_API_METRICS_PORT is set; loopback unless HOSTGATE_METRICS_HOST says otherwise).
collectProcessMetrics('api');
const metrics = await startMetricsServer({ host: config.metrics.host, port: config.metrics.apiPort, logger });
app.addHook('onClose', async () => {
  await metrics.close();
  await dispatcher.stop();
  await temporal.close();
  await db.end();
});
onShutdown(() => app.close());

await app.listen({ host: config.api.host, port: config.api.port });
