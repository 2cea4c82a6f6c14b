// Stripe (STRIPE_SECRET_KEY set): Checkout in subscription mode with one price per plan, Customer
// Portal sessions, plan change with proration, the overage as an invoice item on the renewal
// invoice. Stripe's webhook events are mapped to our provider-neutral events by
// `billingEventFromStripe` (used by api/routes/billing-stripe-webhook.ts).
import Stripe from 'stripe';
import type { Config } from '../config/index.ts';
import type { Db } from '../db/pool.ts';
import { isPlanName, type PlanName } from '../model/plans.ts';
import type { BillingEvent, SubscriptionStatus } from '../model/billing-events.ts';
import { handleBillingEvent } from './handle-event.ts';
import { planChangeEventId, ProviderUnavailableError, type BillingProvider } from './provider.ts';

type StripeConfig = NonNullable<Config['billing']['stripe']>;

export function createStripeClient(config: StripeConfig): Stripe {
  const base = config.apiBase ? new URL(config.apiBase) : null;
  return new Stripe(config.secretKey, {
    // One retry of a failed connection (the SDK keeps the same Idempotency-Key). The SDK's
    // timeout is an idle timeout (it restarts with every byte): the API bounds each call as a
    // whole (api/routes/billing.ts, 10 s), and activities by their start-to-close timeout.
    maxNetworkRetries: 1,
    timeout: 6_000,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'http:' ? 80 : 443), protocol: base.protocol.replace(':', '') as 'http' | 'https' } : {}),
  });
}

/** Connection failures, Stripe's 5xx and rate limits: retry later (503 + Retry-After). */
export function asProviderError(error: unknown): unknown {
  if (error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError) {
    return new ProviderUnavailableError(`Stripe is unreachable: ${error.message}`, 5);
  }
  if (error instanceof Stripe.errors.StripeRateLimitError) return new ProviderUnavailableError('Stripe is rate-limiting our requests', 2);
  return error;
}

async function call<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw asProviderError(error);
  }
}

export function planOfPrice(config: StripeConfig, priceId: string | undefined): PlanName | null {
  const found = (Object.entries(config.prices) as [PlanName, string | undefined][]).find(([, p]) => p === priceId);
  return found ? found[0] : null;
}

function statusOf(s: Stripe.Subscription.Status): SubscriptionStatus | null {
  switch (s) {
    case 'active': case 'trialing': return 'active';
    case 'past_due': case 'unpaid': return 'past_due';
    case 'canceled': case 'incomplete_expired': return 'canceled';
    // `incomplete` (first payment pending) and `paused`: checkout.session.completed decides.
    default: return null;
  }
}

const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

export function subscriptionEvent(config: StripeConfig, sub: Stripe.Subscription): BillingEvent | null {
  const status = statusOf(sub.status);
  const item = sub.items.data[0];
  if (!status || !item) return null;
  if (status === 'canceled') return { type: 'subscription.canceled', subscriptionId: sub.id };
  const metadataPlan = sub.metadata?.plan;
  return {
    type: 'subscription.updated', subscriptionId: sub.id, status,
    plan: planOfPrice(config, item.price.id) ?? (isPlanName(metadataPlan) ? metadataPlan : null),
    periodStart: iso(item.current_period_start), periodEnd: iso(item.current_period_end),
  };
}

function invoiceSubscription(invoice: Stripe.Invoice): string | null {
  const s = invoice.parent?.subscription_details?.subscription;
  return typeof s === 'string' ? s : s?.id ?? null;
}

/** Our event for a Stripe event, or null when it is not one we act on. */
export function billingEventFromStripe(config: StripeConfig, event: Stripe.Event): BillingEvent | null {
  switch (event.type) {
    case 'checkout.session.completed': {
      const session = event.data.object;
      const plan = session.metadata?.plan;
      const subscriptionId = typeof session.subscription === 'string' ? session.subscription : session.subscription?.id;
      if (session.mode !== 'subscription' || !session.client_reference_id || !isPlanName(plan) || !subscriptionId) return null;
      // The first period starts now; Stripe's customer.subscription.* events carry the exact bounds.
      const start = new Date(event.created * 1000);
      const end = new Date(start);
      end.setUTCMonth(end.getUTCMonth() + 1);
      return {
        type: 'checkout.completed', organizationId: session.client_reference_id, checkoutSessionId: session.id, plan,
        customerId: typeof session.customer === 'string' ? session.customer : session.customer?.id ?? null,
        subscriptionId, periodStart: start.toISOString(), periodEnd: end.toISOString(),
      };
    }
    case 'customer.subscription.created':
    case 'customer.subscription.updated':
      return subscriptionEvent(config, event.data.object);
    case 'customer.subscription.deleted':
      return { type: 'subscription.canceled', subscriptionId: event.data.object.id };
    case 'invoice.paid':
    case 'invoice.payment_failed': {
      const subscriptionId = invoiceSubscription(event.data.object);
      return subscriptionId ? { type: event.type, subscriptionId } : null;
    }
    case 'invoice.created': {
      const invoice = event.data.object;
      const subscriptionId = invoiceSubscription(invoice);
      // Only renewals carry the closed period's overage.
      if (!subscriptionId || invoice.billing_reason !== 'subscription_cycle' || !invoice.id) return null;
      return { type: 'invoice.created', subscriptionId, invoiceId: invoice.id, periodStart: iso(invoice.period_start), periodEnd: iso(invoice.period_end) };
    }
    default:
      return null;
  }
}

export function createStripeProvider(deps: { db: Db; config: StripeConfig; publicUrl: string; onEvent?: (outboxId: number) => void }): BillingProvider {
  const stripe = createStripeClient(deps.config);
  const priceOf = (plan: PlanName) => {
    const price = deps.config.prices[plan];
    if (!price) throw new Error(`STRIPE_PRICE_${plan.toUpperCase()} is not set`);
    return price;
  };
  const done = `${deps.publicUrl}/v1/billing/done`;
  return {
    name: 'stripe',
    async createCheckoutSession(input) {
      const session = await call(() => stripe.checkout.sessions.create({
        mode: 'subscription',
        line_items: [{ price: priceOf(input.plan), quantity: 1 }],
        success_url: input.successUrl ?? done,
        cancel_url: input.cancelUrl ?? done,
        client_reference_id: input.organizationId,
        ...(input.customerId ? { customer: input.customerId } : {}),
        metadata: { organization_id: input.organizationId, plan: input.plan },
        subscription_data: { metadata: { organization_id: input.organizationId, plan: input.plan } },
      }));
      if (!session.url) throw new Error(`Stripe returned checkout session ${session.id} without a url`);
      return { id: session.id, url: session.url };
    },
    async createPortalSession(input) {
      if (!input.subscription.customerId) throw new Error('the subscription has no Stripe customer');
      const session = await call(() => stripe.billingPortal.sessions.create({ customer: input.subscription.customerId!, return_url: input.returnUrl ?? done }));
      return { id: session.id, url: session.url };
    },
    async changePlan(input) {
      const current = await call(() => stripe.subscriptions.retrieve(input.subscription.subscriptionId));
      const item = current.items.data[0];
      if (!item) throw new Error(`Stripe subscription ${current.id} has no item`);
      const updated = await call(() => stripe.subscriptions.update(current.id, {
        items: [{ id: item.id, price: priceOf(input.plan) }],
        proration_behavior: 'create_prorations',
        metadata: { organization_id: input.organizationId, plan: input.plan },
      }, { idempotencyKey: input.idempotencyKey }));
      // Applied now (the answer shows the new plan); Stripe's customer.subscription.updated that
      // follows finds the same state.
      const event = subscriptionEvent(deps.config, updated);
      if (event) {
        const handled = await handleBillingEvent(deps.db, 'stripe', planChangeEventId(input.idempotencyKey), event);
        if (handled.result === 'processed') deps.onEvent?.(handled.outboxId);
      }
    },
    async expireCheckoutSession(id) {
      try {
        await call(() => stripe.checkout.sessions.expire(id, {}, { idempotencyKey: `expire-${id}` }));
        return 'expired';
      } catch (error) {
        // Not expirable any more: it was paid (or expired) first. Stripe's answer says which.
        if (!(error instanceof Stripe.errors.StripeInvalidRequestError)) throw error;
        const session = await call(() => stripe.checkout.sessions.retrieve(id));
        return session.status === 'complete' ? 'completed' : 'expired';
      }
    },
    async cancelDuplicateSubscription(input) {
      const id = input.subscriptionId;
      const sub = await call(() => stripe.subscriptions.retrieve(id));
      if (sub.status !== 'canceled') {
        await call(() => stripe.subscriptions.cancel(id, { prorate: false, cancellation_details: { comment: 'duplicate: the organization already had a live subscription when this checkout completed' } }, { idempotencyKey: `${input.idempotencyKey}-cancel` }));
      }
      // Its first invoice was paid at checkout: refund each payment of it (once, by key).
      const invoiceId = typeof sub.latest_invoice === 'string' ? sub.latest_invoice : sub.latest_invoice?.id;
      if (!invoiceId) return { refundedCents: 0 };
      let refundedCents = 0;
      const payments = await call(() => stripe.invoicePayments.list({ invoice: invoiceId, limit: 10 }));
      for (const payment of payments.data) {
        const intent = payment.payment.payment_intent;
        const intentId = typeof intent === 'string' ? intent : intent?.id;
        if (payment.status !== 'paid' || !intentId) continue;
        const refund = await call(() => stripe.refunds.create({ payment_intent: intentId, reason: 'duplicate' }, { idempotencyKey: `${input.idempotencyKey}-refund-${intentId}` }));
        refundedCents += refund.amount;
      }
      return { refundedCents };
    },
    async addOverageItem(input) {
      if (!input.subscription.customerId) throw new Error('the subscription has no Stripe customer');
      const item = await call(() => stripe.invoiceItems.create({
        customer: input.subscription.customerId!,
        ...(input.invoiceId ? { invoice: input.invoiceId } : { subscription: input.subscription.subscriptionId }),
        amount: input.quantity * input.unitAmountCents,
        currency: 'eur',
        description: input.description,
        metadata: { quantity: String(input.quantity), unit_amount_cents: String(input.unitAmountCents) },
      }, { idempotencyKey: input.idempotencyKey }));
      return item.id;
    },
  };
}
