// Readings of what each component of the run has used so far (CPU seconds, RSS) plus the DNS
// queries received and the whole machine's busy time; figures are differences of two readings.
import os from 'node:os';
import { printTable } from '../support/print.ts';
import { changingSetCpu, machineBusySeconds, treeUsage } from '../support/proc-sampler.ts';
import { fixed } from './figures.ts';
import type { LifecycleStack } from './stack.ts';

export const components = ['worker', 'temporal', 'postgres', 'pebble', 'bench'] as const;
export type Component = (typeof components)[number];
export const componentLabel: Record<Component, string> = {
  worker: 'worker (child process)',
  temporal: 'Temporal dev server',
  postgres: 'Postgres backends of the bench DB',
  pebble: 'Pebble',
  bench: 'this process (API, DNS server, challenge listener, poller)',
};

export interface Reading { at: number; cpu: Record<Component, number>; rssMiB: Record<Component, number>; dnsQueries: number; machineBusy: number }

/** A reader of the stack's meters; it throws once the worker has exited (its figures would be wrong). */
export function meters({ pg: { admin, dbName }, worker, server, pebblePid, acme }: LifecycleStack): () => Promise<Reading> {
  const postgresCpu = changingSetCpu();
  return async () => {
    const { rows } = await admin.query<{ pid: number }>('select pid from pg_stat_activity where datname = $1', [dbName]);
    const postgres = postgresCpu(rows.map((r) => r.pid));
    if (worker.exited) throw new Error(`the worker exited; its last output:\n${worker.tail.join('\n')}`);
    const w = treeUsage(worker.pid);
    const t = treeUsage(server.process.pid!);
    const p = pebblePid ? treeUsage(pebblePid) : { cpuSeconds: 0, rssMiB: 0 };
    const own = process.cpuUsage();
    return {
      at: Date.now(),
      cpu: { worker: w.cpuSeconds, temporal: t.cpuSeconds, postgres, pebble: p.cpuSeconds, bench: (own.user + own.system) / 1e6 },
      rssMiB: { worker: w.rssMiB, temporal: t.rssMiB, postgres: Number.NaN, pebble: p.rssMiB, bench: process.memoryUsage.rss() / 2 ** 20 },
      dnsQueries: acme.dns.queries.length,
      machineBusy: machineBusySeconds(),
    };
  };
}

/** A component's average CPU between two readings, in % of one core. */
export const cpuPercent = (a: Reading, b: Reading, c: Component) => ((b.cpu[c] - a.cpu[c]) / ((b.at - a.at) / 1000)) * 100;

/** Per component between two readings: CPU seconds, average % of a core, RSS at the end; then totals. */
export function printCpu(a: Reading, b: Reading): void {
  const wall = (b.at - a.at) / 1000;
  const rows = components.map((c) => [componentLabel[c], fixed(b.cpu[c] - a.cpu[c], 2), fixed(cpuPercent(a, b, c)), c === 'postgres' ? '—' : fixed(b.rssMiB[c], 0)]);
  const total = components.reduce((s, c) => s + (b.cpu[c] - a.cpu[c]), 0);
  rows.push(['total (this benchmark)', fixed(total, 2), fixed((total / wall) * 100), '']);
  const machine = b.machineBusy - a.machineBusy;
  rows.push(['whole machine (/proc/stat)', fixed(machine, 2), fixed((machine / wall) * 100), '']);
  printTable(['component', 'CPU s', `avg % of a core (over ${wall.toFixed(1)} s)`, 'RSS MiB at end'], rows);
  console.log(`  ${os.cpus().length} cores = ${os.cpus().length * 100} %; other processes on the machine used ≈ ${fixed(((machine - total) / wall) * 100, 0)} % of a core meanwhile`);
}
