// The client: `new Hostgate({ apiKey, baseUrl })`, one property per API resource.
import { Analytics } from "./resources/analytics.js";
import { Billing } from "./resources/billing.js";
import { Destinations } from "./resources/destinations.js";
import { Domains } from "./resources/domains.js";
import { Usage } from "./resources/usage.js";
import { WebhookDeliveries } from "./resources/webhook-deliveries.js";
import { WebhookEndpoints } from "./resources/webhook-endpoints.js";
import { WidgetSessions } from "./resources/widget-sessions.js";
import { Transport } from "./transport.js";
import { webhooks } from "./webhooks.js";
const KEY_PREFIX = /^[A-Za-z0-9_.:-]{0,64}$/;
export class Hostgate {
    /** Verifying deliveries needs no API key: also usable as `Hostgate.webhooks`. */
    static { this.webhooks = webhooks; }
    /**
     * A random idempotency key (`<prefix>_<uuid>`) for a write that has no natural business key.
     * Generate it once per logical operation and keep it: a retry must send the same key, or the
     * API cannot recognise it as a retry and may apply the write twice.
     */
    static generateKey(prefix = 'hg') {
        if (!KEY_PREFIX.test(prefix))
            throw new TypeError('generateKey(prefix): up to 64 of A-Z a-z 0-9 _ . : -');
        return `${prefix ? `${prefix}_` : ''}${crypto.randomUUID()}`;
    }
    constructor(options) {
        this.webhooks = webhooks;
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
