import type { RequestOptions, Transport, WithResponse, WriteOptions } from '../transport.ts';
import type { CheckoutSession, CheckoutSessionCreateParams, PlanChangeParams, PlanChangeResult, PortalSession, PortalSessionCreateParams } from '../types.ts';
import { BillingInvoices } from './billing-invoices.ts';
import { Resource } from './resource.ts';
/** Checkout options: the one write the contract does not make idempotent, so it takes no key. */
export type CheckoutOptions = RequestOptions & {
    idempotencyKey?: never;
};
/** Subscription: checkout, the customer portal, plan changes (scope billing:write); invoices. */
export declare class Billing extends Resource {
    /** The invoices of closed periods: `list()` and `retrieve(id)`. */
    readonly invoices: BillingInvoices;
    constructor(transport: Transport);
    /**
     * POST /v1/billing/checkout-session: `{ id, url }`; send the user to `url`. Without an
     * Idempotency-Key (the contract's one exception): each call opens a new session, and the
     * client never repeats it on its own.
     */
    createCheckoutSession(params: CheckoutSessionCreateParams, options?: CheckoutOptions): Promise<WithResponse<CheckoutSession>>;
    /** POST /v1/billing/portal-session: a customer-portal `url` (invoices, tax details, payment methods, cancellation). */
    createPortalSession(params: PortalSessionCreateParams, options: WriteOptions): Promise<WithResponse<PortalSession>>;
    /** POST /v1/billing/plan: change the plan (e.g. `{ plan: 'scale' }`). */
    changePlan(params: PlanChangeParams, options: WriteOptions): Promise<WithResponse<PlanChangeResult>>;
}
