// The request log HAProxy sends the agent. HAProxy writes each line into an in-memory ring (a
// memcpy, no syscall per request) and the ring's own forwarder streams what has piled up to the
// agent over one loopback TCP connection, newline-framed (`format raw`): many lines per read on
// both sides instead of one datagram — one sendto in HAProxy, one wake-up and callback in the
// agent — per request (measured: docs/analytics.md "Cost of the request log").
// HAProxy still never waits for the agent: the ring is written whatever the reader does; agent
// away or slow → lines wait in the ring, and when it is full the oldest are overwritten (lost).
// Lost lines show as completeness below 1 (analytics-flush.ts). A forwarder that reconnects goes
// on from where it stopped, so nothing is sent twice.
import net from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { TRAFFIC_LOG_FORMAT, type TrafficAggregator } from '../../model/analytics-counters.ts';

const RING_NAME = 'hostgate_traffic';
/**
 * Lines held while the agent is busy or away: ~120k lines of ~130 bytes, 4 s at 30k req/s (an
 * agent starved of CPU that long on a loaded machine still loses nothing). Allocated at start.
 */
const RING_BYTES = 16 * 1024 * 1024;
/** Longer lines are truncated by HAProxy (the host is last: a truncated one fails the parse, counted as lost). */
const MAX_LINE = 2048;
/**
 * After a short read, the next one waits this long: lines are counted per minute, so a few ms
 * late costs nothing. At 30k lines/s that is ~20 KB waiting in the socket, far below its buffer.
 */
const READ_PAUSE_MS = 5;
/** Node reads at most 64 KiB at a time: a read that size may have left more behind. */
const FULL_READ = 64 * 1024;

/** The top-level `ring` section of the template's ${TRAFFIC_RING}, or a comment. */
export function trafficRingConfig(port: number): string {
  if (port === 0) return '# Request log ring: off (HOSTGATE_EDGE_TRAFFIC_LOG=off)';
  return [
    `ring ${RING_NAME}`,
    '  description "request log to the edge agent (edge/agent/traffic-log.ts)"',
    '  format raw',
    `  maxlen ${MAX_LINE}`,
    `  size ${RING_BYTES}`,
    '  timeout connect 1s',
    // An idle connection is closed and made again on the next line: harmless.
    '  timeout server 10m',
    `  server agent 127.0.0.1:${port}`,
  ].join('\n');
}

/** The frontend lines of the template's ${TRAFFIC_LOG}. */
export function trafficLogConfig(port: number): string {
  if (port === 0) return '# Request log to the agent: off (HOSTGATE_EDGE_TRAFFIC_LOG=off)';
  return [
    // Replaces the inherited `log global` (stderr) for this frontend: every request goes to the agent.
    'no log',
    `log ring@${RING_NAME} len ${MAX_LINE} format raw local0 info`,
    `log-format "${TRAFFIC_LOG_FORMAT}"`,
    'no option dontlog-normal',
  ].join('\n  ');
}

export interface TrafficLogReceiver {
  port: number;
  close(): Promise<void>;
}

/**
 * Listens and feeds every line to `aggregator`. Port -1: the one this state directory used last
 * (`portFile`), else a free one, remembered — an agent restarted beside a running HAProxy gets the
 * port that HAProxy's ring sends to, and several edges on one machine never collide.
 */
export async function startTrafficLogReceiver(port: number, aggregator: TrafficAggregator, portFile: string): Promise<TrafficLogReceiver> {
  if (port === -1) {
    const remembered = Number((await readFile(portFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(remembered) && remembered > 0 && remembered < 65536) {
      try { return await listen(remembered, aggregator); } catch { /* taken since: a new one */ }
    }
    const r = await listen(0, aggregator);
    await writeFile(portFile, `${r.port}\n`);
    return r;
  }
  return listen(port, aggregator);
}

async function listen(port: number, aggregator: TrafficAggregator): Promise<TrafficLogReceiver> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.setNoDelay(true);
    // A line split across two reads waits here for its end; one read holds many lines.
    let carry = '';
    let paused = false;
    socket.on('data', (chunk: Buffer) => {
      const now = Date.now();
      const text = carry + chunk.toString('latin1');
      let start = 0;
      for (let nl = text.indexOf('\n', start); nl !== -1; nl = text.indexOf('\n', start)) {
        if (nl > start) aggregator.addRaw(text.slice(start, nl), now);
        start = nl + 1;
      }
      carry = start < text.length ? text.slice(start) : '';
      // Never a line: not HAProxy's ring (it truncates at MAX_LINE); drop it rather than grow.
      if (carry.length > MAX_LINE * 2) carry = '';
      // A short read: let lines pile up in the kernel for a moment, then take them in one read
      // (~10 lines a read become ~200: a third of the agent's CPU per line, less wake-ups
      // taken from HAProxy's cores). A full read means more is waiting: read on.
      if (chunk.length < FULL_READ && !paused) {
        paused = true;
        socket.pause();
        setTimeout(() => { paused = false; socket.resume(); }, READ_PAUSE_MS).unref();
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (error) => { server.close(); reject(error); });
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => { server.removeAllListeners('error'); resolve(); });
  });
  server.on('error', () => undefined);
  return {
    port: (server.address() as net.AddressInfo).port,
    close: async () => {
      // Read what already waits in the sockets (a paused one holds up to READ_PAUSE_MS of lines),
      // then stop. What the ring sends after this is lost (completeness counts it); what it has
      // not sent yet goes to the next agent.
      for (const s of sockets) s.resume();
      await new Promise((r) => setTimeout(r, READ_PAUSE_MS * 2));
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
