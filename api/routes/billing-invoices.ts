// GET /v1/billing/invoices and /v1/billing/invoices/{id}: the usage invoices of closed periods
// (docs/billing.md, "Invoices"). Any key of the organization, like GET /v1/usage.
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { invoicesRepository } from '../../db/repositories/invoices.ts';
import { ApiError } from '../errors.ts';
import { principalOf } from '../plugins/api-key-auth.ts';
import { presentInvoice } from '../presenters/invoice.ts';
import { DataOf, PageOf } from '../schemas/common.ts';
import { Invoice, InvoiceIdParams, ListInvoicesQuery } from '../schemas/invoices.ts';

export const billingInvoiceRoutes: FastifyPluginAsyncTypebox = async (app) => {
  const invoices = invoicesRepository(app.deps.db);

  app.get('/billing/invoices', {
    config: { apiKey: true },
    schema: {
      tags: ['billing'], operationId: 'billing.invoices.list', summary: 'List the invoices of closed periods, newest period first',
      description: 'Lists the usage invoices of closed periods, newest period first: peak, included and overage hostnames, items and totals.',
      querystring: ListInvoicesQuery,
      response: { 200: PageOf(Invoice, 'A page of invoices') },
    },
  }, async (request) => {
    const q = request.query;
    return invoices.list(principalOf(request).organizationId, { limit: q.limit ?? 20, cursor: q.cursor }, presentInvoice);
  });

  app.get('/billing/invoices/:id', {
    config: { apiKey: true, errors: ['invoice_not_found'] },
    schema: {
      tags: ['billing'], operationId: 'billing.invoices.retrieve', summary: 'Read an invoice of a closed period with its items',
      description: "Reads one usage invoice of a closed period; another organization's id answers like a missing one.",
      params: InvoiceIdParams,
      response: { 200: DataOf(Invoice, 'The invoice') },
    },
  }, async (request) => {
    const invoice = await invoices.get(principalOf(request).organizationId, request.params.id);
    // Another organization's invoice answers exactly like a missing one.
    if (!invoice) throw new ApiError('invoice_not_found', `invoice ${request.params.id} does not exist`, { param: 'id' });
    return { data: presentInvoice(invoice) };
  });
};
