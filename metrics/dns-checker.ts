// The DNS checker's metrics (worker/dns-checker.ts, issue 26), on prom-client's default registry
// like the rest of the worker's (metrics/worker.ts): what its checks found and how long they
// took, the rows it claimed, the moves it made and the verifies it sent. How far behind the
// checkers are (due rows, the oldest one's age) is read from Postgres at scrape time with the
// other backlog gauges (metrics/worker.ts `registerBacklogGauges`): every worker shares the table.
import client from 'prom-client';

/** right: DNS as expected; not_yet: DNS answered, not (yet) pointing here; error: nothing learned (the check failed, or DNS did not answer in time); gone: the domain was deleted meanwhile. */
export type DnsCheckerOutcome = 'right' | 'not_yet' | 'error' | 'gone';

const byOutcome = (name: string, help: string) => new client.Counter({ name, help, labelNames: ['outcome'] as const });

export const dnsCheckerChecks = byOutcome('hostgate_dns_checker_checks_total',
  'Periodic DNS checks made by the DNS checker, by outcome (right: DNS points here; not_yet: DNS answered but does not point here yet; error: nothing learned — the check failed or DNS did not answer within the budget; gone: the domain was deleted meanwhile).');

export const dnsCheckerCheckSeconds = new client.Histogram({
  name: 'hostgate_dns_checker_check_duration_seconds',
  help: "One DNS checker check from its start to its result stored (the lookups, and the move when DNS is right), by outcome; the verify's delivery is not in it.",
  labelNames: ['outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20, 30],
});

export const dnsCheckerClaimed = new client.Counter({
  name: 'hostgate_dns_checker_claimed_rows_total',
  help: 'Due dns_check_schedule rows this worker claimed (each is checked once, unless the worker stops first: then it is handed back due).',
});

export const dnsCheckerMoves = new client.Counter({
  name: 'hostgate_dns_checker_moves_total',
  help: 'Domains the DNS checker moved from pending_dns to pending_certificate (its own check made the move; the verify was queued in the same statement).',
});

export const dnsCheckerSignals = byOutcome('hostgate_dns_checker_signals_total',
  "The DNS checker's verify after a move, by outcome (sent: delivered to Temporal at once; failed: Temporal did not take it, the outbox sweep retries; left_to_outbox: another dispatcher had the row, or it waits behind the workflow's start).");

export const dnsCheckerInFlight = new client.Gauge({
  name: 'hostgate_dns_checker_checks_in_flight',
  help: 'DNS checker checks running now (at most HOSTGATE_DNS_CHECKER_CONCURRENCY per worker).',
});

/** Records a finished check. */
export function observeDnsCheckerCheck(outcome: DnsCheckerOutcome, seconds: number): void {
  dnsCheckerChecks.inc({ outcome });
  dnsCheckerCheckSeconds.observe({ outcome }, seconds);
}
