// Polling as a Lit reactive controller, modelled on @lit/task: each run gets its own AbortSignal,
// runs are chained with setTimeout (never setInterval, so a slow answer never overlaps the next
// request), and a result that arrives after the run was superseded is dropped.
//
// States: idle (never started) → running ⇄ paused (token expired; the element starts it again
// when a new token is set) → stopped (active or terminal status). Removal from the page cancels
// the timer and aborts the request in flight; putting the element back resumes a running poll.
import type { ReactiveController, ReactiveControllerHost } from 'lit';

/** What a run tells the controller to do next. */
export type PollOutcome = 'continue' | 'stop' | 'pause' | { retryAfterMs: number };

export type PollState = 'idle' | 'running' | 'paused' | 'stopped';

export interface PollingOptions {
  /** One poll; must honour the signal. A throw counts as 'continue'. */
  task: (signal: AbortSignal) => Promise<PollOutcome>;
  /** Milliseconds between the end of a run and the next (read at each scheduling). */
  interval: () => number;
}

export class PollingController implements ReactiveController {
  readonly #host: ReactiveControllerHost;
  readonly #options: PollingOptions;
  #state: PollState = 'idle';
  #connected = false;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #abort: AbortController | undefined;
  #run = 0;

  constructor(host: ReactiveControllerHost, options: PollingOptions) {
    this.#host = host;
    this.#options = options;
    host.addController(this);
  }

  get state(): PollState {
    return this.#state;
  }

  /** Starts (or, after a pause or stop, restarts) polling: the first run after one interval. */
  start(): void {
    this.#state = 'running';
    this.#schedule(this.#options.interval());
  }

  stop(): void {
    this.#state = 'stopped';
    this.#cancel();
  }

  pause(): void {
    if (this.#state !== 'running') return;
    this.#state = 'paused';
    this.#cancel();
  }

  hostConnected(): void {
    this.#connected = true;
    if (this.#state === 'running') this.#schedule(0);
  }

  hostDisconnected(): void {
    this.#connected = false;
    this.#cancel();
  }

  #schedule(ms: number): void {
    this.#cancel();
    if (!this.#connected || this.#state !== 'running') return;
    const run = this.#run;
    this.#timer = setTimeout(() => { void this.#tick(run); }, ms);
  }

  async #tick(run: number): Promise<void> {
    if (run !== this.#run) return;
    const abort = new AbortController();
    this.#abort = abort;
    let outcome: PollOutcome;
    try {
      outcome = await this.#options.task(abort.signal);
    } catch {
      outcome = 'continue';
    }
    // Superseded (cancelled, restarted, disconnected) while in flight: drop the result.
    if (run !== this.#run || abort.signal.aborted) return;
    this.#abort = undefined;
    if (outcome === 'stop') this.stop();
    else if (outcome === 'pause') this.pause();
    else this.#schedule(Math.max(this.#options.interval(), outcome === 'continue' ? 0 : outcome.retryAfterMs));
    this.#host.requestUpdate();
  }

  #cancel(): void {
    this.#run++;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#abort?.abort();
    this.#abort = undefined;
  }
}
