// The client: `new Hostgate({ apiKey, baseUrl })`, one property per API resource.
import { Analytics } from './resources/analytics.ts';
import { Billing } from './resources/billing.ts';
import { Destinations } from './resources/destinations.ts';
import { Domains } from './resources/domains.ts';
import { Usage } from './resources/usage.ts';
import { WebhookDeliveries } from './resources/webhook-deliveries.ts';
import { WebhookEndpoints } from './resources/webhook-endpoints.ts';
import { WidgetSessions } from './resources/widget-sessions.ts';
import { Transport, type ClientOptions } from './transport.ts';
import { webhooks } from './webhooks.ts';

const KEY_PREFIX = /^[A-Za-z0-9_.:-]{0,64}$/;

export class Hostgate {
  /** Verifying deliveries needs no API key: also usable as `Hostgate.webhooks`. */
  static readonly webhooks = webhooks;

  /**
   * A random idempotency key (`<prefix>_<uuid>`) for a write that has no natural business key.
   * Generate it once per logical operation and keep it: a retry must send the same key, or the
   * API cannot recognise it as a retry and may apply the write twice.
   */
  static generateKey(prefix = 'hg'): string {
    if (!KEY_PREFIX.test(prefix)) throw new TypeError('generateKey(prefix): up to 64 of A-Z a-z 0-9 _ . : -');
    return `${prefix ? `${prefix}_` : ''}${crypto.randomUUID()}`;
  }

  readonly destinations: Destinations;
  readonly domains: Domains;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhookDeliveries: WebhookDeliveries;
  readonly widgetSessions: WidgetSessions;
  readonly usage: Usage;
  readonly billing: Billing;
  readonly analytics: Analytics;
  readonly webhooks = webhooks;

  constructor(options: ClientOptions) {
    const transport = new Transport(options);
    this.destinations = new Destinations(transport);
    this.domains = new Domains(transport);
    this.webhookEndpoints = new WebhookEndpoints(transport);
    this.webhookDeliveries = new WebhookDeliveries(transport);
    this.widgetSessions = new WidgetSessions(transport);
    this.usage = new Usage(transport);
    this.billing = new Billing(transport);
    this.analytics = new Analytics(transport);
  }
}
