// LISTEN on `hostgate_edge` (migration 008's triggers notify a domain id at commit) on a
// connection of its own, reconnecting after a loss. `onReconnected` tells the caller that
// notifications may have been missed meanwhile (it then catches up by polling).
import pg from 'pg';
import { endClient, LISTEN_CONNECT_MS, listenWithin } from '../listen-client.ts';

export const EDGE_CHANNEL = 'hostgate_edge';

export interface EdgeListener { close(): Promise<void>; readonly listening: boolean }

export function listenForEdgeChanges(databaseUrl: string, handlers: {
  onDomain: (domainId: string) => void;
  onReconnected: () => void;
  onLost: (error: unknown) => void;
}): EdgeListener {
  let client: pg.Client | null = null;
  let closed = false;
  let timer: NodeJS.Timeout | null = null;
  let listening = false;

  const connect = async () => {
    if (closed) return;
    const c = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: LISTEN_CONNECT_MS, keepAlive: true });
    let lost = false;
    const retry = (error: unknown) => {
      if (lost) return;
      lost = true;
      listening = false;
      if (client === c) client = null;
      void endClient(c);
      if (closed) return;
      handlers.onLost(error);
      timer = setTimeout(() => { timer = null; void connect(); }, 1000);
    };
    c.on('error', retry);
    c.on('end', () => retry(new Error('connection ended')));
    c.on('notification', (n) => { if (n.channel === EDGE_CHANNEL && n.payload) handlers.onDomain(n.payload); });
    try {
      await c.connect();
      // Bounded: unanswered, the listener would never reconnect (db/listen-client.ts).
      await listenWithin(c, EDGE_CHANNEL);
      if (closed) { await endClient(c); return; }
      client = c;
      listening = true;
      handlers.onReconnected();
    } catch (error) {
      retry(error);
    }
  };
  void connect();
  return {
    get listening() { return listening; },
    async close() {
      closed = true;
      if (timer) clearTimeout(timer);
      const c = client;
      client = null;
      // Bounded: the agent's stop awaits this before it stops HAProxy, and a frozen Postgres
      // never answers pg's end() (see db/listen-client.ts).
      if (c) await endClient(c);
    },
  };
}
