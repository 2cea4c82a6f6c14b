// `node bench/ceiling/main.ts <address> <namespace> <count> <in flight>`: the Temporal server's
// ceiling for the cheapest possible webhook delivery, measured by bench/webhooks.ts in the same
// run as the real pipeline. One process, like the worker: a Worker with the production worker's
// slot settings (config defaults), and a Client on the same NativeConnection starting `count`
// workflows (`in flight` starts at a time, eager start requested, as the dispatcher does). Each
// workflow runs one local activity that only notes the time; the rate is counted from the first
// start to the last activity, like the pipeline's deliveries from the first commit to the last
// arrival. Prints one JSON line: {count, seconds, per_s, cpu_s}.
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { Client } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString } from '@temporalio/worker';
import { loadConfig } from '../../config/index.ts';
import { arrivals, ceilingActivities } from './activities.ts';

const [address, namespace = 'default', countArg = '1500', inFlightArg = '50'] = process.argv.slice(2);
if (!address) throw new Error('usage: node bench/ceiling/main.ts <address> [namespace] [count] [in flight]');
const count = Number(countArg);
const inFlight = Number(inFlightArg);

Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
const config = loadConfig({});
const connection = await NativeConnection.connect({ address });
const taskQueue = `hostgate-bench-ceiling-${randomBytes(4).toString('hex')}`;
const worker = await Worker.create({
  connection, namespace, taskQueue,
  workflowsPath: fileURLToPath(new URL('./workflow.ts', import.meta.url)),
  activities: ceilingActivities,
  maxConcurrentWorkflowTaskExecutions: config.worker.workflowTaskSlots,
  maxConcurrentLocalActivityExecutions: config.worker.localActivitySlots,
  maxConcurrentActivityTaskExecutions: config.worker.activitySlots,
});
const client = new Client({ connection, namespace });

const result = await worker.runUntil(async () => {
  // One workflow first: the bundle is loaded and the pollers are up before the clock starts.
  await client.workflow.execute('oneLocalActivityWorkflow', { workflowId: `${taskQueue}/warm`, taskQueue, args: [0] });
  arrivals.length = 0;
  const cpu0 = process.cpuUsage();
  const started = performance.now();
  let next = 0;
  await Promise.all(Array.from({ length: inFlight }, async () => {
    while (next < count) {
      const n = next++;
      await client.workflow.start('oneLocalActivityWorkflow', { workflowId: `${taskQueue}/${n}`, taskQueue, args: [n], requestEagerStart: true });
    }
  }));
  while (arrivals.length < count) await new Promise((r) => setTimeout(r, 20));
  const seconds = (Math.max(...arrivals) - started) / 1000;
  const cpu = process.cpuUsage(cpu0);
  // Let the last workflow tasks complete before the worker stops.
  await new Promise((r) => setTimeout(r, 500));
  return { count, seconds: Math.round(seconds * 100) / 100, per_s: Math.round((count / seconds) * 10) / 10, cpu_s: Math.round((cpu.user + cpu.system) / 1e4) / 100 };
});
await connection.close();
console.log(JSON.stringify(result));
