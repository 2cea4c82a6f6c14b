// The stack `npm run chaos -- --cluster` breaks (issue 27): one Postgres (a scratch database on
// the machine's server), one Temporal dev server, the acme stack of the tests (loopback DNS,
// Pebble, our HTTP-01 listener), an HTTPS origin, and then TWO of everything as real processes:
// APIs (api/server.ts) on two ports, workers (worker/main.ts) on one task queue, edges (agent +
// HAProxy, each with its own id, state directory, HTTPS port and health endpoint).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, type Connection } from '@temporalio/client';
import { createDb, type Db } from '../../db/pool.ts';
import { destinationsRepository } from '../../db/repositories/destinations.ts';
import { isOurHaproxy } from '../../edge/agent/haproxy-supervisor.ts';
import { findTemporalCli, startTemporalDevServer } from '../../local-stack/temporal-dev-server.ts';
import { startAcmeStack, type AcmeStack } from '../../test/support/acme-stack.ts';
import { testEncryptionKeys } from '../../test/support/app.ts';
import { startEdgeProcess, type EdgeProcess } from '../../test/support/haproxy-edge.ts';
import { createTestCa, startTestOrigin } from '../../test/support/origin.ts';
import { connectTemporal, ensureSearchAttributes } from '../../temporal/connection.ts';
import { buildWorkflowBundle } from '../../worker/workflow-bundle.ts';
import { connectBenchPostgres, freePort, onCleanup, progress } from '../support/run.ts';
import { createBenchDatabase, createBenchTenant } from '../support/setup.ts';
import { supervise, waitUntilOk, type Supervised } from './stack.ts';

export const EDGE_HEARTBEAT_MS = 1000;
export const EDGE_BANDWIDTH_MS = 500;

export interface ClusterEdge {
  name: string;
  process: EdgeProcess;
  healthPort: number;
  /** kill -9 of the agent, then of its HAProxy (master and workers): the machine is gone. */
  killHard(): Promise<void>;
  health(): Promise<number>;
}

export interface ClusterStack {
  db: Db;
  client: Client;
  connection: Connection;
  taskQueue: string;
  acme: AcmeStack;
  apis: { proc: Supervised; base: string }[];
  workers: Supervised[];
  edges: ClusterEdge[];
  auth: string;
  orgId: string;
  destinationId: string;
}

export async function startClusterStack(runId: string): Promise<ClusterStack> {
  const pg = await connectBenchPostgres(runId);
  await createBenchDatabase(pg);
  const db = await createDb(pg.benchUrl, { maximumPoolSize: 4 });
  onCleanup('checker pool', () => db.end());
  const tmp = await mkdtemp(path.join(os.tmpdir(), 'hg-chaos-cluster-'));
  onCleanup(`remove ${tmp}`, () => rm(tmp, { recursive: true, force: true }));

  const temporal = await startTemporalDevServer({ cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH, progress), port: await freePort(), uiPort: null, dbFile: path.join(tmp, 'temporal.sqlite'), namespace: 'default', log: progress });
  onCleanup('Temporal dev server', () => temporal.stop());
  const connection = await connectTemporal(temporal.address);
  onCleanup('Temporal connection', () => connection.close());
  await ensureSearchAttributes(connection, 'default');
  const client = new Client({ connection, namespace: 'default' });

  progress('starting the loopback DNS server, Pebble and an HTTPS origin…');
  const acme = await startAcmeStack({ nonceReject: 0 });
  onCleanup('DNS server and Pebble', () => acme.close());
  await acme.serveChallenges(db);
  onCleanup('challenge listener', () => acme.stopChallenges());
  const originCa = await createTestCa('Chaos origin CA');
  onCleanup('origin CA', () => originCa.close());
  const origin = await startTestOrigin(originCa, ['app.vendor.test'], { bodyBytes: 2048 });
  onCleanup('origin', () => origin.close());
  acme.dns.set('app.vendor.test', [{ type: 'A', value: origin.ip }]);

  const tenant = await createBenchTenant(db);
  const destination = await destinationsRepository(db).create({ organizationId: tenant.org.id, url: `https://app.vendor.test:${origin.port}`, host: 'app.vendor.test', port: origin.port });

  const bundlePath = path.join(tmp, 'workflow-bundle.js');
  progress('building the workflow bundle…');
  await buildWorkflowBundle(bundlePath);
  const taskQueue = `hostgate-chaos-cluster-${runId}`;
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmp,
    HOSTGATE_ENV: 'production', HOSTGATE_BILLING_PROVIDER: 'local',
    DATABASE_URL: pg.benchUrl, DATABASE_POOL_SIZE: '6',
    TEMPORAL_ADDRESS: temporal.address, TEMPORAL_TASK_QUEUE: taskQueue,
    HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys,
    HOSTGATE_SERVICE_DOMAIN: 'hostgate.test',
    HOSTGATE_HOST: '127.0.0.1',
    ...acme.configOverrides,
    // "Active means served", by every live in-sync edge (docs/edge.md, "Several edges").
    HOSTGATE_EDGE_DEPLOYMENT: 'required',
    HOSTGATE_RATE_LIMIT_PER_SECOND: '1000000', HOSTGATE_RATE_LIMIT_BURST: '1000000',
    HOSTGATE_WORKFLOW_BUNDLE: bundlePath,
    LOG_LEVEL: 'warn',
  };
  const apis: ClusterStack['apis'] = [];
  for (const n of [1, 2]) {
    const port = await freePort();
    const proc = supervise(`api-${n}`, '../../api/server.ts', { ...env, HOSTGATE_API_PORT: String(port), HOSTGATE_PUBLIC_URL: `http://127.0.0.1:${port}` });
    onCleanup(`api-${n}`, () => proc.stop());
    proc.start();
    apis.push({ proc, base: `http://127.0.0.1:${port}` });
  }
  const workers = [1, 2].map((n) => {
    const w = supervise(`worker-${n}`, '../../worker/main.ts', env);
    onCleanup(`worker-${n}`, () => w.stop());
    w.start();
    return w;
  });
  for (const a of apis) await waitUntilOk(`${a.base}/readyz`, 120_000, a.proc.name);

  const edges: ClusterEdge[] = [];
  for (const n of [1, 2]) {
    const healthPort = await freePort();
    const p = await startEdgeProcess({
      databaseUrl: pg.benchUrl, resolvers: acme.dns.server, originCaFile: originCa.certPath,
      env: {
        HOSTGATE_EDGE_HEALTH_PORT: String(healthPort), HOSTGATE_EDGE_HEALTH_MAX_LAG_MS: '4000',
        HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS: String(EDGE_HEARTBEAT_MS), HOSTGATE_EDGE_BANDWIDTH_INTERVAL_MS: String(EDGE_BANDWIDTH_MS),
      },
      readyTimeoutMs: 90_000,
    });
    onCleanup(`edge-${n}`, async () => { await p.stop(); await p.cleanup(); });
    edges.push({
      name: `edge-${n}`, process: p, healthPort,
      async killHard() {
        await p.kill();
        const pid = Number(readFileSync(path.join(p.stateDir, 'haproxy.pid'), 'utf8').trim());
        if (pid && await isOurHaproxy(pid, path.join(p.stateDir, 'haproxy.cfg'))) {
          try { execFileSync('pkill', ['-KILL', '-P', String(pid)]); } catch { /* no workers */ }
          try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
        }
      },
      health: () => fetch(`http://127.0.0.1:${healthPort}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.status, () => 0),
    });
  }
  progress(`APIs ${apis.map((a) => `${a.base} (pid ${a.proc.pid()})`).join(', ')}; workers pids ${workers.map((w) => w.pid()).join(', ')}; edges ${edges.map((e) => `${e.process.edgeId} :${e.process.port} health :${e.healthPort}`).join(', ')}`);
  return { db, client, connection, taskQueue, acme, apis, workers, edges, auth: `Bearer ${tenant.secret}`, orgId: tenant.org.id, destinationId: destination.id };
}
