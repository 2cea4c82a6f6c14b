// Edge agent process: one per edge machine, owning one HAProxy (HTTPS on HOSTGATE_EDGE_HTTPS_PORT).
// config → database pool → agent (files, HAProxy, loops). SIGINT/SIGTERM stop HAProxy gracefully;
// a crash leaves HAProxy serving and the next agent adopts it. See docs/edge.md.
import { existsSync } from 'node:fs';
import { ConfigError, loadConfig } from '../config/index.ts';
import { createDb } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { SecretBox } from '../security/secret-box.ts';
import { agentSettings, createEdgeAgent } from './agent/agent.ts';

let config;
try {
  config = loadConfig(process.env, ['database', 'encryption']);
} catch (error) {
  if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
  throw error;
}
const logger = createLogger(config.logLevel, 'edge-agent');
const settings = agentSettings(config);
if (!existsSync(settings.haproxyBin)) {
  console.error(`HAProxy is not installed at ${settings.haproxyBin} (HOSTGATE_EDGE_HAPROXY_BIN): install it with \`sudo apt-get install haproxy\` (Debian 12: HAProxy 2.6)`);
  process.exit(78);
}
const db = await createDb(config.databaseUrl!, { maximumPoolSize: Math.min(config.databasePoolSize, 4) });
const agent = createEdgeAgent({ db, secretBox: new SecretBox(config.encryptionKeys), settings, logger });

let closing = false;
async function close(signal: string) {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'edge agent shutting down');
  const force = setTimeout(() => process.exit(1), 20_000);
  force.unref();
  await agent.stop().catch((error) => logger.error({ err: error }, 'edge agent stop failed'));
  await db.end().catch(() => undefined);
  process.exit(0);
}
process.on('SIGINT', () => void close('SIGINT'));
process.on('SIGTERM', () => void close('SIGTERM'));

try {
  const started = await agent.start();
  logger.info({ ...started, edgeId: settings.edgeId, port: settings.httpsPort, stateDir: settings.stateDir }, 'edge agent ready');
} catch (error) {
  logger.fatal({ err: error }, 'edge agent could not start');
  await agent.stop().catch(() => undefined);
  process.exit(1);
}
