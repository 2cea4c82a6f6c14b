// How every long-running Hostgate process (api, worker, edge HTTP listener) starts and stops:
// configuration validated first (a bad or missing variable exits 78, EX_CONFIG, with a message
// naming it), then a logger, then one graceful shutdown on SIGINT/SIGTERM (close-with-grace): the
// process's own close function runs once, bounded, then the process exits 0; a second signal, an
// uncaught error or a close that overruns the bound exits 1.
//
// A folder of its own: config/ declares and validates variables, logging/ formats log lines; this
// is the process lifecycle that uses both, and nothing below it (db/, api/, …) imports it.
import closeWithGrace from 'close-with-grace';
import { ConfigError, loadConfig, type Config } from '../config/index.ts';
import { createLogger, type Logger } from '../logging/logger.ts';

/** What a process refuses to start without (see loadConfig). */
export type Requirement = 'database' | 'temporal' | 'encryption';

/** How long a graceful close may take before the process exits 1 anyway. */
export const SHUTDOWN_GRACE_MS = 15_000;

export interface Booted {
  config: Config;
  logger: Logger;
  /**
   * Installs the close function run once on SIGINT/SIGTERM (or an uncaught error), after which
   * the process exits. Install it once the resources it closes exist.
   */
  onShutdown(close: (reason: { signal?: string; err?: unknown }) => Promise<void>): void;
}

export function boot(name: string, requirements: Requirement[]): Booted {
  let config: Config;
  try {
    config = loadConfig(process.env, requirements);
  } catch (error) {
    if (error instanceof ConfigError) {
      console.error(error.message);
      process.exit(78);
    }
    throw error;
  }
  const logger = createLogger(config.logLevel, name);
  return {
    config,
    logger,
    onShutdown(close) {
      closeWithGrace({
        delay: SHUTDOWN_GRACE_MS,
        // Its own messages (second signal, timeout) go through pino at error level.
        logger: { error: (message: unknown) => logger.error(message instanceof Error ? { err: message } : { reason: String(message) }, `${name} shutdown`) },
      }, async ({ signal, err }) => {
        if (err) logger.fatal({ err }, `${name} failed; shutting down`);
        else logger.info({ signal }, `${name} shutting down`);
        await close({ signal, err });
      });
    },
  };
}
