import { Type } from 'typebox';
import { domainStatuses } from '../../model/domain-status.ts';
import { METADATA_MAX_KEY, METADATA_MAX_KEYS, METADATA_MAX_VALUE, redirectStatuses, tlsMinVersions } from '../../model/domain-settings.ts';
import { IdParams, named, StringEnum, Timestamp } from './common.ts';

export const dnsRecordTypes = ['CNAME', 'A', 'AAAA', 'TXT'] as const;
export const DnsRecordType = named('DnsRecordType', StringEnum(dnsRecordTypes, { description: 'CNAME, A, AAAA, or TXT (the ownership record of a zero-downtime move)' }));

export const DnsRecord = named('DnsRecord', Type.Object({
  type: DnsRecordType,
  name: Type.String({ description: 'The hostname to set the record on' }),
  value: Type.String({ description: 'The record target' }),
}, { description: 'A DNS record your customer sets (or that a check found)' }));

export const DomainStatus = named('DomainStatus', StringEnum(domainStatuses, { description: 'pending_dns → pending_certificate → active; suspended; deleting → deleted; failed' }));

export const Verification = named('Verification', Type.Object({
  checked_at: Type.Union([Timestamp, Type.Null()], { description: 'When DNS was last checked; null before the first check' }),
  expected: Type.Array(DnsRecord),
  found: Type.Union([Type.Array(DnsRecord), Type.Null()], { description: 'What the check found; null before the first check' }),
  problem: Type.Union([named('VerificationProblem', Type.Object({
    code: Type.String({ description: 'wrong_target, conflicting_records, caa_forbids_ca, nxdomain, no_records, proxied_by_cdn, certificate_refused, …' }),
    message: Type.String({ description: 'What to do about it, in words for your customer' }),
  }, { description: 'What blocks a domain\'s progress' })), Type.Null()], { description: 'What blocks progress; null when nothing does' }),
  verify_requested_at: Type.Union([Timestamp, Type.Null()], { description: 'When a check was last asked for (POST …/verify); null if never' }),
  dns_broken: Type.Boolean({ description: 'True while an active domain\'s DNS no longer points at the service (it keeps serving; a hostname.dns_broken event was sent when it started); false otherwise' }),
}, { description: 'What the last DNS check found and what is expected' }));

const TrackProblem = Type.Union([named('TrackProblem', Type.Object({
  code: Type.String({ description: 'Stable code (docs/zero-downtime-moves.md): ownership_txt_missing, ownership_txt_mismatch, delegation_cname_missing, caa_forbids_ca, challenge_failed, pending_validations_limit, certificate_orders_limit, …' }),
  message: Type.String({ description: 'What to do about it, in words for your customer' }),
}, { description: 'What blocks a track of a zero-downtime move' })), Type.Null()], { description: 'What blocks this track; null when nothing does' });

export const OwnershipStatus = named('OwnershipStatus', StringEnum(['pending', 'verified', 'not_required'], { description: 'verified: the TXT record holds the token, or DNS points at us; not_required: zero-downtime moves are off on this service (point DNS at us directly)' }));
export const OwnershipMethod = named('OwnershipMethod', StringEnum(['dns_txt', 'dns_target'], { description: 'dns_txt: the TXT record; dns_target: the hostname points at us' }));
export const CertificateStatus = named('CertificateStatus', StringEnum(['none', 'blocked', 'pending_validation', 'issued', 'deployed'], { description: 'none → pending_validation → issued → deployed (served by the edge); blocked: no order can be placed while `problem` holds (delegation CNAME or CAA)' }));
export const CertificateSource = named('CertificateSource', StringEnum(['managed', 'custom'], { description: 'managed: ordered by Hostgate over ACME; custom: your own, uploaded' }));
export const CertificateMethod = named('CertificateMethod', StringEnum(['dns-01', 'http-01'], { description: 'How the certificate authority validates: dns-01 through the delegated _acme-challenge CNAME (before DNS is switched), http-01 once DNS points at us' }));

export const OwnershipTrack = named('OwnershipTrack', Type.Object({
  status: OwnershipStatus,
  method: Type.Union([OwnershipMethod, Type.Null()], { description: 'How ownership is shown; null when it need not be' }),
  record: Type.Union([DnsRecord, Type.Null()], { description: 'The TXT record that proves ownership before DNS is switched (also in dns_records)' }),
  checked_at: Type.Union([Timestamp, Type.Null()], { description: 'When the TXT record was last checked; null before' }),
  verified_at: Type.Union([Timestamp, Type.Null()], { description: 'When the TXT record was found holding the token; null otherwise' }),
  problem: TrackProblem,
}, { description: 'Ownership track of a zero-downtime move, independent of `status`' }));

export const CertificateTrack = named('CertificateTrack', Type.Object({
  status: CertificateStatus,
  method: Type.Union([CertificateMethod, Type.Null()], { description: 'How the certificate is validated; null before anything started, and while your own certificate (`source: custom`) is served' }),
  problem: TrackProblem,
  updated_at: Type.Union([Timestamp, Type.Null()], { description: 'When the track last changed; null before' }),
  not_before: Type.Union([Timestamp, Type.Null()], { description: "Start of the newest certificate's validity; null while the domain has none" }),
  not_after: Type.Union([Timestamp, Type.Null()], { description: "End of the newest certificate's validity; null while the domain has none" }),
  serial: Type.Union([Type.String(), Type.Null()], { description: 'Its serial number (lowercase hex); null while the domain has none' }),
  issuer: Type.Union([Type.String(), Type.Null()], { description: "The issuing CA's distinguished name; null while the domain has none" }),
  source: Type.Union([CertificateSource, Type.Null()], { description: 'Where it comes from; null while the domain has none' }),
  renews_at: Type.Union([Timestamp, Type.Null()], { description: 'When its renewal is due (two thirds of its lifetime; docs/api-decisions.md, "Certificate lifecycle"). For your own certificate (`source: custom`): when a managed certificate is ordered to replace it if the domain\'s DNS points at Hostgate (3 days before `not_after`; PUT /v1/domains/{id}/certificate). Null while the domain has none' }),
}, { description: 'Certificate track, independent of `status`, with the facts of the newest certificate' }));

// additionalProperties (not TypeBox's Record, whose patternProperties the document normalises to
// this shape): one shape wherever it appears.
export const Metadata = named('DomainMetadata', Type.Object({}, {
  additionalProperties: Type.String({ maxLength: METADATA_MAX_VALUE }),
  description: `Your key/value annotations of the domain: string values, at most ${METADATA_MAX_KEYS} keys of ≤ ${METADATA_MAX_KEY} characters, values ≤ ${METADATA_MAX_VALUE} characters, ≤ 4 KB as JSON. Shown on server API reads and in webhook events, never to the widget (keep private values here only if your customer must not see them anywhere else either).`,
}));

export const Redirect = named('DomainRedirect', Type.Object({
  to: Type.String({ minLength: 1, maxLength: 2048, description: 'An https URL, or another hostname of your organization (e.g. the apex for `www.`): the edge answers every request with a redirect there' }),
  status: Type.Union(redirectStatuses.map((s) => Type.Literal(s)), { description: 'The redirect status: 301, 302, 307 or 308' }),
  preserve_path: Type.Boolean({ description: 'Append the request path and query to `to`' }),
}, { additionalProperties: false, description: 'The edge answers the hostname with this redirect itself (over TLS with the hostname\'s own certificate) instead of proxying to the destination' }));

export const Hsts = named('DomainHsts', Type.Object({
  max_age: Type.Integer({ minimum: 0, maximum: 63_072_000, description: 'Seconds browsers remember to use HTTPS only (at most two years)' }),
  include_subdomains: Type.Boolean({ description: 'Adds includeSubDomains' }),
  preload: Type.Boolean({ description: 'Adds preload (needs include_subdomains and max_age ≥ 31536000)' }),
}, { additionalProperties: false, description: 'The Strict-Transport-Security header the edge sends for this hostname' }));

export const TlsSettings = named('DomainTls', Type.Object({
  min_version: Type.Union(tlsMinVersions.map((v) => Type.Literal(v)), { description: 'The lowest TLS version the edge accepts for this hostname: "1.2" (default) or "1.3"' }),
  hsts: Type.Union([Hsts, Type.Null()], { description: 'Strict-Transport-Security for this hostname; null (default): none' }),
}, { additionalProperties: false, description: 'Per-hostname TLS settings' }));

const domainFields = {
  id: Type.String({ description: 'Identifier (dom_…)' }),
  hostname: Type.String({ description: 'Lowercase, punycode for IDNs; `*.<name>` for a wildcard' }),
  destination_id: Type.String({ description: 'The destination (dst_…) the hostname is served from' }),
  status: DomainStatus,
  dns_records: Type.Array(DnsRecord, { description: 'What your customer sets: the hostname\'s records first, then (zero-downtime moves) the ownership TXT and the delegation CNAME' }),
  verification: Verification,
  ownership: OwnershipTrack,
  certificate: CertificateTrack,
  external_customer_id: Type.Union([Type.String(), Type.Null()], { description: 'Your reference for the customer, as given at creation or last PATCH' }),
  metadata: Type.Union([Metadata, Type.Null()], { description: 'Your annotations of the domain; null when none are set' }),
  redirect: Type.Union([Redirect, Type.Null()], { description: 'The redirect the edge answers with; null: requests are proxied to the destination' }),
  tls: TlsSettings,
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Domain = named('Domain', Type.Object(domainFields, { description: 'A customer hostname connected to one of your destinations' }));

/** POST /v1/domains: the domain, and with also_connect its partner (redirecting to it). */
export const DomainCreated = named('DomainCreatedResponse', Type.Object({
  data: Domain,
  // With also_connect: the other hostname, created in the same request, redirecting (301, path kept) to `data`.
  also_connected: Type.Optional(Domain),
}, { 'x-response-description': 'The domain, in `pending_dns`, with the DNS records to set (and its also_connect partner)' }));

/** GET /v1/domains/{id} only: what the edge carried for this hostname in the current period. */
export const DomainBandwidth = named('DomainBandwidth', Type.Object({
  period_start: Timestamp,
  period_end: Timestamp,
  bytes_in: Type.Integer({ description: 'HTTP bytes received from clients (request line, headers, body), as the edge counts them' }),
  bytes_out: Type.Integer({ description: 'HTTP bytes sent to clients (status line, headers, body)' }),
  bytes: Type.Integer({ description: 'bytes_in + bytes_out: what GET /v1/usage sums as bandwidth_bytes' }),
}, { description: "The organization's current usage period (GET /v1/usage); measured every minute by the edge, reported, never billed" }));

/** GET /v1/domains/{id}: the domain and its bandwidth this period. */
export const DomainDetail = named('DomainDetail', Type.Object({ ...domainFields, bandwidth: DomainBandwidth }, { description: 'A domain with the bytes the edge carried for it this period' }));

export const CreateDomainBody = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 300, description: 'The customer\'s hostname (Unicode or punycode; normalised to lowercase punycode), or a wildcard `*.<name>` (exactly one leading `*.`; only where the challenge zone is configured, else 422 wildcard_requires_challenge_zone): it covers every single-label name under <name> (docs/wildcards.md)' }),
  destination_id: Type.String({ minLength: 1, maxLength: 64, description: 'The destination (dst_…) to serve it from' }),
  external_customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Your reference for the customer (1–255 characters); filter lists on it' })),
  also_connect: Type.Optional(Type.Union([Type.Literal('www'), Type.Literal('apex')], { description: '"www" for an apex hostname, "apex" for a www. hostname: the other name is created too, in the same request, redirecting (301, path kept) to this one; a conflict on either creates neither' })),
}, { additionalProperties: false });

export const UpdateDomainBody = Type.Object({
  destination_id: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Another destination (dst_…) of your organization: the edge routes to it within 2 s, keeping the certificate' })),
  metadata: Type.Optional(Type.Union([Metadata, Type.Null()], { description: 'Replaces the metadata (DomainMetadata limits); null clears it' })),
  redirect: Type.Optional(Type.Union([Redirect, Type.Null()], { description: 'Sets the redirect; null removes it' })),
  external_customer_id: Type.Optional(Type.Union([Type.String({ minLength: 1, maxLength: 255 }), Type.Null()], { description: 'Your reference for the customer; null clears it' })),
  tls: Type.Optional(Type.Object({
    min_version: Type.Optional(Type.Union(tlsMinVersions.map((v) => Type.Literal(v)), { description: '"1.2" or "1.3"' })),
    hsts: Type.Optional(Type.Union([Hsts, Type.Null()], { description: 'Sets HSTS; null turns it off' })),
  }, { additionalProperties: false, description: 'The TLS settings to change (fields left out stay)' })),
}, { additionalProperties: false, description: 'The fields to change; at least one' });

export const DomainIdParams = IdParams('domain');
