// HTTP listener process (port 80 in production): ACME HTTP-01 answers from Postgres, everything
// else redirected to HTTPS. config → database → listen; SIGINT/SIGTERM close it gracefully.
import { requestDbLimits } from '../config/index.ts';
import { createDb } from '../db/pool.ts';
import { observeHttpRequest } from '../metrics/http.ts';
import { collectProcessMetrics, startMetricsServer } from '../metrics/serve.ts';
import { boot } from '../process/boot.ts';
import { createChallengeServer } from './challenge-server.ts';

const { config, logger, onShutdown } = boot('edge-http', ['database']);
// The API's bounds (HOSTGATE_DB_*): a CA validating a challenge gives up after some seconds, so a
// lookup stuck on a frozen Postgres answers 503 within them instead of holding the connection.
const db = await createDb(config.db.url!, requestDbLimits(config));
const server = createChallengeServer({ db, logger });
// Metrics (HOSTGATE_EDGE_METRICS_PORT, off by default): every answer by kind (ACME challenge or
// redirect), method and status, and its latency.
collectProcessMetrics('edge-http');
const metrics = await startMetricsServer({ host: config.metrics.host, port: config.metrics.edgePort, logger });
server.on('request', (req, res) => {
  const started = process.hrtime.bigint();
  const route = (req.url ?? '').startsWith('/.well-known/acme-challenge/') ? 'acme-challenge' : 'redirect';
  res.once('finish', () => observeHttpRequest(route, req.method ?? 'OTHER', res.statusCode, Number(process.hrtime.bigint() - started) / 1e9));
});
onShutdown(async () => {
  await metrics.close();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await db.end();
});

server.on('error', (error) => {
  logger.fatal({ err: error, host: config.edge.httpHost, port: config.edge.httpPort }, 'edge http listener failed');
  process.exit(1);
});
server.listen(config.edge.httpPort, config.edge.httpHost, () => {
  logger.info({ host: config.edge.httpHost, port: config.edge.httpPort }, 'edge http listener ready (ACME HTTP-01, redirect to HTTPS)');
});
