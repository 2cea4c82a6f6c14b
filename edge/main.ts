// HTTP listener process (port 80 in production): ACME HTTP-01 answers from Postgres, everything
// else redirected to HTTPS. config → database → listen; SIGINT/SIGTERM close it gracefully.
import { createDb } from '../db/pool.ts';
import { boot } from '../process/boot.ts';
import { createChallengeServer } from './challenge-server.ts';

const { config, logger, onShutdown } = boot('edge-http', ['database']);
const db = await createDb(config.databaseUrl!, { maximumPoolSize: config.databasePoolSize });
const server = createChallengeServer({ db, logger });
onShutdown(async () => {
  await new Promise<void>((resolve) => {
    server.close(() => resolve());
    server.closeIdleConnections();
  });
  await db.end();
});

server.on('error', (error) => {
  logger.fatal({ err: error, host: config.host, port: config.httpPort }, 'edge http listener failed');
  process.exit(1);
});
server.listen(config.httpPort, config.host, () => {
  logger.info({ host: config.host, port: config.httpPort }, 'edge http listener ready (ACME HTTP-01, redirect to HTTPS)');
});
