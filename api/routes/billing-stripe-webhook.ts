// POST /v1/billing/stripe/webhook: Stripe's events, verified with the SDK's constructEvent against
// STRIPE_WEBHOOK_SECRET, then the shared path (billing/handle-event.ts): recorded once per event
// id (a replay answers 200 and changes nothing), applied to Postgres and queued for the billing
// workflow in one transaction — answered in milliseconds, nothing lost if a process dies after.
// Hidden from the OpenAPI document: Stripe calls it, not API clients.
import type { FastifyPluginAsync } from 'fastify';
import Stripe from 'stripe';
import { handleBillingEvent } from '../../billing/handle-event.ts';
import { billingEventFromStripe } from '../../billing/stripe-provider.ts';
import { ApiError } from '../errors.ts';

/** Stripe's invoice events with many lines exceed the API's 64 KiB body limit. */
const WEBHOOK_BODY_LIMIT = 1024 * 1024;

export const billingStripeWebhook: FastifyPluginAsync = async (app) => {
  const { db, config, dispatcher } = app.deps;
  const stripeConfig = config.billing.stripe;
  // The signature covers the exact bytes: this scope keeps the raw body.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer', bodyLimit: WEBHOOK_BODY_LIMIT }, (_req, body, done) => done(null, body));

  app.post('/billing/stripe/webhook', { bodyLimit: WEBHOOK_BODY_LIMIT, schema: { hide: true } }, async (request) => {
    if (!stripeConfig?.webhookSecret) throw new ApiError('not_found', 'Stripe is not configured on this server (STRIPE_SECRET_KEY, STRIPE_WEBHOOK_SECRET)');
    const signature = request.headers['stripe-signature'];
    if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) throw new ApiError('invalid_signature', 'a Stripe-Signature header and the raw JSON body are required');
    let event: Stripe.Event;
    try {
      event = Stripe.webhooks.constructEvent(request.body, signature, stripeConfig.webhookSecret);
    } catch {
      throw new ApiError('invalid_signature', 'the Stripe-Signature does not match this body and the endpoint secret (or its timestamp is too old)');
    }
    const mapped = billingEventFromStripe(stripeConfig, event);
    if (!mapped) return { received: true, result: 'not_handled' };
    const handled = await handleBillingEvent(db, 'stripe', event.id, mapped);
    if (handled.result === 'processed') void dispatcher?.kick([handled.outboxId]);
    request.log.info({ stripeEventId: event.id, type: event.type, result: handled.result }, 'Stripe event');
    return { received: true, result: handled.result };
  });
};
