// The edge's health as load balancers and DNS health checks see it: HTTP on its own port
// (HOSTGATE_EDGE_HEALTH_PORT), `GET /healthz` → 200 only when the agent is in sync with Postgres
// (its last complete read younger than HOSTGATE_EDGE_HEALTH_MAX_LAG_MS, HAProxy answering), 503
// while it catches up, cannot reach HAProxy, or stops. The same view goes out with every
// heartbeat (edge_nodes.state), which is what activation and `hostgate edge status` read; the
// decision itself is model/edge-health.ts. A separate module from agent.ts: the agent only tells
// it when a read of Postgres completed (noteSynced) or a change was refused (noteFailure).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { edgeHealth, type EdgeHealth } from '../../model/edge-health.ts';
import type { Logger } from '../../logging/logger.ts';

// A probe answer is reused this long: a load balancer polling every 100 ms costs HAProxy's
// runtime API at most two commands a second.
const PROBE_CACHE_MS = 500;

export interface HealthTracker {
  /** A read of Postgres that began at `startedAt` (ms epoch) finished with every change applied; `full`: a whole reconcile. */
  noteSynced(startedAt: number, full: boolean): void;
  /** HAProxy refused a change: not in sync until a full reconcile applies everything. */
  noteFailure(): void;
  /** SIGTERM: 503 from now on. */
  markStopping(): void;
  /** A (re)start of the agent: catching up again until its first full reconcile. */
  markStarting(): void;
  /** Probes HAProxy (bounded by the runtime API's own timeout, cached briefly) and decides. */
  check(): Promise<EdgeHealth>;
  /** The last decision without a probe (for the heartbeat between two checks). */
  current(): EdgeHealth;
}

export function createHealthTracker(o: { maxLagMs: number; probeHaproxy: () => Promise<unknown>; now?: () => number }): HealthTracker {
  const now = o.now ?? Date.now;
  let lastSyncAt: number | null = null;
  let fullyReconciled = false;
  let dirty = false;
  let stopping = false;
  let haproxyReachable = false;
  let probedAt = -Infinity;
  let probing: Promise<void> | null = null;

  const decide = () => edgeHealth({ stopping, haproxyReachable, lastSyncAt: dirty ? null : lastSyncAt, fullyReconciled: fullyReconciled && !dirty, now: now(), maxLagMs: o.maxLagMs });
  const probe = () => {
    probing ??= o.probeHaproxy().then(() => { haproxyReachable = true; }, () => { haproxyReachable = false; })
      .finally(() => { probedAt = now(); probing = null; });
    return probing;
  };
  return {
    noteSynced(startedAt, full) {
      if (full) { fullyReconciled = true; dirty = false; }
      // A synced read also proves HAProxy answered (the changes went through its runtime API).
      if (full) { haproxyReachable = true; probedAt = now(); }
      if (!dirty && (lastSyncAt === null || startedAt > lastSyncAt)) lastSyncAt = startedAt;
    },
    noteFailure() { dirty = true; },
    markStopping() { stopping = true; },
    markStarting() { stopping = false; fullyReconciled = false; dirty = false; lastSyncAt = null; },
    async check() {
      if (!stopping && now() - probedAt > PROBE_CACHE_MS) await probe();
      return decide();
    },
    current: decide,
  };
}

/** The HTTP endpoint: GET /healthz (or /) → 200/503 with the decision as JSON; closes with the agent. */
export async function startHealthServer(o: { host: string; port: number; tracker: HealthTracker; edgeId: string; logger: Logger }): Promise<{ port: number; close(): Promise<void> }> {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') { res.writeHead(405, { allow: 'GET, HEAD' }).end(); return; }
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/healthz' && path !== '/') { res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":"not_found"}'); return; }
    o.tracker.check().then((h) => {
      const body = JSON.stringify({ edge_id: o.edgeId, status: h.state, lag_ms: h.lagMs, reason: h.reason });
      // A health checker must not keep connections to an edge that is going away.
      res.writeHead(h.httpStatus, { 'content-type': 'application/json', 'cache-control': 'no-store', ...(h.httpStatus === 503 ? { 'retry-after': '1' } : {}), ...(h.state === 'stopping' ? { connection: 'close' } : {}) });
      res.end(req.method === 'HEAD' ? undefined : body);
    }, (error: unknown) => {
      o.logger.warn({ err: String(error) }, 'edge: health check failed');
      res.writeHead(503, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"status":"unknown"}');
    });
  });
  server.keepAliveTimeout = 5_000;
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(o.port, o.host, () => { server.off('error', reject); resolve(); }); });
  server.on('error', (error) => o.logger.error({ err: error }, 'edge: health endpoint failed'));
  return {
    port: (server.address() as AddressInfo).port,
    close: () => new Promise<void>((resolve) => { server.close(() => resolve()); server.closeAllConnections(); }),
  };
}
