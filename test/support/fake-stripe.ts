// A small fake of Stripe's REST API: only the endpoints Hostgate calls, answering in Stripe's
// shapes, and checking what the official SDK sends — form-encoded bodies, `Stripe-Version`,
// `Idempotency-Key` on every POST, the secret key. Every request is recorded for assertions.
// (PyPI localstripe lacks Checkout, the Billing Portal and prices: not enough for us.)
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomToken } from '../../security/tokens.ts';

export interface FakeStripeRequest { method: string; path: string; headers: http.IncomingHttpHeaders; form: Record<string, string> }

export interface FakeSubscription {
  id: string;
  object: 'subscription';
  status: string;
  customer: string;
  metadata: Record<string, string>;
  items: { object: 'list'; data: { id: string; object: 'subscription_item'; price: { id: string; object: 'price' }; current_period_start: number; current_period_end: number }[] };
  /** Its first invoice, paid at checkout by `payment_intent` for `amount` cents. */
  latest_invoice: string;
}

export interface FakeCheckoutSession { id: string; status: 'open' | 'complete' | 'expired' }
export interface FakeInvoicePayment { invoice: string; payment_intent: string; amount: number; status: 'paid' }
export interface FakeRefund { id: string; payment_intent: string; amount: number; idempotencyKey: string }

export interface FakeStripe {
  /** e.g. http://127.0.0.1:41234 (STRIPE_API_BASE). */
  url: string;
  requests: FakeStripeRequest[];
  subscriptions: Map<string, FakeSubscription>;
  checkoutSessions: Map<string, FakeCheckoutSession>;
  refunds: FakeRefund[];
  addSubscription(input: { customer: string; price: string; plan: string; status?: string; amount?: number }): FakeSubscription;
  close(): Promise<void>;
}

export async function startFakeStripe(options: { secretKey: string; prices: string[] }): Promise<FakeStripe> {
  const requests: FakeStripeRequest[] = [];
  const subscriptions = new Map<string, FakeSubscription>();
  const checkoutSessions = new Map<string, FakeCheckoutSession>();
  const invoicePayments: FakeInvoicePayment[] = [];
  const refunds: FakeRefund[] = [];
  const id = (prefix: string) => `${prefix}_test_${randomToken(14)}`;

  const error = (res: http.ServerResponse, status: number, message: string, param?: string) => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify({ error: { type: 'invalid_request_error', message, ...(param ? { param } : {}) } }));
  };
  const ok = (res: http.ServerResponse, body: unknown) => {
    res.writeHead(200, { 'content-type': 'application/json', 'request-id': id('req') });
    res.end(JSON.stringify(body));
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const path = (req.url ?? '').split('?')[0]!;
      const form = Object.fromEntries(new URLSearchParams(req.method === 'GET' ? (req.url ?? '').split('?')[1] ?? '' : raw));
      requests.push({ method: req.method!, path, headers: req.headers, form });
      // What every SDK request carries.
      if (req.headers.authorization !== `Bearer ${options.secretKey}`) return error(res, 401, 'Invalid API Key provided');
      if (!req.headers['stripe-version']) return error(res, 400, 'Stripe-Version header missing');
      if (req.method === 'POST') {
        if (!String(req.headers['content-type']).startsWith('application/x-www-form-urlencoded')) return error(res, 400, 'expected a form-encoded body');
        if (!req.headers['idempotency-key']) return error(res, 400, 'Idempotency-Key header missing');
      }
      const price = (p: string | undefined) => p !== undefined && options.prices.includes(p);

      if (req.method === 'POST' && path === '/v1/checkout/sessions') {
        if (form.mode !== 'subscription') return error(res, 400, 'mode must be subscription', 'mode');
        if (!price(form['line_items[0][price]']) || form['line_items[0][quantity]'] !== '1') return error(res, 400, 'No such price', 'line_items[0][price]');
        if (!form.success_url) return error(res, 400, 'success_url is required', 'success_url');
        const sid = id('cs');
        checkoutSessions.set(sid, { id: sid, status: 'open' });
        return ok(res, {
          id: sid, object: 'checkout.session', mode: 'subscription', status: 'open', url: `https://checkout.stripe.test/c/pay/${sid}`,
          client_reference_id: form.client_reference_id ?? null, success_url: form.success_url, cancel_url: form.cancel_url ?? null,
          metadata: { organization_id: form['metadata[organization_id]'], plan: form['metadata[plan]'] }, customer: null, subscription: null,
        });
      }
      if (req.method === 'POST' && path === '/v1/billing_portal/sessions') {
        if (!form.customer) return error(res, 400, 'customer is required', 'customer');
        const pid = id('bps');
        return ok(res, { id: pid, object: 'billing_portal.session', customer: form.customer, return_url: form.return_url ?? null, url: `https://billing.stripe.test/p/session/${pid}` });
      }
      const cs = /^\/v1\/checkout\/sessions\/([^/]+)(\/expire)?$/.exec(path);
      if (cs) {
        const session = checkoutSessions.get(decodeURIComponent(cs[1]!));
        if (!session) return error(res, 404, 'No such checkout.session', 'session');
        if (req.method === 'POST' && cs[2]) {
          // Stripe: only an open session can be expired.
          if (session.status !== 'open') return error(res, 400, `Only Checkout Sessions with a status in ["open"] can be expired. This Checkout Session has a status of "${session.status}".`);
          session.status = 'expired';
        }
        if (req.method === 'GET' || cs[2]) return ok(res, { id: session.id, object: 'checkout.session', mode: 'subscription', status: session.status });
      }
      if (req.method === 'GET' && path === '/v1/invoice_payments') {
        const data = invoicePayments.filter((p) => p.invoice === form.invoice).map((p, i) => ({ id: `inpay_${i}`, object: 'invoice_payment', invoice: p.invoice, status: p.status, amount_paid: p.amount, payment: { type: 'payment_intent', payment_intent: p.payment_intent } }));
        return ok(res, { object: 'list', data, has_more: false, url: '/v1/invoice_payments' });
      }
      if (req.method === 'POST' && path === '/v1/refunds') {
        const paid = invoicePayments.find((p) => p.payment_intent === form.payment_intent);
        if (!paid) return error(res, 400, 'No such payment_intent', 'payment_intent');
        // Stripe answers a repeated Idempotency-Key with the first answer.
        const key = String(req.headers['idempotency-key']);
        const refund = refunds.find((r) => r.idempotencyKey === key) ?? (() => {
          if (refunds.some((r) => r.payment_intent === paid.payment_intent)) return null;
          const r = { id: id('re'), payment_intent: paid.payment_intent, amount: paid.amount, idempotencyKey: key };
          refunds.push(r);
          return r;
        })();
        if (!refund) return error(res, 400, `Charge for ${paid.payment_intent} has already been refunded.`);
        return ok(res, { id: refund.id, object: 'refund', payment_intent: refund.payment_intent, amount: refund.amount, status: 'succeeded', reason: form.reason ?? null });
      }
      const sub = /^\/v1\/subscriptions\/([^/]+)$/.exec(path);
      if (sub) {
        const s = subscriptions.get(decodeURIComponent(sub[1]!));
        if (!s) return error(res, 404, 'No such subscription', 'id');
        if (req.method === 'GET') return ok(res, s);
        if (req.method === 'DELETE') {
          if (s.status === 'canceled') return error(res, 400, 'This subscription is already canceled');
          s.status = 'canceled';
          return ok(res, s);
        }
        if (req.method === 'POST') {
          if (form['items[0][id]'] !== s.items.data[0]!.id) return error(res, 400, 'items[0][id] must name the subscription item', 'items[0][id]');
          if (!price(form['items[0][price]'])) return error(res, 400, 'No such price', 'items[0][price]');
          if (form.proration_behavior !== 'create_prorations') return error(res, 400, 'expected proration_behavior=create_prorations', 'proration_behavior');
          s.items.data[0]!.price = { id: form['items[0][price]']!, object: 'price' };
          if (form['metadata[plan]']) s.metadata.plan = form['metadata[plan]'];
          return ok(res, s);
        }
      }
      if (req.method === 'POST' && path === '/v1/invoiceitems') {
        if (!form.customer || !(form.invoice || form.subscription)) return error(res, 400, 'customer and invoice are required', 'customer');
        if (!/^\d+$/.test(form.amount ?? '') || form.currency !== 'eur') return error(res, 400, 'amount (integer cents) and currency eur expected', 'amount');
        return ok(res, { id: id('ii'), object: 'invoiceitem', customer: form.customer, invoice: form.invoice ?? null, amount: Number(form.amount), currency: form.currency, description: form.description ?? null });
      }
      return error(res, 404, `Unrecognized request URL (${req.method}: ${path})`);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    subscriptions,
    checkoutSessions,
    refunds,
    addSubscription(input) {
      const now = Math.floor(Date.now() / 1000);
      const invoice = id('in');
      const s: FakeSubscription = {
        id: id('sub'), object: 'subscription', status: input.status ?? 'active', customer: input.customer, metadata: { plan: input.plan },
        items: { object: 'list', data: [{ id: id('si'), object: 'subscription_item', price: { id: input.price, object: 'price' }, current_period_start: now, current_period_end: now + 30 * 86400 }] },
        latest_invoice: invoice,
      };
      invoicePayments.push({ invoice, payment_intent: id('pi'), amount: input.amount ?? 2900, status: 'paid' });
      subscriptions.set(s.id, s);
      return s;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
