// A background drain woken two ways: Postgres LISTEN on a channel (a trigger notifies at commit,
// so work is taken in milliseconds) and a sweep every `sweepIntervalMs` (slots that come due, and
// any notification missed while the listener reconnects). The worker's webhook fan-out and its
// DNS checker both run on it; several processes can run side by side (their drains claim rows
// with SKIP LOCKED). Only one drain runs at a time per process: a wake-up during a drain makes it
// go again instead of being lost. The LISTEN connection's waits are bounded (db/listen-client.ts).
import pg from 'pg';
import type { Logger } from '../logging/logger.ts';
import { endClient, LISTEN_CONNECT_MS, listenWithin } from './listen-client.ts';

export interface NotifiedSweep {
  /** Runs a drain, or asks the running one to go again; resolves with what the drains did. */
  wake(): Promise<number>;
  /** Starts listening (in the background, reconnecting) and sweeping; the first sweep after `firstSweepMs`. */
  start(firstSweepMs: number): void;
  /** Stops both, closes the listener (bounded) and waits for the drain in progress. */
  stop(): Promise<void>;
}

export function createNotifiedSweep(o: {
  /** What the log lines name ("webhook fan-out", "DNS checker"). */
  what: string;
  channel: string;
  /** Without it: sweeping only. */
  databaseUrl?: string | undefined;
  sweepIntervalMs: number;
  logger: Logger;
  drain(): Promise<number>;
}): NotifiedSweep {
  let stopped = false;
  let running: Promise<number> | null = null;
  let again = false;
  let sweepTimer: NodeJS.Timeout | null = null;
  let listener: pg.Client | null = null;
  let reconnectTimer: NodeJS.Timeout | null = null;

  function wake(): Promise<number> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let total = 0;
      do {
        again = false;
        try {
          total += await o.drain();
        } catch (error) {
          o.logger.warn({ err: String(error) }, `${o.what} failed; the next sweep retries`);
        }
      } while (again && !stopped);
      return total;
    })().finally(() => { running = null; });
    return running;
  }

  async function listen(): Promise<void> {
    if (!o.databaseUrl || stopped) return;
    // Bounded connect and LISTEN: a Postgres frozen after accepting the connection would otherwise
    // hold this attempt for ever, and with it the reconnect path.
    const client = new pg.Client({ connectionString: o.databaseUrl, connectionTimeoutMillis: LISTEN_CONNECT_MS, keepAlive: true });
    let lost = false;
    const retry = () => {
      if (lost) return;
      lost = true;
      if (listener === client) listener = null;
      void endClient(client);
      if (!stopped && !reconnectTimer) reconnectTimer = setTimeout(() => { reconnectTimer = null; void listen(); }, 1000);
    };
    client.on('error', (error) => {
      o.logger.warn({ err: String(error) }, `${o.what} listener lost; reconnecting`);
      retry();
    });
    client.on('end', () => { if (!stopped) retry(); });
    client.on('notification', () => { void wake(); });
    try {
      await client.connect();
      await listenWithin(client, o.channel);
      if (stopped) { await endClient(client); return; }
      listener = client;
      // Work committed while not listening.
      void wake();
    } catch (error) {
      o.logger.warn({ err: String(error) }, `${o.what} could not listen; sweeping only until it can`);
      retry();
    }
  }

  return {
    wake,
    start(firstSweepMs) {
      stopped = false;
      void listen();
      const tick = () => {
        if (stopped) return;
        void wake().finally(() => { if (!stopped) sweepTimer = setTimeout(tick, o.sweepIntervalMs); });
      };
      sweepTimer = setTimeout(tick, firstSweepMs);
    },
    async stop() {
      stopped = true;
      if (sweepTimer) clearTimeout(sweepTimer);
      if (reconnectTimer) clearTimeout(reconnectTimer);
      const client = listener;
      listener = null;
      // Bounded: a frozen Postgres never answers pg's end(), and the worker's shutdown awaits this.
      if (client) await endClient(client);
      await running;
    },
  };
}
