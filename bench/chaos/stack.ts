// The stack `npm run chaos` breaks: its own embedded Postgres (so it can SIGSTOP and restart it
// without touching the machine's shared one), a Temporal dev server, and the real API and worker
// processes (api/server.ts, worker/main.ts) as children it can kill and start again.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { progress, sleep } from '../support/run.ts';

/** A child process that can be killed and started again with the same environment. */
export interface Supervised {
  name: string;
  pid(): number | null;
  start(): void;
  kill(signal: NodeJS.Signals): void;
  /** Starts counted after the first. */
  restarts: number;
  /** The last lines it printed (for failure messages). */
  tail: string[];
  stop(): Promise<void>;
}

export function supervise(name: string, entry: string, env: Record<string, string>): Supervised {
  const script = fileURLToPath(new URL(entry, import.meta.url));
  let child: ChildProcess | null = null;
  let starts = 0;
  const handle: Supervised = {
    name,
    restarts: 0,
    tail: [],
    pid: () => child?.pid ?? null,
    start() {
      starts++;
      handle.restarts = starts - 1;
      child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      const keep = (d: Buffer) => {
        for (const line of d.toString().split('\n')) if (line.trim()) handle.tail.push(line.slice(0, 300));
        handle.tail.splice(0, Math.max(0, handle.tail.length - 30));
      };
      child.stdout?.on('data', keep);
      child.stderr?.on('data', keep);
    },
    kill(signal) { child?.kill(signal); },
    async stop() {
      const c = child;
      if (!c || c.exitCode !== null || c.signalCode !== null) return;
      c.kill('SIGCONT');
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGTERM');
      await Promise.race([exited, sleep(15_000)]);
      if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
    },
  };
  return handle;
}

/** Direct children of `pid` (from /proc): a postmaster's backends and auxiliary processes. */
export function childrenOf(pid: number): number[] {
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Field 4 (ppid) comes after the command name in parentheses, which may contain spaces.
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) out.push(Number(entry));
    } catch { /* exited meanwhile */ }
  }
  return out;
}

/**
 * Freezes a whole Postgres cluster: the postmaster first (no new backends), then every backend
 * and auxiliary process — stopping only the postmaster would leave the open connections served.
 * Returns the pids to continue, in reverse order.
 */
export function freezeCluster(postmasterPid: number): number[] {
  const frozen: number[] = [];
  for (const pid of [postmasterPid, ...childrenOf(postmasterPid)]) {
    try { process.kill(pid, 'SIGSTOP'); frozen.push(pid); } catch { /* exited meanwhile */ }
  }
  return frozen.reverse();
}

export function thaw(pids: readonly number[]): void {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGCONT'); } catch { /* exited meanwhile */ }
  }
}

/** Polls `url` until it answers 2xx, up to `timeoutMs`. */
export async function waitUntilOk(url: string, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then((r) => r.ok).catch(() => false);
    if (ok) return;
    if (Date.now() > deadline) throw new Error(`${what} did not answer ${url} within ${timeoutMs / 1000} s`);
    await sleep(250);
  }
}

export const say = progress;
