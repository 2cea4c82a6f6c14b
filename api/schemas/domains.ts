import { Type } from 'typebox';
import { domainStatuses } from '../../model/domain-status.ts';
import { Timestamp } from './common.ts';

export const DnsRecord = Type.Object({
  type: Type.String({ description: 'Record type: CNAME, A or AAAA' }),
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
});

export const Domain = Type.Object({
  id: Type.String({ description: 'Identifier (dom_…)' }),
  hostname: Type.String({ description: 'Lowercase, punycode for IDNs' }),
  destination_id: Type.String(),
  status: DomainStatus,
  dns_records: Type.Array(DnsRecord),
  verification: Verification,
  external_customer_id: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  updated_at: Timestamp,
});

export const CreateDomainBody = Type.Object({
  hostname: Type.String({ minLength: 1, maxLength: 300 }),
  destination_id: Type.String({ minLength: 1, maxLength: 64 }),
  external_customer_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
}, { additionalProperties: false });

export const DomainIdParams = Type.Object({ id: Type.String({ minLength: 1, maxLength: 64 }) });
