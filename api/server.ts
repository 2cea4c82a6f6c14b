// API process: config → database → Temporal client (lazy, so the API starts while Temporal is
// still booting and /readyz tells the truth) → outbox dispatcher → listen.
import { Client, Connection } from '@temporalio/client';
import { ConfigError, loadConfig } from '../config/index.ts';
import { createDb } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { createOutboxDispatcher } from '../workflows/outbox-dispatcher.ts';
import { taskQueue } from '../workflows/shared.ts';
import { nativeClientProvider } from '../workflows/temporal-connection.ts';
import { buildApp } from './app.ts';

let config;
try {
  config = loadConfig(process.env, ['database', 'temporal', 'encryption']);
} catch (error) {
  if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
  throw error;
}
const logger = createLogger(config.logLevel, 'api');
const db = await createDb(config.databaseUrl!, { maximumPoolSize: config.databasePoolSize });
const connection = Connection.lazy({ address: config.temporal.address! });
const client = new Client({ connection, namespace: config.temporal.namespace });
// Starts and signals go over the Rust core's connection; readiness and reads use the lazy one above.
const dispatchClient = nativeClientProvider(config.temporal.address!, config.temporal.namespace);
const dispatcher = createOutboxDispatcher({ db, client: dispatchClient.get, taskQueue: taskQueue(config.temporal.taskQueue), logger });
const app = await buildApp({ config, db, temporal: { connection, client }, dispatcher, logger });

let closing = false;
async function close(signal: string) {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'api shutting down');
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await app.close();
  await dispatcher.stop();
  await dispatchClient.close();
  await connection.close().catch(() => undefined);
  await db.end();
  process.exit(0);
}
process.on('SIGINT', () => void close('SIGINT'));
process.on('SIGTERM', () => void close('SIGTERM'));

await app.listen({ host: config.host, port: config.apiPort });
