import type { PageList } from '../pagination.ts';
import type { ReadOptions, WithResponse } from '../transport.ts';
import type { Invoice, InvoiceListParams } from '../types.ts';
import { Resource } from './resource.ts';
/** The usage invoices of closed periods (any key of the organization): `hostgate.billing.invoices`. */
export declare class BillingInvoices extends Resource {
    /** GET /v1/billing/invoices: newest period first. */
    list(params?: InvoiceListParams, options?: ReadOptions): PageList<Invoice>;
    /** GET /v1/billing/invoices/{id}: the invoice with its items. */
    retrieve(id: string, options?: ReadOptions): Promise<WithResponse<Invoice>>;
}
