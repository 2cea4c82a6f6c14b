// Keeps the local stack's processes running: a process that exits while the stack is up is
// started again after a backoff (1 s doubling to 30 s; back to 1 s once a run stayed up for 60 s),
// each exit and restart is logged, and the other processes keep serving meanwhile. Only `stop()`
// (the launcher's Ctrl-C / SIGTERM) ends them for good.
import type { ChildProcess } from 'node:child_process';

export interface Backoff {
  initialMs: number;
  maxMs: number;
  /** A run that lasted this long counts as healthy: the next restart waits `initialMs` again. */
  healthyAfterMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { initialMs: 1000, maxMs: 30_000, healthyAfterMs: 60_000 };

export interface ServiceSpec {
  name: string;
  /**
   * Starts the service; resolves with its process once it is up, rejects when it could not start
   * (the supervisor tries again after the next backoff).
   */
  start(): Promise<ChildProcess>;
  /** Stops the running process for good (default: SIGTERM, SIGKILL after `killAfterMs`). */
  stop?(process: ChildProcess): Promise<void>;
  /** How long a SIGTERMed process may take to close before it gets SIGKILL (default 20 s). */
  killAfterMs?: number;
}

export interface ServiceStatus { name: string; pid: number | undefined; restarts: number; up: boolean }

/** The next wait after a failed or short run: doubled, capped. */
export function nextDelay(previous: number, backoff: Backoff): number {
  return Math.min(backoff.maxMs, Math.max(backoff.initialMs, previous * 2));
}

export function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/** SIGTERM, then SIGKILL once `killAfterMs` passed; resolves when the process is gone. */
export function terminate(child: ChildProcess, killAfterMs = 20_000): Promise<void> {
  if (exited(child)) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    timer.unref();
    child.once('exit', () => { clearTimeout(timer); resolve(); });
    child.kill('SIGTERM');
  });
}

class Supervised {
  child: ChildProcess | null = null;
  restarts = 0;
  private delay = 0;
  private startedAt = 0;
  private timer: NodeJS.Timeout | null = null;
  private stopping = false;
  private starting: Promise<void> | null = null;

  readonly spec: ServiceSpec;
  private readonly backoff: Backoff;
  private readonly log: (msg: string) => void;

  constructor(spec: ServiceSpec, backoff: Backoff, log: (msg: string) => void) {
    this.spec = spec;
    this.backoff = backoff;
    this.log = log;
  }

  /** First start: a failure here is the caller's (the launcher stops instead of looping). */
  async first(): Promise<void> {
    this.attach(await this.spec.start());
  }

  private attach(child: ChildProcess): void {
    this.child = child;
    this.startedAt = Date.now();
    this.log(`${this.spec.name} started (pid ${child.pid ?? '?'})`);
    child.once('exit', (code, signal) => this.onExit(code, signal));
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null): void {
    if (this.stopping) return;
    const ranMs = Date.now() - this.startedAt;
    this.delay = ranMs >= this.backoff.healthyAfterMs ? this.backoff.initialMs : nextDelay(this.delay, this.backoff);
    this.log(`${this.spec.name} exited (${signal ?? `code ${String(code)}`}) after ${(ranMs / 1000).toFixed(1)} s; restarting in ${this.delay / 1000} s`);
    this.schedule();
  }

  private schedule(): void {
    this.timer = setTimeout(() => {
      this.timer = null;
      this.starting = this.restart();
    }, this.delay);
  }

  private async restart(): Promise<void> {
    if (this.stopping) return;
    try {
      const child = await this.spec.start();
      this.restarts++;
      if (this.stopping) { await this.stopProcess(child); return; }
      this.attach(child);
    } catch (error) {
      if (this.stopping) return;
      this.delay = nextDelay(this.delay, this.backoff);
      this.log(`${this.spec.name} did not start (${error instanceof Error ? error.message : String(error)}); trying again in ${this.delay / 1000} s`);
      this.schedule();
    } finally {
      this.starting = null;
    }
  }

  private stopProcess(child: ChildProcess): Promise<void> {
    return this.spec.stop ? this.spec.stop(child) : terminate(child, this.spec.killAfterMs);
  }

  /** No more restarts: an exit from now on is final (the launcher is shutting down). */
  hold(): void {
    this.stopping = true;
    if (this.timer) clearTimeout(this.timer);
  }

  async stop(): Promise<void> {
    this.hold();
    if (this.timer) clearTimeout(this.timer);
    // A start under way finishes first (then stops what it started, see restart()).
    await this.starting;
    if (this.child && !exited(this.child)) await this.stopProcess(this.child);
  }

  status(): ServiceStatus {
    return { name: this.spec.name, pid: this.child?.pid, restarts: this.restarts, up: this.child !== null && !exited(this.child) };
  }
}

export class Supervisor {
  private readonly services = new Map<string, Supervised>();
  private readonly log: (msg: string) => void;
  private readonly backoff: Backoff;

  constructor(log: (msg: string) => void, backoff: Backoff = DEFAULT_BACKOFF) {
    this.log = log;
    this.backoff = backoff;
  }

  /** Starts a service and keeps it running; rejects when its first start fails. */
  async add(spec: ServiceSpec): Promise<void> {
    if (this.services.has(spec.name)) throw new Error(`service ${spec.name} is already supervised`);
    const service = new Supervised(spec, this.backoff, this.log);
    this.services.set(spec.name, service);
    await service.first();
  }

  /**
   * Ends every restart at once, before the services are stopped one tier after another: a
   * terminal's Ctrl-C reaches the processes of the launcher's group (the Temporal dev server,
   * Postgres) by itself, and those exits must not be taken for crashes.
   */
  holdRestarts(): void {
    for (const service of this.services.values()) service.hold();
  }

  /** Stops the named services (all at once) for good; unknown names are ignored. */
  async stop(names: string[]): Promise<void> {
    await Promise.all(names.map((name) => this.services.get(name)?.stop()));
  }

  /** Stops everything, in the reverse order the services were added. */
  async stopAll(): Promise<void> {
    for (const service of [...this.services.values()].reverse()) await service.stop();
  }

  status(): ServiceStatus[] {
    return [...this.services.values()].map((s) => s.status());
  }
}
