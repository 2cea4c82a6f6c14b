// Webhook deliveries (one per event × subscribed endpoint) and their attempts. Rows are written by
// the fan-out (creation), by the delivery activity (one transaction per attempt) and by the API
// (retry). The delivery workflow owns the schedule; these rows mirror it for the API.
import type { CommonQueryMethods } from 'slonik';
import { Type, type Static } from 'typebox';
import { WEBHOOK_DELIVERY_WORKFLOW_PREFIX, webhookDeliveryWorkflowId, type DeliveryWorkflowPayload } from '../../contracts/webhook-delivery-workflow.ts';
import { newId } from '../ids.ts';
import { afterCursor, decodeCursor, encodeCursor, InvalidCursorError, pageOfRows, toPage, type Page } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';

export const deliveryStatuses = ['pending', 'succeeded', 'failed'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];

export const WebhookDeliveryRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  endpoint_id: Type.String(),
  event_id: Type.String(),
  event: Type.String(),
  status: Type.Union(deliveryStatuses.map((s) => Type.Literal(s))),
  attempt_count: Type.Number(),
  last_response_code: Type.Union([Type.Number(), Type.Null()]),
  last_error: Type.Union([Type.String(), Type.Null()]),
  next_attempt_at: Type.Union([Type.String(), Type.Null()]),
  /** An attempt is out (attempting_since is set). */
  attempting: Type.Boolean(),
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type WebhookDeliveryRow = Static<typeof WebhookDeliveryRow>;
const Delivery = row(WebhookDeliveryRow);
const columns = sql.fragment`id, organization_id, endpoint_id, event_id, event, status, attempt_count, last_response_code, last_error,
  next_attempt_at, attempting_since is not null as attempting, created_at, updated_at`;

export const WebhookAttemptRow = Type.Object({
  id: Type.String(),
  delivery_id: Type.String(),
  /** Since the last reset (creation or a retry request): the workflow's count. */
  attempt_number: Type.Number(),
  /** Over the delivery's whole life: 1, 2, …, continuing across retry requests. */
  sequence_number: Type.Number(),
  started_at: Type.String(),
  duration_ms: Type.Number(),
  response_code: Type.Union([Type.Number(), Type.Null()]),
  response_body: Type.Union([Type.String(), Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]),
});
export type WebhookAttemptRow = Static<typeof WebhookAttemptRow>;
const Attempt = row(WebhookAttemptRow);

/** The event a delivery carries, as stored by the outbox (`events`). */
export const EventRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  kind: Type.String(),
  data: Type.Record(Type.String(), Type.Unknown()),
  created_at: Type.String(),
});
export type EventRow = Static<typeof EventRow>;

/** A delivery and its event in one row (loadForAttempt): the event's columns prefixed `event__`. */
const DeliveryWithEvent = row(Type.Object({
  ...WebhookDeliveryRow.properties,
  event__id: Type.String(),
  event__organization_id: Type.String(),
  event__kind: Type.String(),
  event__data: Type.Record(Type.String(), Type.Unknown()),
  event__created_at: Type.String(),
}));

export interface DeliveryFilters { endpointId?: string | undefined; status?: DeliveryStatus | undefined }

export interface AttemptRecord {
  deliveryId: string;
  attempt: number;
  startedAt: string;
  durationMs: number;
  responseCode: number | null;
  responseBody: string | null;
  error: string | null;
  /** The delivery after this attempt. */
  status: DeliveryStatus;
  lastError: string | null;
  /** Null: no further attempt is planned. */
  nextDelayMs: number | null;
}

const ATTEMPT_CURSOR_PREFIX = 'att_';

/** `last_error` of a delivery canceled because its endpoint dropped its kind: prefix, kind, suffix. */
export const UNSUBSCRIBED_PREFIX = 'canceled: the endpoint no longer subscribes to ';
const UNSUBSCRIBED_SUFFIX = 'its events were changed before this delivery could succeed';

/** The `last_error` of a delivery of `kind` ended because its endpoint no longer subscribes to it. */
export function unsubscribedError(kind: string): string {
  return `${UNSUBSCRIBED_PREFIX}${kind}: ${UNSUBSCRIBED_SUFFIX}`;
}

export function webhookDeliveriesRepository(db: Db) {
  return {
    /**
     * One fan-out step, in one short transaction: claims up to `limit` events not yet fanned out
     * (SKIP LOCKED, so several workers share the work), creates a delivery for each enabled,
     * live endpoint of the event's organization whose `events` match (or are `*`), queues one
     * `start_delivery` outbox row per new delivery, and marks the events fanned out. Idempotent:
     * a delivery is unique per (endpoint, event). Returns the outbox ids to dispatch.
     */
    async fanOut(limit: number, options: { searchAttributes?: boolean } = {}): Promise<{ events: number; deliveries: number; outboxIds: number[]; deliveryIds: string[] }> {
      return db.transaction(async (tx) => {
        const events = await tx.anyFirst(sql.type(row(Type.Object({ id: Type.String() })))`
          select id from events where fanned_out_at is null order by created_at, id limit ${limit} for update skip locked`);
        if (events.length === 0) return { events: 0, deliveries: 0, outboxIds: [], deliveryIds: [] };
        const pairs = await tx.any(sql.type(row(Type.Object({ event_id: Type.String(), organization_id: Type.String(), kind: Type.String(), endpoint_id: Type.String() })))`
          select e.id as event_id, e.organization_id, e.kind, w.id as endpoint_id
          from events e join webhook_endpoints w on w.organization_id = e.organization_id
          where e.id = any(${sql.array([...events], 'text')}) and w.enabled and w.deleted_at is null
            and (w.events @> array['*']::text[] or e.kind = any(w.events))
          order by e.created_at, e.id, w.id`);
        let started: readonly { id: number; delivery_id: string }[] = [];
        if (pairs.length) {
          const ids = pairs.map(() => newId('webhookDelivery'));
          const extra = options.searchAttributes === false ? sql.fragment`, 'searchAttributes', false` : sql.fragment``;
          started = await tx.any(sql.type(row(Type.Object({ id: Type.Number(), delivery_id: Type.String() })))`
            with created as (
              insert into webhook_deliveries (id, organization_id, endpoint_id, event_id, event, next_attempt_at)
              select t.id, t.organization_id, t.endpoint_id, t.event_id, t.event, hg_now()
              from unnest(${sql.array(ids, 'text')}, ${sql.array(pairs.map((p) => p.organization_id), 'text')},
                          ${sql.array(pairs.map((p) => p.endpoint_id), 'text')}, ${sql.array(pairs.map((p) => p.event_id), 'text')},
                          ${sql.array(pairs.map((p) => p.kind), 'text')}) as t(id, organization_id, endpoint_id, event_id, event)
              on conflict (endpoint_id, event_id) do nothing
              returning id, organization_id, endpoint_id, event
            )
            insert into workflow_outbox (kind, workflow_id, payload)
            select 'start_delivery', ${WEBHOOK_DELIVERY_WORKFLOW_PREFIX} || c.id,
                   jsonb_build_object('deliveryId', c.id, 'endpointId', c.endpoint_id, 'organizationId', c.organization_id, 'event', c.event ${extra})
            from created c
            returning id, payload->>'deliveryId' as delivery_id`);
        }
        await tx.query(sql.unsafe`update events set fanned_out_at = hg_now() where id = any(${sql.array([...events], 'text')})`);
        return { events: events.length, deliveries: started.length, outboxIds: started.map((r) => r.id), deliveryIds: started.map((r) => r.delivery_id) };
      });
    },

    /** A delivery of the organization; another organization's id reads as missing. */
    async get(organizationId: string, id: string): Promise<WebhookDeliveryRow | null> {
      return db.maybeOne(sql.type(Delivery)`select ${columns} from webhook_deliveries where id = ${id} and organization_id = ${organizationId}`);
    },

    /** Internal callers only (delivery activity, tests). */
    async getById(id: string): Promise<WebhookDeliveryRow | null> {
      return db.maybeOne(sql.type(Delivery)`select ${columns} from webhook_deliveries where id = ${id}`);
    },

    /** Newest first, keyset pagination on (created_at, id); filters by endpoint and status. */
    async list<U>(organizationId: string, filters: DeliveryFilters, page: { limit: number; cursor?: string | undefined }, map: (d: WebhookDeliveryRow) => U): Promise<Page<U>> {
      const conditions = [sql.fragment`organization_id = ${organizationId}`, afterCursor(page.cursor)];
      if (filters.endpointId) conditions.push(sql.fragment`endpoint_id = ${filters.endpointId}`);
      if (filters.status) conditions.push(sql.fragment`status = ${filters.status}`);
      const rows = await db.any(sql.type(Delivery)`
        select ${columns} from webhook_deliveries where ${sql.join(conditions, sql.fragment` and `)}
        order by created_at desc, id desc limit ${page.limit + 1}`);
      return toPage(rows, page.limit, map);
    },

    /**
     * The attempts of an organization's delivery, newest first, keyset-paginated on
     * (started_at, attempt_number); null when the delivery is not the organization's.
     */
    async listAttempts<U>(organizationId: string, deliveryId: string, page: { limit: number; cursor?: string | undefined }, map: (a: WebhookAttemptRow) => U): Promise<Page<U> | null> {
      let after = sql.fragment`true`;
      if (page.cursor) {
        const { createdAt, id } = decodeCursor(page.cursor);
        const n = id.startsWith(ATTEMPT_CURSOR_PREFIX) ? Number(id.slice(ATTEMPT_CURSOR_PREFIX.length)) : Number.NaN;
        if (!Number.isSafeInteger(n) || n < 1) throw new InvalidCursorError();
        after = sql.fragment`(a.started_at, a.attempt_number) < (${createdAt}::timestamptz, ${n})`;
      }
      return db.transaction(async (tx) => {
        const owned = await tx.maybeOneFirst(sql.type(row(Type.Object({ id: Type.String() })))`
          select id from webhook_deliveries where id = ${deliveryId} and organization_id = ${organizationId}`);
        if (!owned) return null;
        const rows = await tx.any(sql.type(Attempt)`
          select a.id, a.delivery_id, a.attempt_number, a.sequence_number, a.started_at, a.duration_ms, a.response_code, a.response_body, a.error
          from webhook_attempts a where a.delivery_id = ${deliveryId} and ${after}
          order by a.started_at desc, a.attempt_number desc limit ${page.limit + 1}`);
        return pageOfRows(rows, page.limit, map, (last) => encodeCursor(last.started_at, `${ATTEMPT_CURSOR_PREFIX}${last.attempt_number}`));
      });
    },

    /**
     * The API's retry: resets the delivery (pending, attempt_count 0, next attempt now) and queues
     * the `retry` signal (signal-with-start: a delivery whose workflow ended gets a new run) in one
     * transaction. Null when the delivery is not the organization's.
     */
    async resetForRetry(organizationId: string, id: string, q: CommonQueryMethods = db): Promise<{ delivery: WebhookDeliveryRow; outboxId: number } | null> {
      return q.transaction(async (tx) => {
        const delivery = await tx.maybeOne(sql.type(Delivery)`
          update webhook_deliveries set status = 'pending', attempt_count = 0, next_attempt_at = hg_now(), updated_at = hg_now()
          where id = ${id} and organization_id = ${organizationId} returning ${columns}`);
        if (!delivery) return null;
        const payload: DeliveryWorkflowPayload = { deliveryId: delivery.id, endpointId: delivery.endpoint_id, organizationId, event: delivery.event };
        const outboxId = await tx.oneFirst(sql.type(row(Type.Object({ id: Type.Number() })))`
          insert into workflow_outbox (kind, workflow_id, payload)
          values ('retry_delivery', ${webhookDeliveryWorkflowId(delivery.id)}, ${sql.jsonb(payload as never)}) returning id`);
        return { delivery, outboxId };
      });
    },

    /**
     * The delivery and its event, for an attempt: one statement (every round trip costs the worker
     * a socket write and a wake-up; docs/scale.md, "Webhooks").
     */
    async loadForAttempt(id: string): Promise<{ delivery: WebhookDeliveryRow; event: EventRow } | null> {
      const found = await db.maybeOne(sql.type(DeliveryWithEvent)`
        with d as (select ${columns} from webhook_deliveries where id = ${id})
        select d.*, e.id as event__id, e.organization_id as event__organization_id, e.kind as event__kind, e.data as event__data, e.created_at as event__created_at
        from d join events e on e.id = d.event_id`);
      if (!found) return null;
      const { event__id, event__organization_id, event__kind, event__data, event__created_at, ...delivery } = found;
      return { delivery, event: { id: event__id, organization_id: event__organization_id, kind: event__kind, data: event__data, created_at: event__created_at } };
    },

    /**
     * An attempt is going out now: the API shows `attempting: true` and no `next_attempt_at` (it
     * would be in the past) until the attempt is recorded or put off. A scheduled attempt goes out
     * only while the delivery is still pending (false: it was settled meanwhile, e.g. canceled by
     * a narrowing of the endpoint's events); a redelivery (retry request) always does, and shows
     * the delivery pending again even if an attempt that ended meanwhile settled it.
     */
    async markAttempting(id: string, redelivery: boolean): Promise<boolean> {
      const marked = await db.maybeOneFirst(sql.type(row(Type.Object({ id: Type.String() })))`
        update webhook_deliveries set attempting_since = hg_now(), next_attempt_at = null, status = 'pending', updated_at = hg_now()
        where id = ${id} ${redelivery ? sql.fragment`` : sql.fragment`and status = 'pending'`} returning id`);
      return marked !== null;
    },

    /**
     * Claims attempt 1 of a fresh delivery (no attempt recorded, still pending) for the caller:
     * the worker's direct first attempt or the workflow, whichever comes first. A claim older than
     * `leaseMs` was left by a process that died mid-attempt and can be taken over.
     */
    async claimFirstAttempt(id: string, leaseMs: number): Promise<boolean> {
      const claimed = await db.maybeOneFirst(sql.type(row(Type.Object({ id: Type.String() })))`
        update webhook_deliveries set attempting_since = hg_now(), next_attempt_at = null, updated_at = hg_now()
        where id = ${id} and status = 'pending' and attempt_count = 0
          and (attempting_since is null or attempting_since < hg_now() - make_interval(secs => ${leaseMs / 1000}))
        returning id`);
      return claimed !== null;
    },

    /**
     * Records one attempt and the delivery's new state in ONE statement (it was a transaction of
     * five round trips). `attempt_count` is set (not incremented), so a retried activity cannot
     * count an attempt twice. The attempt is inserted from the update's output, so the update has
     * locked the delivery row before the insert trigger of migration 012 draws the attempt's
     * `sequence_number` (its number over the delivery's life; the trigger's query, in a volatile
     * function, sees what a concurrent recorder committed): never drawn twice.
     */
    async recordAttempt(r: AttemptRecord): Promise<WebhookDeliveryRow | null> {
      return db.maybeOne(sql.type(Delivery)`
        with updated as (
          update webhook_deliveries set
            attempt_count = ${r.attempt}, last_response_code = ${r.responseCode}, last_error = ${r.lastError}, status = ${r.status},
            next_attempt_at = ${r.nextDelayMs === null ? null : sql.fragment`date_trunc('milliseconds', now() + make_interval(secs => ${r.nextDelayMs / 1000}))`},
            attempting_since = null, updated_at = hg_now()
          where id = ${r.deliveryId} returning ${columns}
        ), attempt as (
          insert into webhook_attempts (id, delivery_id, attempt_number, started_at, duration_ms, response_code, response_body, error)
          select ${newId('webhookAttempt')}, u.id, ${r.attempt}, ${r.startedAt}::timestamptz, ${Math.max(0, Math.round(r.durationMs))}, ${r.responseCode}, ${r.responseBody}, ${r.error}
          from updated u
          on conflict do nothing
        )
        select * from updated`);
    },

    /**
     * Moves a pending delivery's next attempt `delayMs` ahead without recording an attempt (nothing
     * was sent: the activities' lookup-busy deferral), so `next_attempt_at` tells the truth.
     */
    async postpone(id: string, delayMs: number): Promise<void> {
      await db.query(sql.unsafe`
        update webhook_deliveries set next_attempt_at = date_trunc('milliseconds', now() + make_interval(secs => ${delayMs / 1000})),
          attempting_since = null, updated_at = hg_now()
        where id = ${id} and status = 'pending'`);
    },

    /**
     * Ends a delivery without sending (its endpoint was deleted, disabled, or no longer subscribes
     * to its kind). `last_response_code` is cleared: an old attempt's status beside "the endpoint is
     * disabled" read as if the endpoint had answered it; `last_error` says why.
     */
    async failWithoutAttempt(id: string, lastError: string): Promise<WebhookDeliveryRow | null> {
      return db.maybeOne(sql.type(Delivery)`
        update webhook_deliveries set status = 'failed', last_error = ${lastError}, last_response_code = null, next_attempt_at = null,
          attempting_since = null, updated_at = hg_now()
        where id = ${id} returning ${columns}`);
    },

    /**
     * After an endpoint's `events` were narrowed (PATCH): its pending deliveries of the kinds it no
     * longer subscribes to are failed at once, in the caller's transaction. One with an attempt out
     * is left to it; the activity fails it before its next attempt (it checks the subscription).
     * Returns how many were canceled.
     */
    async cancelUnsubscribed(endpointId: string, events: readonly string[], q: CommonQueryMethods = db): Promise<number> {
      if (events.includes('*')) return 0;
      const canceled = await q.anyFirst(sql.type(row(Type.Object({ id: Type.String() })))`
        update webhook_deliveries set status = 'failed', last_response_code = null, next_attempt_at = null, updated_at = hg_now(),
          last_error = ${UNSUBSCRIBED_PREFIX} || event || ': ' || ${UNSUBSCRIBED_SUFFIX}
        where endpoint_id = ${endpointId} and status = 'pending' and attempting_since is null
          and not (event = any(${sql.array([...events], 'text')}))
        returning id`);
      return canceled.length;
    },
  };
}

export type WebhookDeliveriesRepository = ReturnType<typeof webhookDeliveriesRepository>;
