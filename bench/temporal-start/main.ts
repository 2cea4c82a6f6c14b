// `npm run bench:temporal-start -- [--starts 1000] [--rounds 2] [--in-flight 20] [--phases starts,first-tasks]`:
// what a new domain workflow costs the Temporal dev server in CPU (bench/support/proc-sampler.ts)
// around each variant (after a pause, so the server's own background work settles), variants
// alternating round after round. Figures for docs/scale.md ("What a workflow start costs the dev
// server").
// - `starts`: a domain workflow's start (temporal/clients/domain.ts) names three search
//   attributes, a memo and a static summary and details for the Web UI; each variant leaves some
//   out. No worker polls the task queue, as in a bulk import where the starts outrun the first
//   tasks: each start's task waits in the server's backlog.
// - `first-tasks`: the start and the first workflow task together, a worker polling (the main
//   worker's slot, poll and cache settings), for four shapes of first task (workflows.ts): a
//   local activity and a 14-day timer (a domain workflow's: attach, then the DNS wait), the timer
//   only, the local activity only, neither.
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { Client, type WorkflowStartOptions } from '@temporalio/client';
import { DefaultLogger, NativeConnection, Runtime, Worker, makeTelemetryFilterString, type InjectedSinks } from '@temporalio/worker';
import { loadConfig } from '../../config/index.ts';
import { HostgateDomainStatus, HostgateHostname, HostgateOrganizationId } from '../../contracts/search-attributes.ts';
import { domainWorkflowId } from '../../contracts/domain-workflow.ts';
import { connectTemporal, ensureSearchAttributes } from '../../temporal/connection.ts';
import { NEW_WORKFLOW_POLL_RATIO } from '../../worker/create-worker.ts';
import { treeUsage } from '../support/proc-sampler.ts';
import { inParallel, intArg, onCleanup, progress, runBenchmark, sleep } from '../support/run.ts';
import { printTable } from '../support/print.ts';
import { temporalForBench } from '../support/setup.ts';
import type { FirstTaskSinks } from './workflows.ts';

const { values } = parseArgs({ options: {
  starts: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '2' },
  'in-flight': { type: 'string', default: '20' }, phases: { type: 'string', default: 'starts,first-tasks' },
} });
const starts = intArg('--starts', values.starts, 10, 100_000);
const rounds = intArg('--rounds', values.rounds, 1, 20);
const inFlight = intArg('--in-flight', values['in-flight'], 1, 500);
const phases = new Set(values.phases.split(','));
for (const phase of phases) if (phase !== 'starts' && phase !== 'first-tasks') throw new Error(`--phases: unknown phase ${phase} (starts, first-tasks)`);

const ORG = 'org_0123456789abcdefghij';
type Extras = (hostname: string, domainId: string) => Partial<WorkflowStartOptions>;
const searchAttributes: Extras = (hostname) => ({ typedSearchAttributes: [{ key: HostgateHostname, value: hostname }, { key: HostgateOrganizationId, value: ORG }, { key: HostgateDomainStatus, value: 'pending_dns' }] });
const memo: Extras = (hostname) => ({ memo: { hostname, organizationId: ORG } });
const staticText: Extras = (hostname, domainId) => ({ staticSummary: `Domain ${hostname}`, staticDetails: `Lifecycle of custom domain **${hostname}** (${domainId}) for organization ${ORG}.` });
const START_VARIANTS: Record<string, Extras[]> = {
  'as built': [searchAttributes, memo, staticText],
  'no memo': [searchAttributes, staticText],
  'no summary/details': [searchAttributes, memo],
  'no search attributes': [memo, staticText],
  'id and input only': [],
};
const FIRST_TASK_SHAPES: Record<string, string> = {
  'local activity + timer (a domain workflow\'s)': 'localActivityAndTimer',
  'timer only': 'timerOnly',
  'local activity only': 'localActivityOnly',
  'neither': 'nothing',
};

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const key = (name: string) => name.replace(/\(.*\)/, '').trim().replace(/\W+/g, '_');

await runBenchmark(async () => {
  Runtime.install({ shutdownSignals: [], logger: new DefaultLogger('WARN'), telemetryOptions: { logging: { filter: makeTelemetryFilterString({ core: 'WARN' }) } } });
  const temporal = await temporalForBench('default');
  if (temporal.pid === undefined) throw new Error('this benchmark reads the dev server\'s CPU: leave TEMPORAL_ADDRESS unset so it starts its own');
  const pid = temporal.pid;
  const admin = await connectTemporal(temporal.address, { timeoutMs: 5000 });
  onCleanup('admin connection', () => admin.close());
  await ensureSearchAttributes(admin, 'default');
  const connection = await NativeConnection.connect({ address: temporal.address });
  onCleanup('client connection', () => connection.close());
  const client = new Client({ connection, namespace: 'default' });
  progress(`${starts} workflows per variant, ${inFlight} starts in flight, ${rounds} round(s), phases ${[...phases].join(', ')}`);

  /** Runs `work`, then a pause, and returns the dev server's CPU per workflow and the rate. */
  const measure = async (work: () => Promise<void>): Promise<{ ms: number; perSecond: number }> => {
    await sleep(1500);
    const cpu0 = treeUsage(pid).cpuSeconds;
    const t0 = performance.now();
    await work();
    const seconds = (performance.now() - t0) / 1000;
    // The server's work after the last answer (visibility, transfer tasks) belongs to the workflows.
    await sleep(1500);
    return { ms: ((treeUsage(pid).cpuSeconds - cpu0) * 1000) / starts, perSecond: starts / seconds };
  };
  const startAll = (tag: string, taskQueue: string, workflowType: string, extras: Extras[]) =>
    inParallel(Array.from({ length: starts }, (_, i) => i), inFlight, async (i) => {
      const domainId = `dom_${tag}_${i}`;
      const hostname = `shop${i}.${tag}.example.com`;
      await client.workflow.start(workflowType, {
        workflowId: domainWorkflowId(domainId), taskQueue, workflowIdReusePolicy: 'REJECT_DUPLICATE',
        args: [{ domainId, organizationId: ORG, hostname, isApex: false }],
        ...Object.assign({}, ...extras.map((extra) => extra(hostname, domainId))),
      });
    });

  const headline: Record<string, number | string> = { benchmark: 'temporal-start-cost', starts, rounds, in_flight: inFlight };
  if (phases.has('starts')) {
    const results: Record<string, { ms: number[]; rate: number[] }> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, extras] of Object.entries(START_VARIANTS)) {
        const tag = `s${round}-${key(name)}`;
        const { ms, perSecond } = await measure(() => startAll(tag, `start-cost-${tag}`, 'domainLifecycleWorkflow', extras));
        const r = (results[name] ??= { ms: [], rate: [] });
        r.ms.push(ms);
        r.rate.push(perSecond);
        progress(`starts, round ${round + 1}, ${name}: ${perSecond.toFixed(0)} starts/s, dev server ${ms.toFixed(2)} ms of CPU per start`);
      }
    }
    console.log('\nDev server CPU per start (ms), no worker polling:');
    printTable(['start carries', ...Array.from({ length: rounds }, (_, r) => `round ${r + 1}`), 'mean', 'starts/s'],
      Object.entries(results).map(([name, r]) => [name, ...r.ms.map((x) => x.toFixed(2)), mean(r.ms).toFixed(2), mean(r.rate).toFixed(0)]));
    for (const [name, r] of Object.entries(results)) headline[`start_${key(name)}_ms`] = Math.round(mean(r.ms) * 100) / 100;
    console.log('');
  }

  if (phases.has('first-tasks')) {
    const config = loadConfig({});
    let firstTasks = 0;
    const sinks: InjectedSinks<FirstTaskSinks> = { probe: { firstTaskDone: { fn: () => { firstTasks++; }, callDuringReplay: false } } };
    const results: Record<string, { ms: number[]; rate: number[] }> = {};
    for (let round = 0; round < rounds; round++) {
      for (const [name, workflowType] of Object.entries(FIRST_TASK_SHAPES)) {
        const tag = `f${round}-${key(name)}`;
        const taskQueue = `first-task-${tag}`;
        const worker = await Worker.create({
          connection, namespace: 'default', taskQueue,
          workflowsPath: fileURLToPath(new URL('./workflows.ts', import.meta.url)),
          activities: { touch: async () => undefined }, sinks,
          maxConcurrentWorkflowTaskExecutions: config.worker.workflowTaskSlots,
          maxConcurrentLocalActivityExecutions: config.worker.localActivitySlots,
          nonStickyToStickyPollRatio: NEW_WORKFLOW_POLL_RATIO,
          maxCachedWorkflows: starts + 100,
        });
        const { ms, perSecond } = await worker.runUntil(async () => {
          // The bundle is loaded and the pollers are up before the clock starts.
          await sleep(500);
          firstTasks = 0;
          return measure(async () => {
            await startAll(tag, taskQueue, workflowType, [searchAttributes, memo, staticText]);
            while (firstTasks < starts) await sleep(50);
          });
        });
        const r = (results[name] ??= { ms: [], rate: [] });
        r.ms.push(ms);
        r.rate.push(perSecond);
        progress(`first tasks, round ${round + 1}, ${name}: ${perSecond.toFixed(0)} workflows/s, dev server ${ms.toFixed(2)} ms of CPU per start and first task`);
      }
    }
    console.log('\nDev server CPU per workflow (ms), its start and first task, a worker polling:');
    printTable(['first task', ...Array.from({ length: rounds }, (_, r) => `round ${r + 1}`), 'mean', 'workflows/s'],
      Object.entries(results).map(([name, r]) => [name, ...r.ms.map((x) => x.toFixed(2)), mean(r.ms).toFixed(2), mean(r.rate).toFixed(0)]));
    for (const [name, r] of Object.entries(results)) {
      headline[`first_task_${key(name)}_ms`] = Math.round(mean(r.ms) * 100) / 100;
      headline[`first_task_${key(name)}_per_s`] = Math.round(mean(r.rate));
    }
  }
  return headline;
}, 'Temporal dev server');
