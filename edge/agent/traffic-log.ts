// The request log HAProxy sends the agent: one datagram per request over loopback UDP (Node has no
// unix datagram sockets). HAProxy never waits for the agent — a datagram nobody reads (agent
// away, receive buffer full) is dropped by the kernel — so logging cannot slow or stop serving;
// what was dropped shows as completeness below 1 (analytics-flush.ts, docs/analytics.md).
import dgram from 'node:dgram';
import { readFile, writeFile } from 'node:fs/promises';
import { TRAFFIC_LOG_FORMAT, type TrafficAggregator } from '../../model/analytics-counters.ts';

// Larger than the default (~200 KB): a burst of lines while the agent is busy flushing waits here.
const RECEIVE_BUFFER_BYTES = 8 * 1024 * 1024;

/** The frontend lines of the template's ${TRAFFIC_LOG}. */
export function trafficLogConfig(port: number): string {
  if (port === 0) return '# Request log to the agent: off (HOSTGATE_EDGE_TRAFFIC_LOG=off)';
  return [
    // Replaces the inherited `log global` (stderr) for this frontend: every request goes to the agent.
    'no log',
    `log 127.0.0.1:${port} len 2048 format raw local0 info`,
    `log-format "${TRAFFIC_LOG_FORMAT}"`,
    'no option dontlog-normal',
  ].join('\n  ');
}

export interface TrafficLogReceiver {
  port: number;
  close(): Promise<void>;
}

/**
 * Binds and feeds every datagram to `aggregator`. Port -1: the one this state directory used last
 * (`portFile`), else a free one, remembered — an agent restarted beside a running HAProxy gets the
 * port that HAProxy sends to, and several edges on one machine never collide.
 */
export async function startTrafficLogReceiver(port: number, aggregator: TrafficAggregator, portFile: string): Promise<TrafficLogReceiver> {
  if (port === -1) {
    const remembered = Number((await readFile(portFile, 'utf8').catch(() => '')).trim());
    if (Number.isInteger(remembered) && remembered > 0 && remembered < 65536) {
      try { return await bindReceiver(remembered, aggregator); } catch { /* taken since: a new one */ }
    }
    const r = await bindReceiver(0, aggregator);
    await writeFile(portFile, `${r.port}\n`);
    return r;
  }
  return bindReceiver(port, aggregator);
}

async function bindReceiver(port: number, aggregator: TrafficAggregator): Promise<TrafficLogReceiver> {
  const socket = dgram.createSocket({ type: 'udp4', recvBufferSize: RECEIVE_BUFFER_BYTES });
  // One clock read per event-loop turn at most: a burst of datagrams shares it.
  let now = 0;
  let clockSet = false;
  socket.on('message', (msg) => {
    if (!clockSet) { now = Date.now(); clockSet = true; setImmediate(() => { clockSet = false; }); }
    aggregator.addRaw(msg.toString('latin1'), now);
  });
  await new Promise<void>((resolve, reject) => {
    socket.once('error', (error) => { socket.close(); reject(error); });
    socket.bind(port, '127.0.0.1', () => { socket.removeAllListeners('error'); resolve(); });
  });
  socket.on('error', () => undefined);
  return {
    port: socket.address().port,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
