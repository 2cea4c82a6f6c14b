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

export interface Reading {
  at: number; cpu: Record<Component, number>; rssMiB: Record<Component, number>; dnsQueries: number; machineBusy: number;
  /**
   * Calls per statement of the bench database so far, when pg_stat_statements can be read (under
   * `npm run bench:statements -- lifecycle`, whose private Postgres loads it); else null.
   */
  statements: Map<string, { query: string; calls: number }> | null;
}

/** pg_stat_statements of one database, or null where the server does not collect them. */
async function statementCalls(admin: LifecycleStack['pg']['admin'], dbName: string): Promise<Reading['statements']> {
  try {
    const { rows } = await admin.query<{ id: string; query: string; calls: string }>(
      `select queryid::text as id, query, calls from pg_stat_statements where dbid = (select oid from pg_database where datname = $1) and toplevel`, [dbName]);
    return new Map(rows.map((r) => [r.id, { query: r.query, calls: Number(r.calls) }]));
  } catch {
    return null;
  }
}

/** Statements sent between two readings (most called first), or null when not collected. */
export function statementsBetween(a: Reading, b: Reading): { total: number; utility: number; top: Array<{ query: string; calls: number }> } | null {
  if (!a.statements || !b.statements) return null;
  const top: Array<{ query: string; calls: number }> = [];
  for (const [id, s] of b.statements) {
    const calls = s.calls - (a.statements.get(id)?.calls ?? 0);
    if (calls > 0) top.push({ query: s.query, calls });
  }
  top.sort((x, y) => y.calls - x.calls);
  const utility = top.filter((s) => /^\s*(begin|commit|rollback|start transaction|set |show |savepoint|release|reset|deallocate|listen|unlisten|discard)/i.test(s.query)).reduce((n, s) => n + s.calls, 0);
  return { total: top.reduce((n, s) => n + s.calls, 0), utility, top };
}

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
    const statements = await statementCalls(admin, dbName);
    return {
      at: Date.now(),
      cpu: { worker: w.cpuSeconds, temporal: t.cpuSeconds, postgres, pebble: p.cpuSeconds, bench: (own.user + own.system) / 1e6 },
      rssMiB: { worker: w.rssMiB, temporal: t.rssMiB, postgres: Number.NaN, pebble: p.rssMiB, bench: process.memoryUsage.rss() / 2 ** 20 },
      dnsQueries: acme.dns.queries.length,
      machineBusy: machineBusySeconds(),
      statements,
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
