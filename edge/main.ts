// HTTP listener process (port 80 in production): ACME HTTP-01 answers from Postgres, everything
// else redirected to HTTPS. config → database → listen; SIGINT/SIGTERM close it gracefully.
import { ConfigError, loadConfig } from '../config/index.ts';
import { createDb } from '../db/pool.ts';
import { createLogger } from '../logging/logger.ts';
import { createChallengeServer } from './challenge-server.ts';

let config;
try {
  config = loadConfig(process.env, ['database']);
} catch (error) {
  if (error instanceof ConfigError) { console.error(error.message); process.exit(78); }
  throw error;
}
const logger = createLogger(config.logLevel, 'edge-http');
const db = await createDb(config.databaseUrl!, { maximumPoolSize: config.databasePoolSize });
const server = createChallengeServer({ db, logger });

let closing = false;
async function close(signal: string) {
  if (closing) return;
  closing = true;
  logger.info({ signal }, 'edge http listener shutting down');
  const force = setTimeout(() => process.exit(1), 15_000);
  force.unref();
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await db.end();
  process.exit(0);
}
process.on('SIGINT', () => void close('SIGINT'));
process.on('SIGTERM', () => void close('SIGTERM'));

server.on('error', (error) => {
  logger.fatal({ err: error, host: config.host, port: config.httpPort }, 'edge http listener failed');
  process.exit(1);
});
server.listen(config.httpPort, config.host, () => {
  logger.info({ host: config.host, port: config.httpPort }, 'edge http listener ready (ACME HTTP-01, redirect to HTTPS)');
});
