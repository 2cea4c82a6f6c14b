// LISTEN on one channel on a connection of its own, reconnecting after a loss (1 s apart). The
// caller learns when it listens (`onListening`: notifications may have been missed before, catch
// up) and when it lost the connection (`onLost`: nothing arrives until the next `onListening`).
// The edge agent's change feed and the API's key-revocation feed run on it; the worker's drains
// use db/notified-sweep.ts. Its waits are bounded (db/listen-client.ts).
import pg from 'pg';
import { endClient, LISTEN_CONNECT_MS, listenWithin } from './listen-client.ts';

export interface ChannelListener { close(): Promise<void>; readonly listening: boolean }

export const RECONNECT_MS = 1000;

export function listenToChannel(databaseUrl: string, channel: string, handlers: {
  onPayload: (payload: string) => void;
  onListening: () => void;
  onLost: (error: unknown) => void;
}, options: { applicationName?: string } = {}): ChannelListener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let listening = false;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({
      connectionString: databaseUrl, connectionTimeoutMillis: LISTEN_CONNECT_MS, keepAlive: true,
      ...(options.applicationName ? { application_name: options.applicationName } : {}),
    });
    let lost = false;
    const retry = (error: unknown) => {
      if (lost) return;
      lost = true;
      listening = false;
      if (client === c) client = null;
      void endClient(c);
      if (closed) return;
      handlers.onLost(error);
      timer = setTimeout(() => { timer = null; void connect(); }, RECONNECT_MS);
    };
    c.on('error', retry);
    c.on('end', () => retry(new Error('connection ended')));
    c.on('notification', (n) => { if (n.channel === channel) handlers.onPayload(n.payload ?? ''); });
    try {
      await c.connect();
      // Bounded: unanswered, the listener would never reconnect (db/listen-client.ts).
      await listenWithin(c, channel);
      if (closed) { await endClient(c); return; }
      client = c;
      listening = true;
      handlers.onListening();
    } catch (error) {
      retry(error);
    }
  };
  void connect();
  return {
    get listening() { return listening; },
    async close() {
      closed = true;
      listening = false;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      // Bounded: callers' shutdowns await this, and a frozen Postgres never answers pg's end()
      // (see db/listen-client.ts).
      if (c) await endClient(c);
    },
  };
}
