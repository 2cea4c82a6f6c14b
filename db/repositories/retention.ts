// Retention: what is deleted once it is no longer needed, in bounded batches (one statement
// deletes at most `limit` rows, so no purge holds locks or bloats WAL for long). The periods are
// the caller's (config: HOSTGATE_RETENTION_*; docs/operations.md, "Retention"); each function
// returns how many rows it deleted, and a caller repeats it until that is below `limit`.
import { DOMAIN_WORKFLOW_PREFIX } from '../../contracts/domain-workflow.ts';
import type { RetentionPeriods, RetentionTarget } from '../../contracts/retention.ts';
import { Type } from 'typebox';
import { row, sql, type Db } from '../pool.ts';
import { CERTIFICATE_ATTEMPTS_KEPT_DAYS } from './domain-moves.ts';
import { purgeExpiredIdempotencyKeys } from './idempotency-keys.ts';
import { trafficRepository } from './traffic.ts';
import { DEAD_LETTER_PREFIX } from './workflow-outbox.ts';

export type { RetentionPeriods, RetentionTarget };

export function retentionRepository(db: Db) {
  return {
    /**
     * Dispatched outbox rows older than `outboxDays` (dead letters: `eventsDays`). A domain's
     * `start_domain` row stays until its workflow has attached (or the domain is deleted): the
     * reconciler reads "no start row" as "never started" and would queue a start again.
     */
    async purgeWorkflowOutbox(p: RetentionPeriods, limit: number): Promise<number> {
      const r = await db.query(sql.unsafe`
        delete from workflow_outbox where id in (
          select o.id from workflow_outbox o
          where o.dispatched_at is not null
            and o.dispatched_at < hg_now() - make_interval(days => case when o.last_error like ${`${DEAD_LETTER_PREFIX}%`} then ${p.eventsDays}::int else ${p.outboxDays}::int end)
            and (o.kind <> 'start_domain' or exists (
              select 1 from domains d where d.id = substr(o.workflow_id, ${DOMAIN_WORKFLOW_PREFIX.length + 1})
                and (d.workflow_started_at is not null or d.status = 'deleted')))
          order by o.id limit ${limit})`);
      return r.rowCount;
    },

    /**
     * Webhook history older than `eventsDays`: finished deliveries (succeeded or failed, never
     * pending) with their attempts, then events that were fanned out and have no delivery left.
     * Deliveries first: an event is deleted only once nothing refers to it.
     */
    async purgeWebhookHistory(p: RetentionPeriods, limit: number): Promise<number> {
      const deliveries = await db.query(sql.unsafe`
        with gone as (
          select id from webhook_deliveries
          where status in ('succeeded', 'failed') and created_at < hg_now() - make_interval(days => ${p.eventsDays})
          order by created_at limit ${limit}
        ), attempts as (
          delete from webhook_attempts a using gone where a.delivery_id = gone.id
        )
        delete from webhook_deliveries d using gone where d.id = gone.id`);
      const left = limit - deliveries.rowCount;
      if (left <= 0) return deliveries.rowCount;
      const events = await db.query(sql.unsafe`
        delete from events where id in (
          select e.id from events e
          where e.fanned_out_at is not null and e.created_at < hg_now() - make_interval(days => ${p.eventsDays})
            and not exists (select 1 from webhook_deliveries d where d.event_id = e.id)
          order by e.created_at limit ${left})`);
      return deliveries.rowCount + events.rowCount;
    },

    /** Widget sessions expired more than `widgetSessionsDays` ago that no domain refers to. */
    async purgeWidgetSessions(p: RetentionPeriods, limit: number): Promise<number> {
      const r = await db.query(sql.unsafe`
        delete from widget_sessions where id in (
          select s.id from widget_sessions s
          where s.expires_at < hg_now() - make_interval(days => ${p.widgetSessionsDays})
            and not exists (select 1 from domains d where d.widget_session_id = s.id)
          order by s.expires_at limit ${limit})`);
      return r.rowCount;
    },

    /** Idempotency records past their expiry (24 h after the request, decisions.md). */
    purgeIdempotencyKeys: (limit: number) => purgeExpiredIdempotencyKeys(db, limit),

    /**
     * Certificate attempts (the abuse limits' ledger, issue 17) older than the longest window a
     * limit looks back over, with a day's margin: they no longer count for anything.
     */
    async purgeCertificateAttempts(limit: number): Promise<number> {
      const r = await db.query(sql.unsafe`
        delete from certificate_attempts where id in (
          select id from certificate_attempts
          where created_at < hg_now() - make_interval(days => ${CERTIFICATE_ATTEMPTS_KEPT_DAYS})
          order by id limit ${limit})`);
      return r.rowCount;
    },

    /** One batch of a target. */
    purge(target: RetentionTarget, p: RetentionPeriods, limit: number): Promise<number> {
      switch (target) {
        case 'workflow-outbox': return this.purgeWorkflowOutbox(p, limit);
        case 'webhook-history': return this.purgeWebhookHistory(p, limit);
        case 'widget-sessions': return this.purgeWidgetSessions(p, limit);
        case 'idempotency-keys': return this.purgeIdempotencyKeys(limit);
        case 'certificate-attempts': return this.purgeCertificateAttempts(limit);
        case 'traffic-minutes': return trafficRepository(db).purgeMinutes(limit);
        case 'traffic-hours': return trafficRepository(db).purgeHours(limit);
      }
    },

    /** Row counts of the tables retention keeps in check (metrics, soak runs). */
    async tableSizes(): Promise<Record<string, number>> {
      const rows = await db.any(sql.type(row(Type.Object({ t: Type.String(), n: Type.Number() })))`
        select 'workflow_outbox' as t, count(*)::int as n from workflow_outbox
        union all select 'events', count(*)::int from events
        union all select 'webhook_deliveries', count(*)::int from webhook_deliveries
        union all select 'webhook_attempts', count(*)::int from webhook_attempts
        union all select 'widget_sessions', count(*)::int from widget_sessions
        union all select 'idempotency_keys', count(*)::int from idempotency_keys
        union all select 'certificate_attempts', count(*)::int from certificate_attempts`);
      return Object.fromEntries(rows.map((r) => [r.t, r.n]));
    },
  };
}
