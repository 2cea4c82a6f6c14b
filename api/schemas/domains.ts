import { Type } from 'typebox';
import { domainStatuses } from '../../model/domain-status.ts';
import { Timestamp } from './common.ts';

export const DnsRecord = Type.Object({
  type: Type.String({ description: 'Record type: CNAME, A, AAAA, or TXT (the ownership record of a zero-downtime move)' }),
  name: Type.String({ description: 'The hostname to set the record on' }),
  value: Type.String({ description: 'The record target' }),
});

export const DomainStatus = Type.Union(domainStatuses.map((s) => Type.Literal(s)), { description: 'pending_dns → pending_certificate → active; suspended; deleting → deleted; failed' });

export const Verification = Type.Object({
  checked_at: Type.Union([Timestamp, Type.Null()], { description: 'When DNS was last checked; null before the first check' }),
  expected: Type.Array(DnsRecord),
  found: Type.Union([Type.Array(DnsRecord), Type.Null()], { description: 'What the check found; null before the first check' }),
  problem: Type.Union([Type.Object({
    code: Type.String({ description: 'wrong_target, conflicting_records, caa_forbids_ca, nxdomain, no_records, proxied_by_cdn, certificate_refused, …' }),
    message: Type.String(),
  }), Type.Null()], { description: 'What blocks progress; null when nothing does' }),
  verify_requested_at: Type.Union([Timestamp, Type.Null()]),
  dns_broken: Type.Boolean({ description: 'True while an active domain\'s DNS no longer points at the service (it keeps serving; a hostname.dns_broken event was sent when it started); false otherwise' }),
});

const TrackProblem = Type.Union([Type.Object({
  code: Type.String({ description: 'Stable code (docs/zero-downtime-moves.md): ownership_txt_missing, ownership_txt_mismatch, delegation_cname_missing, caa_forbids_ca, challenge_failed, pending_validations_limit, certificate_orders_limit, …' }),
  message: Type.String(),
}), Type.Null()], { description: 'What blocks this track; null when nothing does' });

export const OwnershipTrack = Type.Object({
  status: Type.Union([Type.Literal('pending'), Type.Literal('verified'), Type.Literal('not_required')], { description: 'verified: the TXT record holds the token, or DNS points at us; not_required: zero-downtime moves are off on this service (point DNS at us directly)' }),
  method: Type.Union([Type.Literal('dns_txt'), Type.Literal('dns_target'), Type.Null()], { description: 'dns_txt: the TXT record; dns_target: the hostname points at us' }),
  record: Type.Union([DnsRecord, Type.Null()], { description: 'The TXT record that proves ownership before DNS is switched (also in dns_records)' }),
  checked_at: Type.Union([Timestamp, Type.Null()]),
  verified_at: Type.Union([Timestamp, Type.Null()]),
  problem: TrackProblem,
}, { description: 'Ownership track of a zero-downtime move, independent of `status`' });

export const CertificateTrack = Type.Object({
  status: Type.Union([Type.Literal('none'), Type.Literal('pending_validation'), Type.Literal('issued'), Type.Literal('deployed')], { description: 'none → pending_validation → issued → deployed (served by the edge)' }),
  method: Type.Union([Type.Literal('dns-01'), Type.Literal('http-01'), Type.Null()], { description: 'How the certificate authority validates: dns-01 through the delegated _acme-challenge CNAME (before DNS is switched), http-01 once DNS points at us' }),
  problem: TrackProblem,
  updated_at: Type.Union([Timestamp, Type.Null()]),
}, { description: 'Certificate track, independent of `status`' });

export const Domain = Type.Object({
  id: Type.String({ description: 'Identifier (dom_…)' }),
  hostname: Type.String({ description: 'Lowercase, punycode for IDNs' }),
  destination_id: Type.String(),
  status: DomainStatus,
  dns_records: Type.Array(DnsRecord),
  verification: Verification,
  ownership: OwnershipTrack,
  certificate: CertificateTrack,
  external_customer_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

/** GET /v1/domains/{id} only: what the edge carried for this hostname in the current period. */
export const DomainBandwidth = Type.Object({
  period_start: Timestamp,
  period_end: Timestamp,
  bytes_in: Type.Integer({ description: 'HTTP bytes received from clients (request line, headers, body), as the edge counts them' }),
  bytes_out: Type.Integer({ description: 'HTTP bytes sent to clients (status line, headers, body)' }),
  bytes: Type.Integer({ description: 'bytes_in + bytes_out: what GET /v1/usage sums as bandwidth_bytes' }),
}, { description: "The organization's current usage period (GET /v1/usage); measured every minute by the edge, reported, never billed" });

export const DomainDetail = Type.Object({ ...Domain.properties, bandwidth: DomainBandwidth });

export const CreateDomainBody = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 300 }),
  destination_id: Type.String({ minLength: 1, maxLength: 64 }),
  external_customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
}, { additionalProperties: false });

export const DomainIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
