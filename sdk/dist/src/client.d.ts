import { Analytics } from './resources/analytics.ts';
import { Billing } from './resources/billing.ts';
import { Destinations } from './resources/destinations.ts';
import { Domains } from './resources/domains.ts';
import { Usage } from './resources/usage.ts';
import { WebhookDeliveries } from './resources/webhook-deliveries.ts';
import { WebhookEndpoints } from './resources/webhook-endpoints.ts';
import { WidgetSessions } from './resources/widget-sessions.ts';
import { type ClientOptions } from './transport.ts';
export declare class Hostgate {
    /** Verifying deliveries needs no API key: also usable as `Hostgate.webhooks`. */
    static readonly webhooks: {
        verify(rawBody: import("./webhooks.ts").RawBody, header: string | readonly string[] | null | undefined, secret: string | readonly string[], options?: import("./webhooks.ts").VerifyOptions): import("./webhooks.ts").WebhookEvent;
        constructEvent(rawBody: import("./webhooks.ts").RawBody, header: string | readonly string[] | null | undefined, secret: string | readonly string[], options?: import("./webhooks.ts").VerifyOptions): import("./webhooks.ts").HostgateEvent;
        signatureHeader(body: import("./webhooks.ts").RawBody, secret: string | readonly string[], timestamp?: number): string;
        computeSignature: typeof import("../webhooks.ts").computeSignature;
        SIGNATURE_HEADER: string;
        EVENT_ID_HEADER: string;
    };
    /**
     * A random idempotency key (`<prefix>_<uuid>`) for a write that has no natural business key.
     * Generate it once per logical operation and keep it: a retry must send the same key, or the
     * API cannot recognise it as a retry and may apply the write twice.
     */
    static generateKey(prefix?: string): string;
    readonly destinations: Destinations;
    readonly domains: Domains;
    readonly webhookEndpoints: WebhookEndpoints;
    readonly webhookDeliveries: WebhookDeliveries;
    readonly widgetSessions: WidgetSessions;
    readonly usage: Usage;
    readonly billing: Billing;
    readonly analytics: Analytics;
    readonly webhooks: {
        verify(rawBody: import("./webhooks.ts").RawBody, header: string | readonly string[] | null | undefined, secret: string | readonly string[], options?: import("./webhooks.ts").VerifyOptions): import("./webhooks.ts").WebhookEvent;
        constructEvent(rawBody: import("./webhooks.ts").RawBody, header: string | readonly string[] | null | undefined, secret: string | readonly string[], options?: import("./webhooks.ts").VerifyOptions): import("./webhooks.ts").HostgateEvent;
        signatureHeader(body: import("./webhooks.ts").RawBody, secret: string | readonly string[], timestamp?: number): string;
        computeSignature: typeof import("../webhooks.ts").computeSignature;
        SIGNATURE_HEADER: string;
        EVENT_ID_HEADER: string;
    };
    constructor(options: ClientOptions);
}
