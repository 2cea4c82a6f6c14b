// A Prometheus endpoint of its own for a process (GET /metrics on `host:port`): not the public
// API port, loopback by default (HOSTGATE_METRICS_HOST), off when the port is 0. A port that
// cannot be bound is logged and the process serves on without metrics: metrics must never take
// the service down.
import http from 'node:http';
import client from 'prom-client';

export interface MetricsServer { url: string | null; close(): Promise<void> }

interface Log { info(obj: object, msg: string): void; error(obj: object, msg: string): void }

/** Process metrics (CPU, memory, event loop lag, GC) once per process, with a `process` label. */
let defaultsOn = false;
export function collectProcessMetrics(processName: string): void {
  if (defaultsOn) return;
  defaultsOn = true;
  client.register.setDefaultLabels({ process: processName });
  client.collectDefaultMetrics();
}

export async function startMetricsServer(options: { host: string; port: number; logger: Log; registry?: client.Registry }): Promise<MetricsServer> {
  if (options.port === 0) return { url: null, close: async () => undefined };
  const registry = options.registry ?? client.register;
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found: GET /metrics\n');
      return;
    }
    registry.metrics().then(
      (body) => res.writeHead(200, { 'content-type': registry.contentType }).end(body),
      (error: unknown) => {
        options.logger.error({ err: String(error) }, 'metrics collection failed');
        res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics collection failed\n');
      },
    );
  });
  // A scrape never holds the process open or hangs forever.
  server.requestTimeout = 10_000;
  server.headersTimeout = 5_000;
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(options.port, options.host, () => { server.off('error', reject); resolve(); });
    });
  } catch (error) {
    options.logger.error({ err: String(error), host: options.host, port: options.port }, 'metrics endpoint not started (the process runs on without it)');
    return { url: null, close: async () => undefined };
  }
  server.unref();
  const url = `http://${options.host.includes(':') ? `[${options.host}]` : options.host}:${options.port}/metrics`;
  options.logger.info({ url }, 'metrics endpoint listening');
  return {
    url,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}
