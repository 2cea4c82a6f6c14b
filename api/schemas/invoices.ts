import { Type } from 'typebox';
import { IdParams, ListQuery, named, Timestamp } from './common.ts';
import { PlanName } from './usage.ts';

export const InvoiceItem = named('InvoiceItem', Type.Object({
  kind: Type.Literal('overage_hostnames', { description: 'What the item bills; v1 has one kind: the hostnames of the period\'s peak above the plan\'s included count' }),
  quantity: Type.Integer({ minimum: 0, description: 'Hostnames billed (0 when the peak stayed within the plan)' }),
  unit_amount_cents: Type.Integer({ minimum: 0, description: 'Euro cents per hostname (15)' }),
  amount_cents: Type.Integer({ minimum: 0, description: 'quantity × unit_amount_cents' }),
  description: Type.String({ description: 'Human-readable line, as shown on the invoice' }),
}, { description: 'One line of an invoice' }));

// The usage invoice of one closed period (docs/billing.md, "Invoices"). The plan's own monthly
// price is charged by the payment provider and is not part of it.
export const Invoice = named('Invoice', Type.Object({
  id: Type.String({ description: 'Identifier (inv_…)' }),
  period_start: { ...Timestamp, description: 'Start of the billed period' },
  period_end: { ...Timestamp, description: 'End of the billed period (exclusive)' },
  plan: PlanName,
  peak_hostnames: Type.Integer({ minimum: 0, description: 'Highest number of counted hostnames in the period' }),
  included_hostnames: Type.Integer({ minimum: 0, description: 'Hostnames included in the plan' }),
  overage_hostnames: Type.Integer({ minimum: 0, description: 'peak_hostnames above included_hostnames: the quantity of the overage item' }),
  unit_amount_cents: Type.Integer({ minimum: 0, description: 'Euro cents per overage hostname (15)' }),
  total_cents: Type.Integer({ minimum: 0, description: 'Sum of the items, in euro cents' }),
  currency: Type.Literal('eur', { description: 'Always eur' }),
  provider_invoice_id: Type.Union([Type.String(), Type.Null()], { description: 'With Stripe: the id of Stripe\'s renewal invoice the overage went on (in_…); null with the built-in provider, or before Stripe opened it' }),
  items: Type.Array(InvoiceItem, { description: 'The billed items (v1: the overage of the period)' }),
  created_at: { ...Timestamp, description: 'When the period was closed and invoiced' },
}, { description: 'The usage invoice of one closed period' }));

export const InvoiceIdParams = IdParams('invoice');

export const ListInvoicesQuery = Type.Object(ListQuery, { additionalProperties: false });
