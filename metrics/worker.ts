// The worker's own metrics (Prometheus, prom-client's default registry): DNS lookups by lane and
// outcome, the local DNS lane's use, webhook deliveries by outcome, the workflow outbox's lag and
// the DNS checkers' (the checker's own counters: metrics/dns-checker.ts).
// The Temporal SDK's own metrics (workflow-task slots, task latencies, polls) come from the
// Rust core's exporter on a port of its own (worker/main.ts). Importing this module only
// declares the metrics; nothing is served until worker/main.ts starts the endpoint.
import client from 'prom-client';

export const dnsLookupSeconds = new client.Histogram({
  name: 'hostgate_dns_check_duration_seconds',
  help: 'Time one DNS check took (every lookup of a hostname: CNAME chain, A, AAAA, CAA), by lane (local: verify and re-checks inside a workflow task; probe: a periodic check trying the local path first; background: DNS task queue) and outcome (answered, budget_exceeded, no_permit).',
  labelNames: ['lane', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 15, 30],
});

/** Records one DNS check (activities/dns-check.ts). */
export function observeDnsLookup(lane: 'local' | 'probe' | 'background', outcome: 'answered' | 'budget_exceeded' | 'no_permit', seconds: number): void {
  dnsLookupSeconds.observe({ lane, outcome }, seconds);
}

export const webhookAttempts = new client.Counter({
  name: 'hostgate_webhook_attempts_total',
  help: "Webhook delivery attempts by outcome (succeeded: 2xx; failed: another status or no answer; gone: 410, the endpoint is disabled; endpoint_unavailable: disabled or deleted, nothing sent) and the delivery's status after it (pending: will retry; succeeded; failed: for good).",
  labelNames: ['outcome', 'delivery_status'] as const,
});

export const webhookAttemptSeconds = new client.Histogram({
  name: 'hostgate_webhook_attempt_duration_seconds',
  help: 'Time from sending a webhook to its answer (or the timeout / network error).',
  buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
});

/** Records one webhook attempt (activities/webhooks.ts). */
export function countWebhookAttempt(outcome: string, deliveryStatus: string, durationMs: number | null): void {
  webhookAttempts.inc({ outcome, delivery_status: deliveryStatus });
  if (durationMs !== null) webhookAttemptSeconds.observe(durationMs / 1000);
}

/** DNS checks running on the local lane now (each holds a workflow-task slot while it runs). */
export const dnsLocalLookupsInFlight = new client.Gauge({
  name: 'hostgate_dns_local_lookups_in_flight',
  help: 'DNS checks inside workflow tasks holding a permit now, by lane (local: at most HOSTGATE_DNS_LOCAL_CONCURRENCY; probe: at most half of it).',
  labelNames: ['lane'] as const,
});

export const retentionDeletes = new client.Counter({
  name: 'hostgate_retention_deleted_rows_total',
  help: 'Rows deleted by the retention schedules, by target (workflow-outbox, webhook-history, widget-sessions, idempotency-keys).',
  labelNames: ['target'] as const,
});

export function countRetentionDeletes(target: string, rows: number): void {
  if (rows > 0) retentionDeletes.inc({ target }, rows);
}

/**
 * Gauges read from Postgres at scrape time (outbox lag, deliveries waiting, domains by status).
 * `read` is given by the process (db/repositories/backlog-gauges.ts); a failed read leaves the
 * gauges at their last values and counts the failure.
 */
export function registerBacklogGauges(read: () => Promise<{ outboxPending: number; outboxOldestSeconds: number; deliveriesPending: number; domainsByStatus: Record<string, number>; dnsChecksDue: number; dnsCheckOldestDueSeconds: number }>): void {
  const failures = new client.Counter({ name: 'hostgate_backlog_read_failures_total', help: 'Scrapes whose backlog gauges could not be read from Postgres.' });
  let latest: Promise<Awaited<ReturnType<typeof read>> | null> | null = null;
  // One read per scrape, shared by the gauges below: prom-client collects every metric of a
  // scrape at once, so they all join the read under way; the next scrape reads afresh.
  const once = () => {
    latest ??= read().catch(() => { failures.inc(); return null; }).finally(() => { latest = null; });
    return latest;
  };
  new client.Gauge({
    name: 'hostgate_outbox_pending', help: 'Workflow outbox rows (workflow starts and signals) not yet dispatched to Temporal.',
    async collect() { const v = await once(); if (v) this.set(v.outboxPending); },
  });
  new client.Gauge({
    name: 'hostgate_outbox_lag_seconds', help: 'Age of the oldest workflow outbox row not yet dispatched (0 when none): how far Temporal is behind the API.',
    async collect() { const v = await once(); if (v) this.set(v.outboxOldestSeconds); },
  });
  new client.Gauge({
    name: 'hostgate_webhook_deliveries_pending', help: 'Webhook deliveries not yet succeeded or failed for good.',
    async collect() { const v = await once(); if (v) this.set(v.deliveriesPending); },
  });
  // The DNS checkers' backlog (worker/dns-checker.ts): the schedule is shared, so every worker
  // reports the same figures (aggregate with max, not sum).
  new client.Gauge({
    name: 'hostgate_dns_checks_due', help: 'DNS checks of pending domains due now and not claimed by any DNS checker (counted up to 10,000).',
    async collect() { const v = await once(); if (v) this.set(v.dnsChecksDue); },
  });
  new client.Gauge({
    name: 'hostgate_dns_checks_lag_seconds', help: 'How long the oldest due DNS check has waited for a DNS checker (0 when none is due): how far the checkers are behind.',
    async collect() { const v = await once(); if (v) this.set(v.dnsCheckOldestDueSeconds); },
  });
  new client.Gauge({
    name: 'hostgate_domains', help: 'Domains by status.', labelNames: ['status'] as const,
    async collect() {
      const v = await once();
      if (!v) return;
      this.reset();
      for (const [status, n] of Object.entries(v.domainsByStatus)) this.set({ status }, n);
    },
  });
}
