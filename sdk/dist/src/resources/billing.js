import { BillingInvoices } from "./billing-invoices.js";
import { Resource } from "./resource.js";
/** Subscription: checkout, the customer portal, plan changes (scope billing:write); invoices. */
export class Billing extends Resource {
    constructor(transport) {
        super(transport);
        this.invoices = new BillingInvoices(transport);
    }
    /**
     * POST /v1/billing/checkout-session: `{ id, url }`; send the user to `url`. Without an
     * Idempotency-Key (the contract's one exception): each call opens a new session, and the
     * client never repeats it on its own.
     */
    async createCheckoutSession(params, options) {
        if (options && 'idempotencyKey' in options && options.idempotencyKey !== undefined) {
            throw new TypeError('createCheckoutSession takes no idempotencyKey: the API does not accept one on this route');
        }
        return this.one({ method: 'POST', path: '/v1/billing/checkout-session', body: params, idempotencyKey: null, options });
    }
    /** POST /v1/billing/portal-session: a customer-portal `url` (invoices, tax details, payment methods, cancellation). */
    async createPortalSession(params, options) {
        return this.one({ method: 'POST', path: '/v1/billing/portal-session', body: params ?? {}, idempotencyKey: options?.idempotencyKey, options });
    }
    /** POST /v1/billing/plan: change the plan (e.g. `{ plan: 'scale' }`). */
    async changePlan(params, options) {
        return this.one({ method: 'POST', path: '/v1/billing/plan', body: params, idempotencyKey: options?.idempotencyKey, options });
    }
}
