// The worker's own metrics (Prometheus, prom-client's default registry): DNS lookups by lane and
// outcome, the local DNS lane's use, webhook deliveries by outcome, the workflow outbox's lag.
// The Temporal SDK's own metrics (workflow-task slots, task latencies, polls) come from the
// Rust core's exporter on a port of its own (worker/main.ts). Importing this module only
// declares the metrics; nothing is served until worker/main.ts starts the endpoint.
import client from 'prom-client';

export const dnsLookupSeconds = new client.Histogram({
  name: 'hostgate_dns_check_duration_seconds',
  help: 'Time one DNS check took (every lookup of a hostname: CNAME chain, A, AAAA, CAA), by lane (local: inside a workflow task; background: DNS task queue) and outcome (answered, budget_exceeded, no_permit).',
  labelNames: ['lane', 'outcome'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 15, 30],
});

/** Records one DNS check (activities/dns-check.ts). */
export function observeDnsLookup(lane: 'local' | 'background', outcome: 'answered' | 'budget_exceeded' | 'no_permit', seconds: number): void {
  dnsLookupSeconds.observe({ lane, outcome }, seconds);
}

export const webhookAttempts = new client.Counter({
  name: 'hostgate_webhook_attempts_total',
  help: 'Webhook delivery attempts by outcome (success: 2xx; http_error: any other status; network_error: no HTTP answer; refused: the target was refused before sending).',
  labelNames: ['outcome'] as const,
});

export type WebhookAttemptOutcome = 'success' | 'http_error' | 'network_error' | 'refused';

export function countWebhookAttempt(outcome: WebhookAttemptOutcome): void {
  webhookAttempts.inc({ outcome });
}
