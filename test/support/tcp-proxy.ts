// A loopback TCP proxy: lets a test cut a real connection path (e.g. the API's route to Postgres)
// and restore it, or freeze it — connections stay open but no byte moves, which is what a client
// sees of a Postgres that is SIGSTOPped or behind a black-holed network — without touching the
// shared server.
import net from 'node:net';

export interface TcpProxy {
  port: number;
  /** Closes every connection and stops listening (connects are refused). */
  cut(): Promise<void>;
  restore(): Promise<void>;
  /**
   * Stops forwarding in both directions without closing anything; new connections hang too,
   * unless `onlyExisting` (then only the connections open now are stuck: shows a client that
   * discards stuck connections recovers through fresh ones).
   */
  freeze(onlyExisting?: boolean): void;
  thaw(): void;
  close(): Promise<void>;
}

interface Pair { client: net.Socket; upstream: net.Socket | null }

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  const stuck = new Set<Pair>();
  let server: net.Server | null = null;
  let port = 0;
  let frozen = false;

  const link = (pair: Pair) => {
    const upstream = net.connect(targetPort, targetHost);
    pair.upstream = upstream;
    pair.client.pipe(upstream).pipe(pair.client);
    pair.client.resume();
    upstream.on('error', () => drop(pair)).on('close', () => drop(pair));
  };
  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  const listen = () => new Promise<void>((resolve) => {
    server = net.createServer((client) => {
      const pair: Pair = { client, upstream: null };
      pairs.add(pair);
      client.on('error', () => drop(pair)).on('close', () => drop(pair));
      // While frozen, an accepted connection waits unanswered, like a SYN queue of a stopped server.
      if (frozen) client.pause(); else link(pair);
    });
    server.listen(port, '127.0.0.1', () => { port = (server!.address() as net.AddressInfo).port; resolve(); });
  });
  await listen();
  const stop = () => new Promise<void>((resolve) => {
    for (const pair of [...pairs]) drop(pair);
    if (!server) return resolve();
    server.close(() => resolve());
    server = null;
  });
  return {
    get port() { return port; },
    cut: stop,
    restore: listen,
    freeze(onlyExisting = false) {
      frozen = !onlyExisting;
      for (const pair of pairs) {
        const { client, upstream } = pair;
        stuck.add(pair);
        client.unpipe();
        upstream?.unpipe();
        client.pause();
        upstream?.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) {
        if (!pair.upstream) { link(pair); continue; }
        if (!stuck.delete(pair)) continue;
        pair.client.pipe(pair.upstream).pipe(pair.client);
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    close: stop,
  };
}
