// Billing state (migration 009): subscriptions, checkout and portal sessions, provider events
// (de-duplicated), invoices of closed periods, and the domains dunning suspended.
import type { CommonQueryMethods, DatabaseTransactionConnection } from 'slonik';
import { Type, type Static } from 'typebox';
import type { BillingEvent, DuplicateSubscription, SubscriptionSnapshot } from '../../model/billing-events.ts';
import { randomToken } from '../../security/tokens.ts';
import { row, sql, type Db } from '../pool.ts';
import { Plan } from './organizations.ts';
import { usageRepository } from './usage.ts';

export type ProviderName = 'local' | 'stripe';
const Provider = Type.Union([Type.Literal('local'), Type.Literal('stripe')]);

/** Ids of billing objects we mint (the local provider's, and our own sessions): prefix + 24 random chars. */
export function billingId(prefix: 'cs' | 'ps' | 'sub' | 'cus' | 'evt' | 'inv'): string {
  return `${prefix}_local_${randomToken(24)}`;
}

export const SubscriptionRow = Type.Object({
  organization_id: Type.String(),
  provider: Provider,
  customer_id: Type.Union([Type.String(), Type.Null()]),
  subscription_id: Type.Union([Type.String(), Type.Null()]),
  plan: Plan,
  status: Type.Union([Type.Literal('active'), Type.Literal('past_due'), Type.Literal('canceled')]),
  current_period_start: Type.String(),
  current_period_end: Type.String(),
  past_due_since: Type.Union([Type.String(), Type.Null()]),
});
export type SubscriptionRow = Static<typeof SubscriptionRow>;
const Subscription = row(SubscriptionRow);
const subscriptionColumns = sql.fragment`organization_id, provider, customer_id, subscription_id, plan, status, current_period_start, current_period_end, past_due_since`;

export const CheckoutSessionRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  provider: Provider,
  plan: Plan,
  status: Type.Union([Type.Literal('open'), Type.Literal('completed'), Type.Literal('canceled')]),
  success_url: Type.Union([Type.String(), Type.Null()]),
  cancel_url: Type.Union([Type.String(), Type.Null()]),
  expired: Type.Boolean(),
});
export type CheckoutSessionRow = Static<typeof CheckoutSessionRow>;
const CheckoutSession = row(CheckoutSessionRow);

const OpenSession = row(Type.Object({ id: Type.String(), provider: Provider }));
const PortalSession = row(Type.Object({ id: Type.String(), organization_id: Type.String(), return_url: Type.Union([Type.String(), Type.Null()]), expired: Type.Boolean() }));

export const InvoiceRow = Type.Object({
  id: Type.String(),
  organization_id: Type.String(),
  period_start: Type.String(),
  period_end: Type.String(),
  plan: Plan,
  peak_hostnames: Type.Number(),
  included_hostnames: Type.Number(),
  total_cents: Type.Number(),
  overage_quantity: Type.Number(),
  provider_invoice_id: Type.Union([Type.String(), Type.Null()]),
});
export type InvoiceRow = Static<typeof InvoiceRow>;
const Invoice = row(InvoiceRow);

export function snapshotOf(s: SubscriptionRow | null): SubscriptionSnapshot | null {
  if (!s) return null;
  return { plan: s.plan, status: s.status, periodStart: s.current_period_start, periodEnd: s.current_period_end, pastDueSince: s.past_due_since, provider: s.provider };
}

export function billingRepository(db: Db) {
  const usage = usageRepository(db);

  async function subscriptionFor(q: CommonQueryMethods, event: BillingEvent, provider: ProviderName): Promise<SubscriptionRow | null> {
    if (event.type === 'checkout.completed') return null;
    return q.maybeOne(sql.type(Subscription)`select ${subscriptionColumns} from billing_subscriptions where provider = ${provider} and subscription_id = ${event.subscriptionId} for update`);
  }

  /** Mirrors the subscription's plan and status onto the organization (what GET /usage shows). */
  async function mirror(q: CommonQueryMethods, organizationId: string): Promise<SubscriptionRow> {
    const s = await q.one(sql.type(Subscription)`select ${subscriptionColumns} from billing_subscriptions where organization_id = ${organizationId}`);
    await q.query(sql.unsafe`update organizations set plan = ${s.plan}, billing_status = ${s.status} where id = ${organizationId}`);
    return s;
  }

  return {
    async getSubscription(organizationId: string, q: CommonQueryMethods = db): Promise<SubscriptionRow | null> {
      return q.maybeOne(sql.type(Subscription)`select ${subscriptionColumns} from billing_subscriptions where organization_id = ${organizationId}`);
    },

    async createCheckoutSession(input: { id: string; organizationId: string; provider: ProviderName; plan: string; successUrl: string | null; cancelUrl: string | null; ttlSeconds: number }): Promise<void> {
      await db.query(sql.unsafe`
        insert into billing_checkout_sessions (id, organization_id, provider, plan, success_url, cancel_url, expires_at)
        values (${input.id}, ${input.organizationId}, ${input.provider}, ${input.plan}, ${input.successUrl}, ${input.cancelUrl}, hg_now() + make_interval(secs => ${input.ttlSeconds}))`);
    },

    async getCheckoutSession(id: string, q: CommonQueryMethods = db): Promise<CheckoutSessionRow | null> {
      return q.maybeOne(sql.type(CheckoutSession)`
        select id, organization_id, provider, plan, status, success_url, cancel_url, expires_at <= now() as expired
        from billing_checkout_sessions where id = ${id}`);
    },

    /**
     * The organization's open sessions except its newest (oldest first). Called after the caller's
     * own insert committed, so of any two calls at once the later one sees both sessions: the
     * newest is never listed and every other is listed by someone. "Older than mine" was not
     * enough: created_at is the transaction's start, and a session that started first can commit
     * after a newer one's read, leaving two open.
     */
    async openCheckoutSessionsSuperseded(organizationId: string): Promise<readonly { id: string; provider: ProviderName }[]> {
      return db.any(sql.type(OpenSession)`
        select id, provider from billing_checkout_sessions
        where organization_id = ${organizationId} and status = 'open'
        order by created_at, id`).then((rows) => rows.slice(0, -1));
    },

    /** Moves an open session to canceled; false when it was not open. */
    async cancelCheckoutSession(id: string): Promise<boolean> {
      const r = await db.query(sql.unsafe`update billing_checkout_sessions set status = 'canceled', completed_at = hg_now() where id = ${id} and status = 'open'`);
      return r.rowCount === 1;
    },

    async createPortalSession(input: { id: string; organizationId: string; returnUrl: string | null; ttlSeconds: number }): Promise<void> {
      await db.query(sql.unsafe`
        insert into billing_portal_sessions (id, organization_id, return_url, expires_at)
        values (${input.id}, ${input.organizationId}, ${input.returnUrl}, hg_now() + make_interval(secs => ${input.ttlSeconds}))`);
    },

    async getPortalSession(id: string) {
      return db.maybeOne(sql.type(PortalSession)`select id, organization_id, return_url, expires_at <= now() as expired from billing_portal_sessions where id = ${id}`);
    },

    /** Records a provider event once; false when this event id was seen before (a replay). */
    async recordEvent(tx: DatabaseTransactionConnection, provider: ProviderName, eventId: string, type: string): Promise<boolean> {
      const r = await tx.query(sql.unsafe`
        insert into billing_events (provider, event_id, type) values (${provider}, ${eventId}, ${type})
        on conflict (provider, event_id) do nothing`);
      return r.rowCount === 1;
    },

    /** Whether a provider event (or our own record of a change, e.g. a plan change's) was recorded. */
    async eventRecorded(provider: ProviderName, eventId: string): Promise<boolean> {
      return db.exists(sql.unsafe`select 1 from billing_events where provider = ${provider} and event_id = ${eventId}`);
    },

    /** Ties a recorded event to the organization it turned out to be about (support queries). */
    async attributeEvent(tx: DatabaseTransactionConnection, provider: ProviderName, eventId: string, organizationId: string): Promise<void> {
      await tx.query(sql.unsafe`update billing_events set organization_id = ${organizationId} where provider = ${provider} and event_id = ${eventId}`);
    },

    /**
     * Applies a provider event to the subscription and the organization, inside the caller's
     * transaction. Returns the organization and the subscription after the event, or null when
     * the event names a subscription we do not know (another system's, or one replaced since).
     */
    async applyEvent(tx: DatabaseTransactionConnection, provider: ProviderName, event: BillingEvent): Promise<{ organizationId: string; subscription: SubscriptionRow; duplicate?: DuplicateSubscription } | null> {
      if (event.type === 'checkout.completed') {
        // Only the first completion of our session counts: a second one (two clicks on Pay at
        // once, a replay under another event id) waits on this row lock, finds it completed, and
        // changes nothing. A session a newer one replaced (canceled) still counts if it was paid:
        // the payer was charged, and the subscription is theirs.
        // Another deployment's organization (one Stripe account shared by test and live setups).
        if (!(await tx.exists(sql.unsafe`select 1 from organizations where id = ${event.organizationId}`))) return null;
        // A session we have no row for (the insert after Stripe created it failed) was still paid
        // by someone holding its URL: recorded now, as completed, so the payment is not lost.
        const updated = await tx.query(sql.unsafe`
          insert into billing_checkout_sessions (id, organization_id, provider, plan, status, expires_at, completed_at)
          values (${event.checkoutSessionId}, ${event.organizationId}, ${provider}, ${event.plan}, 'completed', hg_now(), hg_now())
          on conflict (id) do update set status = 'completed', completed_at = hg_now()
            where billing_checkout_sessions.organization_id = excluded.organization_id and billing_checkout_sessions.status <> 'completed'`);
        if (updated.rowCount === 0) return null;
        // Another checkout of the organization completed first (two tabs): the live subscription
        // stays as it is, and this one is handed back to be canceled and refunded.
        const live = await tx.maybeOne(sql.type(Subscription)`select ${subscriptionColumns} from billing_subscriptions where organization_id = ${event.organizationId} for update`);
        if (live && live.status !== 'canceled' && live.subscription_id && live.subscription_id !== event.subscriptionId) {
          return { organizationId: event.organizationId, subscription: live, duplicate: { subscriptionId: event.subscriptionId, customerId: event.customerId, checkoutSessionId: event.checkoutSessionId } };
        }
        await tx.query(sql.unsafe`
          insert into billing_subscriptions (organization_id, provider, customer_id, subscription_id, plan, status, current_period_start, current_period_end)
          values (${event.organizationId}, ${provider}, ${event.customerId}, ${event.subscriptionId}, ${event.plan}, 'active', ${event.periodStart}, ${event.periodEnd})
          on conflict (organization_id) do update set provider = excluded.provider, customer_id = excluded.customer_id,
            subscription_id = excluded.subscription_id, plan = excluded.plan, status = 'active', past_due_since = null, canceled_at = null,
            current_period_start = excluded.current_period_start, current_period_end = excluded.current_period_end, updated_at = hg_now()`);
        // The subscription's periods replace the calendar month from its first day on.
        await usage.restartPeriods(tx, event.organizationId, event.periodStart, event.periodStart);
        return { organizationId: event.organizationId, subscription: await mirror(tx, event.organizationId) };
      }
      const s = await subscriptionFor(tx, event, provider);
      if (!s) return null;
      switch (event.type) {
        case 'subscription.updated':
          await tx.query(sql.unsafe`
            update billing_subscriptions set plan = coalesce(${event.plan}, plan), status = ${event.status},
              past_due_since = case when ${event.status} = 'past_due' then coalesce(past_due_since, hg_now()) else null end,
              canceled_at = case when ${event.status} = 'canceled' then coalesce(canceled_at, hg_now()) else null end,
              current_period_start = greatest(current_period_start, ${event.periodStart}::timestamptz),
              current_period_end = greatest(current_period_end, ${event.periodEnd}::timestamptz), updated_at = hg_now()
            where organization_id = ${s.organization_id}`);
          break;
        case 'subscription.canceled':
          await tx.query(sql.unsafe`update billing_subscriptions set status = 'canceled', past_due_since = null, canceled_at = coalesce(canceled_at, hg_now()), updated_at = hg_now() where organization_id = ${s.organization_id}`);
          // Back to calendar months (decisions.md: the period when there is no subscription).
          await usage.restartPeriods(tx, s.organization_id, '2000-01-01T00:00:00.000Z', null);
          break;
        case 'invoice.paid':
          await tx.query(sql.unsafe`update billing_subscriptions set status = 'active', past_due_since = null, updated_at = hg_now() where organization_id = ${s.organization_id} and status = 'past_due'`);
          break;
        case 'invoice.payment_failed':
          await tx.query(sql.unsafe`update billing_subscriptions set status = 'past_due', past_due_since = coalesce(past_due_since, hg_now()), updated_at = hg_now() where organization_id = ${s.organization_id} and status <> 'canceled'`);
          break;
        case 'invoice.created':
          break;
      }
      return { organizationId: s.organization_id, subscription: await mirror(tx, s.organization_id) };
    },

    /**
     * Local renewal at a period's end: the subscription's next period (same anchor as the usage
     * periods). Stripe renews itself and tells us with `subscription.updated`.
     */
    async renewLocal(organizationId: string, periodEnd: string): Promise<SubscriptionRow | null> {
      await db.query(sql.unsafe`
        update billing_subscriptions s set current_period_start = n.period_start, current_period_end = n.period_end, updated_at = hg_now()
        from organization_usage u cross join lateral hg_period_containing(u.period_anchor, ${periodEnd}::timestamptz) n
        where s.organization_id = ${organizationId} and u.organization_id = s.organization_id and s.provider = 'local'
          and s.status <> 'canceled' and s.current_period_end = ${periodEnd}::timestamptz`);
      return this.getSubscription(organizationId);
    },

    /** The invoice of a closed period, created once (unique per organization and period). */
    async recordPeriodInvoice(input: { organizationId: string; periodStart: string; periodEnd: string; plan: string; peak: number; included: number; quantity: number; unitAmountCents: number; description: string }): Promise<InvoiceRow> {
      return db.transaction(async (tx) => {
        await tx.query(sql.unsafe`
          with inv as (
            insert into invoices (id, organization_id, period_start, period_end, plan, peak_hostnames, included_hostnames, total_cents)
            values (${billingId('inv')}, ${input.organizationId}, ${input.periodStart}, ${input.periodEnd}, ${input.plan}, ${input.peak}, ${input.included}, ${input.quantity * input.unitAmountCents})
            on conflict (organization_id, period_start) do nothing returning id
          )
          insert into invoice_items (invoice_id, kind, quantity, unit_amount_cents, amount_cents, description)
          select id, 'overage_hostnames', ${input.quantity}, ${input.unitAmountCents}, ${input.quantity * input.unitAmountCents}, ${input.description} from inv`);
        return tx.one(sql.type(Invoice)`
          select i.id, i.organization_id, i.period_start, i.period_end, i.plan, i.peak_hostnames, i.included_hostnames, i.total_cents,
            coalesce(it.quantity, 0) as overage_quantity, i.provider_invoice_id
          from invoices i left join invoice_items it on it.invoice_id = i.id and it.kind = 'overage_hostnames'
          where i.organization_id = ${input.organizationId} and i.period_start = ${input.periodStart}::timestamptz`);
      });
    },

    async invoices(organizationId: string): Promise<readonly InvoiceRow[]> {
      return db.any(sql.type(Invoice)`
        select i.id, i.organization_id, i.period_start, i.period_end, i.plan, i.peak_hostnames, i.included_hostnames, i.total_cents,
          coalesce(it.quantity, 0) as overage_quantity, i.provider_invoice_id
        from invoices i left join invoice_items it on it.invoice_id = i.id and it.kind = 'overage_hostnames'
        where i.organization_id = ${organizationId} order by i.period_start`);
    },

    async setProviderInvoice(invoiceId: string, providerInvoiceId: string, providerItemId: string | null): Promise<void> {
      await db.transaction(async (tx) => {
        await tx.query(sql.unsafe`update invoices set provider_invoice_id = ${providerInvoiceId} where id = ${invoiceId}`);
        await tx.query(sql.unsafe`update invoice_items set provider_item_id = ${providerItemId} where invoice_id = ${invoiceId}`);
      });
    },

    /**
     * Dunning: records the organization's domains that count (pending_dns, pending_certificate,
     * active) as suspended for billing and queues the existing suspend signal for each, in one
     * transaction. Domains already suspended (by an operator) are not recorded, so resuming later
     * leaves them alone. Returns the outbox ids to kick.
     */
    async suspendForBilling(organizationId: string): Promise<{ domainIds: string[]; outboxIds: number[] }> {
      return db.transaction(async (tx) => {
        const rows = await tx.any(sql.type(row(Type.Object({ domain_id: Type.String(), outbox_id: Type.Number() })))`
          with targets as (
            select id from domains d where organization_id = ${organizationId} and status in ('pending_dns', 'pending_certificate', 'active')
              and not exists (select 1 from billing_suspensions b where b.domain_id = d.id and b.resumed_at is null)
            for update
          ), recorded as (
            insert into billing_suspensions (organization_id, domain_id) select ${organizationId}, id from targets returning domain_id
          )
          insert into workflow_outbox (kind, workflow_id, payload)
          select 'signal_domain', 'domain/' || domain_id, jsonb_build_object('signal', 'suspend', 'reason', 'billing') from recorded
          returning substring(workflow_id from 8) as domain_id, id as outbox_id`);
        return { domainIds: rows.map((r) => r.domain_id), outboxIds: rows.map((r) => r.outbox_id) };
      });
    },

    /** Domains dunning suspended that have not been resumed yet. */
    async openSuspensionCount(organizationId: string): Promise<number> {
      return db.oneFirst(sql.type(row(Type.Object({ n: Type.Number() })))`
        select count(*)::int as n from billing_suspensions where organization_id = ${organizationId} and resumed_at is null`);
    },

    /** Paid again: queues resume for exactly the domains dunning suspended (not deleted since). */
    async resumeAfterBilling(organizationId: string): Promise<{ domainIds: string[]; outboxIds: number[] }> {
      return db.transaction(async (tx) => {
        const rows = await tx.any(sql.type(row(Type.Object({ domain_id: Type.String(), outbox_id: Type.Number() })))`
          with resumed as (
            update billing_suspensions b set resumed_at = hg_now()
            where b.organization_id = ${organizationId} and b.resumed_at is null
            returning b.domain_id
          )
          insert into workflow_outbox (kind, workflow_id, payload)
          select 'signal_domain', 'domain/' || r.domain_id, jsonb_build_object('signal', 'resume')
          from resumed r join domains d on d.id = r.domain_id where d.status not in ('deleting', 'deleted')
          returning substring(workflow_id from 8) as domain_id, id as outbox_id`);
        return { domainIds: rows.map((r) => r.domain_id), outboxIds: rows.map((r) => r.outbox_id) };
      });
    },
  };
}
