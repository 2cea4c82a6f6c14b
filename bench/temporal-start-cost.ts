// `npm run bench:temporal-start -- [--starts 1000] [--rounds 2] [--in-flight 20]`: what one domain
// workflow start costs the Temporal dev server in CPU, by what the start carries. A domain's start
// (temporal/clients/domain.ts) names three search attributes, a memo and a static summary and
// details for the Web UI; each variant leaves some out. No worker polls the task queue, as in a bulk
// import where the starts outrun the first tasks: each start's task waits in the server's backlog.
// The server's CPU comes from /proc/<pid>/stat around each variant's starts (after a pause, so
// its own background work settles), variants alternating round after round. Figures for
// docs/scale.md ("Less CPU per create", what is left).
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { Client, type WorkflowStartOptions } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import { HostgateDomainStatus, HostgateHostname, HostgateOrganizationId } from '../contracts/search-attributes.ts';
import { domainWorkflowId } from '../contracts/domain-workflow.ts';
import { connectTemporal, ensureSearchAttributes } from '../temporal/connection.ts';
import { CLK_TCK } from './support/proc-sampler.ts';
import { inParallel, intArg, onCleanup, progress, runBenchmark, sleep } from './support/run.ts';
import { printTable } from './support/print.ts';
import { temporalForBench } from './support/setup.ts';

const { values } = parseArgs({ options: { starts: { type: 'string', default: '1000' }, rounds: { type: 'string', default: '2' }, 'in-flight': { type: 'string', default: '20' } } });
const starts = intArg('--starts', values.starts, 10, 100_000);
const rounds = intArg('--rounds', values.rounds, 1, 20);
const inFlight = intArg('--in-flight', values['in-flight'], 1, 500);

const ORG = 'org_0123456789abcdefghij';
type Extras = (hostname: string, domainId: string) => Partial<WorkflowStartOptions>;
const searchAttributes: Extras = (hostname) => ({ typedSearchAttributes: [{ key: HostgateHostname, value: hostname }, { key: HostgateOrganizationId, value: ORG }, { key: HostgateDomainStatus, value: 'pending_dns' }] });
const memo: Extras = (hostname) => ({ memo: { hostname, organizationId: ORG } });
const staticText: Extras = (hostname, domainId) => ({ staticSummary: `Domain ${hostname}`, staticDetails: `Lifecycle of custom domain **${hostname}** (${domainId}) for organization ${ORG}.` });
const VARIANTS: Record<string, Extras[]> = {
  'as built': [searchAttributes, memo, staticText],
  'no memo': [searchAttributes, staticText],
  'no summary/details': [searchAttributes, memo],
  'no search attributes': [memo, staticText],
  'id and input only': [],
};

function serverCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) / CLK_TCK) * 1000;
}

await runBenchmark(async () => {
  const temporal = await temporalForBench('default');
  if (temporal.pid === undefined) throw new Error('this benchmark reads the dev server\'s CPU: leave TEMPORAL_ADDRESS unset so it starts its own');
  const admin = await connectTemporal(temporal.address, { timeoutMs: 5000 });
  onCleanup('admin connection', () => admin.close());
  await ensureSearchAttributes(admin, 'default');
  const connection = await NativeConnection.connect({ address: temporal.address });
  onCleanup('client connection', () => connection.close());
  const client = new Client({ connection, namespace: 'default' });
  progress(`${starts} starts per variant, ${inFlight} in flight, ${rounds} round(s); no worker polls`);

  const perStart: Record<string, number[]> = {};
  const rate: Record<string, number[]> = {};
  for (let round = 0; round < rounds; round++) {
    for (const [name, extras] of Object.entries(VARIANTS)) {
      const tag = `r${round}-${name.replace(/\W+/g, '-')}`;
      await sleep(1500);
      const cpu0 = serverCpuMs(temporal.pid);
      const t0 = performance.now();
      await inParallel(Array.from({ length: starts }, (_, i) => i), inFlight, async (i) => {
        const domainId = `dom_${tag}_${i}`;
        const hostname = `shop${i}.${tag}.example.com`;
        await client.workflow.start('domainLifecycleWorkflow', {
          workflowId: domainWorkflowId(domainId), taskQueue: `start-cost-${tag}`, workflowIdReusePolicy: 'REJECT_DUPLICATE',
          args: [{ domainId, organizationId: ORG, hostname, isApex: false }],
          ...Object.assign({}, ...extras.map((extra) => extra(hostname, domainId))),
        });
      });
      const seconds = (performance.now() - t0) / 1000;
      // The server's work after the last answer (visibility, transfer tasks) belongs to the starts.
      await sleep(1500);
      const ms = (serverCpuMs(temporal.pid) - cpu0) / starts;
      (perStart[name] ??= []).push(ms);
      (rate[name] ??= []).push(starts / seconds);
      progress(`round ${round + 1}, ${name}: ${(starts / seconds).toFixed(0)} starts/s, dev server ${ms.toFixed(2)} ms of CPU per start`);
    }
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
  console.log('\nDev server CPU per start (ms), by round, and starts per second:');
  printTable(['variant', ...Array.from({ length: rounds }, (_, r) => `round ${r + 1}`), 'mean', 'starts/s'],
    Object.keys(VARIANTS).map((name) => [name, ...perStart[name]!.map((x) => x.toFixed(2)), mean(perStart[name]!).toFixed(2), mean(rate[name]!).toFixed(0)]));
  return {
    benchmark: 'temporal-start-cost', starts, rounds, in_flight: inFlight,
    ...Object.fromEntries(Object.keys(VARIANTS).map((name) => [`${name.replace(/\W+/g, '_')}_ms`, Math.round(mean(perStart[name]!) * 100) / 100])),
  };
}, 'Temporal dev server');
