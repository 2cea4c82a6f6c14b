// POST /v1/billing/checkout-session, /portal-session and /plan (decisions.md, "Usage and
// billing"; docs/billing.md). The provider is Stripe when STRIPE_SECRET_KEY is set, else the
// built-in local one; the routes are the same either way.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { createBillingProvider } from '../../billing/create-provider.ts';
import { planChangeEventId, ProviderUnavailableError, type ProviderSubscription } from '../../billing/provider.ts';
import { billingId, billingRepository, type SubscriptionRow } from '../../db/repositories/billing.ts';
import { organizationsRepository } from '../../db/repositories/organizations.ts';
import { usageRepository } from '../../db/repositories/usage.ts';
import { rejectAfter } from '../../process/deadline.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { isUnavailable } from '../plugins/errors.ts';
import { presentUsage } from '../presenters/usage.ts';
import { BillingSession, CheckoutSessionBody, PlanChangeBody, PortalSessionBody } from '../schemas/billing.ts';
import { DataOf } from '../schemas/common.ts';
import { Usage } from '../schemas/usage.ts';

/** Checkout pages stay payable for a day (Stripe's default expiry is 24 h too). */
const CHECKOUT_TTL_SECONDS = 24 * 3600;
/**
 * What one provider call of a request may take in all: below the 15 s after which an idempotency
 * claim counts as abandoned (db/repositories/idempotency-keys.ts), so a client's retry cannot
 * overtake a plan change still in flight.
 */
const PROVIDER_CALL_BUDGET_MS = 10_000;


export const billingRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const { db, config, dispatcher } = app.deps;
  const billing = billingRepository(db);
  const organizations = organizationsRepository(db);
  const usage = usageRepository(db);
  // A provider event queued by a route (local plan change) is dispatched right after commit.
  const provider = createBillingProvider(config, db, (outboxId) => { void dispatcher?.kick([outboxId]); });

  /** The URL if its origin is one of the organization's allowed return origins (decisions.md). */
  async function returnUrl(organizationId: string, value: string | undefined, param: string): Promise<string | null> {
    if (value === undefined) return null;
    let origin: string;
    try { origin = new URL(value).origin; } catch { throw new ApiError('invalid_request', `${param} is not a valid URL`, { param }); }
    const org = await organizations.get(organizationId);
    const allowed = (org?.allowed_return_origins ?? []).map((o) => { try { return new URL(o).origin; } catch { return o; } });
    if (!allowed.includes(origin)) {
      throw new ApiError('return_url_not_allowed', `${param} must be on one of this organization's return origins (${allowed.join(', ') || 'none set: ask the operator to add one with hostgate orgs'})`, { param, details: { origin } });
    }
    return value;
  }

  /**
   * Provider calls: an unreachable (or too slow) provider is a 503 with Retry-After. Any other refusal (a
   * revoked key, a missing permission, an object Stripe no longer has) is ours to fix, not the
   * caller's: a 500 whose cause goes to the log only — never the provider's status (a Stripe 401
   * or 404 must not reach the caller as invalid_request or not_found) or its message.
   */
  async function viaProvider<T>(call: () => Promise<T>): Promise<T> {
    try {
      // The SDK's own timeout restarts with every byte received: a provider trickling its answer
      // would hold the request for as long as it likes. One bound for the whole call (a plan
      // change is two Stripe requests). The call is not cancelled: one that completes late still
      // records what it did, and the client's retry finds it (same Stripe idempotency key).
      return await rejectAfter(call(), PROVIDER_CALL_BUDGET_MS, () => new ProviderUnavailableError(`the payment provider did not answer within ${PROVIDER_CALL_BUDGET_MS / 1000} s`, 5));
    } catch (error) {
      // Our own database work inside the call (the local provider's rows, the sync of a change):
      // Postgres away is a 503 like anywhere else, not the provider refusing.
      if (error instanceof ApiError || isUnavailable(error)) throw error;
      if (error instanceof ProviderUnavailableError) {
        throw new ApiError('service_unavailable', `the payment provider is unreachable; retry in ${error.retryAfterSeconds} s`, { headers: { 'retry-after': String(error.retryAfterSeconds) }, details: { provider: provider.name } });
      }
      throw new Error(`the ${provider.name} billing provider refused the call: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    }
  }

  function live(s: SubscriptionRow | null): s is SubscriptionRow & { subscription_id: string } {
    return Boolean(s && s.status !== 'canceled' && s.subscription_id);
  }
  const asProvider = (s: SubscriptionRow & { subscription_id: string }): ProviderSubscription => ({ provider: s.provider, customerId: s.customer_id, subscriptionId: s.subscription_id, plan: s.plan });
  const noSubscription = () => new ApiError('subscription_missing', 'this organization has no subscription yet: start one with POST /v1/billing/checkout-session');

  app.post('/billing/checkout-session', {
    // Not idempotent by contract: every call opens a new session (spec, section 4).
    config: { apiKey: true, scope: 'billing:write', errors: ['return_url_not_allowed', 'subscription_exists'] },
    schema: {
      tags: ['billing'], operationId: 'billing.createCheckoutSession', summary: 'Start a subscription: returns the payment page\'s URL',
      description: "Opens a payment page for a plan; send the payer's browser to its `url`. Not idempotent by contract: every call opens a new page (and expires the organization's earlier open ones). Refused while a subscription is live (`409 subscription_exists`).",
      body: CheckoutSessionBody,
      response: { 201: DataOf(BillingSession, 'The payment page') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    const successUrl = await returnUrl(organizationId, request.body.success_url, 'success_url');
    const cancelUrl = await returnUrl(organizationId, request.body.cancel_url, 'cancel_url');
    const current = await billing.getSubscription(organizationId);
    if (live(current)) {
      throw new ApiError('subscription_exists', `this organization already has a ${current.status} ${current.plan} subscription: change plans with POST /v1/billing/plan, or manage it through POST /v1/billing/portal-session`);
    }
    const plan = request.body.plan;
    const session = await viaProvider(() => provider.createCheckoutSession({ organizationId, plan, successUrl, cancelUrl, sessionId: billingId('cs'), customerId: current?.provider === provider.name ? current.customer_id : null }));
    await billing.createCheckoutSession({ id: session.id, organizationId, provider: provider.name, plan, successUrl, cancelUrl, ttlSeconds: CHECKOUT_TTL_SECONDS });
    // The newest checkout replaces the organization's earlier open ones (Stripe's advice against
    // double subscriptions): only one payment page can still be paid. Each call expires every open
    // session but the newest, so of calls at once exactly the newest stays open (the repository
    // says why "older than mine" was not enough). One paid meanwhile is left to its completion
    // event (a duplicate is then canceled and refunded).
    for (const older of await billing.openCheckoutSessionsSuperseded(organizationId)) {
      if (older.provider !== provider.name) {
        await billing.cancelCheckoutSession(older.id);
        continue;
      }
      if (await viaProvider(() => provider.expireCheckoutSession(older.id)) === 'expired') await billing.cancelCheckoutSession(older.id);
    }
    return reply.code(201).send({ data: session });
  });

  app.post('/billing/portal-session', {
    config: { apiKey: true, scope: 'billing:write', idempotent: true, errors: ['return_url_not_allowed', 'subscription_missing'] },
    // Its only field is optional, so a request without a body (the natural call) is `{}`.
    preValidation: async (request) => { if (request.body === undefined || request.body === null) request.body = {}; },
    schema: {
      tags: ['billing'], operationId: 'billing.createPortalSession', summary: 'Open the customer portal: invoices, payment method, plan, cancellation',
      description: "Opens the payment provider's customer portal for the organization's subscription; send the payer's browser to its `url`. The body may be omitted.",
      body: PortalSessionBody,
      response: { 201: DataOf(BillingSession, 'The portal page') },
    },
  }, async (request, reply) => {
    const { organizationId } = principalOf(request);
    const back = await returnUrl(organizationId, request.body?.return_url, 'return_url');
    const current = await billing.getSubscription(organizationId);
    if (!current?.subscription_id) throw noSubscription();
    const subscription = asProvider(current as SubscriptionRow & { subscription_id: string });
    const session = await viaProvider(() => provider.createPortalSession({ organizationId, subscription, returnUrl: back }));
    return reply.code(201).send({ data: session });
  });

  app.post('/billing/plan', {
    config: { apiKey: true, scope: 'billing:write', idempotent: true, errors: ['subscription_missing', 'plan_unchanged'] },
    schema: {
      tags: ['billing'], operationId: 'billing.changePlan', summary: 'Change the plan (prorated by the provider); answers the usage with the new plan',
      description: 'Moves the live subscription to another plan at once, prorated by the payment provider. The same plan answers `409 plan_unchanged`.',
      body: PlanChangeBody,
      response: { 200: DataOf(Usage, 'The usage, with the new plan') },
    },
  }, async (request) => {
    const { organizationId } = principalOf(request);
    const current = await billing.getSubscription(organizationId);
    if (!live(current)) throw noSubscription();
    const changeKey = `plan-${organizationId}-${String(request.headers['idempotency-key'])}`;
    if (current.plan === request.body.plan) {
      // Already on it. If this very key made the change (its answer was lost before it could be
      // stored for replay), the retry gets the change's answer; otherwise there is nothing to do.
      if (!await billing.eventRecorded(provider.name, planChangeEventId(changeKey))) {
        throw new ApiError('plan_unchanged', `the subscription is already on the ${current.plan} plan`, { param: 'plan' });
      }
    } else {
      await viaProvider(() => provider.changePlan({ organizationId, subscription: asProvider(current), plan: request.body.plan, idempotencyKey: changeKey }));
    }
    const row = await usage.get(organizationId);
    if (!row) throw new ApiError('internal_error', `no usage row for organization ${organizationId}`);
    return { data: presentUsage(row) };
  });
};
