// How benchmarks print: the machine they ran on (first lines of every report) and aligned tables.
import os from 'node:os';
import type { BenchPostgres } from './run.ts';

/**
 * The report's title and the machine lines every benchmark starts with (cores, OS, Node, Postgres);
 * each benchmark prints its own lines about what it runs after these.
 */
export function printMachine(title: string, pg: Pick<BenchPostgres, 'pgVersion' | 'pgHost'>, options: { cpuCountNote?: boolean } = {}): void {
  const cpus = os.cpus();
  console.log(title);
  console.log(`  cpus       ${cpus.length} × ${cpus[0]?.model.trim() ?? 'unknown'}${options.cpuCountNote === false ? '' : ` (os.cpus().length = ${cpus.length})`}`);
  console.log(`  os         ${os.type()} ${os.release()} ${os.arch()}, ${(os.totalmem() / 2 ** 30).toFixed(1)} GiB RAM, load avg ${loadAverage()}`);
  console.log(`  node       ${process.version}`);
  console.log(`  postgres   ${pg.pgVersion} (${pg.pgHost})`);
}

export const loadAverage = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

/** Columns padded to their widest cell, the first (or `alignLeft`) left-aligned, the rest right-aligned. */
export function printTable(headers: string[], rows: string[][], alignLeft = new Set([0])): void {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const fmtRow = (cells: string[]) => cells.map((c, i) => (alignLeft.has(i) ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(`  ${fmtRow(headers)}`);
  console.log(`  ${widths.map((w) => '─'.repeat(w)).join('  ')}`);
  for (const r of rows) console.log(`  ${fmtRow(r)}`);
}
