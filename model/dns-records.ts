// The DNS records a customer must create, as shown in `dns_records` and by the widget. An apex (the
// zone's own name) cannot hold a CNAME next to its SOA/NS records, so it points at the edge by
// address instead; everything below the apex follows our CNAME target, so edge moves need no
// customer action.

export interface DnsRecord { type: 'CNAME' | 'A' | 'AAAA' | 'TXT'; name: string; value: string }

export interface EdgeTargets { cnameTarget: string; ipv4: string[]; ipv6: string[] }

/**
 * Records for a normalised hostname (see `normalizeHostname`). `name` is the full hostname; use
 * `relativeName` for the form most DNS providers' forms expect. An apex with no edge addresses
 * configured gets no records (the deployment has to set HOSTGATE_EDGE_IPV4 to support apexes).
 */
export function dnsRecordsFor(domain: { hostname: string; isApex: boolean }, edge: EdgeTargets): DnsRecord[] {
  const name = domain.hostname;
  if (!domain.isApex) return [{ type: 'CNAME', name, value: edge.cnameTarget.toLowerCase().replace(/\.$/, '') }];
  return [
    ...unique(edge.ipv4).map((value): DnsRecord => ({ type: 'A', name, value })),
    ...unique(edge.ipv6).map((value): DnsRecord => ({ type: 'AAAA', name, value: value.toLowerCase() })),
  ];
}

/**
 * The hostname relative to its zone: '@' for the apex, 'shop' for shop.customer.com,
 * 'a.b' for a.b.customer.co.uk. Throws when `hostname` is not within `registrableDomain`, which
 * means the caller mixed up two domains.
 */
export function relativeName(hostname: string, registrableDomain: string): string {
  const host = hostname.toLowerCase().replace(/\.$/, '');
  const zone = registrableDomain.toLowerCase().replace(/\.$/, '');
  if (host === zone) return '@';
  if (zone !== '' && host.endsWith(`.${zone}`)) return host.slice(0, -(zone.length + 1));
  throw new Error(`relativeName: ${hostname} is not within ${registrableDomain}`);
}

function unique(values: string[]): string[] {
  return [...new Set(values.map((v) => v.trim()).filter(Boolean))];
}
