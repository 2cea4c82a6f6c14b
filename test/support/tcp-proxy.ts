// A loopback TCP proxy: lets a test cut a real connection path (e.g. the API's route to Postgres)
// and restore it, freeze it — connections stay open but no byte moves, which is what a client
// sees of a Postgres that is SIGSTOPped or behind a black-holed network — or lose the server's
// answer to one statement after the server has run it, without touching the shared server.
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
  /**
   * Once: when a client sends bytes containing `marker` (e.g. "COMMIT"), the server still gets
   * them, but its answer is dropped and the connection closed — the server did the work, the
   * client never learns it. Resolves when that happened.
   */
  loseAnswerTo(marker: string): Promise<void>;
  close(): Promise<void>;
}

interface Pair { client: net.Socket; upstream: net.Socket | null; stuck: boolean; losing: boolean }

export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let server: net.Server | null = null;
  let port = 0;
  let frozen = false;
  let lose: { marker: Buffer; done: () => void } | null = null;

  const drop = (pair: Pair) => {
    pair.client.destroy();
    pair.upstream?.destroy();
    pairs.delete(pair);
  };
  // Forwarding by hand instead of pipe(), so a chunk can be held back (freeze) or swallowed.
  const link = (pair: Pair) => {
    const upstream = net.connect(targetPort, targetHost);
    pair.upstream = upstream;
    pair.client.on('data', (chunk: Buffer) => {
      if (lose && chunk.includes(lose.marker)) pair.losing = true;
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (pair.losing && lose) {
        const done = lose.done;
        lose = null;
        drop(pair);
        done();
        return;
      }
      pair.client.write(chunk);
    });
    pair.client.resume();
    upstream.on('error', () => drop(pair)).on('close', () => drop(pair));
  };
  const listen = () => new Promise<void>((resolve) => {
    server = net.createServer((client) => {
      const pair: Pair = { client, upstream: null, stuck: false, losing: false };
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
        pair.stuck = true;
        pair.client.pause();
        pair.upstream?.pause();
      }
    },
    thaw() {
      frozen = false;
      for (const pair of pairs) {
        if (!pair.upstream) { link(pair); continue; }
        if (!pair.stuck) continue;
        pair.stuck = false;
        pair.client.resume();
        pair.upstream.resume();
      }
    },
    loseAnswerTo(marker: string) {
      return new Promise<void>((resolve) => { lose = { marker: Buffer.from(marker), done: resolve }; });
    },
    close: stop,
  };
}
