// Edge agent process: one per edge machine, owning one HAProxy (HTTPS on HOSTGATE_EDGE_HTTPS_PORT).
// config → database pool → agent (files, HAProxy, loops). SIGINT/SIGTERM stop HAProxy gracefully;
// a crash leaves HAProxy serving and the next agent adopts it. See docs/edge.md.
import { existsSync } from 'node:fs';
import { createDb } from '../db/pool.ts';
import { boot } from '../process/boot.ts';
import { rejectAfter } from '../process/deadline.ts';
import { SecretBox } from '../security/secret-box.ts';
import { createEdgeAgent } from './agent/agent.ts';
import { agentSettings } from './agent/settings.ts';
import { startHealthServer } from './agent/health.ts';

const { config, logger, onShutdown } = boot('edge-agent', ['database', 'encryption']);
const settings = agentSettings(config);
if (!existsSync(settings.haproxyBin)) {
  console.error(`HAProxy is not installed at ${settings.haproxyBin} (HOSTGATE_EDGE_HAPROXY_BIN): install it with \`sudo apt-get install haproxy\` (Debian 12: HAProxy 2.6)`);
  process.exit(78);
}
const db = await createDb(config.db.url!, { maximumPoolSize: Math.min(config.db.poolSize, 4) });
const agent = createEdgeAgent({ db, secretBox: new SecretBox(config.encryptionKeys), settings, logger });
// Health endpoint (HOSTGATE_EDGE_HEALTH_PORT, 0: off): up before the agent starts, so a load
// balancer sees 503 "catching_up" rather than a refused connection while this edge boots.
// A port it cannot bind is logged, not fatal: serving HTTPS comes first, and a checker that
// cannot connect takes the edge out of rotation, which is the safe side.
const healthServer = config.edge.healthPort === 0 ? null
  : await startHealthServer({ host: config.edge.bindAddress, port: config.edge.healthPort, tracker: agent.health, edgeId: settings.edgeId, logger })
    .catch((error: unknown) => { logger.error({ err: error, port: config.edge.healthPort }, 'edge: the health endpoint could not listen; serving without it'); return null; });
onShutdown(async () => {
  // The endpoint answers 503 "stopping" from the first moment of the stop until HAProxy is gone.
  await agent.stop().catch((error) => logger.error({ err: error }, 'edge agent stop failed'));
  // HAProxy is stopped by now; the pool's end is bounded so that a frozen Postgres cannot turn an
  // orderly stop into the grace timeout's exit 1 (the process exits right after, sockets and all).
  await healthServer?.close();
  await rejectAfter(db.end(), 1000, () => new Error('the database pool did not close within 1000 ms')).catch(() => undefined);
});

try {
  const started = await agent.start();
  logger.info({ ...started, edgeId: settings.edgeId, port: settings.httpsPort, stateDir: settings.stateDir, healthPort: healthServer?.port ?? null }, 'edge agent ready');
} catch (error) {
  logger.fatal({ err: error }, 'edge agent could not start');
  await agent.stop().catch(() => undefined);
  process.exit(1);
}
