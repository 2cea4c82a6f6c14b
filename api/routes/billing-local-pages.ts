// The built-in billing provider's pages (no STRIPE_SECRET_KEY): checkout ("Pay" / "Cancel") and
// the customer portal (plan, failed payment, pay, cancel). Every button becomes the provider event
// Stripe would send and goes through handleBillingEvent, the path Stripe's webhook takes. The
// pages are reached through their unguessable session id only (as Stripe's are); hidden from the
// OpenAPI document, which describes the API-key surface.
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import { handleBillingEvent } from '../../billing/handle-event.ts';
import { addMonthsUtc } from '../../billing/local-provider.ts';
import type { BillingEvent } from '../../model/billing-events.ts';
import { billingId, billingRepository } from '../../db/repositories/billing.ts';
import { usageRepository } from '../../db/repositories/usage.ts';
import { isPlanName, OVERAGE_CENTS_PER_HOSTNAME, planNames, plans } from '../../model/plans.ts';
import { ApiError } from '../errors.ts';

const escape = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

function page(title: string, body: string): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escape(title)} · Hostgate billing</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#111827}
.card{border:1px solid #e5e7eb;border-radius:14px;padding:1.5rem}button{font:inherit;padding:.5rem 1rem;border-radius:8px;border:1px solid #635bff;cursor:pointer}
button.primary{background:#635bff;color:#fff}form{display:inline-block;margin:.25rem .5rem .25rem 0}small{color:#6b7280}</style></head>
<body><main class="card"><p><small>Hostgate · built-in billing provider (no payment is taken)</small></p>${body}</main></body></html>`;
}

const planLine = (plan: (typeof planNames)[number]) =>
  `${plan}: ${plans[plan].includedHostnames} hostnames and ${plans[plan].includedBandwidthGb} GB included, then ${OVERAGE_CENTS_PER_HOSTNAME} euro cents per hostname of the period's peak`;

export const billingLocalPages: FastifyPluginAsync = async (app) => {
  const { db, dispatcher } = app.deps;
  const billing = billingRepository(db);
  const usage = usageRepository(db);
  // The pages post plain HTML forms (this plugin's scope only; the API stays JSON-only).
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (_req, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  const hidden = { schema: { hide: true } };
  const notFound = () => new ApiError('billing_session_not_found', 'this billing page does not exist or has expired; start again from your application');

  async function emit(event: BillingEvent): Promise<void> {
    const handled = await handleBillingEvent(db, 'local', billingId('evt'), event);
    if (handled.result === 'processed') void dispatcher?.kick([handled.outboxId]);
  }
  const html = (reply: FastifyReply, body: string) => reply.type('text/html; charset=utf-8').header('cache-control', 'no-store').send(body);

  // Where Stripe (or the local page) sends the payer when the caller gave no return URL.
  app.get('/billing/done', hidden, async (_request, reply) => html(reply, page('Done', '<h1 id="result">Done</h1><p>You can close this page and return to the application.</p>')));

  async function openCheckout(id: string) {
    const session = await billing.getCheckoutSession(id);
    if (!session || session.provider !== 'local') throw notFound();
    return session;
  }

  app.get<{ Params: { id: string } }>('/billing/local/checkout/:id', hidden, async (request, reply) => {
    const s = await openCheckout(request.params.id);
    const action = `/v1/billing/local/checkout/${encodeURIComponent(s.id)}`;
    if (s.status === 'completed') return html(reply, page('Paid', `<h1 id="result">Paid</h1><p>The <strong>${s.plan}</strong> subscription is active.</p>`));
    if (s.status === 'canceled') return html(reply, page('Canceled', `<h1 id="result">Checkout canceled</h1><p>Nothing was charged.</p>`));
    if (s.expired) return html(reply, page('Expired', `<h1 id="result">This checkout has expired</h1><p>Start again from your application.</p>`));
    return html(reply, page('Checkout', `<h1>Subscribe to <span id="plan">${s.plan}</span></h1><p>${escape(planLine(s.plan))}.</p>
<form method="post" action="${action}/pay"><button class="primary" id="pay" type="submit">Pay</button></form>
<form method="post" action="${action}/cancel"><button id="cancel" type="submit">Cancel</button></form>`));
  });

  app.post<{ Params: { id: string } }>('/billing/local/checkout/:id/pay', hidden, async (request, reply) => {
    const s = await openCheckout(request.params.id);
    if (s.status === 'open' && !s.expired) {
      const current = await billing.getSubscription(s.organization_id);
      // Paid while another subscription is live (two tabs): the second checkout is not charged.
      if (current && current.status !== 'canceled') await billing.cancelCheckoutSession(s.id);
      else {
        const now = new Date();
        await emit({
          type: 'checkout.completed', organizationId: s.organization_id, checkoutSessionId: s.id, plan: s.plan,
          customerId: `cus_local_${s.organization_id}`, subscriptionId: billingId('sub'),
          periodStart: now.toISOString(), periodEnd: addMonthsUtc(now, 1).toISOString(),
        });
      }
    }
    return reply.redirect(s.success_url ?? `/v1/billing/local/checkout/${encodeURIComponent(s.id)}`, 303);
  });

  app.post<{ Params: { id: string } }>('/billing/local/checkout/:id/cancel', hidden, async (request, reply) => {
    const s = await openCheckout(request.params.id);
    await billing.cancelCheckoutSession(s.id);
    return reply.redirect(s.cancel_url ?? `/v1/billing/local/checkout/${encodeURIComponent(s.id)}`, 303);
  });

  async function openPortal(id: string) {
    const p = await billing.getPortalSession(id);
    if (!p || p.expired) throw notFound();
    const subscription = await billing.getSubscription(p.organization_id);
    if (!subscription?.subscription_id) throw notFound();
    return { portal: p, subscription: subscription as typeof subscription & { subscription_id: string } };
  }

  app.get<{ Params: { id: string } }>('/billing/local/portal/:id', hidden, async (request, reply) => {
    const { portal, subscription: s } = await openPortal(request.params.id);
    const u = await usage.get(portal.organization_id);
    const invoices = await billing.invoices(portal.organization_id);
    const action = `/v1/billing/local/portal/${encodeURIComponent(portal.id)}`;
    const live = s.status !== 'canceled';
    const options = planNames.filter((p) => p !== s.plan).map((p) => `<option value="${p}">${p}</option>`).join('');
    return html(reply, page('Billing portal', `<h1>Subscription</h1>
<p>Plan <strong id="plan">${s.plan}</strong>, status <strong id="status">${s.status}</strong>; period ${s.current_period_start.slice(0, 10)} → ${s.current_period_end.slice(0, 10)}.</p>
<p>${u ? `${u.active_hostnames} hostnames active, peak ${u.peak_hostnames} this period.` : ''}</p>
${live ? `<form method="post" action="${action}/plan"><label>Change plan <select name="plan" id="plan-select">${options}</select></label> <button id="change-plan" type="submit">Change</button></form>
${s.status === 'past_due' ? `<form method="post" action="${action}/pay"><button class="primary" id="pay" type="submit">Pay the outstanding invoice</button></form>` : `<form method="post" action="${action}/fail-payment"><button id="fail-payment" type="submit">Simulate a failed payment</button></form>`}
<form method="post" action="${action}/cancel"><button id="cancel-subscription" type="submit">Cancel subscription</button></form>` : '<p>The subscription is canceled. Start a new one from your application.</p>'}
<h2>Invoices</h2>${invoices.length ? `<ul>${invoices.map((i) => `<li>${i.period_start.slice(0, 10)} → ${i.period_end.slice(0, 10)}: ${i.plan}, peak ${i.peak_hostnames}, overage ${i.overage_quantity} × ${OVERAGE_CENTS_PER_HOSTNAME} = ${i.total_cents} cents</li>`).join('')}</ul>` : '<p>None yet.</p>'}
${portal.return_url ? `<p><a id="return" href="${escape(portal.return_url)}">Return to your application</a></p>` : ''}`));
  });

  app.post<{ Params: { id: string; action: string }; Body: Record<string, string> | undefined }>('/billing/local/portal/:id/:action', hidden, async (request, reply) => {
    const { portal, subscription: s } = await openPortal(request.params.id);
    const subscriptionId = s.subscription_id;
    switch (request.params.action) {
      case 'plan': {
        const plan = request.body?.plan;
        if (!isPlanName(plan)) throw new ApiError('invalid_request', 'plan must be one of starter, growth, scale', { param: 'plan' });
        if (s.status !== 'canceled' && plan !== s.plan) {
          await emit({ type: 'subscription.updated', subscriptionId, plan, status: s.status, periodStart: s.current_period_start, periodEnd: s.current_period_end });
        }
        break;
      }
      case 'fail-payment': if (s.status === 'active') await emit({ type: 'invoice.payment_failed', subscriptionId }); break;
      case 'pay': if (s.status === 'past_due') await emit({ type: 'invoice.paid', subscriptionId }); break;
      case 'cancel': if (s.status !== 'canceled') await emit({ type: 'subscription.canceled', subscriptionId }); break;
      default: throw new ApiError('not_found', `no portal action ${request.params.action}`);
    }
    return reply.redirect(`/v1/billing/local/portal/${encodeURIComponent(portal.id)}`, 303);
  });
};
