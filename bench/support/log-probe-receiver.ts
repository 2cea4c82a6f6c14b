// The request-log receiver of bench/log-cost-probe.ts in a process of its own: the agent's real
// receiver and aggregator (edge/agent/traffic-log.ts), its port on stdout, counts over IPC.
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startTrafficLogReceiver } from '../../edge/agent/traffic-log.ts';
import { TrafficAggregator } from '../../model/analytics-counters.ts';

const aggregator = new TrafficAggregator();
let reads = 0;

let lastLines = -1;

const r = await startTrafficLogReceiver(0, aggregator, path.join(tmpdir(), 'unused-port-file'));
// Reads ≈ milliseconds in which new lines arrived (sampled every ms: an estimate of the reads, and
// the timer's own CPU is in the receiver's µs per line — compare HAProxy's figures, not these).
setInterval(() => { const n = aggregator.lines + aggregator.malformed; if (n !== lastLines) { reads++; lastLines = n; } }, 1).unref();
process.stdout.write(`${r.port}\n`);
process.on('message', () => {
  process.send!({ lines: aggregator.lines + aggregator.malformed, malformed: aggregator.malformed, reads });
  aggregator.take();
});
process.on('disconnect', () => process.exit(0));
