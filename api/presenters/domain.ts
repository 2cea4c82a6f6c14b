import type { Static } from 'typebox';
import type { Config } from '../../config/index.ts';
import type { DomainRow } from '../../db/repositories/domains.ts';
import { dnsRecordsFor } from '../../model/dns-records.ts';
import type { Domain, Verification } from '../schemas/domains.ts';

type VerificationOut = Static<typeof Verification>;

export function presentDomain(d: DomainRow, config: Config): Static<typeof Domain> {
  const expected = dnsRecordsFor({ hostname: d.hostname, isApex: d.is_apex }, { cnameTarget: config.cnameTarget, ipv4: config.edgeIpv4, ipv6: config.edgeIpv6 });
  const stored = (d.verification ?? {}) as Partial<VerificationOut>;
  return {
    id: d.id,
    hostname: d.hostname,
    destination_id: d.destination_id,
    status: d.status,
    dns_records: expected,
    verification: {
      checked_at: stored.checked_at ?? null,
      expected,
      found: stored.found ?? null,
      problem: stored.problem ?? null,
      verify_requested_at: d.verify_requested_at,
    },
    external_customer_id: d.external_customer_id,
    created_at: d.created_at,
    updated_at: d.updated_at,
  };
}
