// `npm start -- --api N --worker N --edge N` (local-stack/topology.ts): a bad count exits 64 with
// a message saying what is allowed; two of each run against the test's Postgres and Temporal —
// two APIs on consecutive ports answering, two workers polling the same task queue, two edges
// with their own ids, HAProxy, state directories and health endpoints — and SIGTERM stops all.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Connection } from '@temporalio/client';
import { loadConfig } from '../config/index.ts';
import { webhookTaskQueue } from '../contracts/task-queues.ts';
import { edgeRepository } from '../db/repositories/edge.ts';
import { planTopology } from '../local-stack/topology.ts';
import { randomToken } from '../security/tokens.ts';
import { testEncryptionKeys } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { waitFor } from './support/wait.ts';

const alive = (pid: number) => { try { process.kill(pid, 0); return true; } catch { return false; } };

/**
 * A free port whose next `n − 1` ports are free too (the topology uses consecutive ports), taken
 * below the kernel's ephemeral range. Inside it, the port after a `listen(0)` port is the kind the
 * kernel gives an outgoing connection (Linux hands odd ports to bind and even ones to connect), and
 * the seconds before edge-2 listens were enough for one to take it (seen in CI: edge-2's health
 * port, EADDRINUSE). Below the range the kernel hands out nothing by itself.
 */
const handedOut = new Set<number>();
async function freeConsecutive(n: number): Promise<number> {
  const free = (port: number) => new Promise<boolean>((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
  const [ephemeralLow] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number);
  const low = 10_000;
  const high = Math.max(low + 1_000, (ephemeralLow ?? 32_768) - n);
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = low + Math.floor(Math.random() * (high - low));
    let ok = true;
    for (let i = 0; ok && i < n; i++) ok = !handedOut.has(base + i) && await free(base + i);
    if (!ok) continue;
    for (let i = 0; i < n; i++) handedOut.add(base + i);
    return base;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

describe('npm start with several of each', () => {
  it.each([
    [['--api', '0'], /--api must be a whole number from 1 to 16, got "0"/],
    [['--worker', 'two'], /--worker must be a whole number from 1 to 16, got "two"/],
    [['--edge', '17'], /--edge must be a whole number from 1 to 16, got "17"/],
    [['--apis', '2'], /Unknown option '--apis'/],
    [['--api'], /Option '--api <value>' argument missing/],
  ])('exits 64 on %j with a message saying what is allowed', (args, message) => {
    const run = spawnSync(process.execPath, ['local-stack/start.ts', ...args], { env: { PATH: process.env.PATH, HOSTGATE_ENV: 'test' }, encoding: 'utf8', timeout: 30_000 });
    expect(run.status).toBe(64);
    expect(run.stderr).toMatch(message);
    expect(run.stderr).toContain('usage: npm start -- [--api N] [--worker N] [--edge N]');
    expect(run.stdout).toBe('');
  });

  it('plans one of each exactly as before: the same names, ports, edge id and state directory', () => {
    const config = loadConfig({ HOSTGATE_DATA_DIR: '/srv/hg' });
    const plan = planTopology({ api: 1, worker: 1, edge: 1 }, config, { withEdgeAgent: true });
    expect(plan.map((p) => p.name)).toEqual(['api', 'worker', 'edge', 'edge-agent']);
    expect(plan[0]!.env).toEqual({ HOSTGATE_API_PORT: '3000', HOSTGATE_API_METRICS_PORT: '9464' });
    expect(plan[3]!.env).toMatchObject({ HOSTGATE_EDGE_ID: 'edge-local', HOSTGATE_EDGE_HTTPS_PORT: '8443', HOSTGATE_HTTP_PORT: '8080', HOSTGATE_EDGE_STATE_DIR: '/srv/hg/edge', HOSTGATE_EDGE_HEALTH_PORT: '8490' });
    // Without HAProxy, no agent is planned (the launcher says how to install it).
    expect(planTopology({ api: 1, worker: 1, edge: 2 }, config, { withEdgeAgent: false }).map((p) => p.name)).toEqual(['api', 'worker', 'edge-1-http', 'edge-2-http']);
    // Several: consecutive ports, metrics ports 10 apart, a metrics port set to 0 stays off.
    const off = loadConfig({ HOSTGATE_DATA_DIR: '/srv/hg', HOSTGATE_WORKER_METRICS_PORT: '0' });
    const three = planTopology({ api: 3, worker: 2, edge: 1 }, off, { withEdgeAgent: true });
    expect(three.filter((p) => p.kind === 'api').map((p) => [p.env.HOSTGATE_API_PORT, p.env.HOSTGATE_API_METRICS_PORT])).toEqual([['3000', '9464'], ['3001', '9474'], ['3002', '9484']]);
    expect(three.filter((p) => p.kind === 'worker').map((p) => p.env.HOSTGATE_WORKER_METRICS_PORT)).toEqual(['0', '0']);
  });

  describe('--api 2 --worker 2 --edge 2', () => {
    let t: TestDatabase;
    let dataDir: string;
    let launcher: ChildProcess | null = null;
    let output = '';
    const pidsOf = (name: string) => [...output.matchAll(new RegExp(`hostgate: ${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));

    beforeAll(async () => {
      t = await createTestDatabase();
      dataDir = mkdtempSync(path.join(os.tmpdir(), 'hg-cluster-'));
    });
    afterAll(async () => {
      if (launcher && launcher.exitCode === null) launcher.kill('SIGKILL');
      await t?.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('runs two APIs, two workers and two edges; SIGTERM stops every one', async () => {
      const [apiPort, httpPort, httpsPort, healthPort] = [await freeConsecutive(2), await freeConsecutive(2), await freeConsecutive(2), await freeConsecutive(2)];
      const taskQueue = `cluster-${randomToken(8)}`;
      launcher = spawn(process.execPath, ['local-stack/start.ts', '--api', '2', '--worker', '2', '--edge', '2'], {
        env: {
          PATH: process.env.PATH, HOSTGATE_ENV: 'test', LOG_LEVEL: 'warn',
          DATABASE_URL: t.url, TEMPORAL_ADDRESS: process.env.HG_TEST_TEMPORAL_ADDRESS, TEMPORAL_TASK_QUEUE: taskQueue,
          HOSTGATE_DATA_DIR: dataDir, HOSTGATE_WORKFLOW_BUNDLE: path.join(dataDir, 'workflow-bundle.js'),
          HOSTGATE_API_PORT: String(apiPort), HOSTGATE_HTTP_PORT: String(httpPort), HOSTGATE_EDGE_HTTPS_PORT: String(httpsPort),
          HOSTGATE_EDGE_HEALTH_PORT: String(healthPort), HOSTGATE_EDGE_HEARTBEAT_INTERVAL_MS: '1000', HOSTGATE_EDGE_POLL_INTERVAL_MS: '1000',
          HOSTGATE_EDGE_THREADS: '1',
          HOSTGATE_API_METRICS_PORT: '0', HOSTGATE_WORKER_METRICS_PORT: '0', HOSTGATE_WORKER_SDK_METRICS_PORT: '0', HOSTGATE_EDGE_METRICS_PORT: '0',
          HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys, HOSTGATE_DNS_SERVERS: '127.0.0.1:1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      launcher.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
      launcher.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
      try {
        await waitFor('the stack to be ready', async () => output.includes('hostgate: ready in'), 150_000, 200);
        // The printout says where each process is.
        expect(output).toContain(`hostgate:   api-1         http://localhost:${apiPort}/v1`);
        expect(output).toContain(`hostgate:   api-2         http://localhost:${apiPort + 1}/v1`);
        expect(output).toContain(`hostgate:   worker-2      task queue ${taskQueue}`);
        expect(output).toContain(`hostgate:   edge-2-http   http://localhost:${httpPort + 1}`);
        expect(output).toMatch(new RegExp(`edge-1-agent  https://<active hostname>:${httpsPort}/ .*\\(edge-1; health http://127.0.0.1:${healthPort}/healthz; files ${dataDir}/edge-1\\)`));
        expect(output).toMatch(new RegExp(`edge-2-agent  https://<active hostname>:${httpsPort + 1}/ .*\\(edge-2; health http://127.0.0.1:${healthPort + 1}/healthz; files ${dataDir}/edge-2\\)`));
        const names = ['api-1', 'api-2', 'worker-1', 'worker-2', 'edge-1-http', 'edge-2-http', 'edge-1-agent', 'edge-2-agent'];
        const pids = names.map((n) => pidsOf(n)[0]!);
        expect(pids.every((p) => p > 0 && alive(p))).toBe(true);

        // Both APIs answer, on consecutive ports.
        for (const port of [apiPort, apiPort + 1]) expect((await fetch(`http://127.0.0.1:${port}/readyz`)).status).toBe(200);
        // Both workers poll the one task queue, and both its webhook task queue (issue 26).
        const connection = await Connection.connect({ address: process.env.HG_TEST_TEMPORAL_ADDRESS! });
        try {
          for (const queue of [taskQueue, webhookTaskQueue(taskQueue)]) {
            const pollers = await waitFor(`two pollers on ${queue}`, async () => {
              const d = await connection.workflowService.describeTaskQueue({ namespace: 'default', taskQueue: { name: queue }, taskQueueType: 1 });
              const ids = new Set((d.pollers ?? []).map((p) => p.identity));
              return ids.size >= 2 ? ids : null;
            }, 30_000, 300);
            expect(pollers.size).toBe(2);
          }
        } finally {
          await connection.close();
        }
        // Both edges: in sync on their own health endpoints, each under its own id in Postgres.
        for (const [i, port] of [healthPort, healthPort + 1].entries()) {
          const body = await waitFor(`edge-${i + 1} healthy`, async () => {
            const r = await fetch(`http://127.0.0.1:${port}/healthz`).catch(() => null);
            return r?.status === 200 ? await r.json() as { edge_id: string; status: string } : null;
          }, 60_000, 200);
          expect(body).toMatchObject({ edge_id: `edge-${i + 1}`, status: 'in_sync' });
        }
        const { createDb } = await import('../db/pool.ts');
        const db = await createDb(t.url, { maximumPoolSize: 1 });
        try {
          const nodes = await edgeRepository(db).nodes();
          expect(nodes.map((n) => [n.id, n.state])).toEqual([['edge-1', 'in_sync'], ['edge-2', 'in_sync']]);
        } finally {
          await db.end();
        }

        const exited = new Promise<number | null>((resolve) => launcher!.once('exit', (code) => resolve(code)));
        launcher.kill('SIGTERM');
        expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 60_000).unref())])).toBe(0);
        expect(pids.filter(alive)).toEqual([]);
      } catch (error) {
        throw new Error(`${(error as Error).message}\n--- launcher output ---\n${output.slice(-6000)}`);
      }
    }, 240_000);
  });
});
