// `npm start` supervises its children: the real launcher (local-stack/start.ts) runs against the
// test's Postgres database and Temporal server, its worker child is SIGKILLed, and the launcher
// starts it again while the API keeps answering; SIGTERM to the launcher then stops everything.
// On the way, each process's Prometheus endpoint is scraped (api, worker, the worker's Temporal
// SDK exporter, edge).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomToken } from '../security/tokens.ts';
import { testEncryptionKeys } from './support/app.ts';
import { createTestDatabase, type TestDatabase } from './support/db.ts';
import { freePort } from './support/ports.ts';
import { waitFor } from './support/wait.ts';

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe('npm start supervises its processes', () => {
  let t: TestDatabase;
  let dataDir: string;
  let launcher: ChildProcess | null = null;
  let output = '';

  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'hg-stack-'));
  });
  afterAll(async () => {
    if (launcher && launcher.exitCode === null) launcher.kill('SIGKILL');
    await t?.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** Pids of `name started (pid N)` lines, in order. */
  const pidsOf = (name: string) => [...output.matchAll(new RegExp(`hostgate: ${name} started \\(pid (\\d+)\\)`, 'g'))].map((m) => Number(m[1]));

  it('restarts a killed worker with the API still answering; SIGTERM stops every child', async () => {
    const apiPort = await freePort();
    const httpPort = await freePort();
    const metricsPorts = { api: await freePort(), worker: await freePort(), sdk: await freePort(), edge: await freePort() };
    launcher = spawn(process.execPath, ['local-stack/start.ts'], {
      env: {
        PATH: process.env.PATH,
        HOSTGATE_ENV: 'test',
        LOG_LEVEL: 'warn',
        DATABASE_URL: t.url,
        TEMPORAL_ADDRESS: process.env.HG_TEST_TEMPORAL_ADDRESS,
        TEMPORAL_TASK_QUEUE: `stack-${randomToken(8)}`,
        HOSTGATE_DATA_DIR: dataDir,
        HOSTGATE_WORKFLOW_BUNDLE: path.join(dataDir, 'workflow-bundle.js'),
        HOSTGATE_API_PORT: String(apiPort),
        HOSTGATE_HTTP_PORT: String(httpPort),
        HOSTGATE_API_METRICS_PORT: String(metricsPorts.api),
        HOSTGATE_WORKER_METRICS_PORT: String(metricsPorts.worker),
        HOSTGATE_WORKER_SDK_METRICS_PORT: String(metricsPorts.sdk),
        HOSTGATE_EDGE_METRICS_PORT: String(metricsPorts.edge),
        HOSTGATE_ENCRYPTION_KEYS: testEncryptionKeys,
        HOSTGATE_DNS_SERVERS: '127.0.0.1:1',
        HOSTGATE_PDNS_PORT: String(await freePort()),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    launcher.stdout!.on('data', (d: Buffer) => { output += d.toString(); });
    launcher.stderr!.on('data', (d: Buffer) => { output += d.toString(); });
    const api = `http://127.0.0.1:${apiPort}`;
    try {
      await waitFor('the stack to be ready', async () => output.includes('hostgate: ready in'), 120_000, 200);
      const [worker] = pidsOf('worker');
      const [apiPid] = pidsOf('api');
      const [edgePid] = pidsOf('edge');
      expect(worker && apiPid && edgePid).toBeTruthy();
      // Moves on by default (issue 22): PowerDNS for the local challenge zone (installed here).
      const [pdnsPid] = pidsOf('powerdns');
      expect(pdnsPid).toBeTruthy();
      expect(output).toContain('Moves:        challenge zone acme-challenges.hostgate.localhost answered by PowerDNS');

      // The API answers all along while the worker is down and while it comes back.
      let probes = 0;
      let failures = 0;
      let probing = true;
      const prober = (async () => {
        while (probing) {
          probes++;
          const ok = await fetch(`${api}/healthz`, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok, () => false);
          if (!ok) failures++;
          await new Promise((r) => setTimeout(r, 50));
        }
      })();
      process.kill(worker!, 'SIGKILL');
      await waitFor('the launcher to log the exit', async () => output.includes('hostgate: worker exited (SIGKILL)'), 10_000, 50);
      await waitFor('a new worker process', async () => pidsOf('worker').length === 2, 15_000, 100);
      const restarted = pidsOf('worker')[1]!;
      expect(restarted).not.toBe(worker);
      // It stays up (the new process is the worker, not a crash loop).
      await waitFor('the new worker to be running', async () => output.includes('"worker running"') || alive(restarted), 30_000, 200);
      await new Promise((r) => setTimeout(r, 1500));
      expect(alive(restarted)).toBe(true);
      probing = false;
      await prober;
      expect(probes).toBeGreaterThan(10);
      expect(failures).toBe(0);
      // Nothing else was restarted, and the API still reads Postgres.
      expect(pidsOf('api')).toEqual([apiPid]);
      expect(pidsOf('edge')).toEqual([edgePid]);
      const ready = await fetch(`${api}/readyz`);
      expect(ready.status).toBe(200);
      expect(((await ready.json()) as { checks: unknown }).checks).toEqual({ postgres: 'ok', temporal: 'ok' });

      // Every process serves its metrics on loopback, on its own port (not the API's).
      await fetch(`http://127.0.0.1:${httpPort}/somewhere`, { redirect: 'manual' });
      const scrape = async (port: number) => {
        const res = await fetch(`http://127.0.0.1:${port}/metrics`);
        expect(res.status).toBe(200);
        return res.text();
      };
      const apiMetrics = await scrape(metricsPorts.api);
      expect(apiMetrics).toMatch(/hostgate_http_requests_total\{route="\/healthz",method="GET",status="200",process="api"\} \d+/);
      expect(apiMetrics).toMatch(/hostgate_http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} \d+/);
      const workerMetrics = await waitFor('the restarted worker\'s metrics', async () => scrape(metricsPorts.worker).catch(() => null), 20_000, 200);
      expect(workerMetrics).toMatch(/hostgate_outbox_pending\{process="worker"\} \d+/);
      expect(workerMetrics).toMatch(/hostgate_outbox_lag_seconds\{process="worker"\} [\d.]+/);
      expect(workerMetrics).toContain('# TYPE hostgate_dns_check_duration_seconds histogram');
      expect(workerMetrics).toContain('# TYPE hostgate_webhook_attempts_total counter');
      const sdkMetrics = await waitFor('the Temporal SDK metrics', async () => scrape(metricsPorts.sdk).catch(() => null), 20_000, 200);
      expect(sdkMetrics).toMatch(/temporal_worker_task_slots_(available|used)\{/);
      expect(await scrape(metricsPorts.edge)).toMatch(/hostgate_http_requests_total\{route="redirect",method="GET",status="30\d",process="edge-http"\} 1/);
      expect((await fetch(`${api}/metrics`)).status).toBe(404);

      // SIGTERM to the launcher: everything stops, nothing is restarted.
      const exited = new Promise<number | null>((resolve) => launcher!.once('exit', (code) => resolve(code)));
      launcher.kill('SIGTERM');
      expect(await Promise.race([exited, new Promise((r) => setTimeout(() => r('timeout'), 40_000))])).toBe(0);
      for (const pid of [restarted, apiPid!, edgePid!, pdnsPid!]) expect([pid, alive(pid)]).toEqual([pid, false]);
      expect(pidsOf('worker')).toHaveLength(2);
    } catch (error) {
      throw new Error(`${(error as Error).message}\n--- launcher output ---\n${output.slice(-6000)}`);
    }
  }, 200_000);
});
