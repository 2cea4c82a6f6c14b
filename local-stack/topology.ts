// How many of each process `npm start` runs, and where each listens: `npm start -- --api N
// --worker N --edge N` (or `npm run cluster`: two of each). One Postgres, one Temporal, then N
// APIs on consecutive ports (HOSTGATE_API_PORT, +1, …), N workers on the same task queue, and N
// edges, each with its own HOSTGATE_EDGE_ID, HAProxy, state directory and ports (HTTPS, HTTP,
// health: each base + i − 1). With one of each (the default) every name, port and directory is
// what it always was. Pure: the launcher (local-stack/start.ts) spawns what this plans.
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { Config } from '../config/index.ts';
import { taskQueue } from '../contracts/task-queues.ts';

export interface TopologyCounts { api: number; worker: number; edge: number }

/** A bad command line: `npm start` exits 64 (EX_USAGE) with this message. */
export class TopologyUsageError extends Error {
  readonly exitCode = 64;
  constructor(message: string) {
    super(`${message}\nusage: npm start -- [--api N] [--worker N] [--edge N]   (each N from 1 to ${MAX_PER_KIND})`);
    this.name = 'TopologyUsageError';
  }
}

/** More than this many processes of one kind on one machine is a mistake, not a topology. */
export const MAX_PER_KIND = 16;
/** Metrics ports of the 2nd, 3rd… process of a kind: the first's + 10 × (i − 1), clear of the next kind's. */
const METRICS_PORT_STRIDE = 10;

export function parseTopologyArgs(argv: readonly string[]): TopologyCounts {
  let values: Record<string, string | undefined>;
  try {
    ({ values } = parseArgs({ args: [...argv], options: { api: { type: 'string' }, worker: { type: 'string' }, edge: { type: 'string' } }, strict: true, allowPositionals: false }));
  } catch (error) {
    throw new TopologyUsageError((error as Error).message);
  }
  const count = (name: keyof TopologyCounts) => {
    const raw = values[name];
    if (raw === undefined) return 1;
    if (!/^\d+$/.test(raw) || Number(raw) < 1 || Number(raw) > MAX_PER_KIND) throw new TopologyUsageError(`--${name} must be a whole number from 1 to ${MAX_PER_KIND}, got "${raw}"`);
    return Number(raw);
  };
  return { api: count('api'), worker: count('worker'), edge: count('edge') };
}

export interface PlannedProcess {
  /** The supervisor's name for it (`api`, or `api-2` when there are several). */
  name: string;
  kind: 'api' | 'worker' | 'edge-http' | 'edge-agent';
  /** Entry file, relative to local-stack/. */
  entry: string;
  /** Set on top of the launcher's environment for this process only. */
  env: Record<string, string>;
  /** One line for the printout: where it listens. */
  where: string;
}

export function planTopology(counts: TopologyCounts, config: Config, options: { withEdgeAgent: boolean }): PlannedProcess[] {
  const plan: PlannedProcess[] = [];
  const name = (kind: string, i: number, n: number) => (n === 1 ? kind : `${kind}-${i}`);
  const metrics = (base: number, i: number) => (base === 0 ? 0 : base + METRICS_PORT_STRIDE * (i - 1));
  const m = config.localStack.metricsPorts;
  for (let i = 1; i <= counts.api; i++) {
    const port = config.api.port + i - 1;
    plan.push({
      name: name('api', i, counts.api), kind: 'api', entry: '../api/server.ts',
      env: { HOSTGATE_API_PORT: String(port), HOSTGATE_API_METRICS_PORT: String(metrics(m.api, i)) },
      where: `http://localhost:${port}/v1`,
    });
  }
  for (let i = 1; i <= counts.worker; i++) {
    plan.push({
      name: name('worker', i, counts.worker), kind: 'worker', entry: '../worker/main.ts',
      env: { HOSTGATE_WORKER_METRICS_PORT: String(metrics(m.worker, i)), HOSTGATE_WORKER_SDK_METRICS_PORT: String(metrics(m.workerSdk, i)) },
      where: `task queue ${taskQueue(config.temporal.taskQueue)}`,
    });
  }
  for (let i = 1; i <= counts.edge; i++) {
    const one = counts.edge === 1;
    const httpPort = config.edge.httpPort + i - 1;
    const httpsPort = config.edge.httpsPort + i - 1;
    const healthPort = config.localStack.edgeHealthPort === 0 ? 0 : config.localStack.edgeHealthPort + i - 1;
    const id = one ? config.edge.id : `edge-${i}`;
    const stateDir = one ? config.edge.stateDir : path.join(config.dataDir, `edge-${i}`);
    const edgeEnv = { HOSTGATE_HTTP_PORT: String(httpPort), HOSTGATE_EDGE_METRICS_PORT: String(metrics(m.edge, i)) };
    plan.push({ name: one ? 'edge' : `edge-${i}-http`, kind: 'edge-http', entry: '../edge/main.ts', env: edgeEnv, where: `http://localhost:${httpPort} (ACME HTTP-01, redirect to HTTPS)` });
    if (!options.withEdgeAgent) continue;
    plan.push({
      name: one ? 'edge-agent' : `edge-${i}-agent`, kind: 'edge-agent', entry: '../edge/agent-main.ts',
      env: { ...edgeEnv, HOSTGATE_EDGE_ID: id, HOSTGATE_EDGE_HTTPS_PORT: String(httpsPort), HOSTGATE_EDGE_STATE_DIR: stateDir, HOSTGATE_EDGE_HEALTH_PORT: String(healthPort) },
      where: `https://<active hostname>:${httpsPort}/ on ${config.edge.bindAddress} (${id}; health ${healthPort === 0 ? 'off' : `http://${config.edge.bindAddress}:${healthPort}/healthz`}; files ${stateDir})`,
    });
  }
  return plan;
}
