// What a webhook delivery sends, as OpenAPI 3.1 `webhooks` (decisions.md "Webhooks"; docs/api-decisions.md
// "Webhooks"). The body is built in activities/webhooks.ts; test/openapi-webhooks.test.ts checks real
// deliveries against these schemas, so the document cannot drift from what is sent.
import { Type } from 'typebox';
import { eventKinds, type EventKind as EventKindName } from '../../model/domain-status.ts';
import { named, StringEnum, Timestamp } from './common.ts';
import { DomainStatus, Metadata } from './domains.ts';

export const EventKind = named('EventKind', StringEnum(eventKinds, { description: 'The kind of a webhook event (docs/api-decisions.md, "Webhooks")' }));

/** The signature scheme, stated once for the headers and every event's description. */
export const SIGNING_DESCRIPTION = [
  'Every delivery is a `POST` with `Content-Type: application/json` and a compact JSON body.',
  '`Service-Signature: t=<unix seconds>,v1=<hex>`: `v1` is the hex HMAC-SHA256 of `<t>.<raw body>` keyed with the endpoint secret (the whole `whsec_…` string).',
  'Verify on the raw body as received (a re-serialised body will not match), compare in constant time, and refuse a `t` more than 300 s from now either way (the tolerance of sdk/webhooks.ts `verifyWebhook`).',
  'Each attempt is signed afresh, so a retry hours later is not stale. While a secret is being rotated a second `v1` (signed with the previous secret) follows the first; accept the delivery if any `v1` matches.',
  'Delivery is at least once: de-duplicate on `Service-Event-Id` (equal to the body\'s `id`, the same on every attempt and retry).',
  'Answer `2xx` within 15 s to acknowledge; anything else is retried (immediately, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h); `410 Gone` stops retries and disables the endpoint; `Retry-After` on 429/503 is honoured.',
].join(' ');

const SIGNATURE_HEADER_DESCRIPTION = '`t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`; a second `v1` during a secret rotation';
const EVENT_ID_HEADER_DESCRIPTION = "The event's id (`evt_…`), equal to the body's `id`; de-duplicate on it";
export const SignatureHeader = Type.String({
  pattern: '^t=\\d+(,v1=[0-9a-f]{64})+$',
  description: SIGNATURE_HEADER_DESCRIPTION,
  examples: ['t=1764140000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd'],
});
export const EventIdHeader = Type.String({ pattern: '^evt_[0-9a-z]+$', description: EVENT_ID_HEADER_DESCRIPTION });

const descriptions: Record<EventKindName, string> = {
  'hostname.created': 'A domain was created (status `pending_dns`).',
  'hostname.verified': "The domain's DNS is correct (status `pending_certificate`).",
  'hostname.active': 'The certificate is issued and the domain is served (status `active`).',
  'hostname.failed': 'The domain failed (DNS never became correct in time, or issuance failed).',
  'hostname.suspended': 'The domain was suspended and is no longer served.',
  'hostname.deleting': 'The domain is being deleted.',
  'hostname.deleted': 'The domain was deleted.',
  'hostname.dns_broken': "The domain's DNS records stopped pointing at the service while it was active.",
  'hostname.updated': 'The domain was changed through PATCH /v1/domains/{id} (destination, metadata, redirect, customer reference or TLS settings); `data.changes` names the fields that changed.',
  'hostname.certificate_renewed': "The domain's certificate was renewed; `data.certificate` is the new one.",
  'hostname.certificate_expiring': "The certificate served for the domain expires in `data.days_left` days (14, then 3) and has not been replaced.",
  'hostname.certificate_failed': "Renewing the domain's certificate still fails with a third of its life or less left; `data.problem` says why.",
};

/** The kinds whose `data` also carries the certificate (WebhookCertificateEventData). */
const certificateKinds = new Set<EventKindName>(['hostname.certificate_renewed', 'hostname.certificate_expiring', 'hostname.certificate_failed']);

/** The domain an event is about, as it was when the event happened. */
export const WebhookEventData = named('WebhookEventData', Type.Object({
  id: Type.String({ description: 'The domain (`dom_…`)' }),
  hostname: Type.String({ description: 'The hostname (lowercase, punycode for IDNs)' }),
  status: { ...DomainStatus, description: "The domain's status when the event happened" },
  destination_id: Type.String({ description: 'Its destination (`dst_…`)' }),
  external_customer_id: Type.Union([Type.String(), Type.Null()], { description: "Your reference for the customer, as given at the domain's creation or last PATCH" }),
  metadata: Type.Union([Metadata, Type.Null()], { description: 'Your metadata of the domain when the event happened; null when none is set' }),
  changes: Type.Optional(Type.Array(named('DomainChangedField', StringEnum(['destination_id', 'metadata', 'redirect', 'external_customer_id', 'tls'], { description: 'A field PATCH /v1/domains/{id} changed' })), { description: '`hostname.updated` only: the fields that changed' })),
}, { additionalProperties: false, description: 'The domain an event is about, as it was when the event happened' }));

/** The certificate a certificate event is about. */
export const WebhookCertificateFacts = named('WebhookCertificateFacts', Type.Object({
  serial: Type.String({ description: 'Serial number (lowercase hex)' }),
  issuer: Type.String({ description: "The issuing CA's distinguished name" }),
  source: StringEnum(['managed', 'custom'], { description: '`managed`: ordered by us over ACME; `custom`: uploaded by you' }),
  not_before: { ...Timestamp, description: 'Start of validity' },
  not_after: { ...Timestamp, description: 'End of validity' },
  renews_at: { ...Timestamp, description: 'When renewal is due (two thirds of the lifetime)' },
}, { additionalProperties: false, description: 'The certificate a certificate event is about' }));

/** The domain and its certificate, for the hostname.certificate_* events. */
export const WebhookCertificateEventData = named('WebhookCertificateEventData', Type.Object({
  ...WebhookEventData.properties,
  certificate: WebhookCertificateFacts,
  days_left: Type.Optional(Type.Integer({ description: '`hostname.certificate_expiring` only: 14 or 3' })),
  problem: Type.Optional(Type.Object({
    code: Type.String({ description: 'Stable code of the last refusal (e.g. challenge_failed, certificate_order_limit)' }),
    message: Type.String({ description: 'What happened and what to do' }),
  }, { additionalProperties: false, description: '`hostname.certificate_failed` only: why the renewal fails' })),
}, { additionalProperties: false, description: 'The domain a certificate event is about, with the certificate' }));

/** `hostname.dns_broken` → `HostnameDnsBrokenEvent`: the component of one kind's body. */
export function eventComponentName(kind: EventKindName): string {
  return `${kind.split(/[._]/).map((w) => w[0]!.toUpperCase() + w.slice(1)).join('')}Event`;
}

/** The body of one event kind's delivery: `{id, event, created_at, data}`, nothing else. */
export function webhookEventPayload(kind: EventKindName) {
  return named(eventComponentName(kind), Type.Object({
    id: Type.String({ pattern: '^evt_[0-9a-z]+$', description: 'Event id (`evt_…`), stable across retries' }),
    event: Type.Literal(kind, { description: 'The event kind' }),
    created_at: { ...Timestamp, description: 'When the event happened (not when it was sent)' },
    data: certificateKinds.has(kind) ? WebhookCertificateEventData : WebhookEventData,
  }, { additionalProperties: false, description: descriptions[kind] }));
}

/**
 * The OpenAPI 3.1 `webhooks` map: one entry per event kind. Returned as a plain JSON copy (typed `any`
 * for @fastify/swagger's option type, which the TypeBox values do not name) without TypeBox's symbols.
 */
export function webhooksSection(): Record<string, any> {
  return JSON.parse(JSON.stringify(Object.fromEntries(eventKinds.map((kind) => [kind, {
    post: {
      operationId: `webhooks.${eventComponentName(kind).replace(/Event$/, '').replace(/^./, (c) => c.toLowerCase())}`,
      tags: ['webhooks'],
      summary: `${kind}: ${descriptions[kind]}`,
      description: SIGNING_DESCRIPTION,
      parameters: [
        { in: 'header', name: 'Service-Signature', required: true, schema: SignatureHeader, description: SIGNATURE_HEADER_DESCRIPTION },
        { in: 'header', name: 'Service-Event-Id', required: true, schema: EventIdHeader, description: EVENT_ID_HEADER_DESCRIPTION },
        { in: 'header', name: 'User-Agent', required: true, schema: Type.Literal('Hostgate-Webhooks/1'), description: 'Always `Hostgate-Webhooks/1`' },
      ],
      requestBody: { required: true, content: { 'application/json': { schema: webhookEventPayload(kind) } } },
      responses: {
        '2XX': { description: 'Acknowledged: no further attempts' },
        '410': { description: 'Gone: retries stop and the endpoint is disabled' },
        default: { description: 'Any other answer (or none within 15 s) is retried on the schedule above' },
      },
    },
  }]))));
}
