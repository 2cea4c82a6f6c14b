import { domainToUnicode } from 'node:url';
import type { Static } from 'typebox';
import type { Config } from '../../config/index.ts';
import type { CertificateFacts } from '../../db/repositories/certificate-lifecycle.ts';
import type { DomainRow } from '../../db/repositories/domains.ts';
import { relativeName } from '../../model/dns-records.ts';
import { normalizeHostname } from '../../model/hostname.ts';
import type { WidgetDomain } from '../schemas/widget.ts';
import { presentDomain } from './domain.ts';

/** The zone (registrable domain) of a stored, already normalised hostname. */
export function zoneOf(hostname: string): string {
  const parsed = normalizeHostname(hostname, { serviceDomain: '' });
  return parsed.ok ? parsed.registrableDomain : hostname;
}

/** `facts`: the domain's newest certificate (certificateLifecycleRepository.latestFacts). */
export function presentWidgetDomain(d: DomainRow, config: Config, facts: CertificateFacts | null = null): Static<typeof WidgetDomain> {
  const full = presentDomain(d, config, facts);
  const zone = zoneOf(d.hostname);
  const relative = (name: string) => { try { return relativeName(name, zone); } catch { return name; } };
  return {
    id: full.id,
    hostname: full.hostname,
    // The browser has no IDNA decoder: the element shows these, as the customer typed them.
    hostname_unicode: domainToUnicode(full.hostname) || full.hostname,
    zone,
    zone_unicode: domainToUnicode(zone) || zone,
    status: full.status,
    dns_records: full.dns_records.map((r) => ({ type: r.type, name: r.name, relative_name: relative(r.name), value: r.value })),
    verification: full.verification,
    ownership: full.ownership,
    certificate: full.certificate,
    // Safe to show the customer: what their hostname does. Never metadata (the vendor's own values).
    redirect: full.redirect,
    tls: full.tls,
    created_at: full.created_at,
    updated_at: full.updated_at,
  };
}
