// Webhook delivery activity: one attempt = load the delivery, its event and endpoint, sign, POST
// (activities/webhook-sender.ts, SSRF-guarded), classify the answer, and record the attempt and
// the delivery's new state in one transaction. HTTP outcomes are results; the workflow owns the
// schedule. Only infrastructure errors (Postgres) throw and land in the activity's retry policy —
// and so does a lookup that never started (ELOOKUPBUSY, below): that is our capacity, not the
// receiver's answer.
import { ApplicationFailure } from '@temporalio/common';
import { Context } from '@temporalio/activity';
import { unsubscribedError, webhookDeliveriesRepository, type DeliveryStatus, type EventRow } from '../db/repositories/webhook-deliveries.ts';
import { webhookEndpointsRepository } from '../db/repositories/webhook-endpoints.ts';
import type { Db } from '../db/pool.ts';
import type { Logger } from '../logging/logger.ts';
import { retryAfterMs } from '../model/retry-after.ts';
import { EVENT_ID_HEADER, SIGNATURE_HEADER, signatureHeader, type WebhookEvent } from '../sdk/webhooks.ts';
import type { PromiseLookup } from '../security/outbound-url.ts';
import type { SecretBox } from '../security/secret-box.ts';
import { delayAfterFailure } from '../model/webhook-schedule.ts';
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

export function createWebhookActivities(deps: WebhookActivityDeps) {
  const deliveries = webhookDeliveriesRepository(deps.db);
  const endpoints = webhookEndpointsRepository(deps.db, deps.secretBox);
  const timeoutMs = deps.timeoutMs ?? DEFAULT_WEBHOOK_TIMEOUT_MS;

  return {
    /** One attempt of a delivery; see the file comment. */
    async attemptWebhookDelivery(input: AttemptInput): Promise<AttemptResult> {
      const { deliveryId, attempt } = input;
      const loaded = await deliveries.loadForAttempt(deliveryId);
      // Permanent: a workflow for a row that does not exist can never deliver anything.
      if (!loaded) throw ApplicationFailure.nonRetryable(`webhook delivery ${deliveryId} does not exist`, 'DeliveryNotFound');
      const { delivery, event } = loaded;
      // A duplicate start of a delivery already settled (not a retry request): nothing to do.
      if (!input.redelivery && delivery.status !== 'pending') {
        return { outcome: 'skipped', status: delivery.status, responseCode: delivery.last_response_code, error: delivery.last_error, nextDelayMs: null };
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
      // Settled meanwhile (canceled by a narrowing of the endpoint's events): nothing to send.
      if (!await deliveries.markAttempting(deliveryId, input.redelivery)) {
        const settled = await deliveries.getById(deliveryId);
        return { outcome: 'skipped', status: settled?.status ?? 'failed', responseCode: settled?.last_response_code ?? null, error: settled?.last_error ?? null, nextDelayMs: null };
      }

      const body = JSON.stringify(eventPayload(event));
      const headers = {
        'content-type': 'application/json',
        'user-agent': USER_AGENT,
        [SIGNATURE_HEADER.toLowerCase()]: signatureHeader(body, endpoints.signingSecrets(endpoint), Math.floor(Date.now() / 1000)),
        [EVENT_ID_HEADER.toLowerCase()]: event.id,
      };
      // Heartbeats while the request is out: a worker that dies mid-send is noticed in seconds. A
      // local activity (the first attempt of a run) has none: its workflow task stands for it.
      const context = Context.current();
      const beat = context.info.isLocal ? undefined : setInterval(() => context.heartbeat(), 1000);
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
    },
  };
}
