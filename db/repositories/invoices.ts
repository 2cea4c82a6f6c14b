// The invoices of closed billing periods as the API reads them (GET /v1/billing/invoices). The
// rows are written once per organization and period by the billing workflow's period close
// (billing.ts recordPeriodInvoice); this module only reads them, always within one organization.
import { Type, type Static } from 'typebox';
import { decodeCursor, encodeCursor, InvalidCursorError, pageOfRows, type Page } from '../pagination.ts';
import { row, sql, type Db } from '../pool.ts';
import { Plan } from './organizations.ts';

export const InvoiceItemRow = Type.Object({
  kind: Type.Literal('overage_hostnames'),
  quantity: Type.Number(),
  unit_amount_cents: Type.Number(),
  amount_cents: Type.Number(),
  description: Type.String(),
});
export type InvoiceItemRow = Static<typeof InvoiceItemRow>;

export const InvoiceDetailRow = Type.Object({
  id: Type.String(),
  period_start: Type.String(),
  period_end: Type.String(),
  plan: Plan,
  peak_hostnames: Type.Number(),
  included_hostnames: Type.Number(),
  total_cents: Type.Number(),
  provider_invoice_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
  items: Type.Array(InvoiceItemRow),
});
export type InvoiceDetailRow = Static<typeof InvoiceDetailRow>;
const InvoiceDetail = row(InvoiceDetailRow);

// The items ride along as one JSON array per invoice: a page is one statement, not 1 + n.
const columns = sql.fragment`i.id, i.period_start, i.period_end, i.plan, i.peak_hostnames, i.included_hostnames, i.total_cents,
  i.provider_invoice_id, i.created_at,
  coalesce((select json_agg(json_build_object('kind', it.kind, 'quantity', it.quantity, 'unit_amount_cents', it.unit_amount_cents,
    'amount_cents', it.amount_cents, 'description', it.description) order by it.kind)
    from invoice_items it where it.invoice_id = i.id), '[]'::json) as items`;

/**
 * Invoices are ordered by their period (newest first), not by `created_at`: a worker catching up
 * after downtime closes several periods within the same instant, and the period is what a reader
 * means by "newest". A period start is unique within an organization (the table's unique key), so
 * it alone is the keyset position. The cursor is the shared (timestamp, id) format of
 * db/pagination.ts with this marker in the id slot: invoice ids (`inv_local_…`) do not fit that
 * slot, and the marker makes a cursor of this list refused by every other list and vice versa.
 */
const CURSOR_MARK = 'inv_period';

function afterPeriod(cursor: string | undefined) {
  if (!cursor) return sql.fragment`true`;
  const { createdAt: periodStart, id } = decodeCursor(cursor);
  if (id !== CURSOR_MARK) throw new InvalidCursorError('this cursor belongs to another list: pass the next_cursor of a page of this same list');
  return sql.fragment`i.period_start < ${periodStart}::timestamptz`;
}

export function invoicesRepository(db: Db) {
  return {
    /** Newest period first, keyset-paginated on the period start. */
    async list<U>(organizationId: string, page: { limit: number; cursor?: string | undefined }, map: (invoice: InvoiceDetailRow) => U): Promise<Page<U>> {
      const rows = await db.any(sql.type(InvoiceDetail)`
        select ${columns} from invoices i
        where i.organization_id = ${organizationId} and ${afterPeriod(page.cursor)}
        order by i.period_start desc limit ${page.limit + 1}`);
      return pageOfRows(rows, page.limit, map, (last) => encodeCursor(last.period_start, CURSOR_MARK));
    },

    /** An invoice of the organization; another organization's id reads as missing. */
    async get(organizationId: string, id: string): Promise<InvoiceDetailRow | null> {
      return db.maybeOne(sql.type(InvoiceDetail)`select ${columns} from invoices i where i.id = ${id} and i.organization_id = ${organizationId}`);
    },
  };
}
