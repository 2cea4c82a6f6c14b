// A webhook receiver on loopback for tests and benchmarks: records every request (raw body,
// headers, time) per path and answers as each path's behaviour says (status, headers, body,
// delay, or no answer at all).
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { waitFor } from './wait.ts';

export interface Received { path: string; headers: IncomingHttpHeaders; body: string; at: number }
export interface Answer { status?: number; headers?: Record<string, string>; body?: string; delayMs?: number; hang?: boolean }
/** `n` is the 1-based number of this request on its path. */
export type Behavior = (request: Received, n: number) => Answer;

export interface Receiver {
  port: number;
  url(path: string): string;
  /** Sets how `path` answers (default: 200 "ok"). */
  on(path: string, behavior: Behavior): void;
  received(path: string): Received[];
  /** Resolves once `path` has received at least `n` requests. */
  waitForRequests(path: string, n: number, timeoutMs?: number): Promise<Received[]>;
  /** Called on every request (benchmarks). */
  onRequest?: (request: Received) => void;
  close(): Promise<void>;
}

export async function startReceiver(): Promise<Receiver> {
  const behaviors = new Map<string, Behavior>();
  const log = new Map<string, Received[]>();
  const sockets = new Set<Socket>();
  const receiver: Partial<Receiver> = {};
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = (req.url ?? '/').split('?')[0]!;
      const received: Received = { path, headers: req.headers, body: Buffer.concat(chunks).toString('utf8'), at: Date.now() };
      const list = log.get(path) ?? [];
      list.push(received);
      log.set(path, list);
      receiver.onRequest?.(received);
      const answer: Answer = behaviors.get(path)?.(received, list.length) ?? {};
      if (answer.hang) return;
      const send = () => {
        res.writeHead(answer.status ?? 200, { 'content-type': 'text/plain', ...answer.headers });
        res.end(answer.body ?? 'ok');
      };
      if (answer.delayMs) setTimeout(send, answer.delayMs);
      else send();
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return Object.assign(receiver, {
    port,
    url: (path: string) => `http://127.0.0.1:${port}${path}`,
    on: (path: string, behavior: Behavior) => { behaviors.set(path, behavior); },
    received: (path: string) => log.get(path) ?? [],
    waitForRequests: (path: string, n: number, timeoutMs = 20_000) =>
      waitFor(`${n} request(s) on ${path}`, async () => ((log.get(path)?.length ?? 0) >= n ? log.get(path)! : null), timeoutMs, 20),
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  }) as Receiver;
}
