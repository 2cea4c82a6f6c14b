// The periodic DNS checks of pending domains, in the worker process instead of per-workflow
// Temporal timers (issue 26, bulk import). The schedule is `dns_check_schedule` in Postgres
// (db/repositories/dns-schedule.ts; migration 021): a row per `pending_dns` domain with its next
// slot on the domain workflow's old backoff curve (model/dns-check-schedule.ts). The checker claims
// due rows in batches (several workers share the table, none checks a row twice), checks DNS with
// at most `concurrency` checks in flight and stores what it found on the domain; only when DNS is
// right does it move the domain to `pending_certificate` (the same check and move as the DNS task
// queue's `recheckDns`, with its budget for slow resolvers) and wake the domain's workflow
// ("verify"), which then finds the domain moved and goes on to the certificate. The verify is a
// workflow_outbox row written by the move's own statement: the checker hands it to the outbox
// dispatcher at once, and if the worker dies between the move and the signal (or Temporal does
// not take it), any worker's outbox sweep delivers it within a second or so of seeing it — the
// workflow never waits for its 14-day timer.
// A waiting domain therefore costs its workflow nothing (no timer, no task, no replay) until its
// DNS is right, and 5,000 domains created at once are checked at the pace of the creates, not at
// the pace of Temporal's task backlog.
//
// Wake-up: LISTEN on `hostgate_dns_checks` (the schedule trigger notifies at the commit of a
// domain entering `pending_dns`), plus a sweep every `sweepIntervalMs` for the slots that come due
// and any notification missed.
import { createNotifiedSweep } from '../db/notified-sweep.ts';
import type { Db } from '../db/pool.ts';
import { DNS_CHECKS_CHANNEL, dnsScheduleRepository, type CheckDone, type ClaimedCheck } from '../db/repositories/dns-schedule.ts';
import type { Logger } from '../logging/logger.ts';
import { CHECK_LEASE_MS, CLAIM_BATCH, nextCheckDelay } from '../model/dns-check-schedule.ts';
import type { DnsCheckResult } from '../activities/dns-check.ts';
import { dnsCheckerClaimed, dnsCheckerInFlight, dnsCheckerMoves, dnsCheckerSignals, observeDnsCheckerCheck, type DnsCheckerOutcome } from '../metrics/dns-checker.ts';

/** Rows whose next slot is written in one statement. */
const DONE_BATCH = 50;

export interface DnsCheckerDeps {
  db: Db;
  logger: Logger;
  /** For the LISTEN connection; without it the checker only sweeps. */
  databaseUrl?: string | undefined;
  /**
   * Looks the domain up, stores what it found, moves it when right and queues the workflow's
   * verify with the move (activities/dns-check.ts `checkScheduled`; `outboxId` the row that
   * carries it: the one queued, or a verify already waiting in the outbox).
   */
  check(domain: { domainId: string; hostname: string; isApex: boolean; seq: number }): Promise<CheckOutcome | 'gone'>;
  /**
   * Delivers these outbox rows now (temporal/outbox-dispatcher.ts `dispatch`): the head
   * start of a verify the outbox sweep would otherwise deliver on its next pass. Bounded by the
   * dispatcher's deadline per signal.
   */
  dispatchSignals(outboxIds: readonly number[]): Promise<{ dispatched: number; failed: number }>;
  /**
   * One step of a zero-downtime move (activities/moves.ts `advanceMove`) after a check that found
   * the hostname elsewhere; absent when moves are off.
   */
  moveStep?: ((domainId: string) => Promise<unknown>) | undefined;
  concurrency: number;
  /** Rows per claim (default CLAIM_BATCH). */
  claimBatch?: number;
  sweepIntervalMs?: number;
  /** The backoff's randomness (tests pin it). */
  random?: () => number;
}

/** What one check found; `moved` and `outboxId` only when DNS was right. */
export type CheckOutcome = DnsCheckResult & { moved?: boolean; outboxId?: number | null };

export interface DnsChecker {
  /** Checks every due row now; resolves with the number of checks made. */
  runOnce(): Promise<number>;
  /** Starts the sweep and, when a database URL is given, the LISTEN connection; resolves at once. */
  start(): void;
  /** Stops claiming, lets the checks in flight finish and writes their slots. */
  stop(): Promise<void>;
}

export function createDnsChecker(deps: DnsCheckerDeps): DnsChecker {
  const schedule = dnsScheduleRepository(deps.db);
  const sweepIntervalMs = deps.sweepIntervalMs ?? 1000;
  const claimBatch = deps.claimBatch ?? CLAIM_BATCH;
  const random = deps.random ?? Math.random;
  let stopped = false;

  /** One check: its next slot (null: leave the row to its lease, the check could not be made). */
  async function checkOne(row: ClaimedCheck): Promise<CheckDone | null> {
    const later = (counted: boolean) => ({ domainId: row.domainId, delayMs: nextCheckDelay(row.checks + 1, random), counted });
    const started = performance.now();
    let result: CheckOutcome | 'gone';
    dnsCheckerInFlight.inc();
    try {
      result = await deps.check({ domainId: row.domainId, hostname: row.hostname, isApex: row.isApex, seq: row.seq });
    } catch (error) {
      // Postgres away, most likely: the lease brings the row back.
      observeDnsCheckerCheck('error', (performance.now() - started) / 1000);
      deps.logger.warn({ domainId: row.domainId, err: String(error) }, 'DNS check failed; retried when its lease runs out');
      return null;
    } finally {
      dnsCheckerInFlight.dec();
    }
    observeDnsCheckerCheck(outcomeOf(result), (performance.now() - started) / 1000);
    if (result === 'gone') return null;
    if (result.ok) {
      // DNS is right but the row had moved before this check's move (the trigger dropped its row):
      // whoever moved it was the workflow's own check (a verify, in a burst) or left the
      // workflow its own reason to look (a suspend). A verify now would only wake an active
      // domain for a DNS re-check (bench:lifecycle: a second task and two local activities each).
      if (result.moved === false) return null;
      // The domain has moved (the trigger dropped its row) and its verify is committed in the
      // outbox with the move. A workflow not started yet reads where its domain stands when it
      // starts; one that is waiting needs the wake-up at once: delivered here, else (Temporal
      // not taking it, or this worker gone) by the outbox sweep.
      dnsCheckerMoves.inc();
      dnsCheckerSignals.inc({ outcome: await deliverVerify(row.domainId, result.outboxId ?? null) });
      return null;
    }
    if (!result.retryable && deps.moveStep) {
      try {
        await deps.moveStep(row.domainId);
      } catch (error) {
        deps.logger.warn({ domainId: row.domainId, err: String(error) }, 'move step failed; the next DNS check tries again');
      }
    }
    return later(true);
  }

  /** Hands the verify queued with a move to the dispatcher: what became of it. */
  async function deliverVerify(domainId: string, outboxId: number | null): Promise<'sent' | 'failed' | 'left_to_outbox'> {
    if (outboxId === null) return 'left_to_outbox';
    let err: string | undefined;
    try {
      const { dispatched, failed } = await deps.dispatchSignals([outboxId]);
      if (dispatched > 0) return 'sent';
      if (failed === 0) return 'left_to_outbox';
    } catch (error) {
      err = String(error);
    }
    deps.logger.warn({ domainId, outboxId, ...(err === undefined ? {} : { err }) }, 'DNS is right but the workflow could not be signalled now; the outbox sweep delivers the verify');
    return 'failed';
  }

  /**
   * Claims and checks until nothing is due: `concurrency` lanes take rows from a local queue that
   * is refilled by one claim at a time, so one slow check never holds up the others (a batch-at-
   * a-time loop would wait for its slowest check before claiming more).
   */
  async function drain(): Promise<number> {
    const queue: ClaimedCheck[] = [];
    const finished: CheckDone[] = [];
    let claiming: Promise<number> | null = null;
    let exhausted = false;
    let checks = 0;
    let writing = Promise.resolve();
    const flush = (all: boolean) => {
      while (finished.length >= (all ? 1 : DONE_BATCH)) {
        const slice = finished.splice(0, DONE_BATCH);
        writing = writing.then(() => schedule.done(slice)).catch((error: unknown) => {
          deps.logger.warn({ err: String(error), rows: slice.length }, 'DNS check slots not written; the rows come back when their lease runs out');
        });
      }
    };
    const refill = () => (claiming ??= schedule.claimDue(claimBatch, CHECK_LEASE_MS).then((rows) => {
      dnsCheckerClaimed.inc(rows.length);
      queue.push(...rows);
      if (rows.length < claimBatch) exhausted = true;
      return rows.length;
    }).finally(() => { claiming = null; }));
    const lane = async () => {
      for (;;) {
        if (queue.length === 0) {
          if (exhausted || stopped) return;
          await refill();
          continue;
        }
        const row = queue.shift()!;
        const done = await checkOne(row);
        checks++;
        if (done) finished.push(done);
        flush(false);
      }
    };
    try {
      await Promise.all(Array.from({ length: deps.concurrency }, lane));
    } finally {
      // Claimed but not checked (stopping): due again at once for whoever sweeps next.
      for (const row of queue.splice(0)) finished.push({ domainId: row.domainId, delayMs: 0, counted: false });
      flush(true);
      await writing;
    }
    return checks;
  }

  const sweep = createNotifiedSweep({ what: 'DNS checker', channel: DNS_CHECKS_CHANNEL, databaseUrl: deps.databaseUrl, sweepIntervalMs, logger: deps.logger, drain });

  return {
    runOnce: () => sweep.wake(),
    start() {
      stopped = false;
      sweep.start(0);
    },
    async stop() {
      stopped = true;
      await sweep.stop();
    },
  };
}

/** A check's outcome for the metrics: `error` when nothing was learned (a retryable problem). */
function outcomeOf(result: CheckOutcome | 'gone'): DnsCheckerOutcome {
  if (result === 'gone') return 'gone';
  if (result.ok) return 'right';
  return result.retryable ? 'error' : 'not_yet';
}
