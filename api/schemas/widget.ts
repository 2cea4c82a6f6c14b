import { Type } from 'typebox';
import { IdParams, named, Timestamp } from './common.ts';
import { CertificateTrack, DnsRecordType, DomainStatus, OwnershipTrack, Redirect, TlsSettings, Verification } from './domains.ts';

export const CreateWidgetSessionBody = Type.Object({
  external_customer_id: Type.String({ minLength: 1, maxLength: 255, description: 'Your reference for the customer using the widget; domains the session creates carry it' }),
  allowed_origins: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 300 }), {
    minItems: 1, maxItems: 20,
    description: 'Browser origins (https://host[:port]; http only for localhost) the token works from. Omitted: any https origin and http://localhost:*',
  })),
  destination_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Destination the session's domains point at. Omitted: the organization's only destination" })),
}, { additionalProperties: false });

export const WidgetSession = named('WidgetSession', Type.Object({
  id: Type.String({ description: 'Identifier (wss_…)' }),
  token: Type.String({ description: 'Bearer token for the browser (wst_…); shown once, only its hash is kept' }),
  expires_at: Timestamp,
  expires_in: Type.Integer({ description: 'Seconds until expiry: 1800' }),
  external_customer_id: Type.String({ description: 'Your reference for the customer using the widget' }),
  allowed_origins: Type.Union([Type.Array(Type.String()), Type.Null()], { description: 'Normalised origins; null when any https origin (and http://localhost) is accepted' }),
  destination_id: Type.Union([Type.String(), Type.Null()], { description: "The destination the session's domains point at; null: the organization's only destination at each create" }),
  created_at: Timestamp,
}, { description: 'A widget session: the token <service-widget> authenticates with' }));

export const WidgetDnsRecord = named('WidgetDnsRecord', Type.Object({
  type: DnsRecordType,
  name: Type.String({ description: 'The fully qualified hostname to set the record on' }),
  relative_name: Type.String({ description: "The name relative to the customer's zone, as most DNS providers' forms want it ('@' for the zone apex)" }),
  value: Type.String({ description: 'The record target' }),
}, { description: 'A DNS record the customer sets, with its name relative to their zone' }));

/** What the browser sees of a domain: no destination or customer reference. */
export const WidgetDomain = named('WidgetDomain', Type.Object({
  id: Type.String({ description: 'Identifier (dom_…)' }),
  hostname: Type.String({ description: 'The hostname as DNS knows it (punycode for internationalised names)' }),
  hostname_unicode: Type.String({ description: 'The hostname in Unicode, as the customer typed it (equal to hostname when it has no internationalised label)' }),
  zone: Type.String({ description: 'The registrable domain (DNS zone) the hostname is in' }),
  zone_unicode: Type.String({ description: 'The zone in Unicode' }),
  status: DomainStatus,
  dns_records: Type.Array(WidgetDnsRecord, { description: 'What the customer sets' }),
  verification: Verification,
  ownership: OwnershipTrack,
  certificate: CertificateTrack,
  redirect: Type.Union([Redirect, Type.Null()], { description: 'Where the edge redirects this hostname; null: served from the destination' }),
  tls: TlsSettings,
  created_at: Timestamp,
  updated_at: Timestamp,
}, { description: 'A domain as the widget shows it to your customer (no destination, customer reference or metadata)' }));

export const CreateWidgetDomainBody = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 300, description: 'The hostname the customer typed (Unicode or punycode)' }),
}, { additionalProperties: false });

export const HandoverBody = Type.Object({
  previous_token: Type.String({ minLength: 1, maxLength: 200, description: 'The widget token that created the domain (it may have expired up to 24 hours ago)' }),
}, { additionalProperties: false });

export const WidgetDomainIdParams = IdParams('domain');
