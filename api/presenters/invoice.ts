import type { Static } from 'typebox';
import type { InvoiceDetailRow } from '../../db/repositories/invoices.ts';
import { OVERAGE_CENTS_PER_HOSTNAME } from '../../model/plans.ts';
import type { Invoice } from '../schemas/invoices.ts';

/** An invoice as the API shows it: no organization id, no provider item ids. */
export function presentInvoice(i: InvoiceDetailRow): Static<typeof Invoice> {
  const overageItem = i.items.find((item) => item.kind === 'overage_hostnames');
  return {
    id: i.id,
    period_start: i.period_start,
    period_end: i.period_end,
    plan: i.plan,
    peak_hostnames: i.peak_hostnames,
    included_hostnames: i.included_hostnames,
    overage_hostnames: overageItem?.quantity ?? 0,
    // The rate the period was billed at (stored on its item), not today's, should the rate change.
    unit_amount_cents: overageItem?.unit_amount_cents ?? OVERAGE_CENTS_PER_HOSTNAME,
    total_cents: i.total_cents,
    currency: 'eur',
    provider_invoice_id: i.provider_invoice_id,
    items: i.items.map((item) => ({ kind: item.kind, quantity: item.quantity, unit_amount_cents: item.unit_amount_cents, amount_cents: item.amount_cents, description: item.description })),
    created_at: i.created_at,
  };
}
