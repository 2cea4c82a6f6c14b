// CPU time and resident memory of processes, read from Linux's /proc. Cumulative counters, not
// rates: a benchmark reads them at two moments and divides by the wall time between.
//
// Why not the `pidusage` package: it reads the same /proc/<pid>/stat but answers per pid with a
// rate since its previous call; the benchmarks need cumulative ticks summed over a process tree
// (pidtree would be a second package), the parent pid and name (to find Pebble, to follow
// Postgres backends that come and go) and the machine-wide busy time from /proc/stat — which is
// most of this file anyway.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks per second of the stat counters (100 on practically every Linux). */
export const CLK_TCK = (() => {
  try { return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100; } catch { return 100; }
})();

/** utime+stime (all threads) in clock ticks, the parent pid and the name; null when the process is gone. */
function readStat(pid: number): { ticks: number; ppid: number; comm: string } | null {
  try {
    const s = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The name is in parentheses and may itself hold spaces and parentheses: split after the last ')'.
    const close = s.lastIndexOf(')');
    const comm = s.slice(s.indexOf('(') + 1, close);
    const f = s.slice(close + 2).split(' '); // f[0] is field 3 (state)
    return { ticks: Number(f[11]) + Number(f[12]), ppid: Number(f[1]), comm };
  } catch {
    return null;
  }
}

/** VmRSS in MiB; null when the process is gone. */
function readRssMiB(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : null;
  } catch {
    return null;
  }
}

const livePids = () => readdirSync('/proc').filter((e) => /^\d+$/.test(e)).map(Number);

/** The pid and all its live descendants. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const pid of livePids()) {
    const st = readStat(pid);
    if (!st) continue;
    const list = children.get(st.ppid) ?? [];
    list.push(pid);
    children.set(st.ppid, list);
  }
  const out: number[] = [];
  const stack = [root];
  while (stack.length) {
    const pid = stack.pop()!;
    out.push(pid);
    stack.push(...(children.get(pid) ?? []));
  }
  return out;
}

/** CPU seconds and RSS of a process and its descendants, summed. */
export function treeUsage(root: number): { cpuSeconds: number; rssMiB: number } {
  let ticks = 0;
  let rss = 0;
  for (const pid of processTree(root)) {
    ticks += readStat(pid)?.ticks ?? 0;
    rss += readRssMiB(pid) ?? 0;
  }
  return { cpuSeconds: ticks / CLK_TCK, rssMiB: rss };
}

/** A direct child of `parent` named `comm` (for children a library spawned without telling), or null. */
export function findChild(parent: number, comm: string): number | null {
  return livePids().find((pid) => { const st = readStat(pid); return st?.ppid === parent && st.comm === comm; }) ?? null;
}

/** CPU seconds all cores of the machine spent busy (not idle or iowait) since boot, from /proc/stat. */
export function machineBusySeconds(): number {
  const f = (/^cpu\s+(.*)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? '').trim().split(/\s+/).map(Number);
  // user nice system idle iowait irq softirq steal (guest time is already inside user)
  return ((f[0] ?? 0) + (f[1] ?? 0) + (f[2] ?? 0) + (f[5] ?? 0) + (f[6] ?? 0) + (f[7] ?? 0)) / CLK_TCK;
}

/**
 * CPU seconds used by a set of processes that changes between readings (e.g. a database's
 * Postgres backends): each reading adds what the pids used since the previous one. The first
 * reading only primes; a pid first seen later started since the last reading, so all its CPU counts.
 */
export function changingSetCpu(): (pids: readonly number[]) => number {
  const seen = new Map<number, number>();
  let accumulated = 0;
  let primed = false;
  return (pids) => {
    const live = new Set<number>();
    for (const pid of pids) {
      const ticks = readStat(pid)?.ticks;
      if (ticks === undefined) continue;
      live.add(pid);
      if (primed) accumulated += ticks - (seen.get(pid) ?? 0);
      seen.set(pid, ticks);
    }
    for (const pid of [...seen.keys()]) if (!live.has(pid)) seen.delete(pid);
    primed = true;
    return accumulated / CLK_TCK;
  };
}

/** Resident set size summed over processes, in bytes. */
export function rssOf(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try { kb += Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0); } catch { /* gone */ }
  }
  return kb * 1024;
}

/** Proportional set size: the master and its worker share the pages of the loaded certificates (fork). */
export function pssOf(pids: number[]): number {
  let kb = 0;
  for (const pid of pids) {
    try { kb += Number(/^Pss:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0); } catch { /* gone */ }
  }
  return kb * 1024;
}
