// The HAProxy process: master-worker mode (`-W -S <master socket>`). Starts it, or adopts one a
// previous agent left running (an agent crash must not take the edge down, and a second
// HAProxy could not bind the port anyway); reloads through the master socket; starts it again
// when it dies. Its stderr (errors only, see the template) goes to the agent's log.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import type { Logger } from '../../logging/logger.ts';
import type { AdminSocket } from './admin-socket.ts';
import type { StatePaths } from './haproxy-files.ts';

export interface SupervisorOptions {
  binary: string;
  /** A memory allocator library HAProxy runs with (LD_PRELOAD); null: the system's. */
  preload?: string | null;
  paths: StatePaths;
  admin: AdminSocket;
  logger: Logger;
  /** How long a start or reload may take (HAProxy loads every certificate first). */
  startTimeoutMs: number;
  /** How often the master is asked whether it is alive. */
  checkIntervalMs?: number;
  /** Called after HAProxy was started again from the files (the agent then reconciles). */
  onRestarted?: () => void;
}

interface Proc { masterPid: number; workerPid: number | null; reloads: number; failed: number }

/** Parses `show proc` of the master CLI (2.6 layout). */
export function parseShowProc(text: string): Proc | null {
  const master = /^(\d+)\s+master\s+(\d+) \[failed: (\d+)\]/m.exec(text);
  if (!master) return null;
  const workers = text.split('# workers')[1]?.split('#')[0] ?? '';
  const worker = /^(\d+)\s+worker\s/m.exec(workers);
  return { masterPid: Number(master[1]), workerPid: worker ? Number(worker[1]) : null, reloads: Number(master[2]), failed: Number(master[3]) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Debian's libjemalloc2 (multiarch paths). */
const JEMALLOC = ['/usr/lib/x86_64-linux-gnu/libjemalloc.so.2', '/usr/lib/aarch64-linux-gnu/libjemalloc.so.2', '/usr/lib/libjemalloc.so.2'];

/**
 * The allocator HAProxy is preloaded with. Measured (5,000 certificates, HAProxy 2.6, OpenSSL
 * 3.0): the worker holds 110 MB with glibc's malloc and 95 MB with jemalloc (−14 %), loading at
 * the same CPU; at 100,000 hostnames that is ≈ 2.1 GiB against ≈ 1.8 (docs/scale.md). 'auto':
 * jemalloc when installed; 'system': none; else the path given (it must exist).
 */
export function allocatorPreload(setting: string, exists: (p: string) => boolean = existsSync): string | null {
  if (setting === 'system') return null;
  if (setting === 'auto') return JEMALLOC.find(exists) ?? null;
  if (!exists(setting)) throw new Error(`HOSTGATE_EDGE_HAPROXY_MALLOC names ${setting}, which does not exist`);
  return setting;
}

/** Whether `pid` is a HAProxy running this state directory's configuration (a pid file can be stale). */
export async function isOurHaproxy(pid: number, configPath: string): Promise<boolean> {
  try {
    const cmdline = (await readFile(`/proc/${pid}/cmdline`, 'utf8')).split('\0');
    return cmdline.some((a) => a.endsWith('haproxy')) && cmdline.includes(configPath);
  } catch {
    return false;
  }
}

export function createSupervisor(o: SupervisorOptions) {
  let child: ChildProcess | null = null;
  let stopping = false;
  let checkTimer: NodeJS.Timeout | null = null;
  let restarting: Promise<void> | null = null;
  let failures = 0;

  const proc = async (): Promise<Proc | null> => {
    if (!existsSync(o.paths.masterSocket)) return null;
    try { return parseShowProc(await o.admin.master('show proc')); } catch { return null; }
  };

  async function waitForWorker(what: string, accept: (p: Proc) => boolean): Promise<Proc> {
    const deadline = Date.now() + o.startTimeoutMs;
    for (;;) {
      const p = await proc();
      if (p && p.workerPid !== null && accept(p)) return p;
      if (child && child.exitCode !== null) throw new Error(`HAProxy exited (code ${child.exitCode}) during ${what}; see the log above`);
      if (Date.now() > deadline) throw new Error(`HAProxy did not finish ${what} within ${o.startTimeoutMs} ms`);
      await sleep(50);
    }
  }

  async function spawnHaproxy(): Promise<void> {
    await rm(o.paths.masterSocket, { force: true });
    const c = spawn(o.binary, ['-W', '-S', `${o.paths.masterSocket},mode,600`, '-f', o.paths.config, '-p', o.paths.pidFile], {
      // Own process group: a Ctrl-C meant for the agent reaches HAProxy only through the agent's
      // orderly stop, and an agent that crashes leaves the edge serving.
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
      ...(o.preload ? { env: { ...process.env, LD_PRELOAD: o.preload } } : {}),
    });
    child = c;
    c.stderr!.setEncoding('utf8');
    c.stderr!.on('data', (chunk: string) => {
      for (const line of chunk.split('\n')) if (line.trim()) o.logger.warn({ haproxy: line.trim().slice(0, 500) }, 'haproxy');
    });
    c.on('error', (error) => o.logger.error({ err: error }, 'could not run haproxy'));
    c.once('exit', (code, signal) => {
      if (child === c) child = null;
      if (stopping) return;
      o.logger.error({ code, signal }, 'haproxy exited; starting it again from its files');
      void restart();
    });
    await waitForWorker('its start', () => true);
  }

  async function restart(): Promise<void> {
    if (restarting || stopping) return restarting ?? undefined;
    restarting = (async () => {
      for (;;) {
        if (stopping) return;
        try {
          if (await proc()) return; // came back (or someone else started it)
          await spawnHaproxy();
          failures = 0;
          o.logger.info({ pid: child?.pid }, 'haproxy started again');
          o.onRestarted?.();
          return;
        } catch (error) {
          failures++;
          o.logger.error({ err: error, failures }, 'haproxy could not be started; retrying');
          await sleep(Math.min(30_000, 500 * 2 ** Math.min(failures, 6)));
        }
      }
    })().finally(() => { restarting = null; });
    return restarting;
  }

  return {
    /** Adopts a running HAProxy of this state directory, else starts one. */
    async start(): Promise<'adopted' | 'started'> {
      stopping = false;
      const running = await proc();
      if (running && running.workerPid !== null) {
        o.logger.info({ masterPid: running.masterPid, workerPid: running.workerPid }, 'adopted the running haproxy');
      } else {
        await spawnHaproxy();
      }
      checkTimer = setInterval(() => {
        if (child || restarting || stopping) return; // a child's exit event covers it
        void proc().then((p) => { if (!p) { o.logger.error('the adopted haproxy is gone; starting one'); void restart(); } });
      }, o.checkIntervalMs ?? 2000);
      checkTimer.unref();
      return running && running.workerPid !== null ? 'adopted' : 'started';
    },
    /** Reloads the configuration and files; resolves once the new worker serves. */
    async reload(): Promise<void> {
      const before = await proc();
      if (!before) throw new Error('cannot reload: the HAProxy master socket does not answer');
      await o.admin.master('reload');
      const after = await waitForWorker('a reload', (p) => p.masterPid !== before.masterPid || p.reloads > before.reloads || p.failed > before.failed);
      if (after.failed > before.failed) throw new Error('HAProxy refused the new configuration (reload failed); the previous one keeps serving');
    },
    async workerPid(): Promise<number | null> { return (await proc())?.workerPid ?? null; },
    /** Stops HAProxy (soft stop: connections in flight finish, bounded by `timeoutMs`). */
    async stop(timeoutMs = 10_000): Promise<void> {
      stopping = true;
      if (checkTimer) clearInterval(checkTimer);
      let pid = child?.pid ?? null;
      if (!pid && existsSync(o.paths.pidFile)) pid = Number((await readFile(o.paths.pidFile, 'utf8')).trim()) || null;
      if (!pid || !(await isOurHaproxy(pid, o.paths.config))) return;
      const exited = child ? new Promise<void>((r) => child!.once('exit', () => r())) : null;
      try { process.kill(pid, 'SIGUSR1'); } catch { return; }
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (exited && child === null) break;
        try { process.kill(pid, 0); } catch { break; }
        await Promise.race([exited ?? sleep(50), sleep(50)]);
      }
      try { process.kill(pid, 'SIGTERM'); } catch { /* gone */ }
      child = null;
    },
    /** Leaves HAProxy running (agent restart or tests that kill the agent). */
    detach(): void {
      stopping = true;
      if (checkTimer) clearInterval(checkTimer);
      child?.stderr?.destroy();
      child?.unref();
      child = null;
    },
  };
}
export type Supervisor = ReturnType<typeof createSupervisor>;
