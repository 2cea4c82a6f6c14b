// CPU affinity for benchmarks that put several processes on one machine: `taskset` (util-linux)
// moves every thread of a process (and, here, of its descendants) to a set of CPUs, so that a
// component can be given a core of its own — what it would have on a machine of its own.
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import { processTree } from './proc-sampler.ts';

export function tasksetAvailable(): boolean {
  try {
    execFileSync('taskset', ['--version'], { stdio: 'ignore', timeout: 5_000 });
    return true;
  } catch {
    return false;
  }
}

/** Every CPU of the machine, as taskset writes a list ("0-1"). */
export const allCpus = (): string => `0-${os.cpus().length - 1}`;

/** Pins `root` and all its live descendants (every thread of each) to `cpus` ("0", "1-3"). */
export function pinTree(root: number, cpus: string): void {
  for (const pid of processTree(root)) {
    try {
      execFileSync('taskset', ['-a', '-p', '-c', cpus, String(pid)], { stdio: 'ignore', timeout: 5_000 });
    } catch {
      // It exited between the listing and the call.
    }
  }
}
