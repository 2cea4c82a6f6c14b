// Everything bench:lifecycle measures, started in order and registered for cleanup: the scratch
// database, a Temporal dev server, the acme stack (DNS server, Pebble, challenge listener), the API
// with its outbox dispatcher, and the worker in a child process.
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import type pg from 'pg';
import { buildApp } from '../../api/app.ts';
import { loadConfig } from '../../config/index.ts';
import { startTemporalDevServer, type DevServerHandle } from '../../local-stack/temporal-dev-server.ts';
import { createLogger } from '../../logging/logger.ts';
import { startAcmeStack, type AcmeStack } from '../../test/support/acme-stack.ts';
import { buildWorkflowBundle } from '../../worker/workflow-bundle.ts';
import { createOutboxDispatcher } from '../../temporal/outbox-dispatcher.ts';
import { connectTemporal, ensureSearchAttributes, nativeClientProvider } from '../../temporal/connection.ts';
import { findChild } from '../support/proc-sampler.ts';
import { freePort, onCleanup, progress, type BenchPostgres } from '../support/run.ts';
import { apiUnderLoadEnv, createBenchDatabase, createBenchTenant, openBenchDatabase } from '../support/setup.ts';
import { POOL_SIZE, type LifecycleOptions } from './options.ts';
import { startWorkerChild, waitUntilPolling, type WorkerChild } from './worker-child.ts';

export interface LifecycleStack {
  runId: string;
  pg: BenchPostgres;
  /** A plain connection to the bench database for the bench's own queries. */
  sql: pg.Client;
  server: DevServerHandle;
  /** The dev server's SQLite file (absent with --temporal-in-memory). */
  dbFile: string;
  connection: Connection;
  client: Client;
  namespace: string;
  taskQueue: string;
  acme: AcmeStack;
  pebblePid: number | null;
  apiOrigin: string;
  secret: string;
  destinationId: string;
  worker: WorkerChild;
}

export async function startStack(options: LifecycleOptions, pgInfo: BenchPostgres, runId: string, temporalCli: string): Promise<LifecycleStack> {
  // 1. Database, temp dir, Temporal, search attributes.
  await createBenchDatabase(pgInfo);
  const { benchUrl } = pgInfo;
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hg-bench-lifecycle-'));
  onCleanup(`remove ${tmp}`, () => rm(tmp, { recursive: true, force: true }));
  const dbFile = path.join(tmp, 'temporal.sqlite');
  const namespace = 'default';
  const inMemory = options.temporalInMemory;
  progress(`starting the Temporal dev server (${inMemory ? 'in memory: diagnosis, not how npm start runs it' : `SQLite ${dbFile}, WAL`}, headless)…`);
  const server = await startTemporalDevServer({ cliPath: temporalCli, port: await freePort(), uiPort: null, dbFile: inMemory ? null : dbFile, namespace, log: progress });
  onCleanup('Temporal dev server', () => server.stop());
  const temporalAddress = server.address;
  progress(`Temporal dev server ready on ${temporalAddress} (pid ${server.process.pid})`);
  const connection = await connectTemporal(temporalAddress);
  onCleanup('Temporal connection', () => connection.close());
  const added = await ensureSearchAttributes(connection, namespace);
  progress(`search attributes: ${added.length ? `registered ${added.join(', ')}` : 'already present'}`);
  const client = new Client({ connection, namespace });
  const taskQueue = `hostgate-bench-${runId}`;

  // 2. The acme stack: DNS server, Pebble, (below) the challenge listener.
  progress('starting the loopback DNS server and Pebble…');
  const acme = await startAcmeStack({ nonceReject: 0 });
  onCleanup('DNS server and Pebble', () => acme.close());
  const pebblePid = findChild(process.pid, 'pebble');
  progress(`DNS on ${acme.dns.server}, Pebble at ${acme.pebble.directoryUrl} (pid ${pebblePid ?? 'unknown'}), HTTP-01 to port ${acme.pebble.httpPort}`);

  const sharedEnv: Record<string, string> = {
    HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local',
    DATABASE_URL: benchUrl,
    DATABASE_POOL_SIZE: String(POOL_SIZE),
    TEMPORAL_ADDRESS: temporalAddress,
    TEMPORAL_NAMESPACE: namespace,
    TEMPORAL_TASK_QUEUE: taskQueue,
    HOSTGATE_SERVICE_DOMAIN: 'hostgate.test',
    HOSTGATE_ENCRYPTION_KEYS: `bench:${randomBytes(32).toString('base64')}`,
    ...acme.configOverrides,
    // No edge runs here: a certificate activates its domain at once, so "verify → active" is the
    // lifecycle's own time (DNS, ACME, Postgres, Temporal). bench:edge measures stored → served.
    HOSTGATE_EDGE_DEPLOYMENT: 'skip',
  };
  const config = loadConfig({
    ...sharedEnv,
    ...apiUnderLoadEnv,
  });
  const { db, sql } = await openBenchDatabase(benchUrl, config.db.poolSize);
  await acme.serveChallenges(db);
  onCleanup('challenge listener', () => acme.stopChallenges());
  const { secret, destination } = await createBenchTenant(db);

  // 3. The API.
  const logger = createLogger('silent', 'api');
  // As api/server.ts: starts and signals over a NativeConnection.
  const dispatchClient = nativeClientProvider(temporalAddress, namespace);
  onCleanup('dispatch connection', () => dispatchClient.close());
  const dispatcher = createOutboxDispatcher({ db, client: dispatchClient.get, taskQueue, logger });
  onCleanup('outbox dispatcher', () => dispatcher.stop());
  const app = await buildApp({ config, db, temporal: { client }, dispatcher, logger });
  onCleanup('API server', () => app.close());
  const apiOrigin = await app.listen({ host: '127.0.0.1', port: 0 });
  progress(`API on ${apiOrigin}`);

  // 4. The worker: bundle first, then the child process.
  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  const bundleStart = Date.now();
  await buildWorkflowBundle(bundlePath);
  progress(`workflow bundle built in ${((Date.now() - bundleStart) / 1000).toFixed(1)} s (${(statSync(bundlePath).size / 2 ** 20).toFixed(1)} MiB)`);
  const worker = startWorkerChild({
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmp,
    ...sharedEnv,
    HOSTGATE_WORKFLOW_BUNDLE: bundlePath,
    LOG_LEVEL: 'warn',
    // Worker tuning given to the bench (e.g. HOSTGATE_WORKER_WORKFLOW_TASK_SLOTS) reaches the worker.
    ...Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('HOSTGATE_WORKER_') && e[1] !== undefined)),
  }, options.profileWorker);
  onCleanup('worker process', () => worker.stop());
  await waitUntilPolling(worker, connection, namespace, taskQueue);

  return { runId, pg: pgInfo, sql, server, dbFile, connection, client, namespace, taskQueue, acme, pebblePid, apiOrigin, secret, destinationId: destination.id, worker };
}
