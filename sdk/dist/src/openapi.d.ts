export interface paths {
    "/v1/destinations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List destinations, newest first
         * @description Lists the organization's destinations, newest first, a page at a time (`limit`, `cursor`).
         */
        get: operations["destinations.list"];
        put?: never;
        /**
         * Declare a destination (an HTTPS origin of your application)
         * @description Declares an HTTPS origin of your application (`https://host[:port]`, port 443 or 8443) that customer hostnames are served from. The host must resolve to public addresses and must not be something Hostgate serves (the edge would proxy to itself).
         */
        post: operations["destinations.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/destinations/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a destination
         * @description Reads one of the organization's destinations; another organization's id answers like a missing one.
         */
        get: operations["destinations.retrieve"];
        put?: never;
        post?: never;
        /**
         * Delete a destination no live domain points at
         * @description Deletes a destination. Refused with `409 destination_in_use` while a domain that is not deleted points at it: delete or move those first.
         */
        delete: operations["destinations.delete"];
        options?: never;
        head?: never;
        /**
         * Change a destination's URL; its domains re-route
         * @description Points the destination at another HTTPS origin (the same port, public-address and loop rules as at creation). Every domain on it is routed to the new origin within 2 s; certificates and statuses stay.
         */
        patch: operations["destinations.update"];
        trace?: never;
    };
    "/v1/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List domains, newest first
         * @description Lists the organization's domains, newest first, a page at a time; filter by status, hostname or your customer reference.
         */
        get: operations["domains.list"];
        put?: never;
        /**
         * Connect a customer hostname; returns the DNS records to set
         * @description Connects a customer hostname to one of your destinations. The domain starts in `pending_dns` with the DNS records your customer must set (`dns_records`); Hostgate then checks DNS, issues a certificate and serves the hostname (`active`), announcing each step by webhook. A hostname is connected once across the service (`409 domain_conflict`).
         */
        post: operations["domains.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a domain with its DNS records and verification state
         * @description Reads a domain: its status, the DNS records to set, what the last DNS check found, the ownership and certificate tracks, and the bytes the edge carried for it this period.
         */
        get: operations["domains.retrieve"];
        put?: never;
        post?: never;
        /**
         * Delete a domain
         * @description Deletes a domain: it stops being served, its certificate is removed, and it becomes `deleted` once cleaned up. Deleting a domain already `deleting` or `deleted` answers the same.
         */
        delete: operations["domains.delete"];
        options?: never;
        head?: never;
        /**
         * Change a domain: destination, metadata, redirect, customer reference, TLS settings
         * @description Changes any of: `destination_id` (the edge routes to the new origin within 2 s; the certificate stays, the status too), `metadata` (replaced; null clears), `redirect` (the edge answers with it; null removes it), `external_customer_id`, `tls` (`min_version`, `hsts`). Fields left out stay. Announced by a `hostname.updated` event naming the fields that changed. A domain `deleting` or `deleted` answers `409 domain_deleted`; an empty body `400`.
         */
        patch: operations["domains.update"];
        trace?: never;
    };
    "/v1/domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Check DNS now instead of waiting for the next scheduled check
         * @description Asks for an immediate DNS check (the scheduled ones back off up to an hour): call it when your customer says they set the records. The answer is the domain as it is; read it again, or wait for the `hostname.verified` webhook, for the check's outcome.
         */
        post: operations["domains.verify"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}/certificate": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        /**
         * Serve the domain with your own certificate instead of a managed one
         * @description Puts your own certificate (PEM chain and unencrypted private key) in place for the domain. It must name the hostname in its subjectAltName (a wildcard covers one label), be within its validity, chain to a public root or to a CA the operator configured, and have an RSA key of 2048 bits or more or an EC P-256/P-384 key; each refusal has its own `422` code. The key is stored encrypted. The edge serves it within about 2 s (on a domain in `pending_certificate`, the domain then goes `active`), and Hostgate orders no certificate for the domain while it is in place. `certificate.source` reads `custom`; `certificate.renews_at` is when, if the domain's DNS points at Hostgate, a managed certificate is ordered to replace it before it lapses (3 days before `not_after`): put a renewed one before then to keep yours. `hostname.certificate_expiring` goes out 14 and 3 days before it expires. A second PUT replaces the first.
         */
        put: operations["domains.putCertificate"];
        post?: never;
        /**
         * Stop serving your own certificate: back to managed certificates
         * @description Takes your own certificate out of place: Hostgate orders a managed certificate for the domain (it needs the domain's DNS to point at Hostgate) and serves it once stored. Until then your certificate, if still valid, stays served (`certificate.source` reads `custom` meanwhile). A domain with none in place answers the same, unchanged.
         */
        delete: operations["domains.deleteCertificate"];
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook endpoints, newest first
         * @description Lists the organization's webhook endpoints (without their secrets), newest first, a page at a time.
         */
        get: operations["webhookEndpoints.list"];
        put?: never;
        /**
         * Create a webhook endpoint; the response carries its signing secret, shown only this once
         * @description Creates an endpoint that receives the events of the kinds in `events` (default every kind). Deliveries are signed with the secret in this response (`Service-Signature`), which is never shown again. The URL must be https and its host public; every delivery checks the address it connects to again.
         */
        post: operations["webhookEndpoints.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a webhook endpoint (without its secret)
         * @description Reads a webhook endpoint: URL, subscribed kinds, whether it is enabled and why not. The secret is never shown again after creation or rotation.
         */
        get: operations["webhookEndpoints.retrieve"];
        put?: never;
        post?: never;
        /**
         * Delete a webhook endpoint; it receives no further deliveries
         * @description Deletes an endpoint: its pending deliveries fail at their next attempt without sending, and its delivery log stays readable.
         */
        delete: operations["webhookEndpoints.delete"];
        options?: never;
        head?: never;
        /**
         * Update a webhook endpoint: url, events, enabled, description (at least one)
         * @description Changes an endpoint. `enabled: false` pauses deliveries (pending ones fail at their next attempt) and `true` resumes them; narrowing `events` cancels the endpoint's pending deliveries of the kinds dropped (`failed`, with `last_error` saying so).
         */
        patch: operations["webhookEndpoints.update"];
        trace?: never;
    };
    "/v1/webhook-endpoints/{id}/rotate-secret": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Replace the signing secret; the previous one keeps signing beside it for 24 h
         * @description Makes a new signing secret, shown only in this answer. For 24 h deliveries carry two `v1=` signatures (new and previous secret), so you can switch your receiver over without missing one.
         */
        post: operations["webhookEndpoints.rotateSecret"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List webhook deliveries, newest first; filter by endpoint_id and status
         * @description Lists the deliveries of every event to every endpoint of the organization, newest first, a page at a time.
         */
        get: operations["webhookDeliveries.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read a webhook delivery: status, attempt count, last response code and error, next attempt
         * @description Reads a delivery: `pending` while attempts remain (`attempting: true` while one is out, else `next_attempt_at` says when the next is due), then `succeeded` or `failed` with the last response code and error.
         */
        get: operations["webhookDeliveries.retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries/{id}/attempts": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the attempts of a webhook delivery, newest first: time, duration, response code, first 1 KiB of the response body
         * @description Lists every HTTP request made for a delivery, newest first, numbered over the delivery's life (a retry request does not start again at 1).
         */
        get: operations["webhookDeliveries.listAttempts"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhook-deliveries/{id}/retry": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Retry a delivery now
         * @description Resets the delivery to `pending` with `attempt_count` 0 and makes a new attempt at once, also on a failed or succeeded one (sent again). A failing retry follows the schedule again from 5 s. Refused while the endpoint is disabled or deleted.
         */
        post: operations["webhookDeliveries.retry"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widget-sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Create a widget session: a token for <service-widget>, valid 1800 s
         * @description Mints the short-lived token your page hands to <service-widget> (the API key never reaches the browser). The token works for 1800 s from the allowed origins only, for one customer (`external_customer_id`), and the domains it creates point at the session's destination (omitted: the organization's only destination; with none or several, `422 destination_required`).
         */
        post: operations["widgetSessions.create"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widget/domains": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browser: the domains the widget created for this session's customer
         * @description The domains the widget created for this session's customer (through any of its sessions), newest first, deleted ones left out: a reloaded page resumes with them.
         */
        get: operations["widget.listDomains"];
        put?: never;
        /**
         * Browser: connect a hostname for the session's customer; returns the DNS records to set
         * @description Connects the hostname the customer typed to the session's destination. A hostname the customer already started through the widget answers `200` with that domain instead of a conflict.
         */
        post: operations["widget.createDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widget/domains/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Browser: read a domain of this session
         * @description Reads one of the customer's widget domains: status, DNS records, verification. The element polls it every 10 s until a final status.
         */
        get: operations["widget.retrieveDomain"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widget/domains/{id}/verify": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Browser: check DNS now instead of waiting for the next scheduled check
         * @description The customer's "I have set the records": asks for an immediate DNS check of one of the customer's widget domains.
         */
        post: operations["widget.verifyDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/widget/domains/{id}/handover": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Browser: move a domain to this session from an expired one of the same customer
         * @description Moves a domain from the session that created it (its token, expired less than 24 h ago) to this session of the same customer, so a new token resumes where the old one stopped. Kept for elements already deployed: a session now sees every widget domain of its customer.
         */
        post: operations["widget.handoverDomain"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/usage": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Usage of the current period: hostnames (active, peak, overage), bandwidth, plan and billing status
         * @description The organization's usage of the current period: hostnames in use now and the period's peak (the basis of the overage), the estimated overage, the bandwidth the edge measured, the plan and the billing status.
         */
        get: operations["usage.retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/domains/{id}/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * A domain's traffic: requests, status classes, bytes and origin-time percentiles per minute, hour or day
         * @description Traffic the edge served for this domain over [from, to), summed over every edge, as totals and a series of buckets (buckets without traffic are absent). Ranges: minute ≤ 48 h, hour ≤ 31 days, day ≤ 400 days. Counted from the request log, which may lose lines under overload; billing bytes come from exact counters (docs/analytics.md).
         */
        get: operations["domains.analytics"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/analytics": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * The organization's traffic totals and its top hostnames
         * @description Traffic over [from, to) of every domain of the organization, summed over every edge, and its hostnames ordered by requests, errors or bytes (a page of `limit`; `next_cursor` continues). Ranges as for a domain's analytics.
         */
        get: operations["analytics.retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/checkout-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Start a subscription: returns the payment page's URL
         * @description Opens a payment page for a plan; send the payer's browser to its `url`. Not idempotent by contract: every call opens a new page (and expires the organization's earlier open ones). Refused while a subscription is live (`409 subscription_exists`).
         */
        post: operations["billing.createCheckoutSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/portal-session": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Open the customer portal: invoices, payment method, plan, cancellation
         * @description Opens the payment provider's customer portal for the organization's subscription; send the payer's browser to its `url`. The body may be omitted.
         */
        post: operations["billing.createPortalSession"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/plan": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * Change the plan (prorated by the provider); answers the usage with the new plan
         * @description Moves the live subscription to another plan at once, prorated by the payment provider. The same plan answers `409 plan_unchanged`.
         */
        post: operations["billing.changePlan"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/invoices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * List the invoices of closed periods, newest period first
         * @description Lists the usage invoices of closed periods, newest period first: peak, included and overage hostnames, items and totals.
         */
        get: operations["billing.invoices.list"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/billing/invoices/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /**
         * Read an invoice of a closed period with its items
         * @description Reads one usage invoice of a closed period; another organization's id answers like a missing one.
         */
        get: operations["billing.invoices.retrieve"];
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface webhooks {
    "hostname.created": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.created: A domain was created (status `pending_dns`).
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameCreated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.verified": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.verified: The domain's DNS is correct (status `pending_certificate`).
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameVerified"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.active": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.active: The certificate is issued and the domain is served (status `active`).
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameActive"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.failed: The domain failed (DNS never became correct in time, or issuance failed).
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.suspended": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.suspended: The domain was suspended and is no longer served.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameSuspended"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.deleting": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.deleting: The domain is being deleted.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameDeleting"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.deleted": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.deleted: The domain was deleted.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameDeleted"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.dns_broken": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.dns_broken: The domain's DNS records stopped pointing at the service while it was active.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameDnsBroken"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.updated": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.updated: The domain was changed through PATCH /v1/domains/{id} (destination, metadata, redirect, customer reference or TLS settings); `data.changes` names the fields that changed.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameUpdated"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.certificate_renewed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.certificate_renewed: The domain's certificate was renewed; `data.certificate` is the new one.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameCertificateRenewed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.certificate_expiring": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.certificate_expiring: The certificate served for the domain expires in `data.days_left` days (14, then 3) and has not been replaced.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameCertificateExpiring"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "hostname.certificate_failed": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /**
         * hostname.certificate_failed: Renewing the domain's certificate still fails with a third of its life or less left; `data.problem` says why.
         * @description Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body. `Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string). Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`). Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches. Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body's `id`, the same on every attempt and retry). Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.
         */
        post: operations["webhooks.hostnameCertificateFailed"];
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export interface components {
    schemas: {
        /** @description Traffic of one domain in one bucket, summed over every edge */
        AnalyticsBucket: {
            /**
             * Format: date-time
             * @description Start of the bucket (UTC, aligned to its interval)
             */
            start: string;
            /** @description Requests answered or ended in the bucket (one HAProxy log line each) */
            requests: number;
            /** @description Answers with a 2xx status */
            status_2xx: number;
            /** @description Answers with a 3xx status */
            status_3xx: number;
            /** @description Answers with a 4xx status */
            status_4xx: number;
            /** @description Answers with a 5xx status */
            status_5xx: number;
            /** @description Answers the edge made itself, without an answer from the origin (502 origin unreachable, 503 suspended, 504 timeout, 508 loop); also counted in their status class */
            edge_answers: number;
            /** @description Requests that ended without an answer (the client went away first) */
            no_answer: number;
            /** @description HTTP bytes received from clients, headers included */
            bytes_in: number;
            /** @description HTTP bytes sent to clients, headers included */
            bytes_out: number;
            /** @description Requests over HTTP/1.x */
            http1: number;
            /** @description Requests over HTTP/2 */
            http2: number;
            /** @description Requests over TLS 1.2 */
            tls12: number;
            /** @description Requests over TLS 1.3 */
            tls13: number;
            /** @description Median time until the origin's response headers, in ms (null: no origin answer in the bucket) */
            origin_ms_p50: number | null;
            /** @description 95th percentile of the origin time, in ms */
            origin_ms_p95: number | null;
            /** @description 99th percentile of the origin time, in ms */
            origin_ms_p99: number | null;
            /** @description Mean time from the request's first byte to the answer's last, in ms */
            total_ms_mean: number | null;
        };
        /**
         * @description Bucket width: minute (range ≤ 48 h, kept 48 h), hour (range ≤ 31 days), day (range ≤ 400 days; hours and days kept 400 days)
         * @enum {string}
         */
        AnalyticsInterval: "minute" | "hour" | "day";
        /**
         * @description requests, errors (4xx + 5xx) or bytes (in + out), descending
         * @enum {string}
         */
        AnalyticsSort: "requests" | "errors" | "bytes";
        /** @description Traffic counters summed over a range (and over every edge) */
        AnalyticsTotals: {
            /** @description Requests answered or ended in the bucket (one HAProxy log line each) */
            requests: number;
            /** @description Answers with a 2xx status */
            status_2xx: number;
            /** @description Answers with a 3xx status */
            status_3xx: number;
            /** @description Answers with a 4xx status */
            status_4xx: number;
            /** @description Answers with a 5xx status */
            status_5xx: number;
            /** @description Answers the edge made itself, without an answer from the origin (502 origin unreachable, 503 suspended, 504 timeout, 508 loop); also counted in their status class */
            edge_answers: number;
            /** @description Requests that ended without an answer (the client went away first) */
            no_answer: number;
            /** @description HTTP bytes received from clients, headers included */
            bytes_in: number;
            /** @description HTTP bytes sent to clients, headers included */
            bytes_out: number;
            /** @description Requests over HTTP/1.x */
            http1: number;
            /** @description Requests over HTTP/2 */
            http2: number;
            /** @description Requests over TLS 1.2 */
            tls12: number;
            /** @description Requests over TLS 1.3 */
            tls13: number;
            /** @description Median time until the origin's response headers, in ms (null: no origin answer in the bucket) */
            origin_ms_p50: number | null;
            /** @description 95th percentile of the origin time, in ms */
            origin_ms_p95: number | null;
            /** @description 99th percentile of the origin time, in ms */
            origin_ms_p99: number | null;
            /** @description Mean time from the request's first byte to the answer's last, in ms */
            total_ms_mean: number | null;
        };
        /** @description A payment provider page (checkout or customer portal) to send the payer to */
        BillingSession: {
            /** @description The payment provider's session id (cs_… / ps_…; cs_local_… with the built-in provider) */
            id: string;
            /** @description Send the payer's browser here */
            url: string;
        };
        BillingSessionResponse: {
            data: components["schemas"]["BillingSession"];
        };
        /**
         * @description inactive (no subscription yet), active, past_due, canceled
         * @enum {string}
         */
        BillingStatus: "inactive" | "active" | "past_due" | "canceled";
        /**
         * @description How the certificate authority validates: dns-01 through the delegated _acme-challenge CNAME (before DNS is switched), http-01 once DNS points at us
         * @enum {string}
         */
        CertificateMethod: "dns-01" | "http-01";
        /**
         * @description managed: ordered by Hostgate over ACME; custom: your own, uploaded
         * @enum {string}
         */
        CertificateSource: "managed" | "custom";
        /**
         * @description none → pending_validation → issued → deployed (served by the edge); blocked: no order can be placed while `problem` holds (delegation CNAME or CAA)
         * @enum {string}
         */
        CertificateStatus: "none" | "blocked" | "pending_validation" | "issued" | "deployed";
        /** @description Certificate track, independent of `status`, with the facts of the newest certificate */
        CertificateTrack: {
            status: components["schemas"]["CertificateStatus"];
            /** @description How the certificate is validated; null before anything started, and while your own certificate (`source: custom`) is served */
            method: components["schemas"]["CertificateMethod"] | null;
            /** @description What blocks this track; null when nothing does */
            problem: components["schemas"]["TrackProblem"] | null;
            /** @description When the track last changed; null before */
            updated_at: string | null;
            /** @description Start of the newest certificate's validity; null while the domain has none */
            not_before: string | null;
            /** @description End of the newest certificate's validity; null while the domain has none */
            not_after: string | null;
            /** @description Its serial number (lowercase hex); null while the domain has none */
            serial: string | null;
            /** @description The issuing CA's distinguished name; null while the domain has none */
            issuer: string | null;
            /** @description Where it comes from; null while the domain has none */
            source: components["schemas"]["CertificateSource"] | null;
            /** @description When its renewal is due (two thirds of its lifetime; docs/api-decisions.md, "Certificate lifecycle"). For your own certificate (`source: custom`): when a managed certificate is ordered to replace it if the domain's DNS points at Hostgate (3 days before `not_after`; PUT /v1/domains/{id}/certificate). Null while the domain has none */
            renews_at: string | null;
        };
        /** @description An HTTPS origin of your application that customer hostnames are served from */
        Destination: {
            /** @description Identifier (dst_…) */
            id: string;
            /** @description HTTPS origin of your application, e.g. https://app.example.com */
            url: string;
            /** @description The host of `url`, lowercase (punycode for IDNs) */
            host: string;
            /**
             * @description Effective port: 443 (default) or 8443
             * @enum {integer}
             */
            port: 443 | 8443;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
        };
        DestinationList: {
            /** @description This page, newest first */
            data: components["schemas"]["Destination"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        DestinationResponse: {
            data: components["schemas"]["Destination"];
        };
        /** @description A DNS record your customer sets (or that a check found) */
        DnsRecord: {
            type: components["schemas"]["DnsRecordType"];
            /** @description The hostname to set the record on */
            name: string;
            /** @description The record target */
            value: string;
        };
        /**
         * @description CNAME, A, AAAA, or TXT (the ownership record of a zero-downtime move)
         * @enum {string}
         */
        DnsRecordType: "CNAME" | "A" | "AAAA" | "TXT";
        /** @description A customer hostname connected to one of your destinations */
        Domain: {
            /** @description Identifier (dom_…) */
            id: string;
            /** @description Lowercase, punycode for IDNs; `*.<name>` for a wildcard */
            hostname: string;
            /** @description The destination (dst_…) the hostname is served from */
            destination_id: string;
            status: components["schemas"]["DomainStatus"];
            /** @description What your customer sets: the hostname's records first, then (zero-downtime moves) the ownership TXT and the delegation CNAME */
            dns_records: components["schemas"]["DnsRecord"][];
            verification: components["schemas"]["Verification"];
            ownership: components["schemas"]["OwnershipTrack"];
            certificate: components["schemas"]["CertificateTrack"];
            /** @description Your reference for the customer, as given at creation or last PATCH */
            external_customer_id: string | null;
            /** @description Your annotations of the domain; null when none are set */
            metadata: components["schemas"]["DomainMetadata"] | null;
            /** @description The redirect the edge answers with; null: requests are proxied to the destination */
            redirect: components["schemas"]["DomainRedirect"] | null;
            tls: components["schemas"]["DomainTls"];
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
        };
        /** @description A domain's traffic over a range: totals and a series of buckets */
        DomainAnalytics: {
            /** @description The domain */
            domain_id: string;
            /** @description Its hostname */
            hostname: string;
            /**
             * Format: date-time
             * @description Start of the range (the `from` asked, inclusive, aligned down to the interval)
             */
            start: string;
            /**
             * Format: date-time
             * @description End of the range (the `to` asked, exclusive, aligned up to the interval)
             */
            end: string;
            interval: components["schemas"]["AnalyticsInterval"];
            totals: components["schemas"]["AnalyticsTotals"];
            /** @description Buckets with traffic, oldest first (a bucket without traffic is absent) */
            buckets: components["schemas"]["AnalyticsBucket"][];
        };
        DomainAnalyticsResponse: {
            data: components["schemas"]["DomainAnalytics"];
        };
        /** @description The organization's current usage period (GET /v1/usage); measured every minute by the edge, reported, never billed */
        DomainBandwidth: {
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            period_start: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            period_end: string;
            /** @description HTTP bytes received from clients (request line, headers, body), as the edge counts them */
            bytes_in: number;
            /** @description HTTP bytes sent to clients (status line, headers, body) */
            bytes_out: number;
            /** @description bytes_in + bytes_out: what GET /v1/usage sums as bandwidth_bytes */
            bytes: number;
        };
        /**
         * @description A field PATCH /v1/domains/{id} changed
         * @enum {string}
         */
        DomainChangedField: "destination_id" | "metadata" | "redirect" | "external_customer_id" | "tls";
        DomainCreatedResponse: {
            data: components["schemas"]["Domain"];
            also_connected?: components["schemas"]["Domain"];
        };
        /** @description A domain with the bytes the edge carried for it this period */
        DomainDetail: {
            /** @description Identifier (dom_…) */
            id: string;
            /** @description Lowercase, punycode for IDNs; `*.<name>` for a wildcard */
            hostname: string;
            /** @description The destination (dst_…) the hostname is served from */
            destination_id: string;
            status: components["schemas"]["DomainStatus"];
            /** @description What your customer sets: the hostname's records first, then (zero-downtime moves) the ownership TXT and the delegation CNAME */
            dns_records: components["schemas"]["DnsRecord"][];
            verification: components["schemas"]["Verification"];
            ownership: components["schemas"]["OwnershipTrack"];
            certificate: components["schemas"]["CertificateTrack"];
            /** @description Your reference for the customer, as given at creation or last PATCH */
            external_customer_id: string | null;
            /** @description Your annotations of the domain; null when none are set */
            metadata: components["schemas"]["DomainMetadata"] | null;
            /** @description The redirect the edge answers with; null: requests are proxied to the destination */
            redirect: components["schemas"]["DomainRedirect"] | null;
            tls: components["schemas"]["DomainTls"];
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
            bandwidth: components["schemas"]["DomainBandwidth"];
        };
        DomainDetailResponse: {
            data: components["schemas"]["DomainDetail"];
        };
        /** @description The Strict-Transport-Security header the edge sends for this hostname */
        DomainHsts: {
            /** @description Seconds browsers remember to use HTTPS only (at most two years) */
            max_age: number;
            /** @description Adds includeSubDomains */
            include_subdomains: boolean;
            /** @description Adds preload (needs include_subdomains and max_age ≥ 31536000) */
            preload: boolean;
        };
        DomainList: {
            /** @description This page, newest first */
            data: components["schemas"]["Domain"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        /** @description Your key/value annotations of the domain: string values, at most 50 keys of ≤ 40 characters, values ≤ 500 characters, ≤ 4 KB as JSON. Shown on server API reads and in webhook events, never to the widget (keep private values here only if your customer must not see them anywhere else either). */
        DomainMetadata: {
            [key: string]: string;
        };
        /** @description The edge answers the hostname with this redirect itself (over TLS with the hostname's own certificate) instead of proxying to the destination */
        DomainRedirect: {
            /** @description An https URL, or another hostname of your organization (e.g. the apex for `www.`): the edge answers every request with a redirect there */
            to: string;
            /** @description The redirect status: 301, 302, 307 or 308 */
            status: 301 | 302 | 307 | 308;
            /** @description Append the request path and query to `to` */
            preserve_path: boolean;
        };
        DomainResponse: {
            data: components["schemas"]["Domain"];
        };
        /**
         * @description pending_dns → pending_certificate → active; suspended; deleting → deleted; failed
         * @enum {string}
         */
        DomainStatus: "pending_dns" | "pending_certificate" | "active" | "suspended" | "deleting" | "deleted" | "failed";
        /** @description Per-hostname TLS settings */
        DomainTls: {
            /** @description The lowest TLS version the edge accepts for this hostname: "1.2" (default) or "1.3" */
            min_version: "1.2" | "1.3";
            /** @description Strict-Transport-Security for this hostname; null (default): none */
            hsts: components["schemas"]["DomainHsts"] | null;
        };
        /** @description Error envelope returned with every non-2xx status. */
        Error: {
            error: components["schemas"]["ErrorObject"];
        };
        /** @description What went wrong. */
        ErrorObject: {
            /** @description Stable machine-readable code; branch on this. */
            code: string;
            /** @description Human-readable explanation, safe to show. */
            message: string;
            /** @description The X-Request-Id of the request (yours when sane, else generated). */
            request_id: string;
            /** @description The request field the error is about. */
            param?: string;
            /** @description Facts about this error, by code (e.g. `reason` of a refused hostname, `cause` of a widget error). */
            details?: {
                [key: string]: unknown;
            };
        };
        /**
         * @description The kind of a webhook event (docs/api-decisions.md, "Webhooks")
         * @enum {string}
         */
        EventKind: "hostname.created" | "hostname.verified" | "hostname.active" | "hostname.failed" | "hostname.suspended" | "hostname.deleting" | "hostname.deleted" | "hostname.dns_broken" | "hostname.updated" | "hostname.certificate_renewed" | "hostname.certificate_expiring" | "hostname.certificate_failed";
        /** @description The certificate is issued and the domain is served (status `active`). */
        HostnameActiveEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.active";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The certificate served for the domain expires in `data.days_left` days (14, then 3) and has not been replaced. */
        HostnameCertificateExpiringEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.certificate_expiring";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookCertificateEventData"];
        };
        /** @description Renewing the domain's certificate still fails with a third of its life or less left; `data.problem` says why. */
        HostnameCertificateFailedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.certificate_failed";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookCertificateEventData"];
        };
        /** @description The domain's certificate was renewed; `data.certificate` is the new one. */
        HostnameCertificateRenewedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.certificate_renewed";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookCertificateEventData"];
        };
        /** @description A domain was created (status `pending_dns`). */
        HostnameCreatedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.created";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain was deleted. */
        HostnameDeletedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.deleted";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain is being deleted. */
        HostnameDeletingEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.deleting";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain's DNS records stopped pointing at the service while it was active. */
        HostnameDnsBrokenEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.dns_broken";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain failed (DNS never became correct in time, or issuance failed). */
        HostnameFailedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.failed";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain was suspended and is no longer served. */
        HostnameSuspendedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.suspended";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain was changed through PATCH /v1/domains/{id} (destination, metadata, redirect, customer reference or TLS settings); `data.changes` names the fields that changed. */
        HostnameUpdatedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.updated";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The domain's DNS is correct (status `pending_certificate`). */
        HostnameVerifiedEvent: {
            /** @description Event id (`evt_…`), stable across retries */
            id: string;
            /**
             * @description The event kind
             * @constant
             */
            event: "hostname.verified";
            /**
             * Format: date-time
             * @description When the event happened (not when it was sent)
             */
            created_at: string;
            data: components["schemas"]["WebhookEventData"];
        };
        /** @description The usage invoice of one closed period */
        Invoice: {
            /** @description Identifier (inv_…) */
            id: string;
            /**
             * Format: date-time
             * @description Start of the billed period
             */
            period_start: string;
            /**
             * Format: date-time
             * @description End of the billed period (exclusive)
             */
            period_end: string;
            plan: components["schemas"]["Plan"];
            /** @description Highest number of counted hostnames in the period */
            peak_hostnames: number;
            /** @description Hostnames included in the plan */
            included_hostnames: number;
            /** @description peak_hostnames above included_hostnames: the quantity of the overage item */
            overage_hostnames: number;
            /** @description Euro cents per overage hostname (15) */
            unit_amount_cents: number;
            /** @description Sum of the items, in euro cents */
            total_cents: number;
            /**
             * @description Always eur
             * @constant
             */
            currency: "eur";
            /** @description With Stripe: the id of Stripe's renewal invoice the overage went on (in_…); null with the built-in provider, or before Stripe opened it */
            provider_invoice_id: string | null;
            /** @description The billed items (v1: the overage of the period) */
            items: components["schemas"]["InvoiceItem"][];
            /**
             * Format: date-time
             * @description When the period was closed and invoiced
             */
            created_at: string;
        };
        /** @description One line of an invoice */
        InvoiceItem: {
            /**
             * @description What the item bills; v1 has one kind: the hostnames of the period's peak above the plan's included count
             * @constant
             */
            kind: "overage_hostnames";
            /** @description Hostnames billed (0 when the peak stayed within the plan) */
            quantity: number;
            /** @description Euro cents per hostname (15) */
            unit_amount_cents: number;
            /** @description quantity × unit_amount_cents */
            amount_cents: number;
            /** @description Human-readable line, as shown on the invoice */
            description: string;
        };
        InvoiceList: {
            /** @description This page, newest first */
            data: components["schemas"]["Invoice"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        InvoiceResponse: {
            data: components["schemas"]["Invoice"];
        };
        /** @description The organization's traffic over a range: totals and its top hostnames */
        OrganizationAnalytics: {
            /**
             * Format: date-time
             * @description Start of the range (the `from` asked, inclusive, aligned down to the interval)
             */
            start: string;
            /**
             * Format: date-time
             * @description End of the range (the `to` asked, exclusive, aligned up to the interval)
             */
            end: string;
            interval: components["schemas"]["AnalyticsInterval"];
            sort: components["schemas"]["AnalyticsSort"];
            totals: components["schemas"]["AnalyticsTotals"];
            /** @description This page of the hostnames with traffic, by `sort` descending (ties by domain id) */
            top: components["schemas"]["TopHostname"][];
            /** @description True when another page of the top list follows */
            has_more: boolean;
            /** @description Pass as `cursor` (with the same from, to, interval and sort) for the next page; null on the last page. */
            next_cursor: string | null;
        };
        OrganizationAnalyticsResponse: {
            data: components["schemas"]["OrganizationAnalytics"];
        };
        /**
         * @description dns_txt: the TXT record; dns_target: the hostname points at us
         * @enum {string}
         */
        OwnershipMethod: "dns_txt" | "dns_target";
        /**
         * @description verified: the TXT record holds the token, or DNS points at us; not_required: zero-downtime moves are off on this service (point DNS at us directly)
         * @enum {string}
         */
        OwnershipStatus: "pending" | "verified" | "not_required";
        /** @description Ownership track of a zero-downtime move, independent of `status` */
        OwnershipTrack: {
            status: components["schemas"]["OwnershipStatus"];
            /** @description How ownership is shown; null when it need not be */
            method: components["schemas"]["OwnershipMethod"] | null;
            /** @description The TXT record that proves ownership before DNS is switched (also in dns_records) */
            record: components["schemas"]["DnsRecord"] | null;
            /** @description When the TXT record was last checked; null before */
            checked_at: string | null;
            /** @description When the TXT record was found holding the token; null otherwise */
            verified_at: string | null;
            /** @description What blocks this track; null when nothing does */
            problem: components["schemas"]["TrackProblem"] | null;
        };
        /**
         * @description starter (10 hostnames, 50 GB), growth (100, 500 GB), scale (1000, 5000 GB)
         * @enum {string}
         */
        Plan: "starter" | "growth" | "scale";
        /** @description A webhook endpoint with its new signing secret (shown only once) */
        RotatedWebhookEndpoint: {
            /** @description Identifier (whe_…) */
            id: string;
            /** @description HTTPS URL deliveries are POSTed to */
            url: string;
            /** @description Your note about the endpoint; null when none */
            description: string | null;
            /** @description Subscribed event kinds: ["*"] (every event) or a list of `hostname.created`, `hostname.verified`, `hostname.active`, `hostname.failed`, `hostname.suspended`, `hostname.deleting`, `hostname.deleted`, `hostname.dns_broken`, `hostname.updated`, `hostname.certificate_renewed`, `hostname.certificate_expiring`, `hostname.certificate_failed` */
            events: components["schemas"]["SubscribedEvent"][];
            /** @description False: no deliveries are made */
            enabled: boolean;
            /** @description Why the endpoint is disabled: `manual` (PATCH enabled=false) or set by delivery (e.g. `gone`: the endpoint answered 410 Gone); null when enabled */
            disabled_reason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
            /** @description Signing secret (whsec_…). Shown only in this response: store it now. */
            secret: string;
            /** @description Until then deliveries carry a second `v1=` signature made with the previous secret */
            previous_secret_expires_at: string | null;
        };
        RotatedWebhookEndpointResponse: {
            data: components["schemas"]["RotatedWebhookEndpoint"];
        };
        /**
         * @description An event kind, or `*` for every kind (alone)
         * @enum {string}
         */
        SubscribedEvent: "hostname.created" | "hostname.verified" | "hostname.active" | "hostname.failed" | "hostname.suspended" | "hostname.deleting" | "hostname.deleted" | "hostname.dns_broken" | "hostname.updated" | "hostname.certificate_renewed" | "hostname.certificate_expiring" | "hostname.certificate_failed" | "*";
        /** @description One hostname of the top list */
        TopHostname: {
            /** @description The domain */
            domain_id: string;
            /** @description Its hostname */
            hostname: string;
            /** @description Requests in the range */
            requests: number;
            /** @description 4xx and 5xx answers in the range */
            errors: number;
            /** @description Bytes in and out in the range */
            bytes: number;
            /** @description 4xx answers */
            status_4xx: number;
            /** @description 5xx answers */
            status_5xx: number;
            /** @description Bytes received from clients */
            bytes_in: number;
            /** @description Bytes sent to clients */
            bytes_out: number;
        };
        /** @description What blocks a track of a zero-downtime move */
        TrackProblem: {
            /** @description Stable code (docs/zero-downtime-moves.md): ownership_txt_missing, ownership_txt_mismatch, delegation_cname_missing, caa_forbids_ca, challenge_failed, pending_validations_limit, certificate_orders_limit, … */
            code: string;
            /** @description What to do about it, in words for your customer */
            message: string;
        };
        /** @description The organization's usage of the current period, its plan and billing status */
        Usage: {
            plan: components["schemas"]["Plan"];
            billing_status: components["schemas"]["BillingStatus"];
            /**
             * Format: date-time
             * @description Start of the current period (the subscription's, else the calendar month, UTC)
             */
            period_start: string;
            /**
             * Format: date-time
             * @description End of the current period (exclusive)
             */
            period_end: string;
            /** @description Hostnames in use now: pending_dns, pending_certificate and active (not suspended, deleting, deleted or failed) */
            active_hostnames: number;
            /** @description Highest active_hostnames reached in the period; basis of the overage */
            peak_hostnames: number;
            /** @description Hostnames included in the plan */
            included_hostnames: number;
            /** @description peak_hostnames above included_hostnames */
            overage_hostnames: number;
            /** @description overage_hostnames × 15 euro cents */
            estimated_overage_cents: number;
            /** @description Bytes served in the period (in + out), measured by the edge; reported, never billed */
            bandwidth_bytes: number;
            /** @description bandwidth_bytes in GB (10^9 bytes) */
            bandwidth_gb: number;
            /** @description Bandwidth included in the plan, in GB */
            included_bandwidth_gb: number;
        };
        UsageResponse: {
            data: components["schemas"]["Usage"];
        };
        /** @description What the last DNS check found and what is expected */
        Verification: {
            /** @description When DNS was last checked; null before the first check */
            checked_at: string | null;
            expected: components["schemas"]["DnsRecord"][];
            /** @description What the check found; null before the first check */
            found: components["schemas"]["DnsRecord"][] | null;
            /** @description What blocks progress; null when nothing does */
            problem: components["schemas"]["VerificationProblem"] | null;
            /** @description When a check was last asked for (POST …/verify); null if never */
            verify_requested_at: string | null;
            /** @description True while an active domain's DNS no longer points at the service (it keeps serving; a hostname.dns_broken event was sent when it started); false otherwise */
            dns_broken: boolean;
        };
        /** @description What blocks a domain's progress */
        VerificationProblem: {
            /** @description wrong_target, conflicting_records, caa_forbids_ca, nxdomain, no_records, proxied_by_cdn, certificate_refused, … */
            code: string;
            /** @description What to do about it, in words for your customer */
            message: string;
        };
        /** @description One HTTP request of a delivery and what came back */
        WebhookAttempt: {
            /** @description Identifier (wha_…) */
            id: string;
            /** @description The attempt's number in the delivery's life: 1, 2, …, continuing across retry requests (a retry's first attempt follows the last one) */
            attempt_number: number;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            started_at: string;
            /** @description From the start of the request to the answer (or the failure) */
            duration_ms: number;
            /** @description HTTP status; null when no answer came */
            response_code: number | null;
            /** @description The first 1 KiB of the response body, as text */
            response_body: string | null;
            /** @description Why the attempt got no usable answer (timeout, connection error, refused target, redirect); null otherwise */
            error: string | null;
        };
        WebhookAttemptList: {
            /** @description This page, newest first */
            data: components["schemas"]["WebhookAttempt"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        /** @description The domain a certificate event is about, with the certificate */
        WebhookCertificateEventData: {
            /** @description The domain (`dom_…`) */
            id: string;
            /** @description The hostname (lowercase, punycode for IDNs) */
            hostname: string;
            /** @description The domain's status when the event happened */
            status: components["schemas"]["DomainStatus"];
            /** @description Its destination (`dst_…`) */
            destination_id: string;
            /** @description Your reference for the customer, as given at the domain's creation or last PATCH */
            external_customer_id: string | null;
            /** @description Your metadata of the domain when the event happened; null when none is set */
            metadata: components["schemas"]["DomainMetadata"] | null;
            /** @description `hostname.updated` only: the fields that changed */
            changes?: components["schemas"]["DomainChangedField"][];
            certificate: components["schemas"]["WebhookCertificateFacts"];
            /** @description `hostname.certificate_expiring` only: 14 or 3 */
            days_left?: number;
            /** @description `hostname.certificate_failed` only: why the renewal fails */
            problem?: {
                /** @description Stable code of the last refusal (e.g. challenge_failed, certificate_order_limit) */
                code: string;
                /** @description What happened and what to do */
                message: string;
            };
        };
        /** @description The certificate a certificate event is about */
        WebhookCertificateFacts: {
            /** @description Serial number (lowercase hex) */
            serial: string;
            /** @description The issuing CA's distinguished name */
            issuer: string;
            /**
             * @description `managed`: ordered by us over ACME; `custom`: uploaded by you
             * @enum {string}
             */
            source: "managed" | "custom";
            /**
             * Format: date-time
             * @description Start of validity
             */
            not_before: string;
            /**
             * Format: date-time
             * @description End of validity
             */
            not_after: string;
            /**
             * Format: date-time
             * @description When renewal is due (two thirds of the lifetime)
             */
            renews_at: string;
        };
        /** @description One event sent to one webhook endpoint */
        WebhookDelivery: {
            /** @description Identifier (whd_…) */
            id: string;
            /** @description The webhook endpoint (whe_…) delivered to */
            endpoint_id: string;
            /** @description The event (evt_…); the `id` of the delivered body and of `Service-Event-Id`, the same on every attempt */
            event_id: string;
            event: components["schemas"]["EventKind"];
            status: components["schemas"]["WebhookDeliveryStatus"];
            /** @description Attempts finished since creation or the last retry request (the attempts list numbers every attempt of the delivery's life) */
            attempt_count: number;
            /** @description True while an attempt is out (the request is being made): `status` is `pending`, `next_attempt_at` null, and `attempt_count` counts it once it ends */
            attempting: boolean;
            /** @description HTTP status of the last attempt; null before the first, when no answer came (timeout, connection error, refused target), or when the delivery ended without sending (endpoint disabled, deleted or unsubscribed: see last_error) */
            last_response_code: number | null;
            /** @description Why the last attempt failed, or why the delivery ended without one; null after a success */
            last_error: string | null;
            /** @description When the next attempt is due; null while an attempt is out (`attempting`) and once the delivery succeeded or failed */
            next_attempt_at: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
        };
        WebhookDeliveryList: {
            /** @description This page, newest first */
            data: components["schemas"]["WebhookDelivery"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        WebhookDeliveryResponse: {
            data: components["schemas"]["WebhookDelivery"];
        };
        /**
         * @description `pending` (an attempt is due or running), `succeeded` (a 2xx answer), `failed` (8 attempts failed, the endpoint answered 410 Gone, is disabled or deleted, or no longer subscribes to the event)
         * @enum {string}
         */
        WebhookDeliveryStatus: "pending" | "succeeded" | "failed";
        /** @description Where Hostgate POSTs signed events (never shows its secret) */
        WebhookEndpoint: {
            /** @description Identifier (whe_…) */
            id: string;
            /** @description HTTPS URL deliveries are POSTed to */
            url: string;
            /** @description Your note about the endpoint; null when none */
            description: string | null;
            /** @description Subscribed event kinds: ["*"] (every event) or a list of `hostname.created`, `hostname.verified`, `hostname.active`, `hostname.failed`, `hostname.suspended`, `hostname.deleting`, `hostname.deleted`, `hostname.dns_broken`, `hostname.updated`, `hostname.certificate_renewed`, `hostname.certificate_expiring`, `hostname.certificate_failed` */
            events: components["schemas"]["SubscribedEvent"][];
            /** @description False: no deliveries are made */
            enabled: boolean;
            /** @description Why the endpoint is disabled: `manual` (PATCH enabled=false) or set by delivery (e.g. `gone`: the endpoint answered 410 Gone); null when enabled */
            disabled_reason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
        };
        WebhookEndpointList: {
            /** @description This page, newest first */
            data: components["schemas"]["WebhookEndpoint"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        WebhookEndpointResponse: {
            data: components["schemas"]["WebhookEndpoint"];
        };
        /** @description A new webhook endpoint with its signing secret (shown only once) */
        WebhookEndpointWithSecret: {
            /** @description Identifier (whe_…) */
            id: string;
            /** @description HTTPS URL deliveries are POSTed to */
            url: string;
            /** @description Your note about the endpoint; null when none */
            description: string | null;
            /** @description Subscribed event kinds: ["*"] (every event) or a list of `hostname.created`, `hostname.verified`, `hostname.active`, `hostname.failed`, `hostname.suspended`, `hostname.deleting`, `hostname.deleted`, `hostname.dns_broken`, `hostname.updated`, `hostname.certificate_renewed`, `hostname.certificate_expiring`, `hostname.certificate_failed` */
            events: components["schemas"]["SubscribedEvent"][];
            /** @description False: no deliveries are made */
            enabled: boolean;
            /** @description Why the endpoint is disabled: `manual` (PATCH enabled=false) or set by delivery (e.g. `gone`: the endpoint answered 410 Gone); null when enabled */
            disabled_reason: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
            /** @description Signing secret (whsec_…). Shown only in this response: store it now. */
            secret: string;
        };
        WebhookEndpointWithSecretResponse: {
            data: components["schemas"]["WebhookEndpointWithSecret"];
        };
        /** @description The domain an event is about, as it was when the event happened */
        WebhookEventData: {
            /** @description The domain (`dom_…`) */
            id: string;
            /** @description The hostname (lowercase, punycode for IDNs) */
            hostname: string;
            /** @description The domain's status when the event happened */
            status: components["schemas"]["DomainStatus"];
            /** @description Its destination (`dst_…`) */
            destination_id: string;
            /** @description Your reference for the customer, as given at the domain's creation or last PATCH */
            external_customer_id: string | null;
            /** @description Your metadata of the domain when the event happened; null when none is set */
            metadata: components["schemas"]["DomainMetadata"] | null;
            /** @description `hostname.updated` only: the fields that changed */
            changes?: components["schemas"]["DomainChangedField"][];
        };
        /** @description A DNS record the customer sets, with its name relative to their zone */
        WidgetDnsRecord: {
            type: components["schemas"]["DnsRecordType"];
            /** @description The fully qualified hostname to set the record on */
            name: string;
            /** @description The name relative to the customer's zone, as most DNS providers' forms want it ('@' for the zone apex) */
            relative_name: string;
            /** @description The record target */
            value: string;
        };
        /** @description A domain as the widget shows it to your customer (no destination, customer reference or metadata) */
        WidgetDomain: {
            /** @description Identifier (dom_…) */
            id: string;
            /** @description The hostname as DNS knows it (punycode for internationalised names) */
            hostname: string;
            /** @description The hostname in Unicode, as the customer typed it (equal to hostname when it has no internationalised label) */
            hostname_unicode: string;
            /** @description The registrable domain (DNS zone) the hostname is in */
            zone: string;
            /** @description The zone in Unicode */
            zone_unicode: string;
            status: components["schemas"]["DomainStatus"];
            /** @description What the customer sets */
            dns_records: components["schemas"]["WidgetDnsRecord"][];
            verification: components["schemas"]["Verification"];
            ownership: components["schemas"]["OwnershipTrack"];
            certificate: components["schemas"]["CertificateTrack"];
            /** @description Where the edge redirects this hostname; null: served from the destination */
            redirect: components["schemas"]["DomainRedirect"] | null;
            tls: components["schemas"]["DomainTls"];
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            updated_at: string;
        };
        WidgetDomainList: {
            /** @description This page, newest first */
            data: components["schemas"]["WidgetDomain"][];
            /** @description True when another page follows */
            has_more: boolean;
            /** @description Pass as `cursor` for the next page; null on the last page. */
            next_cursor: string | null;
        };
        WidgetDomainResponse: {
            data: components["schemas"]["WidgetDomain"];
        };
        /** @description A widget session: the token <service-widget> authenticates with */
        WidgetSession: {
            /** @description Identifier (wss_…) */
            id: string;
            /** @description Bearer token for the browser (wst_…); shown once, only its hash is kept */
            token: string;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            expires_at: string;
            /** @description Seconds until expiry: 1800 */
            expires_in: number;
            /** @description Your reference for the customer using the widget */
            external_customer_id: string;
            /** @description Normalised origins; null when any https origin (and http://localhost) is accepted */
            allowed_origins: string[] | null;
            /** @description The destination the session's domains point at; null: the organization's only destination at each create */
            destination_id: string | null;
            /**
             * Format: date-time
             * @description RFC 3339 timestamp, UTC with milliseconds (2026-11-26T15:04:27.666Z)
             */
            created_at: string;
        };
        WidgetSessionResponse: {
            data: components["schemas"]["WidgetSession"];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request's id: the X-Request-Id you sent when it is sane (1–128 printable characters), else one generated (`req_…`). Every answer carries it; quote it to support. */
        "X-Request-Id": string;
        /** @description Present, `true`, when this answer is the stored answer of an earlier request with the same Idempotency-Key (method, path and body equal): nothing was done again. */
        "Idempotent-Replayed": "true";
        /** @description Seconds to wait before retrying (429 `rate_limited`, 503 `service_unavailable`, 409 `idempotency_key_in_use`). */
        "Retry-After": number;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export interface operations {
    "destinations.list": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of destinations */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationList"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "destinations.create": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https://host[:port], port 443 or 8443, no path, query, fragment or credentials */
                    url: string;
                };
            };
        };
        responses: {
            /** @description The destination, created */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "destinations.retrieve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The destination's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The destination */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "destinations.delete": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The destination's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The destination as it was, now deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `destination_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "destinations.update": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The destination's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The new origin: https://host[:port], port 443 or 8443, same rules as at creation; every domain on this destination re-routes within 2 s */
                    url: string;
                };
            };
        };
        responses: {
            /** @description The destination as changed */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DestinationResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.list": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
                /** @description Only domains in this status */
                status?: components["schemas"]["DomainStatus"];
                /** @description Only this hostname (Unicode or punycode) */
                hostname?: string;
                /** @description Only the domains of this customer reference */
                external_customer_id?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of domains */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainList"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.create": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The customer's hostname (Unicode or punycode; normalised to lowercase punycode), or a wildcard `*.<name>` (exactly one leading `*.`; only where the challenge zone is configured, else 422 wildcard_requires_challenge_zone): it covers every single-label name under <name> (docs/wildcards.md) */
                    hostname: string;
                    /** @description The destination (dst_…) to serve it from */
                    destination_id: string;
                    /** @description Your reference for the customer (1–255 characters); filter lists on it */
                    external_customer_id?: string;
                    /** @description "www" for an apex hostname, "apex" for a www. hostname: the other name is created too, in the same request, redirecting (301, path kept) to this one; a conflict on either creates neither */
                    also_connect?: "www" | "apex";
                };
            };
        };
        responses: {
            /** @description The domain, in `pending_dns`, with the DNS records to set (and its also_connect partner) */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainCreatedResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `domain_conflict` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused`, `apex_domains_unavailable`, `wildcard_requires_challenge_zone` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.retrieve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain with its bandwidth this period */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainDetailResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.delete": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain, now `deleting` (or already `deleted`) */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.update": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        /** @description The fields to change; at least one */
        requestBody: {
            content: {
                "application/json": {
                    /** @description Another destination (dst_…) of your organization: the edge routes to it within 2 s, keeping the certificate */
                    destination_id?: string;
                    /** @description Replaces the metadata (DomainMetadata limits); null clears it */
                    metadata?: components["schemas"]["DomainMetadata"] | null;
                    /** @description Sets the redirect; null removes it */
                    redirect?: components["schemas"]["DomainRedirect"] | null;
                    /** @description Your reference for the customer; null clears it */
                    external_customer_id?: string | null;
                    /** @description The TLS settings to change (fields left out stay) */
                    tls?: {
                        /** @description "1.2" or "1.3" */
                        min_version?: "1.2" | "1.3";
                        /** @description Sets HSTS; null turns it off */
                        hsts?: components["schemas"]["DomainHsts"] | null;
                    };
                };
            };
        };
        responses: {
            /** @description The domain as changed */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found`, `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `domain_deleted` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.verify": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The check is queued; the domain as it is now */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `domain_deleted` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.putCertificate": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        /** @description Your own certificate for the hostname, with its private key */
        requestBody: {
            content: {
                "application/json": {
                    /** @description PEM: the certificate for the hostname first, then the intermediate certificates up to (not necessarily including) the root; at most 10 certificates */
                    certificate: string;
                    /** @description PEM, unencrypted (PKCS#8, PKCS#1 or SEC1): the certificate's private key, RSA of 2048 bits or more or EC P-256/P-384. Stored encrypted; never shown again */
                    private_key: string;
                };
            };
        };
        responses: {
            /** @description The domain, with the certificate in place */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `domain_deleted` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused`, `certificate_unparseable`, `private_key_unparseable`, `certificate_key_mismatch`, `certificate_key_too_weak`, `certificate_key_unsupported`, `certificate_hostname_mismatch`, `certificate_expired`, `certificate_not_yet_valid`, `certificate_untrusted` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.deleteCertificate": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain; its certificate facts change when the managed certificate is stored */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `domain_deleted` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookEndpoints.list": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of webhook endpoints */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointList"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookEndpoints.create": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description https URL with any port, path and query; no credentials or fragment; the host must be public */
                    url: string;
                    /** @description Subscribed event kinds: ["*"] (every event) or a list of `hostname.created`, `hostname.verified`, `hostname.active`, `hostname.failed`, `hostname.suspended`, `hostname.deleting`, `hostname.deleted`, `hostname.dns_broken`, `hostname.updated`, `hostname.certificate_renewed`, `hostname.certificate_expiring`, `hostname.certificate_failed`. Default ["*"] */
                    events?: components["schemas"]["SubscribedEvent"][];
                    /** @description Your note about the endpoint (up to 500 characters) */
                    description?: string;
                };
            };
        };
        responses: {
            /** @description The endpoint with its signing secret (shown only now) */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointWithSecretResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookEndpoints.retrieve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook endpoint */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_endpoint_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookEndpoints.delete": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint as it was, now deleted */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_endpoint_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookEndpoints.update": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        /** @description At least one field */
        requestBody: {
            content: {
                "application/json": {
                    /** @description https URL with any port, path and query; no credentials or fragment; the host must be public */
                    url?: string;
                    /** @description Subscribed event kinds: ["*"] (every event) or a list of `hostname.created`, `hostname.verified`, `hostname.active`, `hostname.failed`, `hostname.suspended`, `hostname.deleting`, `hostname.deleted`, `hostname.dns_broken`, `hostname.updated`, `hostname.certificate_renewed`, `hostname.certificate_expiring`, `hostname.certificate_failed`. Narrowing it cancels the pending deliveries of the kinds dropped */
                    events?: components["schemas"]["SubscribedEvent"][];
                    /** @description true re-enables (and clears disabled_reason); false pauses deliveries */
                    enabled?: boolean;
                    /** @description null clears it */
                    description?: string | null;
                };
            };
        };
        responses: {
            /** @description The webhook endpoint as changed */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookEndpointResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_endpoint_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookEndpoints.rotateSecret": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The webhook endpoint's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The endpoint with its new secret (shown only now) */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["RotatedWebhookEndpointResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_endpoint_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookDeliveries.list": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
                /** @description Only deliveries to this endpoint */
                endpoint_id?: string;
                /** @description Only deliveries with this status */
                status?: components["schemas"]["WebhookDeliveryStatus"];
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of webhook deliveries */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryList"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookDeliveries.retrieve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The webhook delivery's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The webhook delivery */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_delivery_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookDeliveries.listAttempts": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path: {
                /** @description The webhook delivery's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of attempts */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookAttemptList"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_delivery_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhookDeliveries.retry": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The webhook delivery's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The delivery, reset to `pending` */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WebhookDeliveryResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `webhook_delivery_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `webhook_endpoint_disabled`, `webhook_endpoint_deleted` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "widgetSessions.create": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description Your reference for the customer using the widget; domains the session creates carry it */
                    external_customer_id: string;
                    /** @description Browser origins (https://host[:port]; http only for localhost) the token works from. Omitted: any https origin and http://localhost:* */
                    allowed_origins?: string[];
                    /** @description Destination the session's domains point at. Omitted: the organization's only destination */
                    destination_id?: string;
                };
            };
        };
        responses: {
            /** @description The session with its token (shown only now) */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetSessionResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused`, `destination_required` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "widget.listDomains": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of the customer's domains */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetDomainList"];
                };
            };
            /** @description Error codes: `widget_request_failed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_token`, `invalid_widget_token`, `widget_token_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `origin_forbidden` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "widget.createDomain": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The hostname the customer typed (Unicode or punycode) */
                    hostname: string;
                };
            };
        };
        responses: {
            /** @description The customer's widget sessions already created this hostname: the element continues with it */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetDomainResponse"];
                };
            };
            /** @description The domain, in `pending_dns`, with the DNS records to set */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetDomainResponse"];
                };
            };
            /** @description Error codes: `widget_request_failed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_token`, `invalid_widget_token`, `widget_token_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `origin_forbidden` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `destination_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_conflict` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "widget.retrieveDomain": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetDomainResponse"];
                };
            };
            /** @description Error codes: `widget_request_failed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_token`, `invalid_widget_token`, `widget_token_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `origin_forbidden` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `widget_domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "widget.verifyDomain": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The check is queued; the domain as it is now */
            202: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetDomainResponse"];
                };
            };
            /** @description Error codes: `widget_request_failed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_token`, `invalid_widget_token`, `widget_token_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `origin_forbidden` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `widget_domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "widget.handoverDomain": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /** @description The widget token that created the domain (it may have expired up to 24 hours ago) */
                    previous_token: string;
                };
            };
        };
        responses: {
            /** @description The domain, now this session's */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["WidgetDomainResponse"];
                };
            };
            /** @description Error codes: `widget_request_failed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_token`, `invalid_widget_token`, `widget_token_expired` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `origin_forbidden` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `widget_domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "usage.retrieve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The usage of the current period */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageResponse"];
                };
            };
            /** @description Error codes: `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "domains.analytics": {
        parameters: {
            query?: {
                /** @description Start of the range, RFC 3339 (default: `to` minus 24 h) */
                from?: string;
                /** @description End of the range, RFC 3339 (default: now) */
                to?: string;
                /** @description Bucket width: minute (range ≤ 48 h), hour (≤ 31 days), day (≤ 400 days) */
                interval?: "minute" | "hour" | "day";
            };
            header?: never;
            path: {
                /** @description The domain's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The domain's traffic */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["DomainAnalyticsResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `analytics_range_invalid`, `analytics_range_too_long` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `domain_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "analytics.retrieve": {
        parameters: {
            query?: {
                /** @description Start of the range, RFC 3339 (default: `to` minus 24 h) */
                from?: string;
                /** @description End of the range, RFC 3339 (default: now) */
                to?: string;
                /** @description Bucket width: minute (range ≤ 48 h), hour (≤ 31 days), day (≤ 400 days) */
                interval?: "minute" | "hour" | "day";
                /** @description Order of the top list: requests, errors (4xx + 5xx) or bytes (in + out), descending */
                sort?: "requests" | "errors" | "bytes";
                /** @description Hostnames per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The organization's traffic */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["OrganizationAnalyticsResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `analytics_range_invalid`, `analytics_range_too_long` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "billing.createCheckoutSession": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    plan: components["schemas"]["Plan"];
                    /**
                     * Format: uri
                     * @description Where the payer returns after paying; its origin must be one of the organization's allowed return origins
                     */
                    success_url?: string;
                    /**
                     * Format: uri
                     * @description Where the payer returns after cancelling; its origin must be one of the organization's allowed return origins
                     */
                    cancel_url?: string;
                };
            };
        };
        responses: {
            /** @description The payment page */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillingSessionResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `return_url_not_allowed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `subscription_exists` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "billing.createPortalSession": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    /**
                     * Format: uri
                     * @description Where the portal's "return" link leads; its origin must be one of the organization's allowed return origins
                     */
                    return_url?: string;
                };
            };
        };
        responses: {
            /** @description The portal page */
            201: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["BillingSessionResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid`, `return_url_not_allowed` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `subscription_missing` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "billing.changePlan": {
        parameters: {
            query?: never;
            header: {
                /** @description Stable business key of 1–128 printable ASCII characters, reused on retries of the same request; kept 24 h */
                "idempotency-key": string;
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": {
                    plan: components["schemas"]["Plan"];
                };
            };
        };
        responses: {
            /** @description The usage, with the new plan */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["UsageResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query`, `idempotency_key_missing`, `idempotency_key_invalid` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `insufficient_scope` */
            403: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_in_use`, `subscription_missing`, `plan_unchanged` */
            409: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `payload_too_large` */
            413: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `unsupported_media_type` */
            415: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `idempotency_key_reused` */
            422: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Idempotent-Replayed": components["headers"]["Idempotent-Replayed"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "billing.invoices.list": {
        parameters: {
            query?: {
                /** @description Items per page, 1–100 */
                limit?: number;
                /** @description The `next_cursor` of the previous page */
                cursor?: string;
            };
            header?: never;
            path?: never;
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description A page of invoices */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceList"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "billing.invoices.retrieve": {
        parameters: {
            query?: never;
            header?: never;
            path: {
                /** @description The invoice's id */
                id: string;
            };
            cookie?: never;
        };
        requestBody?: never;
        responses: {
            /** @description The invoice */
            200: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["InvoiceResponse"];
                };
            };
            /** @description Error codes: `invalid_request`, `api_key_in_query` */
            400: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `missing_api_key`, `invalid_api_key` */
            401: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `invoice_not_found` */
            404: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `rate_limited` */
            429: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `internal_error` */
            500: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
            /** @description Error codes: `service_unavailable` */
            503: {
                headers: {
                    "X-Request-Id": components["headers"]["X-Request-Id"];
                    "Retry-After": components["headers"]["Retry-After"];
                    [name: string]: unknown;
                };
                content: {
                    "application/json": components["schemas"]["Error"];
                };
            };
        };
    };
    "webhooks.hostnameCreated": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameCreatedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameVerified": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameVerifiedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameActive": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameActiveEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameFailed": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameFailedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameSuspended": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameSuspendedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameDeleting": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameDeletingEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameDeleted": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameDeletedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameDnsBroken": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameDnsBrokenEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameUpdated": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameUpdatedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameCertificateRenewed": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameCertificateRenewedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameCertificateExpiring": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameCertificateExpiringEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
    "webhooks.hostnameCertificateFailed": {
        parameters: {
            query?: never;
            header: {
                /** @description `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation */
                "Service-Signature": string;
                /** @description The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it */
                "Service-Event-Id": string;
                /** @description Always `Hostgate-Webhooks/1` */
                "User-Agent": "Hostgate-Webhooks/1";
            };
            path?: never;
            cookie?: never;
        };
        requestBody: {
            content: {
                "application/json": components["schemas"]["HostnameCertificateFailedEvent"];
            };
        };
        responses: {
            /** @description Gone: retries stop and the endpoint is disabled */
            410: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Acknowledged: no further attempts */
            "2XX": {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
            /** @description Any other answer (or none within 15 s) is retried on the schedule above */
            default: {
                headers: {
                    [name: string]: unknown;
                };
                content?: never;
            };
        };
    };
}
