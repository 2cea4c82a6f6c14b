// Type tests of the SDK, checked by `npm run typecheck` (tsc over the repository; never run).
// Each `@ts-expect-error` line must fail to type-check: if the SDK's types ever accept it (a
// wrong field, a forgotten idempotency key, a misspelt status), tsc reports the unused directive.
import { Hostgate, type DnsRecordType, type Domain, type DomainDetail, type DomainStatus, type EventKind, type HostgateEvent, type Invoice, type Usage, type WebhookEndpointWithSecret } from '../../sdk/src/index.ts';

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends (<T>() => T extends B ? 1 : 2) ? true : false;
const assertType = <T extends true>(_: T) => undefined;

export async function typeTests(hg: Hostgate) {
  const key = { idempotencyKey: Hostgate.generateKey() };

  // Correct calls compile, and the results are the served shapes.
  const destination = await hg.destinations.create({ url: 'https://app.example.com' }, key);
  const port: 443 | 8443 = destination.port;
  const domain = await hg.domains.create({ hostname: 'shop.example.com', destination_id: destination.id, external_customer_id: 'cus_1' }, key);
  const status: DomainStatus = domain.status;
  assertType<Equal<DomainStatus, 'pending_dns' | 'pending_certificate' | 'active' | 'suspended' | 'deleting' | 'deleted' | 'failed'>>(true);
  const record: { type: string; name: string; value: string } | undefined = domain.dns_records[0];
  assertType<Equal<DnsRecordType, 'CNAME' | 'A' | 'AAAA' | 'TXT'>>(true);
  const detail: DomainDetail = await hg.domains.retrieve(domain.id);
  const bytes: number = detail.bandwidth.bytes;
  const delivery = await hg.webhookDeliveries.retrieve('whd_1');
  const kind: EventKind = delivery.event;
  const attempting: boolean = delivery.attempting;
  void detail; void bytes; void kind; void attempting;
  const endpoint = await hg.webhookEndpoints.create({ url: 'https://hooks.example.com/x', events: ['hostname.active'] }, key);
  const secret: string = endpoint.secret;
  const withSecret: WebhookEndpointWithSecret = endpoint;
  const replayed: boolean = endpoint.lastResponse.idempotentReplayed;
  for await (const page of hg.domains.list({ limit: 10, status: 'active' })) {
    const d: Domain | undefined = page.data[0];
    const more: boolean = page.has_more;
    void d; void more;
  }
  const usage: Usage = await hg.usage.retrieve();
  const hostnames: number = usage.active_hostnames;
  await hg.billing.createCheckoutSession({ plan: 'growth' });
  const invoice: Invoice = await hg.billing.invoices.retrieve('inv_1');
  const overage: number = invoice.overage_hostnames;
  const currency: 'eur' = invoice.currency;
  const providerInvoice: string | null = invoice.provider_invoice_id;
  const itemKind: 'overage_hostnames' | undefined = invoice.items[0]?.kind;
  for await (const i of hg.billing.invoices.list({ limit: 5 }).items()) void i.total_cents;
  void overage; void currency; void providerInvoice; void itemKind;

  // @ts-expect-error -- unknown field in a create call
  await hg.domains.create({ hostname: 'shop.example.com', destination_id: 'dst_1', destination: 'dst_1' }, key);
  // @ts-expect-error -- missing required field
  await hg.domains.create({ hostname: 'shop.example.com' }, key);
  // @ts-expect-error -- wrong type of a field
  await hg.destinations.create({ url: 443 }, key);
  // @ts-expect-error -- a write without its idempotency key
  await hg.destinations.create({ url: 'https://app.example.com' });
  // @ts-expect-error -- a write with options but no key
  await hg.domains.delete('dom_1', { timeoutMs: 1000 });
  // @ts-expect-error -- not an event kind in a subscription
  await hg.webhookEndpoints.create({ url: 'https://hooks.example.com/x', events: ['hostname.exploded'] }, key);
  // @ts-expect-error -- unknown field in a webhook endpoint create
  await hg.webhookEndpoints.create({ url: 'https://hooks.example.com/x', secret: 'whsec_mine' }, key);
  // @ts-expect-error -- unknown field in a destination create
  await hg.destinations.create({ url: 'https://app.example.com', port: 8443 }, key);
  // @ts-expect-error -- unknown field in an update
  await hg.webhookEndpoints.update('whe_1', { enabled: true, secret: 'whsec_x' }, key);
  // @ts-expect-error -- widget sessions need external_customer_id
  await hg.widgetSessions.create({ allowed_origins: ['https://app.example.com'] }, key);
  // @ts-expect-error -- a status that does not exist in a list filter
  hg.domains.list({ status: 'live' });
  // @ts-expect-error -- limit is a number
  hg.destinations.list({ limit: '10' });
  // @ts-expect-error -- checkout takes no idempotency key (the contract's one exception)
  await hg.billing.createCheckoutSession({ plan: 'growth' }, { idempotencyKey: 'k' });
  // @ts-expect-error -- the invoice list takes no filters beyond limit and cursor
  hg.billing.invoices.list({ status: 'paid' });
  // @ts-expect-error -- not a plan
  await hg.billing.changePlan({ plan: 'platinum' }, key);
  // @ts-expect-error -- the secret is not on a read endpoint
  (await hg.webhookEndpoints.retrieve('whe_1')).secret;

  // Events narrow by kind.
  const event: HostgateEvent = hg.webhooks.constructEvent('{}', 't=1,v1=00', 'whsec_x');
  if (event.event === 'hostname.active') {
    const s: DomainStatus = event.data.status;
    void s;
  }
  // @ts-expect-error -- not an event kind
  if (event.event === 'hostname.live') return;

  void withSecret; void port; void status; void record; void secret; void replayed; void hostnames;
}
