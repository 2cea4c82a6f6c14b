import { Type } from 'typebox';
import { domainStatuses } from '../../model/domain-status.ts';
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
  method: Type.Union([CertificateMethod, Type.Null()], { description: 'How the certificate is validated; null before anything started' }),
  problem: TrackProblem,
  updated_at: Type.Union([Timestamp, Type.Null()], { description: 'When the track last changed; null before' }),
  not_before: Type.Union([Timestamp, Type.Null()], { description: "Start of the newest certificate's validity; null while the domain has none" }),
  not_after: Type.Union([Timestamp, Type.Null()], { description: "End of the newest certificate's validity; null while the domain has none" }),
  serial: Type.Union([Type.String(), Type.Null()], { description: 'Its serial number (lowercase hex); null while the domain has none' }),
  issuer: Type.Union([Type.String(), Type.Null()], { description: "The issuing CA's distinguished name; null while the domain has none" }),
  source: Type.Union([CertificateSource, Type.Null()], { description: 'Where it comes from; null while the domain has none' }),
  renews_at: Type.Union([Timestamp, Type.Null()], { description: 'When its renewal is due (two thirds of its lifetime; docs/api-decisions.md, "Certificate lifecycle"); null while the domain has none' }),
}, { description: 'Certificate track, independent of `status`, with the facts of the newest certificate' }));

const domainFields = {
  id: Type.String({ description: 'Identifier (dom_…)' }),
  hostname: Type.String({ description: 'Lowercase, punycode for IDNs' }),
  destination_id: Type.String({ description: 'The destination (dst_…) the hostname is served from' }),
  status: DomainStatus,
  dns_records: Type.Array(DnsRecord, { description: 'What your customer sets: the hostname\'s records first, then (zero-downtime moves) the ownership TXT and the delegation CNAME' }),
  verification: Verification,
  ownership: OwnershipTrack,
  certificate: CertificateTrack,
  external_customer_id: Type.Union([Type.String(), Type.Null()], { description: 'Your reference for the customer, as given at creation' }),
  created_at: Timestamp,
  updated_at: Timestamp,
};

export const Domain = named('Domain', Type.Object(domainFields, { description: 'A customer hostname connected to one of your destinations' }));

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
  hostname: Type.String({ minLength: 1, maxLength: 300, description: 'The customer\'s hostname (Unicode or punycode; normalised to lowercase punycode)' }),
  destination_id: Type.String({ minLength: 1, maxLength: 64, description: 'The destination (dst_…) to serve it from' }),
  external_customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: 'Your reference for the customer (1–255 characters); filter lists on it' })),
}, { additionalProperties: false });

export const DomainIdParams = IdParams('domain');
