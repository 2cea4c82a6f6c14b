import { pathOf, Resource } from "./resource.js";
/** The usage invoices of closed periods (any key of the organization): `hostgate.billing.invoices`. */
export class BillingInvoices extends Resource {
    /** GET /v1/billing/invoices: newest period first. */
    list(params, options) {
        return this.pages('/v1/billing/invoices', params, options);
    }
    /** GET /v1/billing/invoices/{id}: the invoice with its items. */
    async retrieve(id, options) {
        return this.one({ method: 'GET', path: pathOf('billing/invoices', id), options });
    }
}
