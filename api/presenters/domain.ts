import type { Static } from 'typebox';
import type { Config } from '../../config/index.ts';
import type { DomainRow } from '../../db/repositories/domains.ts';
import type { DomainBandwidthRow } from '../../db/repositories/usage.ts';
import { dnsRecordsFor } from '../../model/dns-records.ts';
import type { Domain, DomainBandwidth, Verification } from '../schemas/domains.ts';

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

/**
 * The domain's bytes this period. Every domain's organization has a usage row (the domain
 * triggers made it); should it be missing, the figures are zero for the calendar month.
 */
export function presentBandwidth(b: DomainBandwidthRow | null, now = new Date()): Static<typeof DomainBandwidth> {
  if (!b) {
    const start = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
    const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
    return { period_start: start.toISOString(), period_end: end.toISOString(), bytes_in: 0, bytes_out: 0, bytes: 0 };
  }
  return { period_start: b.period_start, period_end: b.period_end, bytes_in: b.bytes_in, bytes_out: b.bytes_out, bytes: b.bytes_in + b.bytes_out };
}
