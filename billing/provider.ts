// What Hostgate needs from a payment provider. Two implementations: Stripe (billing/stripe-
// provider.ts, when STRIPE_SECRET_KEY is set) and the built-in local one (billing/local-
// provider.ts), whose pages complete the same flows offline.
import type { PlanName } from '../model/plans.ts';

export interface CheckoutInput {
  organizationId: string;
  plan: PlanName;
  /** Where the payer goes back to; already checked against the organization's return origins. */
  successUrl: string | null;
  cancelUrl: string | null;
  /** Our own id of the session (the local provider's session id). */
  sessionId: string;
  /** The provider's customer of an earlier (canceled) subscription: reused, not duplicated. */
  customerId: string | null;
}

export interface ProviderSession { id: string; url: string }

export interface ProviderSubscription {
  provider: 'local' | 'stripe';
  customerId: string | null;
  subscriptionId: string;
  plan: PlanName;
}

export interface BillingProvider {
  readonly name: 'local' | 'stripe';
  createCheckoutSession(input: CheckoutInput): Promise<ProviderSession>;
  createPortalSession(input: { organizationId: string; subscription: ProviderSubscription; returnUrl: string | null }): Promise<ProviderSession>;
  /** Moves the subscription to another plan (Stripe prorates); the new state arrives as an event. */
  changePlan(input: { organizationId: string; subscription: ProviderSubscription; plan: PlanName; idempotencyKey: string }): Promise<void>;
  /**
   * Expires an open checkout session that a newer one replaces, so that only the newest can be paid.
   * 'completed' when the payer finished it first (its completion event is on its way).
   */
  expireCheckoutSession(id: string): Promise<'expired' | 'completed'>;
  /**
   * Cancels, at once, a subscription that a second checkout created while the organization already
   * had one (two tabs paid within moments of each other), and refunds what it charged.
   */
  cancelDuplicateSubscription(input: { subscriptionId: string; idempotencyKey: string }): Promise<{ refundedCents: number }>;
  /** Adds the closed period's overage to the provider's renewal invoice; returns the item id (null: kept locally only). */
  addOverageItem(input: { subscription: ProviderSubscription; invoiceId: string | null; quantity: number; unitAmountCents: number; description: string; idempotencyKey: string }): Promise<string | null>;
}

/**
 * The id under which a plan change made with this idempotency key is recorded in billing_events
 * (both providers): a retry of a change whose answer was lost finds it and answers 200 again
 * instead of 409 plan_unchanged. (`sync_` is the prefix the Stripe provider always used.)
 */
export function planChangeEventId(idempotencyKey: string): string {
  return `sync_${idempotencyKey}`;
}

/** The provider did not answer (network, 5xx, timeout): the API answers 503 with Retry-After. */
export class ProviderUnavailableError extends Error {
  readonly retryAfterSeconds: number;
  constructor(message: string, retryAfterSeconds = 5) {
    super(message);
    this.name = 'ProviderUnavailableError';
    this.retryAfterSeconds = retryAfterSeconds;
  }
}
