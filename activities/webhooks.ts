// Webhook delivery activity: one attempt = load the delivery, its event and endpoint, sign, POST
// (activities/webhook-sender.ts, SSRF-guarded), classify the answer, and record the attempt and
// the delivery's new state in one transaction. HTTP outcomes are results; the workflow owns the
// schedule. Only infrastructure errors (Postgres) throw and land in the activity's retry policy —
// and so does a lookup that never started (ELOOKUPBUSY, below): that is our capacity, not the
// receiver's answer.
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { unsubscribedError, webhookDeliveriesRepository, type DeliveryStatus, type EventRow, type WebhookDeliveryRow } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../logging/logger.ts';
import { retryAfterMs } from '../model/retry-after.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader, type WebhookEvent } from '../sdk/webhooks.ts';
import type { PromiseLookup } from '../security/outbound-url.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { delayAfterFailure, plannedDelay } from '../model/webhook-schedule.ts';
import { sendWebhook, type SendResult } from './webhook-sender.ts';
import { countWebhookAttempt } from '../metrics/worker.ts';

export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000;
export const USER_AGENT = 'Hostgate-Webhooks/1';
/** `disabled_reason` of an endpoint that answered 410 Gone. */
export const DISABLED_GONE = 'gone';
/**
 * The guarded lookup's refusal to start (security/outbound-url.ts: a few customer lookups at once,
 * 5 s of queueing): other customers' hostnames whose DNS hangs hold every slot. Nothing was sent
 * and this delivery's receiver was never asked, so it is not an attempt of this delivery.
 */
export const LOOKUP_BUSY_CODE = 'ELOOKUPBUSY';
/** Type of the retryable failure that puts such an attempt off (the activity's retry runs it again). */
export const LOOKUP_BUSY_FAILURE = 'WebhookLookupBusy';
/** How long such an attempt is put off: a few seconds, jittered so deferred ones do not return together. */
export function lookupBusyDelayMs(random: number = Math.random()): number {
  return 2_000 + Math.round(random * 3_000);
}

export interface WebhookActivityDeps {
  db: Db;
  logger: Logger;
  secretBox: SecretBox;
  /** HOSTGATE_ALLOW_PRIVATE_TARGETS: loopback/private receivers allowed (tests, local stacks). */
  allowPrivateTargets: boolean;
  /** Deadline of one attempt's HTTP exchange (default 15 s). */
  timeoutMs?: number;
  /** Tests: resolve names to chosen addresses (the guard still checks them). */
  lookup?: PromiseLookup;
}

export interface AttemptInput {
  deliveryId: string;
  /** 1-based, since the last reset (creation or retry). */
  attempt: number;
  /** The attempt serves a retry request: send even if the row is no longer pending. */
  redelivery: boolean;
  /** The workflow's jittered wait if this attempt fails; null when it is the last one. */
  plannedDelayMs: number | null;
}

export interface AttemptResult {
  outcome: 'succeeded' | 'failed' | 'gone' | 'endpoint_unavailable' | 'skipped';
  status: DeliveryStatus;
  responseCode: number | null;
  error: string | null;
  /** Wait before the next attempt; null: the delivery is finished. */
  nextDelayMs: number | null;
}

/** The delivery body (decisions.md): the same `id` on every attempt of one event. */
export function eventPayload(event: EventRow): WebhookEvent {
  const d = event.data as Record<string, unknown>;
  return {
    id: event.id,
    event: event.kind as WebhookEvent['event'],
    created_at: event.created_at,
    data: {
      id: String(d.id),
      hostname: String(d.hostname),
      status: String(d.status),
      destination_id: String(d.destination_id),
      external_customer_id: typeof d.external_customer_id === 'string' ? d.external_customer_id : null,
      // Events stored before migration 013 carry no metadata: null, like a domain without any.
      metadata: d.metadata && typeof d.metadata === 'object' ? d.metadata as Record<string, string> : null,
      ...(Array.isArray(d.changes) ? { changes: d.changes.map(String) } : {}),
    },
  };
}

/** Retry-After as milliseconds: delta-seconds or an HTTP date; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number = Date.now()): number | null {
  return retryAfterMs(value, now);
}

/** How a send result moves the delivery. */
export function classify(result: SendResult, plannedDelayMs: number | null): Omit<AttemptResult, 'status'> & { attemptError: string | null } {
  const code = result.statusCode;
  if (code !== null && code >= 200 && code < 300) {
    return { outcome: 'succeeded', responseCode: code, error: null, attemptError: null, nextDelayMs: null };
  }
  if (code === 410) {
    const error = 'the endpoint answered 410 Gone: the endpoint is now disabled and the delivery stopped';
    return { outcome: 'gone', responseCode: code, error, attemptError: null, nextDelayMs: null };
  }
  let error: string;
  let attemptError: string | null = null;
  if (code === null) {
    error = attemptError = result.error ?? 'no response';
  } else if (code >= 300 && code < 400) {
    const location = result.headers?.location;
    error = attemptError = `redirect (${code}${location ? ` to ${String(location).slice(0, 200)}` : ''}) not followed: the webhook URL must answer 2xx itself`;
  } else {
    error = `the endpoint answered ${code}`;
  }
  // A refused URL (scheme, literal private IP) cannot start working by itself: stop now.
  if (result.refused === 'url' || plannedDelayMs === null) {
    return { outcome: 'failed', responseCode: code, error, attemptError, nextDelayMs: null };
  }
  const retryAfter = code === 429 || code === 503 ? parseRetryAfter(result.headers?.['retry-after']) : null;
  return { outcome: 'failed', responseCode: code, error, attemptError, nextDelayMs: delayAfterFailure(plannedDelayMs, retryAfter) };
}

/**
 * How long a claimed first attempt stays claimed: its HTTP deadline plus room for Postgres and
 * the lookup queue. A claim older than this belongs to a process that died mid-attempt, and the
 * workflow takes the attempt over (worker/webhook-first-attempts.ts, docs/api-decisions.md "Attempts").
 */
export const firstAttemptLeaseMs = (timeoutMs: number) => timeoutMs + 15_000;
/** How often a workflow's first attempt looks at the row while the direct one is out. */
const IN_FLIGHT_POLL_MS = 100;
/** Type of the retryable failure of a workflow's first attempt while the direct one is out. */
export const ATTEMPT_IN_FLIGHT_FAILURE = 'WebhookAttemptInFlight';

/** What the delivery's row says about an attempt that another process made (the direct first attempt). */
export function adoptedResult(row: WebhookDeliveryRow, now: number = Date.now()): AttemptResult {
  const outcome = row.status === 'succeeded' ? 'succeeded' : 'failed';
  const nextDelayMs = row.status === 'pending' ? Math.max(0, (row.next_attempt_at ? Date.parse(row.next_attempt_at) : now) - now) : null;
  return { outcome, status: row.status, responseCode: row.last_response_code, error: row.last_error, nextDelayMs };
}

/**
 * One attempt of a delivery, for the workflow's activity and for the worker's direct first attempt
 * (worker/webhook-first-attempts.ts). `heartbeat`: called every second while the request is out.
 */
export function createWebhookAttempts(deps: WebhookActivityDeps) {
  const deliveries = webhookDeliveriesRepository(deps.db);
  const endpoints = webhookEndpointsRepository(deps.db, deps.secretBox);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;
  const leaseMs = firstAttemptLeaseMs(timeoutMs);

  async function attemptDelivery(input: AttemptInput, options: { heartbeat?: () => void; direct?: boolean } = {}): Promise<AttemptResult | null> {
    const { deliveryId, attempt } = input;
    const loaded = await deliveries.loadForAttempt(deliveryId);
    // Permanent: a workflow for a row that does not exist can never deliver anything.
    if (!loaded) throw ApplicationFailure.nonRetryable(`webhook delivery ${deliveryId} does not exist`, 'DeliveryNotFound');
    const { delivery, event } = loaded;
    // Attempt 1 of a fresh delivery is claimed by whoever makes it first: the worker's direct
    // attempt right after the fan-out, or the workflow. The one that finds it made adopts its
    // outcome from the row (the workflow goes on from there: done, or attempt 2 at the recorded
    // time); the direct one that finds it taken does nothing.
    const first = attempt === 1 && !input.redelivery;
    if (first && delivery.attempt_count >= 1) return options.direct ? null : adoptedResult(delivery);
    // A duplicate start of a delivery already settled (not a retry request): nothing to do.
    if (!input.redelivery && delivery.status !== 'pending') {
      return options.direct ? null : { outcome: 'skipped', status: delivery.status, responseCode: delivery.last_response_code, error: delivery.last_error, nextDelayMs: null };
    }
    const endpoint = await endpoints.getById(delivery.endpoint_id);
    // A scheduled attempt of a kind the endpoint dropped (PATCH events) is canceled; a retry
    // request for it is the vendor asking explicitly, and is sent.
    const unsubscribed = endpoint && !input.redelivery && !endpoint.events.includes('*') && !endpoint.events.includes(delivery.event);
    if (!endpoint || !endpoint.enabled || unsubscribed) {
      const error = !endpoint ? 'the endpoint was deleted'
        : !endpoint.enabled ? `the endpoint is disabled (${endpoint.disabled_reason ?? 'manual'}); enable it and retry the delivery`
          : unsubscribedError(delivery.event);
      await deliveries.failWithoutAttempt(deliveryId, error);
      countWebhookAttempt('endpoint_unavailable', 'failed', null);
      return { outcome: 'endpoint_unavailable', status: 'failed', responseCode: null, error, nextDelayMs: null };
    }
    if (!(first ? await deliveries.claimFirstAttempt(deliveryId, leaseMs) : await deliveries.markAttempting(deliveryId, input.redelivery))) {
      if (options.direct) return null;
      // Attempt 1 is out from the worker's direct first attempt (or was given back by it): wait for
      // its outcome and adopt it, or claim it once it is free or its claim has lapsed (the process
      // making it died). Bounded by the lease; past it the activity's retry asks again.
      const until = Date.now() + leaseMs + 1_000;
      for (;;) {
        const settled = await deliveries.getById(deliveryId);
        if (first && settled && settled.attempt_count >= 1) return adoptedResult(settled);
        // Settled meanwhile (canceled by a narrowing of the endpoint's events): nothing to send.
        if (!first || !settled || settled.status !== 'pending') {
          return { outcome: 'skipped', status: settled?.status ?? 'failed', responseCode: settled?.last_response_code ?? null, error: settled?.last_error ?? null, nextDelayMs: null };
        }
        if (Date.now() > until) {
          throw ApplicationFailure.create({ type: ATTEMPT_IN_FLIGHT_FAILURE, message: `attempt 1 of ${deliveryId} is still being made by the worker's direct first attempt`, nextRetryDelay: 1_000 });
        }
        options.heartbeat?.();
        await new Promise((resolve) => setTimeout(resolve, IN_FLIGHT_POLL_MS));
        if (await deliveries.claimFirstAttempt(deliveryId, leaseMs)) break;
      }
    }

    const body = JSON.stringify(eventPayload(event));
    const headers = {
      'content-type': 'application/json',
      'user-agent': USER_AGENT,
      [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(body, endpoints.signingSecrets(endpoint), Math.floor(Date.now() / 1000)),
      [EVENT_ID_HEADER.toLowerCase()]: event.id,
    };
    const heartbeat = options.heartbeat;
    const beat = heartbeat ? setInterval(heartbeat, 1000) : undefined;
    let result: SendResult;
    try {
      result = await sendWebhook({ url: endpoint.url, body, headers, timeoutMs, allowPrivate: deps.allowPrivateTargets, lookup: deps.lookup });
    } finally {
      clearInterval(beat);
    }

    if (result.errorCode === LOOKUP_BUSY_CODE) {
      // Not an attempt (see LOOKUP_BUSY_CODE): no attempt row, the count unchanged, and the
      // workflow never sees it — the activity fails retryably and Temporal runs the same attempt
      // again after the delay (attemptOptions in workflows/webhook-delivery/workflows.ts has no
      // attempt limit), instead of spending one of the delivery's 8 on a schedule of hours.
      const delayMs = lookupBusyDelayMs();
      await deliveries.postpone(deliveryId, delayMs);
      // The direct attempt leaves it to the workflow (the claim is released by postpone).
      if (options.direct) return null;
      deps.logger.warn({ deliveryId, attempt, delayMs }, 'webhook attempt put off: the customer DNS lookups are all busy');
      throw ApplicationFailure.create({
        type: LOOKUP_BUSY_FAILURE, message: `${result.error ?? 'DNS lookup not started'}; attempt ${attempt} put off by ${delayMs} ms, not counted`,
        nextRetryDelay: delayMs,
      });
    }

    const verdict = classify(result, input.plannedDelayMs);
    const status: DeliveryStatus = verdict.outcome === 'succeeded' ? 'succeeded' : verdict.nextDelayMs === null ? 'failed' : 'pending';
    await deliveries.recordAttempt({
      deliveryId, attempt, startedAt: result.startedAt.toISOString(), durationMs: result.durationMs,
      responseCode: result.statusCode, responseBody: result.body, error: verdict.attemptError,
      status, lastError: verdict.error, nextDelayMs: verdict.nextDelayMs,
    });
    countWebhookAttempt(verdict.outcome, status, result.durationMs);
    if (verdict.outcome === 'gone') {
      await endpoints.disable(endpoint.id, DISABLED_GONE);
      deps.logger.info({ endpointId: endpoint.id, deliveryId }, 'webhook endpoint answered 410 Gone; disabled');
    }
    return { outcome: verdict.outcome, status, responseCode: verdict.responseCode, error: verdict.error, nextDelayMs: verdict.nextDelayMs };
  }

  return {
    attemptDelivery,
    /**
     * The first attempt of a new delivery, made by the worker right after the fan-out commits,
     * ahead of its workflow (worker/webhook-first-attempts.ts): false when the workflow had
     * claimed it already, or it was not made (the endpoint's lookups all busy: the workflow makes
     * it). The jittered wait after a failure is drawn here; the workflow reads it from the row.
     */
    async directFirstAttempt(deliveryId: string): Promise<boolean> {
      const result = await attemptDelivery({ deliveryId, attempt: 1, redelivery: false, plannedDelayMs: plannedDelay(1) }, { direct: true });
      return result !== null;
    },
  };
}

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const attempts = createWebhookAttempts(deps);
  return {
    /** One attempt of a delivery; see the file comment. */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult> {
      // Heartbeats while the request is out: a worker that dies mid-send is noticed in seconds. A
      // local activity (the first attempt of a run) has none: its workflow task stands for it.
      const context = Context.current();
      const result = await attempts.attemptDelivery(input, context.info.isLocal ? {} : { heartbeat: () => context.heartbeat() });
      return result!;
    },
  };
}
